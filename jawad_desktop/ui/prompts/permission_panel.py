"""The permission prompt: a panel inside the chat, never a modal dialog (spec 001 PERMISSION_REQUEST).

It shows the tool, the site, the level, the arguments, the reason, the highlighted element, the
flags (critical action, target taken from the page) and the five decisions, each with an Alt
shortcut. Requests that arrive while one is shown wait in a queue. The time left is shown from
the request's own deadline; the clock that decides is the gate's (``core.harbor.gate``): when the
gate settles a request on its own (no answer in time, Stop), ``settle`` closes it here.

Wiring: ``bridge.permission_request -> panel.show_request``, ``bridge.permission_settled ->
panel.settle`` and ``panel.decided -> gate.respond``. An MCP server's request for the model
(``mcp_sampling``) shows its last message in an editable box; an edit is sent with
``revised(sample, text)`` (to ``Sampler.revise``) before the decision.
"""

from __future__ import annotations

import html
import json
import logging
from collections import deque

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from jawad_desktop.core.events import PermissionRequest, PermissionSettled
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.prompts.prompt_panel import PromptPanel, panel_text

log = logging.getLogger("jawad.ui.permissions")

# (decision, button text with its Alt mnemonic, what it means)
DECISIONS: tuple[tuple[str, str, str], ...] = (
    ("allow-once", "Allow &once", "Run this action this one time"),
    ("allow-site", "Allow on this &site", "Always allow this tool on this site (saved; revoke in Settings)"),
    ("allow-session", "Allow for this s&ession", "Allow this tool on this site until Jawad closes"),
    ("deny", "&Deny", "Do not run this action"),
    ("deny-all", "Deny &all", "Deny this and every further action of this request"),
)
DECISION_ICONS: dict[str, tuple[str, str]] = {  # (icon, colour role) beside each answer's words
    "allow-once": ("check", "success"), "allow-site": ("shield-check", "success"),
    "allow-session": ("clock", "success"), "deny": ("x", "danger"), "deny-all": ("ban", "danger"),
}


class PermissionPanel(PromptPanel[PermissionRequest]):
    """Shows one permission request at a time and emits ``decided(request_id, decision)``."""

    decided = Signal(str, str)
    revised = Signal(str, str)  # an MCP sampling request's id, the user's text for its last message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, name="permissionPanel", accessible_name="Permission request", countdown=True)
        self.queue: deque[PermissionRequest] = deque()

        self.title = panel_text(self, "permissionTitle")
        self.flags = panel_text(self, "permissionFlags")
        self.details = panel_text(self, "permissionDetails", rich=True, selectable=True)
        self.sample_text = QPlainTextEdit(self)  # an MCP server's request for the model, editable
        self.sample_text.setAccessibleName("What the server asks your model (you may edit it)")
        self.sample_text.setMaximumHeight(80)
        self.sample_text.hide()
        self._sample_shown = ""

        # Two buttons a row.
        buttons = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for n, (decision, text, tip) in enumerate(DECISIONS):
            button = QPushButton(text, self)
            button.setObjectName(f"permission-{decision}")
            button.setAccessibleName(text.replace("&", ""))
            button.setToolTip(tip)
            button.setIcon(icon(*DECISION_ICONS[decision]))
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, d=decision: self.decide(d))
            buttons.addWidget(button, n // 2, n % 2)
            self.buttons[decision] = button

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.flags)
        layout.addWidget(self.details)
        layout.addWidget(self.sample_text)
        layout.addLayout(buttons)
        layout.addWidget(self.countdown)
        self.hide()

    def safe_answer(self) -> bool:
        """Escape while the panel (or one of its buttons) has focus: deny."""
        self.decide("deny")
        return True

    # -- requests ------------------------------------------------------------------------------

    def show_request(self, request: PermissionRequest) -> None:
        """Show ``request`` now, or after the ones already waiting."""
        if self.current is not None:
            self.queue.append(request)
            self.update_countdown()
            return
        where = f" on <b>{html.escape(request.site)}</b>" if request.site else ""
        self.title.setText(f"Jawad wants to use <b>{html.escape(request.tool_name)}</b>{where} "
                           f"({html.escape(request.permission_level)})")
        flags = []
        if request.critical:
            flags.append("⚠ This looks like a purchase, payment, deletion or sign-up. Check it carefully.")
        if request.from_page_content:
            flags.append("⚠ The target or text comes from the web page, not from what you asked.")
        if request.data_flow:  # values read on one site leaving for another: a yes is for this call only
            flags.append(f"⚠ {request.data_flow}.")
        self.flags.setText("\n".join(flags))
        self.flags.setVisible(bool(flags))
        colours = theme.current().colours  # legible on the theme's background, high contrast included
        self.flags.setStyleSheet(f"color: {colours.danger}; font-weight: bold;" if request.critical
                                 or request.data_flow else f"color: {colours.warning};")
        rows = [f"<i>{html.escape(request.reason)}</i>"]
        if request.element_hint:
            rows.append(f"Element (highlighted in the browser): <code>{html.escape(request.element_hint)}</code>")
        if request.parameters:
            shown = json.dumps(request.parameters, ensure_ascii=False)
            rows.append(f"Arguments: <code>{html.escape(shown[:400])}</code>")
        self.details.setText("<br>".join(rows))
        messages = request.parameters.get("messages") if request.tool_name == "mcp_sampling" else None
        last = next((m for m in reversed(messages) if isinstance(m, str) and m.startswith("user: ")), None) \
            if isinstance(messages, list) else None
        self._sample_shown = last[len("user: "):] if last is not None else ""
        self.sample_text.setPlainText(self._sample_shown)
        self.sample_text.setVisible(last is not None)
        for decision, button in self.buttons.items():
            # Data leaving for another site is never granted for a site or the session.
            button.setEnabled(not (request.data_flow and decision in ("allow-site", "allow-session")))
        self.open_prompt(request)

    def decide(self, decision: str) -> None:
        """Answer the request shown (a button, its Alt shortcut, or Escape for deny)."""
        request = self.release()
        if request is None:
            return
        edited = self.sample_text.toPlainText()
        if self.sample_text.isVisible() and edited != self._sample_shown and decision.startswith("allow"):
            self.revised.emit(str(request.parameters.get("sample", "")), edited)
        log.info("permission %s for %s: %s", request.id, request.tool_name, decision)
        self.decided.emit(request.id, decision)
        self._next()

    def settle(self, event: PermissionSettled) -> None:
        """The gate settled a request: answered here (nothing left to do), or on its own: no
        answer in time (said for a moment), or the run was stopped (closed at once)."""
        self.queue = deque(r for r in self.queue if r.id != event.id)
        if self.current is None or self.current.id != event.id:
            return
        if event.outcome != "timeout":
            self.release()
            self._next()
            return
        log.info("permission %s: no answer, denied", event.id)
        self.expire("No answer in time: the action was denied.", list(self.buttons.values()), self._after_expiry)

    def _next(self) -> None:
        if self.queue:
            self.show_request(self.queue.popleft())
        else:
            self.hide()

    def _after_expiry(self) -> None:
        if self.current is None:  # a request that arrived meanwhile is already showing
            self._next()

    def countdown_text(self, request: PermissionRequest, left_s: int) -> str:
        waiting = f" · {len(self.queue)} more waiting" if self.queue else ""
        return (f"Denied automatically in {left_s} s{waiting}. "
                "Alt+O once · Alt+S site · Alt+E session · Alt+D deny · Alt+A deny all")
