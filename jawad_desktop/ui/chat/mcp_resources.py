"""The composer's MCP resources: the menu of what the servers offer (their resources, then their resource
templates), and the dialog that fills a template's parameters, each field completed by the server while it
is typed (``completion/complete`` for the template). What is chosen is attached by the presenter, which
also follows it (a subscription): when the server says it changed, the attachment is read again."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QStringListModel, QTimer
from PySide6.QtWidgets import QCompleter, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QMenu, QWidget

from jawad_desktop.core.mcp.offers import McpResourceInfo, McpResourceTemplateInfo
from jawad_desktop.ui.base.background import run_async

log = logging.getLogger("jawad.ui")


def resource_menu(parent: QWidget, resources: list[McpResourceInfo], templates: list[McpResourceTemplateInfo],
                  attach: Callable[[str, str], None], fill: Callable[[McpResourceTemplateInfo], None]) -> QMenu:
    """The menu of the servers' resources (chosen: ``attach(server, uri)``) and templates (``fill(template)``)."""
    menu = QMenu(parent)
    menu.setAccessibleName("MCP resources")
    for resource in resources:
        action = menu.addAction(f"{resource.label} ({resource.server})")
        action.setToolTip(resource.uri)
        action.triggered.connect(lambda _=False, r=resource: attach(r.server, r.uri))
    if templates:
        menu.addSeparator()
    for template in templates:
        action = menu.addAction(f"{template.label}… ({template.server})")
        action.setToolTip(template.description or template.uri_template)
        action.triggered.connect(lambda _=False, t=template: fill(t))
    if not resources and not templates:
        menu.addAction("Your MCP servers offer no resources").setEnabled(False)
    return menu


class TemplateDialog(QDialog):
    """Fills a resource template's parameters; ``uri`` is the resource they name once accepted.
    ``connections`` completes each field as it is typed (given the fields already filled)."""

    PAUSE_MS = 200

    def __init__(self, template: McpResourceTemplateInfo, connections: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.template = template
        self.connections = connections
        self.setWindowTitle(f"{template.label} — {template.server}")
        layout = QFormLayout(self)
        if template.description:
            about = QLabel(template.description, self)
            about.setWordWrap(True)
            layout.addRow(about)
        self.fields: dict[str, QLineEdit] = {}
        for name in template.parameters:
            field = QLineEdit(self)
            field.setAccessibleName(name)
            completer = QCompleter(QStringListModel(self), field)
            completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
            field.setCompleter(completer)
            timer = QTimer(field)
            timer.setSingleShot(True)
            timer.setInterval(self.PAUSE_MS)
            timer.timeout.connect(lambda n=name: self._complete(n))
            field.textEdited.connect(lambda _text, t=timer: t.start())
            self.fields[name] = field
            layout.addRow(name, field)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Attach")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addRow(self.buttons)

    @property
    def values(self) -> dict[str, str]:
        return {name: field.text().strip() for name, field in self.fields.items() if field.text().strip()}

    @property
    def uri(self) -> str:
        return self.template.uri(self.values)

    def offered(self, name: str) -> list[str]:
        """The completions shown for ``name``'s field now."""
        completer = self.fields[name].completer()
        model, popup = completer.model(), completer.popup()
        return model.stringList() if isinstance(model, QStringListModel) and popup and popup.isVisible() else []

    def _complete(self, name: str) -> None:
        field = self.fields[name]
        typed = field.text()
        others = {k: v for k, v in self.values.items() if k != name}
        t = self.template

        def show(values: list[str]) -> None:
            if field.text() != typed or not values:
                return
            completer = field.completer()
            model = completer.model()
            if isinstance(model, QStringListModel):
                model.setStringList(values)
            completer.complete()

        run_async(self.connections.complete(t.server, "", name, typed, others, template=t.uri_template),
                  what="completing the template", on_done=show,
                  on_error=lambda exc: log.info("no completion of %s: %s", name, exc))

    def accept(self) -> None:
        missing = [name for name in self.template.parameters if name not in self.values]
        if missing:
            self.fields[missing[0]].setFocus()
            self.fields[missing[0]].setPlaceholderText("needed")
            return
        super().accept()
