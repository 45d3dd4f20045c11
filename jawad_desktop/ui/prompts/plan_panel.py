"""Plan-first mode's plan, shown for approval: a panel inside the chat, never a modal dialog.

With plan-first mode on (Settings → Agent) the agent proposes, before acting, the sites it will
use, the kinds of actions with what each is for, and its steps (``core.harbor.plan_approval``). This panel
shows them with Approve (Ctrl+Return, also while typing elsewhere in the window) and Reject
(Escape while the panel has the focus). The clock is the core's: the time left is shown from
the plan's own deadline, and whatever settles the plan (an answer, the timeout, Stop) comes back
as ``PlanSettled`` and closes it.

Wiring: ``bridge.plan_proposed -> panel.show_plan``, ``bridge.plan_settled -> panel.settle`` and
``panel.answered -> gate.plans.respond``.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from jawad_desktop.core.events import PlanProposed, PlanSettled
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.prompts.prompt_panel import YesNoPanel, panel_text

APPROVE_KEYS = "Ctrl+Return"


class PlanPanel(YesNoPanel[PlanProposed]):
    """Shows one proposed plan and emits ``answered(plan_id, approved)``.

    ``shortcut_parent``: where Ctrl+Return works (the window; the panel itself by default).
    """

    ANSWERS = ("approved", "rejected")

    def __init__(self, parent: QWidget | None = None, *, shortcut_parent: QWidget | None = None) -> None:
        super().__init__(parent, name="planPanel", accessible_name="Plan to approve", countdown=True,
                         yes_keys=APPROVE_KEYS, on_yes=lambda: self.answer(True), shortcut_parent=shortcut_parent)
        self.title = panel_text(self, "planTitle", rich=True)
        self.details = panel_text(self, "planDetails", rich=True, selectable=True)
        self.approve_button = QPushButton("A&pprove", self)
        self.approve_button.setObjectName("planApprove")
        self.approve_button.setAccessibleName("Approve the plan")
        self.approve_button.setToolTip(f"Let Jawad act within this plan without asking again ({APPROVE_KEYS})")
        self.approve_button.setAutoDefault(False)
        self.approve_button.setIcon(icon("check", "success"))
        self.approve_button.clicked.connect(lambda: self.answer(True))
        self.reject_button = QPushButton("Re&ject", self)
        self.reject_button.setObjectName("planReject")
        self.reject_button.setAccessibleName("Reject the plan")
        self.reject_button.setToolTip("Nothing is done; ask again with what to change (Escape)")
        self.reject_button.setAutoDefault(False)
        self.reject_button.setIcon(icon("x", "danger"))
        self.reject_button.clicked.connect(lambda: self.answer(False))

        buttons = QHBoxLayout()
        buttons.addWidget(self.approve_button)
        buttons.addWidget(self.reject_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        layout.addWidget(self.countdown)
        self.hide()

    def safe_answer(self) -> bool:
        """Escape while the panel (or one of its buttons) has focus: reject."""
        self.answer(False)
        return True

    def show_plan(self, plan: PlanProposed) -> None:
        """Show ``plan`` (one at a time: the agent waits on it)."""
        request = " ".join(plan.request.split())
        shown = html.escape(request[:200] + ("…" if len(request) > 200 else ""))
        self.title.setText("<b>Jawad proposes a plan</b>" + (f" for: <i>{shown}</i>" if shown else ""))
        rows = ["<b>Sites:</b> " + (html.escape(", ".join(plan.sites)) or "none")]
        rows.append("<b>Actions:</b><ul style='margin:0'>"
                    + "".join(f"<li>{html.escape(a)}</li>" for a in plan.actions) + "</ul>")
        if plan.steps:
            rows.append("<b>Steps:</b><ol style='margin:0'>"
                        + "".join(f"<li>{html.escape(s)}</li>" for s in plan.steps) + "</ol>")
        rows.append("<i>Approved, what stays within it runs without asking; anything else asks. Purchases and "
                    "data sent to another site always ask.</i>")
        self.details.setText("".join(rows))
        self.setAccessibleDescription(f"Sites: {', '.join(plan.sites) or 'none'}. Actions: {'; '.join(plan.actions)}.")
        self.approve_button.setEnabled(True)
        self.reject_button.setEnabled(True)
        self.open_prompt(plan)
        self.approve_button.setFocus()

    def settle(self, event: PlanSettled) -> None:
        """The plan was settled: answered here (closed already), or by the timeout or Stop."""
        if self.current is None or self.current.id != event.id:
            return
        if event.outcome != "timeout":
            self.close_prompt()
            return
        self.expire("No answer in time: the plan was rejected.", [self.approve_button, self.reject_button],
                    lambda: self.hide() if self.current is None else None)

    def countdown_text(self, request: PlanProposed, left_s: int) -> str:
        return f"Rejected automatically in {left_s} s. {APPROVE_KEYS} approves · Alt+R rejects"
