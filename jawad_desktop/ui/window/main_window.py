"""The main window: chat, action log and browser side by side, a status bar, menus.

The window lays out the widgets and owns a ``ChatPresenter`` (``ui.chat.presenter``), which drives
the core ``Assistant`` and maps its events (through the ``EventBridge``) onto the chat panel,
the action log and the permission panel; menus and buttons call the presenter. Splitter sizes
and geometry are restored; closing the window stops running work, and ``aclose`` releases it.

It is made in steps so the user sees it at once: ``MainWindow(frame=..., data_dir=...)`` is the
frame (title, icon, menus, saved size and theme, the browser's place and "Starting…" where the chat
goes), shown before the settings models or the chat panel are even imported; ``frame_shown()`` puts
the browser, loading its start page, in its place (``ready_for_a_later_web_view``); ``build(ctx)``
then fills the window in place. ``MainWindow(ctx)`` does it all, for tests and the self-test. This
module therefore imports only Qt at the top; the parts are imported where they are made.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.procmem import release_freed_heap
from jawad_desktop.core.store.first_frame import FirstFrame
from jawad_desktop.ui.look.resources import app_icon
from jawad_desktop.ui.look.theme import SPACE, apply_frame_palette, apply_theme, type_step
from jawad_desktop.ui.window.window_layout import WindowLayout
from jawad_desktop.ui.window.window_menus import WindowMenus
from jawad_desktop.ui.window.window_panels import WindowPanels
from jawad_desktop.ui.window.window_voice import WindowVoice

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QIcon, QShowEvent

    from jawad_desktop.browser.driver import QtWebEnginePage
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.chat.action_log import ActionLogDrawer, ActionLogView
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.chat.model_picker import ModelPicker
    from jawad_desktop.ui.chat.presenter import ChatPresenter
    from jawad_desktop.ui.chat.project_chooser import ProjectChooser
    from jawad_desktop.ui.chat.research_panel import ResearchController
    from jawad_desktop.ui.chat.side_by_side import SideBySideController
    from jawad_desktop.ui.desktop.shell import DesktopShell
    from jawad_desktop.ui.prompts.permission_panel import PermissionPanel
    from jawad_desktop.ui.prompts.take_over_banner import TakeOverBanner
    from jawad_desktop.ui.settings.dialog import SettingsDialog
    from jawad_desktop.ui.window.banner import Banner
    from jawad_desktop.ui.window.browser_pane import BrowserPane

log = logging.getLogger("jawad.ui.window")

# The deferred start-up work waits for the start page at most this long.
DEFERRED_START_MAX_MS = 1000

FIRST_START = (
    "**Welcome to Jawad Desktop.** No model provider is set up yet.\n\n"
    "Open **Settings → Providers** (Ctrl+,) and add one: OpenAI or OpenRouter with your API key, "
    "Ollama or LM Studio running on this computer, or any OpenAI-compatible server. "
    "Your key is kept in the system keyring, never in a file."
)


class MainWindow(WindowVoice, WindowPanels, WindowMenus, WindowLayout, QMainWindow):
    """Chat | action log | browser. ``closed`` fires once the window has closed."""

    closed = Signal()

    # Made by ``build``.
    ctx: AppContext
    bridge: EventBridge
    banner: Banner
    chat: ChatPanel
    permission_panel: PermissionPanel
    take_over: TakeOverBanner
    action_log: ActionLogView  # the table, in the drawer under the chat
    action_log_drawer: ActionLogDrawer
    browser: BrowserPane
    provider_label: ModelPicker
    left_split: QSplitter
    main_split: QSplitter
    presenter: ChatPresenter

    def __init__(
        self,
        ctx: AppContext | None = None,
        *,
        frame: FirstFrame | None = None,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.built = False
        self._closing = False
        self._quitting = False  # Quit, not a close that may only hide the window to the tray
        self.desktop: DesktopShell | None = None  # the tray, global hotkeys, quick ask, notifications
        self._deferred_timer: QTimer | None = None
        self.setWindowTitle(APP_NAME)
        self.setWindowIcon(app_icon())
        self.setAccessibleName(APP_NAME)
        # The menus and the status bar exist from the first frame, so nothing moves when
        # the window is built.
        self.file_menu = self.menuBar().addMenu("&File")
        self.chat_menu = self.menuBar().addMenu("&Chat")
        self.view_menu = self.menuBar().addMenu("&View")
        self.help_menu = self.menuBar().addMenu("&Help")
        self.statusBar()
        self._starting: QWidget | None = None
        self._browser_slot: QWidget | None = None  # the browser's place in the frame until ``frame_shown``
        self._frame_browser: tuple[Path | None, str] | None = None  # its storage and home page
        if ctx is not None:
            self.build(ctx)
        else:
            self._show_frame(frame or FirstFrame(), data_dir)

    def _show_frame(self, frame: FirstFrame, data_dir: Path | None) -> None:
        """The window before it is built: its saved size and theme, the browser (or its place, until
        ``frame_shown``), and a "Starting…" line where the chat goes."""
        apply_frame_palette(frame.theme)  # the whole theme once built (apply_appearance)
        restored = False
        if frame.geometry:  # a first start has none: QByteArray (with its enums) is made only for one
            from PySide6.QtCore import QByteArray

            restored = self.restoreGeometry(QByteArray.fromBase64(frame.geometry.encode()))
        if not restored:
            self.resize(1280, 800)
        storage = None if frame.off_the_record or data_dir is None else data_dir / "browser"
        # The browser's place: on X11 (and offscreen) the browser, its profile and its start page come after the frame
        # (``frame_shown``); elsewhere its start page starts loading before the window is shown.
        if ready_for_a_later_web_view(self):
            self._browser_slot = QWidget(self)
            self._frame_browser = (storage, frame.home_url)
        else:
            self._make_browser(storage, frame.home_url)
        # Plain boxes and stretches: the frame touches no enum of Qt's namespace (PySide builds all 100-odd
        # at the first use of ``Qt``, even through an overload such as QSplitter's: 30 ms, after the frame).
        self._starting = QWidget(self)
        label = QLabel("Starting…", self._starting)
        label.setAccessibleName("Starting")
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(label)
        row.addStretch(1)
        column = QVBoxLayout(self._starting)
        column.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)
        frame_box = QWidget(self)
        box = QHBoxLayout(frame_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self._starting, 2)
        box.addWidget(self._browser_slot or self.browser, 3)
        self._frame_box = box
        self.setCentralWidget(frame_box)

    def frame_shown(self) -> None:
        """The frame is on screen: the browser, loading its start page, takes its place (if not there)."""
        if self._browser_slot is None or self._frame_browser is None:
            return
        storage, home_url = self._frame_browser
        self._make_browser(storage, home_url)
        self._frame_box.replaceWidget(self._browser_slot, self.browser)
        self.browser.show()
        self._browser_slot.deleteLater()
        self._browser_slot = None

    def _make_browser(self, storage: Path | None, home_url: str) -> None:
        """The browser, loading its start page (Chromium works on it while the rest is built)."""
        from jawad_desktop.browser.guarded_page import make_profile
        from jawad_desktop.ui.window.browser_pane import BrowserPane

        self.browser = BrowserPane(make_profile(storage, self), shortcuts=False, parent=self)
        self.browser.show_start_page(home_url)

    def _make_main_split(self, left: QWidget) -> None:
        self.main_split = QSplitter(QtCore.Qt.Orientation.Horizontal, self)
        self.main_split.setObjectName("main")
        self.main_split.addWidget(left)
        # The browser's column: the "Take over" banner (hidden until the agent hands the page over) above it.
        column = QWidget(self)
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.setSpacing(0)
        column_layout.addWidget(self.take_over)
        column_layout.addWidget(self.browser, 1)
        self.main_split.addWidget(column)
        self.browser_column = column
        self.main_split.setStretchFactor(0, 2)
        self.main_split.setStretchFactor(1, 3)
        self.main_split.setSizes([520, 760])
        self.setCentralWidget(self.main_split)

    def _make_left_column(self) -> QWidget:
        """The model picker, the notice banner, and the chat above the action log drawer."""
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(*[SPACE["xs"]] * 4)
        left_layout.addWidget(self.provider_label, 0,
                              QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignAbsolute)
        left_layout.addWidget(self.banner)
        self.left_split = QSplitter(QtCore.Qt.Orientation.Vertical, left)
        self.left_split.setObjectName("chat_log")
        self.left_split.addWidget(self.chat)
        self.left_split.addWidget(self.action_log_drawer)
        self.left_split.setChildrenCollapsible(False)
        self.left_split.setStretchFactor(0, 1)
        self.left_split.setStretchFactor(1, 0)
        self.action_log_drawer.expanded_changed.connect(self._log_drawer_changed)
        self.left_split.splitterMoved.connect(self._remember_log_height)
        left_layout.addWidget(self.left_split)
        return left

    def build(self, ctx: AppContext) -> None:
        """Make the chat, the action log, the browser, the menus, and restore the layout."""
        self.ctx = ctx
        browser = ctx.settings.browser
        self.frame_shown()  # the frame's browser, if it is not made yet
        if not hasattr(self, "browser"):  # no frame: the browser first, as the frame does
            self._make_browser(None if browser.off_the_record else ctx.paths.data / "browser", browser.home_url)
        self.browser.search_template = browser.search_engine
        _browser_icons(self.browser)
        self.browser.add_shortcuts()
        self.browser.install_page_script()

        # Imported here, not at the top: the frame is shown before these modules load.
        from jawad_desktop.ui.base.bridge import EventBridge
        from jawad_desktop.ui.chat.action_log import ActionLogDrawer
        from jawad_desktop.ui.chat.chat_view import ChatPanel
        from jawad_desktop.ui.chat.presenter import ChatPresenter
        from jawad_desktop.ui.prompts.permission_panel import PermissionPanel
        from jawad_desktop.ui.prompts.take_over_banner import TakeOverBanner
        from jawad_desktop.ui.window.banner import Banner

        self.bridge = EventBridge(ctx.bus, self)
        self.take_over = TakeOverBanner(self, focus_page=lambda: self.browser.view.setFocus())
        self.banner = Banner(self)
        self.chat = ChatPanel(self)
        self.permission_panel = PermissionPanel(self.chat)
        self.permission_panel.hide()
        self.chat.insert_above_input(self.permission_panel)
        self.voice_button: QWidget | None = None
        self.conversation_button: Any = None  # ui.chat.conversation_button.ConversationButton, once voice is ready
        self.offers_panel: QWidget | None = None
        self.sidebar: QWidget | None = None
        self.projects: ProjectChooser | None = None  # the project chooser above the history
        self.research: ResearchController | None = None
        self.side_by_side: SideBySideController | None = None
        self.driver: QtWebEnginePage | None = None
        self.voice_session: Any = None
        self.action_log_drawer = ActionLogDrawer(self)
        self.action_log = self.action_log_drawer.view
        self._log_height = 200  # the drawer's height when open; remembered with the pane sizes
        from jawad_desktop.ui.chat.model_picker import ModelPicker

        # The provider and model in use, above the chat; a click (or Ctrl+Shift+K) lists the others.
        self.provider_label = ModelPicker(ctx, self)
        self.provider_label.chosen.connect(self.use_provider)
        self.provider_label.manage_requested.connect(self.open_provider_settings)

        self._make_main_split(self._make_left_column())  # takes the frame's browser; the frame's box goes
        self._starting = None

        self.presenter = ChatPresenter(ctx, self.bridge, self.chat, self.action_log, self.permission_panel,
                                       make_page=self._agent_page, take_over=self.take_over, parent=self)
        self.chat.view.can_remember = True  # a message's Remember (Settings → Memory lists them)
        self.chat.view.remember_requested.connect(self.presenter.remember)
        self._settings_dialog: SettingsDialog | None = None
        self._shortcuts_dialog: QWidget | None = None
        self._offer_pending = False
        self._build_menus()
        self._connect()
        self.apply_appearance()
        self._restore_layout()
        self.order_focus_chain()
        self.update_provider_label()
        self._greet()
        self.built = True
        if self.isVisible():  # built behind a frame that is already on screen
            self._after_first_show()

    # Construction
    def _connect(self) -> None:
        presenter = self.presenter
        self.chat.send_requested.connect(presenter.send)
        self.chat.stop_requested.connect(presenter.stop)
        self.chat.view.link_activated.connect(self.browser.load)
        self.chat.empty_state.settings_requested.connect(self.open_provider_settings)
        self.browser.summarize_requested.connect(self.summarize_page)
        self.browser.page_ready.connect(self._page_ready)
        self.bridge.notice.connect(self.show_notice)
        presenter.busy_changed.connect(self._busy_changed)
        presenter.status.connect(self._show_status)
        presenter.settings_needed.connect(self.open_settings)
        presenter.ready.connect(self._assistant_ready)
        # The history, Research, Compare and voice: added right after the window is shown (see
        # _start_deferred); the assistant they drive at its first need (ui.window.window_panels).
        self._idle_timer = QTimer(self)
        self._idle_timer.setSingleShot(True)
        self._idle_timer.setInterval(30)
        self._idle_timer.timeout.connect(self._add_idle_parts)
        self._idle_timer.timeout.connect(release_freed_heap)  # after them: the start's garbage

    def _page_ready(self, url: str) -> None:
        """A page finished loading: the assistant reads it into the page cache in the background
        (a page browsed by hand becomes "the previous product" later). The first web page the user
        browses to builds the assistant."""
        if self._closing or not self.built or not url.startswith(("http://", "https://")):
            return
        assistant = self.presenter.build()
        if assistant is None:
            return
        from jawad_desktop.ui.base.background import run_async

        run_async(assistant.page_loaded(url), what="remembering the page", bus=self.ctx.bus)

    def _agent_page(self) -> QtWebEnginePage:
        """The browser pane's page, for the agent's tools (made once, when the assistant is built)."""
        from jawad_desktop.browser.driver import QtWebEnginePage

        view = self.browser.view
        showing_start_page = view.url().scheme() not in ("http", "https", "file")
        self.driver = QtWebEnginePage(view)
        if showing_start_page and not self.driver.adopted:
            # A new page keeps web pages in view, not built-in HTML (the pane's own page is adopted).
            self.browser.show_start_page(self.ctx.settings.browser.home_url)
        return self.driver

    def _busy_changed(self, busy: bool) -> None:
        self.stop_action.setEnabled(busy or (self.conversation_button is not None and self.conversation_button.active))

    def _show_status(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()

    def _conversation_deleted(self, conversation_id: str) -> None:
        if conversation_id == self.presenter.conversation_id:
            self.presenter.new_chat()

    # Behaviour
    def order_focus_chain(self) -> None:
        """Tab in reading order (``ui.window.focus_order``): the history, the chat and its input, the
        action log, the browser; called again whenever the window gains controls."""
        from jawad_desktop.ui.window.focus_order import order_focus_chain

        order_focus_chain(self.main_split)

    def focus_input(self) -> None:
        self.chat.input.setFocus()

    def focus_search(self) -> None:
        if self.sidebar is not None:
            self.sidebar.focus_search()  # type: ignore[attr-defined]

    def focus_history(self) -> None:
        if self.sidebar is not None:
            self.sidebar.focus_list()  # type: ignore[attr-defined]

    def show_shortcuts(self) -> None:
        """Help → Keyboard shortcuts: every key of the menus and of each place, in one table."""
        from jawad_desktop.ui.window.shortcuts_dialog import ShortcutsDialog

        if self._shortcuts_dialog is None:
            self._shortcuts_dialog = ShortcutsDialog(self.menuBar(), self)
        self._shortcuts_dialog.show()
        self._shortcuts_dialog.raise_()
        self._shortcuts_dialog.activateWindow()

    def summarize_page(self) -> None:
        """The Summarize button: the same as typing /summarize."""
        self.presenter.send("/summarize")

    def show_notice(self, level: str, text: str) -> None:
        """A notice in the banner above the chat (it stays until dismissed; the status bar
        keeps the provider in view)."""
        self.banner.show_text(level, text)

    def _greet(self) -> None:
        message = self.ctx.settings_store.recovery_message()
        if message:
            self.show_notice("warning", message)
        if self.ctx.keyring_sought:  # else nothing saved needs it: found when a key is first kept
            QTimer.singleShot(0, self._check_keyring)
        if self.ctx.settings.active() is None:  # FIRST_START shows in the empty chat (update_provider_label)
            self._offer_pending = True  # looked for once the window is on screen (showEvent)

    def _check_keyring(self) -> None:
        if not self.ctx.secrets.available:
            self.show_notice("warning", self.ctx.secrets.problem + " (Settings → Providers)")

    def update_provider_label(self) -> None:
        provider = self.ctx.settings.active()
        self.chat.empty_state.set_provider_ready(provider is not None, FIRST_START)
        if provider is not None:
            self.presenter.provider_ready()
        if provider is not None and self.offers_panel is not None:  # added in Settings: the offers are moot
            self.offers_panel.hide()
        self.provider_label.refresh()

    def use_provider(self, name: str) -> None:
        """The model picker's choice: ``name`` answers from the next message on."""
        if self.ctx.settings.provider(name) is None or self.ctx.settings.active_provider == name:
            return
        self.ctx.settings.active_provider = name
        self.ctx.save_settings()
        self._settings_changed()
        if self._settings_dialog is not None:
            self._settings_dialog.providers.refresh()
        self.statusBar().showMessage(f"{name} answers from your next message.", 8000)

    def open_provider_settings(self) -> None:
        """The empty chat's "Open Settings → Providers" button."""
        self.open_settings()
        if self._settings_dialog is not None:
            self._settings_dialog.show_page("Providers")

    def open_settings(self) -> None:
        if self._settings_dialog is None:
            from jawad_desktop.ui.settings.dialog import SettingsDialog  # imported when first needed
            from jawad_desktop.ui.settings.providers_page import connection_hooks

            dialog = SettingsDialog(self.ctx, self, **connection_hooks(self.ctx))
            dialog.settings_changed.connect(self._settings_changed)
            dialog.mcp_changed.connect(self.presenter.reconnect_mcp)
            assistant = self.presenter.build()
            dialog.add_window_pages(assistant, self.bridge, self.start_desktop())
            self._settings_dialog = dialog
        self._settings_dialog.open()
        self._settings_dialog.raise_()

    def _settings_changed(self) -> None:
        """The next turn uses the new provider (the assistant rebuilds its client when it changed)."""
        self.update_provider_label()
        self.apply_appearance()

    def apply_appearance(self) -> None:
        from PySide6.QtGui import QFont  # Qt's classes are made at their first use: 1 ms, after the frame

        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        ui = self.ctx.settings.ui
        font = type_step(QFont(app.font()), "body", size=ui.font_size)
        self.chat.view.setFont(font)
        self.chat.input.setFont(font)
        apply_theme(ui.theme, ui.accent)
        self.chat.view.viewport().update()
        self.browser.restyle_start_page()

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # 2 ms to make (its enums): at its first use

        box = QMessageBox(self)
        box.setWindowTitle(f"About {APP_NAME}")
        box.setText(f"{APP_NAME} {__version__}\nAn AI assistant that works in a browser you can watch.")
        box.open()

    # Layout persistence
    async def aclose(self) -> None:
        """Release what needs an orderly end, after the window closed: the page (cookies to
        disk), the assistant's client, MCP servers, page cache and store, voice."""
        import asyncio
        import contextlib

        if not self.built:
            return
        if self.voice_session is not None and self.voice_session.made:
            with contextlib.suppress(Exception):
                self.voice_session.cancel()
        if self.conversation_button is not None:
            await self.conversation_button.aclose()
        if self.driver is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.driver.close(release_profile=True), 1.0)
        await self.presenter.aclose()

    def dispose(self) -> None:
        """Release the web page before the window (and its browser profile) goes away."""
        if self.desktop is not None:
            self.desktop.dispose()
        if self.built:
            self.bridge.detach()
        if hasattr(self, "browser"):
            self.browser.dispose()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.built:
            self._after_first_show()

    def _after_first_show(self) -> None:
        """Start the deferred start-up work once the start page is on screen too (Chromium
        renders it on this thread, which that work would hold up), or after a second."""
        if self._deferred_timer is not None:
            return
        self._deferred_timer = QTimer(self)
        self._deferred_timer.setSingleShot(True)
        self._deferred_timer.timeout.connect(self._start_deferred)
        if self.browser.loads_finished:
            self._deferred_timer.start(0)
        else:
            self.browser.first_load_finished.connect(lambda: self._deferred_timer and self._deferred_timer.start(0))
            self._deferred_timer.start(DEFERRED_START_MAX_MS)

    def _start_deferred(self) -> None:
        if self._closing:
            return
        if not self._idle_parts_added and not self._idle_timer.isActive():
            self._idle_timer.start()  # the history, Research, Compare and voice
        if self._offer_pending:
            self._offer_pending = False
            from jawad_desktop.ui.base.background import run_async

            run_async(self._offer_providers(), what="looking for providers", bus=None)
        self.start_desktop()

    def start_desktop(self) -> DesktopShell | None:
        """The tray, global hotkeys, quick ask and notifications (``ui.desktop.shell``), once."""
        if self.desktop is None and self.built and not self._closing:
            from jawad_desktop.ui.desktop.shell import DesktopShell

            try:
                self.desktop = DesktopShell(self)
            except Exception as exc:  # the desktop's extras must never keep the window from working
                log.exception("tray and hotkeys unavailable")
                self.show_notice("warning", f"The tray icon and global hotkeys are unavailable: {exc}")
        return self.desktop

    def quit(self) -> None:
        """Quit (File → Quit, the tray, a quit signal): close even when closing would hide to the tray."""
        self._quitting = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._quitting and self.desktop is not None and self.desktop.hides_on_close():
            event.ignore()  # the setting "keep running in the tray": hidden, still running
            self.hide()
            return
        self._closing = True
        if self._deferred_timer is not None:
            self._deferred_timer.stop()
        if self.built:
            self.save_layout()
            self.browser_detach.close_with_app()  # the browser's own window goes with this one
            self.presenter.stop()
            if self.conversation_button is not None:
                self.conversation_button.stop()
        event.accept()
        QTimer.singleShot(0, self.closed.emit)


