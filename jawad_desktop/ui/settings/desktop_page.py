"""Settings → Tray and hotkeys: keep running in the tray, the two global hotkeys (key and on/off,
each with its state: active, taken by another application, or not possible on this desktop) and
desktop notifications. Changes are saved and applied as they are made (``changed``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.ui.look.controls import section_heading
from jawad_desktop.ui.look.theme import SPACE

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.desktop.shell import DesktopShell


class DesktopPage(QWidget):
    changed = Signal()

    def __init__(self, ctx: AppContext, shell: DesktopShell, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.shell = shell
        self.changed.connect(shell.apply_settings)
        desktop = ctx.settings.desktop
        self.keep_in_tray = QCheckBox("Keep running in the tray when the window is closed", self)
        self.keep_in_tray.setAccessibleName("Keep running in the tray when the window is closed")
        self.keep_in_tray.setChecked(desktop.keep_in_tray)
        self.tray_note = QLabel(shell.tray.unavailable_reason, self)
        self.tray_note.setAccessibleName("Tray note")
        self.tray_note.setWordWrap(True)
        self.tray_note.setVisible(not shell.tray.available)
        self.keep_in_tray.setEnabled(shell.tray.available)

        self.hotkey_note = QLabel(self)
        self.hotkey_note.setAccessibleName("Global hotkeys note")
        self.hotkey_note.setWordWrap(True)
        self.quick_ask_enabled, self.quick_ask_key, self.quick_ask_state = self._hotkey_row(
            "Quick ask", desktop.quick_ask_enabled, desktop.quick_ask_hotkey)
        self.talk_enabled, self.talk_key, self.talk_state = self._hotkey_row(
            "Push to talk", desktop.talk_enabled, desktop.talk_hotkey)

        self.notifications = QCheckBox("Notify me when a long answer is ready or Jawad waits for me "
                                       "while the window is in the background", self)
        self.notifications.setAccessibleName("Desktop notifications")
        self.notifications.setChecked(desktop.notifications)
        self.notify_after = QSpinBox(self)
        self.notify_after.setAccessibleName("An answer counts as long after this many seconds")
        self.notify_after.setRange(0, 3600)
        self.notify_after.setSuffix(" s")
        self.notify_after.setValue(round(desktop.notify_after_s))

        form = QFormLayout()
        form.addRow(self._row(self.quick_ask_enabled, self.quick_ask_key))
        form.addRow("", self.quick_ask_state)
        form.addRow(self._row(self.talk_enabled, self.talk_key))
        form.addRow("", self.talk_state)
        layout = QVBoxLayout(self)
        layout.addWidget(self.keep_in_tray)
        layout.addWidget(self.tray_note)
        layout.addSpacing(SPACE["md"])
        layout.addWidget(section_heading("Global hotkeys", self))
        layout.addWidget(QLabel("They work while another application has the focus.", self))
        layout.addWidget(self.hotkey_note)
        layout.addLayout(form)
        layout.addSpacing(SPACE["md"])
        layout.addWidget(self.notifications)
        after = QFormLayout()
        after.addRow("A long answer takes more than", self.notify_after)
        layout.addLayout(after)
        layout.addStretch(1)

        for box in (self.keep_in_tray, self.quick_ask_enabled, self.talk_enabled, self.notifications):
            box.toggled.connect(self._save)
        for edit in (self.quick_ask_key, self.talk_key):
            edit.editingFinished.connect(self._save)
            edit.keySequenceChanged.connect(self._cleared)
        self.notify_after.valueChanged.connect(self._save)
        shell.hotkeys.status_changed.connect(self.show_state)
        self.show_state()

    def _hotkey_row(self, what: str, enabled: bool, keys: str) -> tuple[QCheckBox, QKeySequenceEdit, QLabel]:
        box = QCheckBox(what, self)
        box.setAccessibleName(f"{what} hotkey on")
        box.setChecked(enabled)
        edit = QKeySequenceEdit(QKeySequence(keys), self)
        edit.setAccessibleName(f"{what} hotkey")
        edit.setMaximumSequenceLength(1)
        edit.setClearButtonEnabled(True)
        state = QLabel(self)
        state.setAccessibleName(f"{what} hotkey state")
        state.setWordWrap(True)
        return box, edit, state

    def _row(self, box: QCheckBox, edit: QKeySequenceEdit) -> QWidget:
        row = QWidget(self)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        box.setMinimumWidth(130)
        layout.addWidget(box)
        layout.addWidget(edit, 1)
        return row

    def _cleared(self, keys: QKeySequence) -> None:
        """The clear button (editing a key ends with ``editingFinished``)."""
        if keys.isEmpty():
            self._save()

    def _save(self) -> None:
        desktop = self.ctx.settings.desktop
        desktop.keep_in_tray = self.keep_in_tray.isChecked()
        desktop.quick_ask_enabled = self.quick_ask_enabled.isChecked()
        desktop.quick_ask_hotkey = self.quick_ask_key.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
        desktop.talk_enabled = self.talk_enabled.isChecked()
        desktop.talk_hotkey = self.talk_key.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
        desktop.notifications = self.notifications.isChecked()
        desktop.notify_after_s = float(self.notify_after.value())
        self.ctx.save_settings()
        self.changed.emit()

    def show_state(self) -> None:
        hotkeys = self.shell.hotkeys
        choice = hotkeys.choice
        note = choice.note if choice is not None and choice.kind == "none" else ""
        self.hotkey_note.setText(note)
        self.hotkey_note.setVisible(bool(note))
        hold = "hold the key while you speak" if hotkeys.holds else "press once to start, again to stop"
        self.quick_ask_state.setText(hotkeys.describe("quick_ask"))
        talk = hotkeys.describe("talk")
        self.talk_state.setText(f"{talk} Push to talk: {hold}." if "talk" in hotkeys.active else talk)
