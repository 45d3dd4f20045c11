"""The main window's menus: File, Chat, View and Help, their keys and icons (a part of ``MainWindow``).

Qt's action and key classes are imported when the menus are built: the first frame's menus are empty,
and importing them (with PySide's Python enums of each) took 5 ms before it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore

from jawad_desktop.ui.window.window_part import WindowPart

if TYPE_CHECKING:
    from PySide6.QtGui import QAction


class WindowMenus(WindowPart):
    """The menu bar's actions for ``MainWindow``."""

    def _build_menus(self) -> None:
        from PySide6.QtGui import QAction, QKeySequence  # here, not at the top: see the module's text

        file_menu = self.file_menu
        self.new_chat_action = self._action("&New chat", "Ctrl+N", self.presenter.new_chat)
        file_menu.addAction(self.new_chat_action)
        file_menu.addSeparator()
        self.settings_action = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        self.quit_action = self._action("&Quit", "Ctrl+Q", self.quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        file_menu.addAction(self.quit_action)
        chat_menu = self.chat_menu
        self.stop_action = self._action("&Stop", "Esc", self.presenter.stop)
        self.stop_action.setEnabled(False)
        chat_menu.addAction(self.stop_action)
        self.regenerate_action = self._action("&Regenerate the last answer", "Ctrl+R", self.presenter.regenerate)
        chat_menu.addAction(self.regenerate_action)
        self.edit_last_action = self._action("&Edit the last message", "Ctrl+E", self.presenter.edit_last)
        chat_menu.addAction(self.edit_last_action)
        self.copy_action = self._action("&Copy the selected message", "Ctrl+Shift+C", self.chat.view.copy_selected)
        chat_menu.addAction(self.copy_action)
        self.attach_action = self._action("Attac&h files…", "Ctrl+Shift+O", self.chat.attachments.choose_files)
        chat_menu.addAction(self.attach_action)
        self.summarize_action = self._action("S&ummarize this page", "Ctrl+Shift+S", self.summarize_page)
        chat_menu.addAction(self.summarize_action)
        self.choose_model_action = self._action("Choose the &model…", "Ctrl+Shift+K", self.provider_label.open_list)
        chat_menu.addAction(self.choose_model_action)
        self.search_action = self._action("Search conversa&tions", "Ctrl+F", self.focus_search)
        chat_menu.addAction(self.search_action)
        self.research_action = self._action("Rese&arch…", "Ctrl+Shift+R", self.start_research)
        self.research_action.setEnabled(False)  # until the agent is ready, right after start
        chat_menu.addAction(self.research_action)
        self.compare_action = self._action("Compare &with another model…", "Ctrl+Shift+D", self.compare_models)
        self.compare_action.setEnabled(False)  # until the agent is ready
        chat_menu.addAction(self.compare_action)
        self.voice_action = QAction("Start or stop &voice input", self)
        self.voice_action.setShortcut(QKeySequence("Ctrl+Space"))
        self.voice_action.setEnabled(False)  # until voice is ready, right after start
        self.addAction(self.voice_action)
        chat_menu.addAction(self.voice_action)
        self.conversation_action = self._action("C&onversation mode", "Ctrl+Shift+Space", self._toggle_conversation)
        self.conversation_action.setEnabled(False)  # until voice is ready, right after start
        chat_menu.addAction(self.conversation_action)
        self.focus_input_action = self._action("&Focus the input", "Ctrl+L", self.focus_input)
        chat_menu.addAction(self.focus_input_action)
        view_menu = self.view_menu
        self.toggle_log_action = self._action("Action &log", "Ctrl+Shift+A", self._toggle_log)
        self.toggle_log_action.setCheckable(True)
        self.toggle_log_action.setChecked(False)  # the drawer starts closed to its header line
        view_menu.addAction(self.toggle_log_action)
        from jawad_desktop.ui.window.browser_toggle import BrowserToggle

        self.browser_toggle = BrowserToggle(self.main_split, self.browser_column, self)
        view_menu.addAction(self.browser_toggle.action)
        self.bridge.action_log.connect(self.browser_toggle.agent_acted)
        from jawad_desktop.ui.window.browser_detach import BrowserDetach

        self.browser_detach = BrowserDetach(self.browser_toggle, self.browser.detach_button, self)
        view_menu.addAction(self.browser_detach.action)
        self.focus_history_action = self._action("Go to the &history", "Ctrl+Shift+H", self.focus_history)
        view_menu.addAction(self.focus_history_action)
        self.focus_address_action = self._action("Go to the &address bar", "F6", self.browser.focus_address)
        view_menu.addAction(self.focus_address_action)
        help_menu = self.help_menu
        self.shortcuts_action = self._action("&Keyboard shortcuts", "Ctrl+/", self.show_shortcuts)
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self._action("&About Jawad Desktop", "", self._about))
        from jawad_desktop.ui.look.icons import icon  # not on the way to the first frame

        for action, name in ((self.new_chat_action, "message-square-plus"), (self.settings_action, "settings"),
                             (self.stop_action, "square"), (self.regenerate_action, "refresh-cw"),
                             (self.edit_last_action, "pencil"), (self.copy_action, "copy"),
                             (self.summarize_action, "scroll-text"), (self.search_action, "search"),
                             (self.research_action, "telescope"), (self.voice_action, "mic"),
                             (self.conversation_action, "audio-lines"),
                             (self.shortcuts_action, "keyboard")):
            action.setIcon(icon(name))

    def _action(self, text: str, shortcut: str, slot: Any) -> QAction:
        from PySide6.QtGui import QAction, QKeySequence

        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action
