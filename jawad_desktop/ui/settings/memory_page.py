"""Settings → Memory: what Jawad remembers across conversations (``core.store.memory``).

The facts, newest first: add one, change one in place (F2 or a double click), forget the
selected ones (Del). A switch turns memory off: the facts stay, but no message carries them and
"Remember that …" is sent to the model like any message. The list follows every change, made
here, in a chat ("Remember that …", a message's Remember) or by ``jawad memory``
(``MemoriesChanged``).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QObject, Qt, Signal, SignalInstance
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.memory import MAX_FACT_CHARS, MemoryStore
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import button, field_row, fill_list, help_line, line_edit, set_status, status_line

log = logging.getLogger("jawad.ui.settings")

HELP = ("Facts you asked Jawad to remember (say \"Remember that …\" in a chat, or use a message's "
        "Remember). The ones that fit a message go to the model with it, so it knows them in every "
        "conversation. Nothing a web page or the model says is remembered.")


class MemoryPage(QWidget):
    """Settings → Memory."""

    changed = Signal()

    def __init__(self, ctx: AppContext, memory: MemoryStore, events: SignalInstance,
                 parent: QWidget | None = None) -> None:
        """``events``: the bridge's signal for core events without one of their own (``other``)."""
        super().__init__(parent)
        self.ctx = ctx
        self.memory = memory
        self.enabled = QCheckBox("&Use what Jawad remembers in every conversation", self)
        self.enabled.setAccessibleName("Use memory")
        self.enabled.setChecked(ctx.settings.memory.enabled)
        self.list = QListWidget(self)
        self.list.setAccessibleName("Remembered facts")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setWordWrap(True)
        self.new_fact = line_edit("A fact to remember", self, hint="e.g. I am vegetarian")
        self.new_fact.setMaxLength(MAX_FACT_CHARS)
        self.add_button = button("&Remember", "Remember this fact", self)
        self.remove_button = button("&Forget", "Forget the selected facts (Del)", self)
        self.status = status_line("Memory status", self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.enabled)
        layout.addWidget(help_line(HELP, self, describes=self.enabled))
        layout.addWidget(self.list, 1)
        layout.addLayout(field_row(self.new_fact, self.add_button))
        layout.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self.enabled.toggled.connect(self._toggle)
        self.add_button.clicked.connect(self.add_fact)
        self.new_fact.returnPressed.connect(self.add_fact)
        self.remove_button.clicked.connect(self.forget_selected)
        self.list.installEventFilter(self)  # Del forgets the selected facts
        self.list.itemChanged.connect(self._edited)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        events.connect(self._event)
        self.refresh()

    def refresh(self) -> None:
        """Fill the list from the store."""
        self.list.blockSignals(True)
        try:
            facts = self.memory.facts()
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            facts = []
        fill_list(self.list, ((fact.text, fact.id) for fact in facts), editable=True)
        self.list.blockSignals(False)
        self.list.setEnabled(self.enabled.isChecked() or bool(facts))
        self._update_buttons()

    def add_fact(self) -> None:
        text = self.new_fact.text()
        try:
            saved = self.memory.add(text)
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            return
        self.new_fact.clear()
        set_status(self.status, f"Remembered: {saved.text}")

    def forget_selected(self) -> None:
        items = self.list.selectedItems()
        for item in items:
            self.memory.remove(int(item.data(Qt.ItemDataRole.UserRole)))
        if items:
            set_status(self.status, f"Forgot {len(items)} fact{'s' if len(items) != 1 else ''}.")

    def _edited(self, item: QListWidgetItem) -> None:
        try:
            self.memory.edit(int(item.data(Qt.ItemDataRole.UserRole)), item.text())
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            self.refresh()  # the words as they were

    def _toggle(self, on: bool) -> None:
        self.ctx.settings.memory.enabled = on
        self.ctx.save_settings()
        set_status(self.status, "Memory is on." if on else "Memory is off: no message carries these facts.")
        self.changed.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.list and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Delete and self.list.state() != QAbstractItemView.State.EditingState):
            self.forget_selected()
            return True
        return super().eventFilter(watched, event)

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.list.selectedItems()))

    def _event(self, event: object) -> None:
        if isinstance(event, ev.MemoriesChanged):
            self.refresh()
