"""The tray icon and its menu: Show/Hide Jawad, Quick ask…, New chat, Push to talk, Settings…, Quit.

``TrayMenu`` owns the menu and what each entry does, through a ``TrayActions`` (the window side:
``ui.desktop.shell`` provides it); it exists whether or not the desktop has a system tray, so the
same actions are tested everywhere. ``TrayMenu.icon`` is the ``QSystemTrayIcon``, made only where
``QSystemTrayIcon.isSystemTrayAvailable()``; ``unavailable_reason`` says why not otherwise.
While the wake word listens (``ui.desktop.wake_service``), ``show_listening(True)`` gives the icon a red
microphone badge and says so in its tooltip: the open microphone is never hidden.
"""

from __future__ import annotations

import logging
from typing import Protocol

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from jawad_desktop import APP_NAME
from jawad_desktop.ui.look.icons import render
from jawad_desktop.ui.look.resources import app_icon

log = logging.getLogger("jawad.ui.tray")

NO_TRAY = ("This desktop has no system tray (no status-notifier or tray area), so Jawad has no tray "
           "icon and closing the window quits it.")
LISTENING_TIP = f"{APP_NAME}: the microphone is on, listening for “Hey Jawad” (Settings → Voice turns it off)"


def listening_icon() -> QIcon:
    """The app icon with a red microphone badge in its lower right corner."""
    size = 64
    pixmap = app_icon().pixmap(size, size)
    if pixmap.isNull():
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    badge = QRectF(size * 0.5, size * 0.5, size * 0.5, size * 0.5)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#d93025"))
    painter.drawEllipse(badge)
    mic = render("mic", "on-accent", badge.size().toSize() * 0.7)
    painter.drawPixmap(badge.center() - mic.rect().center().toPointF(), mic)
    painter.end()
    return QIcon(pixmap)


class TrayActions(Protocol):
    """What the tray's entries ask the window side to do."""

    def window_shown(self) -> bool: ...
    def toggle_window(self) -> None: ...
    def quick_ask(self) -> None: ...
    def new_chat(self) -> None: ...
    def can_talk(self) -> bool: ...
    def talk(self) -> None: ...
    def open_settings(self) -> None: ...
    def quit(self) -> None: ...


class TrayMenu(QObject):
    """The tray's menu and, where the desktop has a tray, its icon."""

    def __init__(self, actions: TrayActions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.actions = actions
        self.menu = QMenu(APP_NAME, parent)
        self.menu.setAccessibleName(f"{APP_NAME} tray menu")
        self.show_action = self._add("Show Jawad", actions.toggle_window)
        self.quick_ask_action = self._add("Quick ask…", actions.quick_ask)
        self.new_chat_action = self._add("New chat", actions.new_chat)
        self.talk_action = self._add("Push to talk", actions.talk)
        self.menu.addSeparator()
        self.settings_action = self._add("Settings…", actions.open_settings)
        self.menu.addSeparator()
        self.quit_action = self._add("Quit", actions.quit)
        self.menu.aboutToShow.connect(self.refresh)
        self.refresh()
        self.icon: QSystemTrayIcon | None = None
        self.unavailable_reason = ""
        self.listening = False
        self.tooltip = APP_NAME  # what the icon's tooltip says (kept also where there is no tray)
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon = QSystemTrayIcon(app_icon(), self)
            self.icon.setToolTip(APP_NAME)
            self.icon.setContextMenu(self.menu)
            self.icon.activated.connect(self._activated)
            self.icon.show()
            log.info("tray icon shown")
        else:
            self.unavailable_reason = NO_TRAY
            log.info("no system tray on this desktop")

    def _add(self, text: str, slot: object) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def refresh(self) -> None:
        """The entries as they are now: Show or Hide, Push to talk only once voice is set up."""
        self.show_action.setText("Hide Jawad" if self.actions.window_shown() else "Show Jawad")
        can_talk = self.actions.can_talk()
        self.talk_action.setVisible(can_talk)
        self.talk_action.setEnabled(can_talk)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.actions.toggle_window()

    def show_listening(self, on: bool) -> None:
        """Show (or stop showing) that the wake word keeps the microphone open."""
        self.listening = on
        self.tooltip = LISTENING_TIP if on else APP_NAME
        if self.icon is not None:
            self.icon.setIcon(listening_icon() if on else app_icon())
            self.icon.setToolTip(self.tooltip)

    @property
    def available(self) -> bool:
        return self.icon is not None

    def dispose(self) -> None:
        if self.icon is not None:
            self.icon.hide()
            self.icon.setContextMenu(None)  # type: ignore[arg-type]
