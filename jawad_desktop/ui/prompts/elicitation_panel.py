"""An MCP server's question mid-call (elicitation), answered in the window: a panel above the
chat's input, never a modal dialog, never filled in by the model.

The core emits ``ElicitationRequested`` and waits (``core.mcp.elicitation``). The panel shows the
server's message and a form built from the requested schema, its defaults filled in: a line for
text and numbers, a check box for yes/no, a list for a choice, check boxes for several choices.
Send answers it (the core checks the values; what does not fit is shown and the panel stays),
Decline says no, Cancel dismisses it. In URL mode the panel offers to open the server's page in
the browser instead. Whatever settles the question comes back as ``ElicitationSettled`` and
closes it.

Wiring (the presenter): ``bridge.other`` -> ``show_request`` / ``settle``; ``respond`` is the
assistant's ``elicitations.respond``.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.events import ElicitationRequested, ElicitationSettled
from jawad_desktop.core.mcp.elicitation import choices, fields
from jawad_desktop.ui.look.theme import SPACE
from jawad_desktop.ui.prompts.prompt_panel import panel_text

log = logging.getLogger("jawad.ui.elicitation")

Respond = Callable[[str, str, dict[str, Any]], list[str]]


class ElicitationPanel(QFrame):
    """Shows one server question at a time (see the module docstring)."""

    def __init__(self, respond: Respond, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("elicitationPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("A question from an MCP server")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.respond = respond
        self.current: ElicitationRequested | None = None
        self.inputs: dict[str, Callable[[], Any]] = {}  # field -> what the user entered

        self.message = panel_text(self, rich=True)
        self.form_host = QWidget(self)
        self.form = QFormLayout(self.form_host)
        self.problems = panel_text(self, "elicitationProblems")
        self.problems.hide()
        self.send_button = QPushButton("Send", self)
        self.send_button.setObjectName("elicitationSend")
        self.send_button.clicked.connect(self.send)
        self.decline_button = QPushButton("Decline", self)
        self.decline_button.setObjectName("elicitationDecline")
        self.decline_button.clicked.connect(lambda: self._answer("decline"))
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("elicitationCancel")
        self.cancel_button.clicked.connect(lambda: self._answer("cancel"))

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.send_button, self.decline_button, self.cancel_button):
            buttons.addWidget(button)
        column = QVBoxLayout(self)
        column.setContentsMargins(SPACE["sm"], SPACE["xs"], SPACE["sm"], SPACE["xs"])
        column.addWidget(self.message)
        column.addWidget(self.form_host)
        column.addWidget(self.problems)
        column.addLayout(buttons)
        self.hide()

    def show_request(self, request: ElicitationRequested) -> None:
        self.current = request
        self.inputs = {}
        while self.form.rowCount():
            self.form.removeRow(0)
        server, message = html.escape(request.server), html.escape(request.message)
        self.message.setText(f"<b>The MCP server {server} asks:</b> {message}")
        if request.url:
            link = html.escape(request.url)
            self.message.setText(self.message.text() + f"<br>It wants you to open <i>{link}</i>.")
            self.send_button.setText("Open the page")
        else:
            self.send_button.setText("Send")
            for name, spec, required in fields(request.schema):
                label = str(spec.get("title") or name) + ("" if required else " (optional)")
                widget, value = self._input(name, spec)
                if spec.get("description"):
                    widget.setToolTip(str(spec["description"]))
                widget.setAccessibleName(label)
                self.form.addRow(label, widget)
                self.inputs[name] = value
        self.form_host.setVisible(bool(self.inputs))
        self.problems.hide()
        self.show()
        self.send_button.setFocus()

    def _input(self, name: str, spec: dict[str, Any]) -> tuple[QWidget, Callable[[], Any]]:
        """The widget for one field, its default shown, and how to read it."""
        default = spec.get("default")
        options = choices(spec)
        if spec.get("type") == "array":
            box = QWidget(self.form_host)
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 0, 0)
            checks = []
            for value, title in options:
                check = QCheckBox(title, box)
                check.setObjectName(f"elicit_{name}_{value}")
                check.setChecked(isinstance(default, list) and value in default)
                row.addWidget(check)
                checks.append((value, check))
            return box, lambda: [value for value, check in checks if check.isChecked()]
        if options:
            combo = QComboBox(self.form_host)
            combo.setObjectName(f"elicit_{name}")
            combo.addItem("", "")
            for value, title in options:
                combo.addItem(title, value)
            if default is not None:
                combo.setCurrentIndex(max(0, combo.findData(str(default))))
            return combo, lambda: combo.currentData()
        if spec.get("type") == "boolean":
            check = QCheckBox(self.form_host)
            check.setObjectName(f"elicit_{name}")
            check.setChecked(bool(default))
            return check, check.isChecked
        line = QLineEdit(self.form_host)
        line.setObjectName(f"elicit_{name}")
        if default is not None:
            line.setText(str(default))
        return line, lambda: line.text().strip()

    def send(self) -> None:
        if self.current is None:
            return
        values = {name: read() for name, read in self.inputs.items()}
        if self.current.url:
            QDesktopServices.openUrl(QUrl(self.current.url))
        self._answer("accept", values)

    def _answer(self, action: str, values: dict[str, Any] | None = None) -> None:
        if self.current is None:
            return
        problems = self.respond(self.current.id, action, values or {})
        if problems:
            self.problems.setText("\n".join(problems))
            self.problems.show()
            return
        self._close()

    def settle(self, settled: ElicitationSettled) -> None:
        if self.current is not None and settled.id == self.current.id:
            self._close()

    def _close(self) -> None:
        self.current = None
        self.inputs = {}
        self.hide()