def _icon(name: str) -> QIcon:
    """A bundled icon (``ui.look.icons``, imported on first use: not on the way to the first frame)."""
    from jawad_desktop.ui.look.icons import icon

    return icon(name)


def _browser_icons(browser: BrowserPane) -> None:
    """Icons instead of the glyphs on the browser's toolbar (a font may lack "⟳")."""
    for button, name in ((browser.back_button, "arrow-left"), (browser.forward_button, "arrow-right"),
                         (browser.reload_button, "rotate-cw"), (browser.summarize_button, "scroll-text")):
        button.setIcon(_icon(name))
    for button in (browser.back_button, browser.forward_button, browser.reload_button):
        button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly)
    browser.summarize_button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)


def ready_for_a_later_web_view(window: QWidget) -> bool:
    """Whether a web view can join ``window`` once it is on screen: Qt re-creates a native window
    (it vanishes and comes back) when a web view's GPU-composited part is made in it after it was
    made without. Offscreen there is none. On X11 a hidden ``QRhiWidget`` has Qt make it for
    composition on the GPU from the start, with OpenGL, the API Qt Quick (so the web view) uses there
    unless told otherwise: one native window from start to idle (``tests/test_cli.py``, under Xvfb),
    and 90-130 ms less CPU before the frame. Elsewhere (Wayland; Windows and macOS, where Qt Quick's
    default API is another) not checked: False, and the web view comes before the frame."""
    platform = QApplication.platformName()
    if platform in ("offscreen", "minimal"):
        return True
    if platform != "xcb" or os.environ.get("QSG_RHI_BACKEND", "opengl") != "opengl" \
            or os.environ.get("QT_QUICK_BACKEND"):
        return False
    from PySide6.QtWidgets import QRhiWidget

    QRhiWidget(window).hide()
    return True
