"""The base of the main window's parts (``window_voice``, ``window_panels``, ``window_menus``,
``window_layout``). For the type checker it is the main window as the parts see it: a
``QMainWindow`` with the widgets, actions and methods they share, declared once here. At run time it
is ``object``: ``MainWindow`` itself derives from ``QMainWindow`` and makes all of these."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter, QWidget

    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.chat.action_log import ActionLogDrawer
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.chat.model_picker import ModelPicker
    from jawad_desktop.ui.chat.presenter import ChatPresenter
    from jawad_desktop.ui.chat.project_chooser import ProjectChooser
    from jawad_desktop.ui.chat.research_panel import ResearchController
    from jawad_desktop.ui.chat.side_by_side import SideBySideController
    from jawad_desktop.ui.window.browser_detach import BrowserDetach
    from jawad_desktop.ui.window.browser_pane import BrowserPane
    from jawad_desktop.ui.window.browser_toggle import BrowserToggle

    class WindowPart(QMainWindow):
        ctx: AppContext
        bridge: EventBridge
        chat: ChatPanel
        presenter: ChatPresenter
        provider_label: ModelPicker
        browser: BrowserPane
        browser_column: QWidget
        browser_toggle: BrowserToggle
        browser_detach: BrowserDetach
        main_split: QSplitter
        left_split: QSplitter
        action_log_drawer: ActionLogDrawer
        _log_height: int
        _closing: bool
        sidebar: QWidget | None
        projects: ProjectChooser | None
        research: ResearchController | None
        side_by_side: SideBySideController | None
        offers_panel: QWidget | None
        voice_button: QWidget | None
        conversation_button: Any
        voice_session: Any
        _idle_hint: str | None
        file_menu: QMenu
        chat_menu: QMenu
        view_menu: QMenu
        help_menu: QMenu
        new_chat_action: QAction
        stop_action: QAction
        research_action: QAction
        compare_action: QAction
        voice_action: QAction
        conversation_action: QAction
        toggle_log_action: QAction

        def show_notice(self, level: str, text: str) -> None: ...
        def focus_input(self) -> None: ...
        def focus_search(self) -> None: ...
        def focus_history(self) -> None: ...
        def order_focus_chain(self) -> None: ...
        def update_provider_label(self) -> None: ...
        def open_settings(self) -> None: ...
        def summarize_page(self) -> None: ...
        def show_shortcuts(self) -> None: ...
        def _about(self) -> None: ...
        def _conversation_deleted(self, conversation_id: str) -> None: ...
        def quit(self) -> None: ...
        # Made by one part, used by another.
        def start_research(self) -> None: ...
        def compare_models(self, provider: str = "") -> None: ...
        def _toggle_conversation(self) -> None: ...
        def _add_voice(self) -> None: ...
        def _add_conversation(self) -> None: ...
        def _toggle_log(self, shown: bool) -> None: ...
        def _restore_splitter(self, splitter: QSplitter) -> None: ...
else:
    WindowPart = object

__all__ = ["WindowPart"]
