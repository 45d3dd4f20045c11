"""The main window: chat, action log and browser side by side, a status bar, menus.

The window shows core events (through the ``EventBridge``) and turns user actions into calls
on a ``ChatController``. Splitter sizes and geometry are restored; closing the window cancels
running work (``shutdown``).

It is made in two steps so the user sees it at once: ``MainWindow(frame=..., data_dir=...)``
is the frame (title, icon, menus, saved size and theme, the browser with its start page, and
"Starting…" where the chat goes), shown before the settings models or the chat panel are even
imported; ``build(ctx)`` then fills it in place. The browser is in the frame from the start,
its page already loading: a web view added (or first loaded) once the window is on screen
makes Qt re-create the native window, which vanishes and reappears. ``MainWindow(ctx)`` does
both steps, for tests and the self-test. This module therefore imports only Qt at the top;
the parts are imported in ``build``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore
from PySide6.QtCore import QByteArray, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QGuiApplication, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStyleFactory,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.store.first_frame import FirstFrame
from jawad_desktop.ui.resources import app_icon

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QShowEvent

    from jawad_desktop.core import events as ev
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.action_log import ActionLogView
    from jawad_desktop.ui.bridge import EventBridge
    from jawad_desktop.ui.browser_pane import BrowserPane
    from jawad_desktop.ui.chat_view import ChatPanel
    from jawad_desktop.ui.controller import ChatController
    from jawad_desktop.ui.permission_panel import PermissionPanel
    from jawad_desktop.ui.settings_dialog import SettingsDialog

log = logging.getLogger("jawad.ui.window")

# The deferred start-up work waits for the start page at most this long.
DEFERRED_START_MAX_MS = 1000

FIRST_START = (
    "**Welcome to Jawad Desktop.** No model provider is set up yet.\n\n"
    "Open **Settings → Providers** (Ctrl+,) and add one: OpenAI or OpenRouter with your API key, "
    "Ollama or LM Studio running on this computer, or any OpenAI-compatible server. "
    "Your key is kept in the system keyring, never in a file."
)


class Banner(QWidget):
    """A dismissable line above the chat for notices (corrupt settings, no keyring, ...)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Notice")
        close = QToolButton(self)
        close.setText("✕")
        close.setAccessibleName("Dismiss notice")
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self.setAutoFillBackground(True)
        self.hide()

    def show_text(self, level: str, text: str) -> None:
        palette = self.palette()
        colour = {"error": "#f6d5d5", "warning": "#fff1c2"}.get(level, "#dbeafe")
        palette.setColor(QPalette.ColorRole.Window, colour)
        palette.setColor(QPalette.ColorRole.WindowText, QtCore.Qt.GlobalColor.black)
        self.setPalette(palette)
        current = self.label.text() if self.isVisible() else ""
        self.label.setText(f"{current}\n{text}".strip())
        self.show()


