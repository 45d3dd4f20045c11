"""The Settings dialog: every page of Settings, made here. Providers (with keys in the
keyring), Appearance, Network, Agent and Models; and, for the window, the pages of what it runs
(``add_window_pages``): site permissions, documents, memory and projects (its assistant's), MCP servers,
voice, and the tray and hotkeys (its desktop shell).

It is opened with ``open()`` and reports through signals; it never runs a nested event loop
(``exec()`` inside a coroutine breaks qasync, PLATFORM.md).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.look.controls import clear_status_lines
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE
from jawad_desktop.ui.settings.agent_page import AgentPage
from jawad_desktop.ui.settings.appearance_page import AppearancePage
from jawad_desktop.ui.settings.guide import Fold, arrange, page_header, page_icon
from jawad_desktop.ui.settings.models_page import ModelsPage
from jawad_desktop.ui.settings.network_page import NetworkPage
from jawad_desktop.ui.settings.providers_page import ProvidersPage

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.desktop.shell import DesktopShell

log = logging.getLogger("jawad.ui.settings")

SIZE = (980, 660)  # the size it opens at; never more than the screen (showEvent): usable at 1280x720


class SettingsDialog(QDialog):
    """Pages on the left, the page on the right. Changes save as they are made."""

    settings_changed = Signal()
    mcp_changed = Signal()  # an MCP server was added, changed or removed

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, **provider_hooks: Any) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self.resize(*SIZE)
        self.setSizeGripEnabled(True)
        self.ctx = ctx
        self.pages = QListWidget(self)
        self.pages.setAccessibleName("Settings pages")
        self.pages.setMaximumWidth(180)
        self.pages.setIconSize(QSize(18, 18))
        self.pages.setSpacing(SPACE["xxs"])
        self.folds: dict[str, list[Fold]] = {}  # a page's "More options" groups
        self.stack = QStackedWidget(self)
        self.providers = ProvidersPage(ctx, parent=self, **provider_hooks)
        self.appearance = AppearancePage(ctx, self)
        self.network = NetworkPage(ctx, self)
        self.agent = AgentPage(ctx, self)
        self.models = ModelsPage(ctx, self)
        self.add_page("Providers", self.providers)
        self.add_page("Appearance", self.appearance)
        self.add_page("Network", self.network)  # the names ui.base.remedies sends the user to
        self.add_page("Agent", self.agent)
        self.add_page("Models", self.models)
        self.providers.changed.connect(self.settings_changed)
        self.appearance.changed.connect(self.settings_changed)
        self.network.changed.connect(self.settings_changed)
        self.agent.changed.connect(self.settings_changed)
        self.models.changed.connect(self.settings_changed)
        self.models.changed.connect(lambda: self.providers.refresh())  # "Use this model" may add a provider
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        if close is not None:  # the theme's icon (the style's black cross vanished on high contrast's black)
            close.setIcon(icon("x"))
        body = QHBoxLayout()
        body.addWidget(self.pages)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.pages.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.pages.setCurrentRow(0)

    def add_page(self, title: str, widget: QWidget) -> None:
        """Add a page. It scrolls inside the dialog, so the dialog fits any screen (pages taller
        than the screen pushed Close and their own buttons off a 900-pixel one)."""
        self.pages.addItem(QListWidgetItem(icon(page_icon(title)), title))
        self.folds[title] = arrange(title, widget)  # headings, folded options, plain words (ui.settings.guide)
        scroller = QScrollArea(self.stack)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the page's controls
        scroller.setAccessibleName(title)
        holder = QWidget(scroller)
        column = QVBoxLayout(holder)
        column.setContentsMargins(SPACE["lg"], SPACE["md"], SPACE["lg"], SPACE["md"])
        column.addWidget(page_header(title, holder))
        column.addWidget(widget, 1)
        widget.setProperty("settingsPage", title)
        scroller.setWidget(holder)
        self.stack.addWidget(scroller)

    def add_window_pages(self, assistant: Assistant | None, bridge: EventBridge,
                         desktop: DesktopShell | None) -> None:
        """The pages of what the window runs: site permissions, documents, memory and projects (of its
        ``assistant``, when it has one), MCP servers (``mcp_changed`` after a change), voice, and
        the tray and hotkeys and the scheduled tasks (of its ``desktop`` shell, once it is made)."""
        if assistant is not None:
            from jawad_desktop.ui.settings.grants_page import GrantsPage

            self.add_page("Site permissions", GrantsPage(assistant.harbor, bridge.grants_changed, self))
            from jawad_desktop.ui.settings.library_page import LibraryPage

            self.add_page("Documents", LibraryPage(assistant.library, self.ctx.bus, self))
            if assistant.memory is not None:
                from jawad_desktop.ui.settings.memory_page import MemoryPage

                self.add_page("Memory", MemoryPage(self.ctx, assistant.memory, bridge.other, self))
            if assistant.store is not None:
                from jawad_desktop.core.store.projects import ProjectStore
                from jawad_desktop.ui.settings.projects_page import ProjectsPage

                self.add_page("Projects", ProjectsPage(self.ctx, ProjectStore(assistant.store.db, bus=self.ctx.bus),
                                                       bridge.other, bridge.conversations_changed, self))
        try:
            from jawad_desktop.ui.settings.mcp_page import McpPage

            mcp_page = McpPage(self.ctx, self)
            self.add_page("MCP servers", mcp_page)
            mcp_page.changed.connect(self.mcp_changed)
        except Exception as exc:
            log.warning("MCP settings unavailable: %s", exc)
        try:
            from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

            voice_page = VoiceSettingsPage(self.ctx, self)
            self.add_page("Voice", voice_page)
            if desktop is not None:  # the wake word ("Hey Jawad") is the desktop shell's
                voice_page.changed.connect(desktop.apply_settings)
        except Exception as exc:  # a missing audio library must not hide the other pages
            log.warning("voice settings unavailable: %s", exc)
        if desktop is not None:
            from jawad_desktop.ui.settings.desktop_page import DesktopPage

            self.add_page("Tray and hotkeys", DesktopPage(self.ctx, desktop, self))
            if desktop.tasks is not None:
                from jawad_desktop.ui.settings.tasks_page import TasksPage

                self.add_page("Tasks", TasksPage(desktop.tasks, bridge.other, self))

    def current_page(self) -> QWidget:
        """The page on show (inside its scroller)."""
        holder = cast(QWidget, cast(QScrollArea, self.stack.currentWidget()).widget())
        return next(child for child in holder.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                    if child.property("settingsPage"))

    def hideEvent(self, event: QHideEvent) -> None:
        # Opened again, no page shows what happened last time ("Saved Scripted.", an old error).
        clear_status_lines(self)
        super().hideEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        # Providers added elsewhere since it was last open (the first start's offer, the model picker) are listed.
        self.providers.refresh()
        # Never taller or wider than the screen it opens on.
        screen = (self.parentWidget() or self).screen()
        if screen is not None:
            room = screen.availableGeometry()
            frame_w = max(0, self.frameGeometry().width() - self.geometry().width())
            frame_h = max(0, self.frameGeometry().height() - self.geometry().height())
            self.resize(min(self.width(), room.width() - frame_w), min(self.height(), room.height() - frame_h))
        super().showEvent(event)

    def show_page(self, title: str) -> None:
        for row in range(self.pages.count()):
            if self.pages.item(row).text() == title:
                self.pages.setCurrentRow(row)
                return