class MainWindow(QMainWindow):
    """Chat | action log | browser. ``closed`` fires once the window has closed."""

    closed = Signal()

    # Made by ``build``.
    ctx: AppContext
    bridge: EventBridge
    banner: Banner
    chat: ChatPanel
    permission_panel: PermissionPanel
    action_log: ActionLogView
    browser: BrowserPane
    provider_label: QLabel
    left_split: QSplitter
    main_split: QSplitter
    controller: ChatController

    def __init__(
        self,
        ctx: AppContext | None = None,
        controller: ChatController | None = None,
        *,
        frame: FirstFrame | None = None,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.built = False
        self._closing = False
        self._deferred_timer: QTimer | None = None
        self.setWindowTitle(APP_NAME)
        self.setWindowIcon(app_icon())
        self.setAccessibleName(APP_NAME)
        self._theme_applied = ""
        # The menus and the status bar exist from the first frame, so nothing moves when
        # the window is built.
        self.file_menu = self.menuBar().addMenu("&File")
        self.chat_menu = self.menuBar().addMenu("&Chat")
        self.view_menu = self.menuBar().addMenu("&View")
        self.help_menu = self.menuBar().addMenu("&Help")
        self.statusBar()
        self._starting: QWidget | None = None
        if ctx is not None:
            self.build(ctx, controller)
        else:
            self._show_frame(frame or FirstFrame(), data_dir)

    def _show_frame(self, frame: FirstFrame, data_dir: Path | None) -> None:
        """The window before it is built: its saved size and theme, the browser showing its
        start page, and a "Starting…" line where the chat goes."""
        self._apply_theme(frame.theme)
        if not (frame.geometry and self.restoreGeometry(QByteArray.fromBase64(frame.geometry.encode()))):
            self.resize(1280, 800)
        storage = None if frame.off_the_record or data_dir is None else data_dir / "browser"
        # The start page starts loading before the window is shown: that makes the web view's
        # GPU-composited child now, so the native window is created for it. Made after the
        # window is on screen, it would make Qt re-create the native window (the window
        # would vanish and come back on a desktop).
        self._make_browser(storage, frame.home_url)
        # Laid out with plain boxes and stretches: the frame touches no enum of Qt's namespace
        # (PySide builds all of its 100-odd Python enums on the first use of ``Qt``, even
        # through an overloaded constructor such as QSplitter's: 30 ms, paid after the frame;
        # this module reaches it as ``QtCore.Qt`` when a method runs). ``build`` moves the
        # browser into the real splitter, in the same native window.
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
        box.addWidget(self.browser, 3)
        self.setCentralWidget(frame_box)

    def _make_browser(self, storage: Path | None, home_url: str) -> None:
        """The browser, loading its start page (Chromium works on it while the rest is built)."""
        from jawad_desktop.ui.browser_pane import BrowserPane, make_profile

        self.browser = BrowserPane(make_profile(storage, self), shortcuts=False, parent=self)
        self.browser.show_start_page(home_url)

    def _make_main_split(self, left: QWidget) -> None:
        self.main_split = QSplitter(QtCore.Qt.Orientation.Horizontal, self)
        self.main_split.setObjectName("main")
        self.main_split.addWidget(left)
        self.main_split.addWidget(self.browser)
        self.main_split.setStretchFactor(0, 2)
        self.main_split.setStretchFactor(1, 3)
        self.main_split.setSizes([520, 760])
        self.setCentralWidget(self.main_split)

    def build(self, ctx: AppContext, controller: ChatController | None = None) -> None:
        """Make the chat, the action log, the browser, the menus, and restore the layout."""
        self.ctx = ctx
        browser = ctx.settings.browser
        if not hasattr(self, "browser"):  # no frame: the browser first, as the frame does
            self._make_browser(None if browser.off_the_record else ctx.paths.data / "browser", browser.home_url)
        self.browser.search_template = browser.search_engine
        self.browser.add_shortcuts()
        self.browser.install_page_script()

        # Imported here, not at the top: the frame is shown before these modules load.
        from jawad_desktop.ui.action_log import ActionLogView
        from jawad_desktop.ui.bridge import EventBridge
        from jawad_desktop.ui.chat_view import ChatPanel
        from jawad_desktop.ui.controller import ChatController
        from jawad_desktop.ui.permission_panel import PermissionPanel

        self.bridge = EventBridge(ctx.bus, self)
        self.banner = Banner(self)
        self.chat = ChatPanel(self)
        self.permission_panel = PermissionPanel(self.chat, timeout_s=ctx.settings.browser.permission_timeout_s)
        self.permission_panel.hide()
        self.chat.insert_above_input(self.permission_panel)
        self.voice_button: QWidget | None = None
        self.offers_panel: QWidget | None = None
        self.sidebar: QWidget | None = None
        self.action_log = ActionLogView(self)
        self.provider_label = QLabel(self)
        self.provider_label.setAccessibleName("Active provider and model")
        self.statusBar().addPermanentWidget(self.provider_label)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(4, 4, 4, 4)
        left_layout.addWidget(self.banner)
        self.left_split = QSplitter(QtCore.Qt.Orientation.Vertical, left)
        self.left_split.setObjectName("chat_log")
        self.left_split.addWidget(self.chat)
        self.left_split.addWidget(self.action_log)
        self.left_split.setStretchFactor(0, 4)
        self.left_split.setStretchFactor(1, 1)
        left_layout.addWidget(self.left_split)
        self._make_main_split(left)  # takes the frame's browser; the frame's box goes
        self._starting = None

        self.controller = controller or ChatController(ctx, self)
        self._settings_dialog: SettingsDialog | None = None
        self._offer_pending = False
        self._build_menus()
        self._connect()
        self.apply_appearance()
        self._restore_layout()
        self.update_provider_label()
        self._greet()
        self.built = True
        if self.isVisible():  # built behind a frame that is already on screen
            self._after_first_show()

    # Construction
    def _build_menus(self) -> None:
        file_menu = self.file_menu
        self.new_chat_action = self._action("&New chat", "Ctrl+N", self.controller.new_chat)
        file_menu.addAction(self.new_chat_action)
        file_menu.addSeparator()
        self.settings_action = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        self.quit_action = self._action("&Quit", "Ctrl+Q", self.close)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        file_menu.addAction(self.quit_action)
        chat_menu = self.chat_menu
        self.stop_action = self._action("&Stop", "Esc", self.controller.stop)
        self.stop_action.setEnabled(False)
        chat_menu.addAction(self.stop_action)
        self.regenerate_action = self._action("&Regenerate the last answer", "Ctrl+R", self.controller.regenerate)
        chat_menu.addAction(self.regenerate_action)
        self.edit_last_action = self._action("&Edit the last message", "Ctrl+E", self.controller.edit_last)
        chat_menu.addAction(self.edit_last_action)
        self.copy_action = self._action("&Copy the selected message", "Ctrl+Shift+C", self.chat.view.copy_selected)
        chat_menu.addAction(self.copy_action)
        self.summarize_action = self._action("S&ummarize this page", "Ctrl+Shift+S", self.summarize_page)
        chat_menu.addAction(self.summarize_action)
        self.search_action = self._action("Search &conversations", "Ctrl+F", self.focus_search)
        chat_menu.addAction(self.search_action)
        self.research_action = self._action("&Research…", "Ctrl+Shift+R", lambda: self.controller.start_research())
        self.research_action.setEnabled(False)  # until the agent is ready, right after start
        chat_menu.addAction(self.research_action)
        self.voice_action = QAction("Start or stop &voice input", self)
        self.voice_action.setShortcut(QKeySequence("Ctrl+Space"))
        self.voice_action.setEnabled(False)  # until voice is ready, right after start
        self.addAction(self.voice_action)
        chat_menu.addAction(self.voice_action)
        self.focus_input_action = self._action("&Focus the input", "Ctrl+L", self.focus_input)
        chat_menu.addAction(self.focus_input_action)
        view_menu = self.view_menu
        self.toggle_log_action = self._action("Action &log", "Ctrl+Shift+A", self._toggle_log)
        self.toggle_log_action.setCheckable(True)
        self.toggle_log_action.setChecked(True)
        view_menu.addAction(self.toggle_log_action)
        help_menu = self.help_menu
        help_menu.addAction(self._action("&About Jawad Desktop", "", self._about))

    def _action(self, text: str, shortcut: str, slot: Any) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _connect(self) -> None:
        self.controller.attach()
        self.chat.send_requested.connect(self.controller.send)
        self.chat.stop_requested.connect(self.controller.stop)
        self.chat.view.link_activated.connect(self.browser.load)
        self.browser.summarize_requested.connect(self.summarize_page)
        self.bridge.action_log.connect(self.action_log.log_model.upsert)
        self.bridge.notice.connect(self.show_notice)
        self.bridge.retry.connect(self._retrying)

    def add_sidebar(self) -> None:
        """The history sidebar, once the conversation store is open (right after start)."""
        store = self.controller.store
        if store is None or self.sidebar is not None:
            return
        from jawad_desktop.ui.history_sidebar import HistorySidebar

        sidebar = HistorySidebar(store, self)
        self.sidebar = sidebar
        self.main_split.insertWidget(0, sidebar)
        self.main_split.setStretchFactor(0, 0)
        sidebar.conversation_selected.connect(self.controller.open_conversation)
        sidebar.match_selected.connect(lambda cid, _position: self.controller.open_conversation(cid))
        sidebar.new_chat_requested.connect(self.controller.new_chat)
        sidebar.conversation_deleted.connect(self._conversation_deleted)
        self.controller.conversation_changed.connect(lambda cid: sidebar.set_current(cid or None))
        self._restore_splitter(self.main_split)
        last = self.ctx.settings.ui.last_conversation_id
        if last:
            try:
                store.get(last)
            except Exception:
                self.ctx.settings.ui.last_conversation_id = ""
            else:
                self.controller.open_conversation(last)

    def _conversation_deleted(self, conversation_id: str) -> None:
        if conversation_id == self.controller.conversation_id:
            self.controller.new_chat()

    # Behaviour
    def focus_input(self) -> None:
        self.chat.input.setFocus()

    def focus_search(self) -> None:
        if self.sidebar is not None:
            self.sidebar.focus_search()  # type: ignore[attr-defined]

    def summarize_page(self) -> None:
        """The Summarize button: the same as typing /summarize."""
        self.controller.send("/summarize")

    def show_notice(self, level: str, text: str) -> None:
        """A notice in the banner above the chat (it stays until dismissed; the status bar
        keeps the provider in view)."""
        self.banner.show_text(level, text)

    def _retrying(self, notice: ev.RetryNotice) -> None:
        self.statusBar().showMessage(
            f"{notice.reason} — retrying in {notice.delay_s:.1f} s "
            f"(attempt {notice.attempt} of {notice.max_attempts})",
            int(notice.delay_s * 1000) + 2000,
        )

    def _greet(self) -> None:
        message = self.ctx.settings_store.recovery_message()
        if message:
            self.show_notice("warning", message)
        QTimer.singleShot(0, self._check_keyring)
        if self.ctx.settings.active() is None:
            self.chat.add_message("notice", FIRST_START)
            self._offer_pending = True  # looked for once the window is on screen (showEvent)

    async def _offer_providers(self) -> None:
        """First start: show the providers found on this computer, one click each."""
        from jawad_desktop.core.llm.connection import discover_providers
        from jawad_desktop.ui.first_start import OffersPanel

        try:
            offers = await discover_providers()
        except Exception as exc:  # discovery is a convenience: never fail the window for it
            log.info("provider discovery failed: %s", exc)
            return
        if not offers or self.ctx.settings.active() is not None:
            return
        panel = OffersPanel(self.ctx, offers, self.chat)
        self.offers_panel = panel
        self.chat.insert_above_input(panel)
        panel.adopted.connect(self._provider_adopted)

    def _provider_adopted(self, name: str) -> None:
        self.update_provider_label()
        self.chat.add_message("notice", f"**{name}** is ready. Ask away! Add a stronger model any time in "
                                        "**Settings → Providers**.")
        self.focus_input()

    def _check_keyring(self) -> None:
        if not self.ctx.secrets.available:
            self.show_notice("warning", self.ctx.secrets.problem + " (Settings → Providers)")

    def update_provider_label(self) -> None:
        provider = self.ctx.settings.active()
        if provider is None:
            self.provider_label.setText("No provider — Settings → Providers (Ctrl+,)")
        else:
            model = provider.model or "default model"
            self.provider_label.setText(f"{provider.name} · {model}")

    def open_settings(self) -> None:
        if self._settings_dialog is None:
            from jawad_desktop.ui.settings_dialog import SettingsDialog  # imported when first needed

            self._settings_dialog = SettingsDialog(self.ctx, self, **self.controller.provider_hooks())
            self._settings_dialog.settings_changed.connect(self._settings_changed)
            self.controller.extend_settings(self._settings_dialog)
        self._settings_dialog.open()
        self._settings_dialog.raise_()

    def _settings_changed(self) -> None:
        self.update_provider_label()
        self.apply_appearance()
        self.controller.settings_changed()

    def apply_appearance(self) -> None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        ui = self.ctx.settings.ui
        font = QFont(app.font())
        font.setPointSize(ui.font_size)
        self.chat.view.setFont(font)
        self.chat.input.setFont(font)
        self._apply_theme(ui.theme)
        self.chat.view.viewport().update()

    def _apply_theme(self, theme: str) -> None:
        """The application palette for ``theme``; "system" leaves the system's untouched."""
        app = QApplication.instance()
        if not isinstance(app, QApplication) or theme == self._theme_applied:
            return
        if theme == "system":
            if self._theme_applied:  # back from light/dark: the system's again
                app.setPalette(app.style().standardPalette())
                QGuiApplication.styleHints().unsetColorScheme()
        else:
            scheme = QtCore.Qt.ColorScheme.Dark if theme == "dark" else QtCore.Qt.ColorScheme.Light
            QGuiApplication.styleHints().setColorScheme(scheme)
            fusion = QStyleFactory.create("Fusion")
            if fusion is not None and theme == "dark":
                app.setPalette(_dark_palette())
            elif fusion is not None:
                app.setPalette(fusion.standardPalette())
        self._theme_applied = theme

    def _toggle_log(self, shown: bool) -> None:
        self.action_log.setVisible(shown)

    def _about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle(f"About {APP_NAME}")
        box.setText(f"{APP_NAME} {__version__}\nAn AI assistant that works in a browser you can watch.")
        box.open()

    # Layout persistence
    def _restore_layout(self) -> None:
        ui = self.ctx.settings.ui
        if ui.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(ui.window_geometry.encode()))
        else:
            self.resize(1280, 800)
        for splitter in (self.main_split, self.left_split):
            self._restore_splitter(splitter)

    def _restore_splitter(self, splitter: QSplitter) -> None:
        sizes = self.ctx.settings.ui.splitter_sizes.get(splitter.objectName())
        if sizes and len(sizes) == splitter.count() and sum(sizes) > 0:
            splitter.setSizes(sizes)
        elif splitter is self.main_split:
            splitter.setSizes([220, 480, 580] if splitter.count() == 3 else [520, 760])
        else:
            splitter.setSizes([600, 160])

    def save_layout(self) -> None:
        ui = self.ctx.settings.ui
        ui.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode()
        ui.splitter_sizes = {s.objectName(): list(s.sizes()) for s in (self.main_split, self.left_split)}
        try:
            self.ctx.save_settings()
        except OSError as exc:
            log.error("could not save the window layout: %s", exc)

    def dispose(self) -> None:
        """Release the web page before the window (and its browser profile) goes away."""
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
        timer = getattr(self.controller, "build_timer", None)
        if timer is not None and not self.controller.runner and not timer.isActive():
            timer.start()  # the store, sidebar, agent, browser tools and voice
        if self._offer_pending:
            self._offer_pending = False
            self.controller.spawn(self._offer_providers())

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        if self._deferred_timer is not None:
            self._deferred_timer.stop()
        if self.built:
            self.save_layout()
            self.controller.shutdown()
        event.accept()
        QTimer.singleShot(0, self.closed.emit)


def _dark_palette() -> QPalette:
    palette = QPalette()
    base, text, window = QtCore.Qt.GlobalColor.white, "#1e1e1e", "#2b2b2b"
    palette.setColor(QPalette.ColorRole.Window, window)
    palette.setColor(QPalette.ColorRole.WindowText, base)
    palette.setColor(QPalette.ColorRole.Base, text)
    palette.setColor(QPalette.ColorRole.AlternateBase, "#333333")
    palette.setColor(QPalette.ColorRole.Text, base)
    palette.setColor(QPalette.ColorRole.Button, "#3a3a3a")
    palette.setColor(QPalette.ColorRole.ButtonText, base)
    palette.setColor(QPalette.ColorRole.Highlight, "#3d6fb6")
    palette.setColor(QPalette.ColorRole.HighlightedText, base)
    palette.setColor(QPalette.ColorRole.ToolTipBase, "#3b3b2b")
    palette.setColor(QPalette.ColorRole.ToolTipText, base)
    return palette
