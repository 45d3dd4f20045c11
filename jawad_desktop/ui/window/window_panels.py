"""The main window's parts that join it once it is on screen: the history and its project chooser,
research mode, two models side by side, the microphone and conversation mode, and the first start's
provider offers (a part of ``MainWindow``).

They come right after the first frame (``_add_idle_parts``), without the assistant they drive: its
agent, tools and model client (about 160 modules, 8 MB, 0.3 s) are built at their first need, the
first message, Research, Compare, a project chosen, Settings, a conversation in the history opened
or a web page browsed (``ChatPresenter.build``); ``_assistant_ready`` then gives it to them. It is
built at once when something must run from the start (``_assistant_wanted_now``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import shiboken6

from jawad_desktop.ui.window.window_part import WindowPart

if TYPE_CHECKING:
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.ui.chat.history_sidebar import HistorySidebar

log = logging.getLogger("jawad.ui.window")


class WindowPanels(WindowPart):
    """What ``MainWindow`` adds once it is on screen, and gives the assistant once it is built."""

    _idle_parts_added = False
    _last_opened = False
    research_panel: Any = None  # ui.chat.research_panel.ResearchPanel, above the input
    side_by_side_panel: Any = None  # ui.chat.side_by_side.SideBySidePanel, above the input

    def _add_idle_parts(self) -> None:
        """The history, Research, Compare, the Mic and conversation mode, once; then the assistant
        if something needs it from the start."""
        if self._idle_parts_added or self._closing:
            return
        self._idle_parts_added = True
        self._add_sidebar()
        self._add_research()
        self._add_side_by_side()
        try:
            self._add_voice()
            self._add_conversation()
        except Exception as exc:
            log.exception("voice could not start")
            self.show_notice("warning", f"Voice input is unavailable: {exc}")
        self.order_focus_chain()
        why = self._assistant_wanted_now()
        if why:
            log.info("the assistant is built at start: %s", why)
            self.presenter.build()

    def _assistant_wanted_now(self) -> str:
        """Why the assistant must be built at start ("" when it can wait for its first need): MCP
        servers to connect, the document library to keep up to date, the last conversation to
        show again."""
        settings = self.ctx.settings
        if settings.mcp.servers:
            return "MCP servers to connect"
        if self.ctx.paths.library_file.exists():
            return "the document library to watch"
        if settings.ui.last_conversation_id and self.presenter.store is not None:
            return "the last conversation to show again"
        return ""

    def _assistant_ready(self) -> None:
        """The assistant is built: Research, Compare and the project chooser drive it from now on,
        and the last conversation is shown again."""
        assistant = self.presenter.assistant
        assert assistant is not None
        self._add_idle_parts()  # a message sent before they came: they come first
        from jawad_desktop.ui.chat.research_panel import ResearchController
        from jawad_desktop.ui.chat.side_by_side import SideBySideController

        self.research = ResearchController(assistant, self.research_panel)
        self.bridge.workflow_update.connect(self.research.on_workflow_update)
        self.presenter.attach_research(self.research)
        self.side_by_side = SideBySideController(assistant, self.side_by_side_panel, self.bridge.other, self)
        if self.projects is not None:
            self.projects.show_current()
        self._open_last_conversation()

    def _add_projects(self, sidebar: HistorySidebar, store: ConversationStore) -> None:
        """The project chooser above the history (``ui.chat.project_chooser``)."""
        from jawad_desktop.core.store.projects import ProjectStore
        from jawad_desktop.ui.chat.project_chooser import ProjectChooser

        projects = ProjectStore(store.db, bus=self.ctx.bus)
        self.projects = ProjectChooser(projects, lambda: self.presenter.assistant, self.presenter.build,
                                       self.bridge.other, self.bridge.conversation_changed,
                                       self.bridge.conversations_changed, sidebar)
        sidebar.group_by_project(projects, self.bridge.other)  # the history under the projects' headers
        self.projects.project_chosen.connect(sidebar.show_project)
        sidebar.add_header(self.projects)

    def _add_sidebar(self) -> None:
        store = self.presenter.open_store()
        if store is None or self.sidebar is not None:
            return
        from jawad_desktop.ui.chat.history_sidebar import HistorySidebar

        sidebar = HistorySidebar(store, self.bridge.conversations_changed, self)
        self.sidebar = sidebar
        self.main_split.insertWidget(0, sidebar)
        self.main_split.setStretchFactor(0, 0)
        sidebar.conversation_selected.connect(self.presenter.open_conversation)
        sidebar.match_selected.connect(lambda cid, _position: self.presenter.open_conversation(cid))
        sidebar.new_chat_requested.connect(self.presenter.new_chat)
        sidebar.conversation_deleted.connect(self._conversation_deleted)
        self.bridge.conversation_changed.connect(lambda cid: sidebar.set_current(cid or None))
        self._add_projects(sidebar, store)
        self._restore_splitter(self.main_split)

    def _open_last_conversation(self) -> None:
        """The conversation open when the app last closed, shown again (once)."""
        if self._last_opened:
            return
        self._last_opened = True
        store = self.presenter.store
        last = self.ctx.settings.ui.last_conversation_id
        if not last or store is None:
            return
        try:
            store.get(last)
        except Exception:
            self.ctx.settings.ui.last_conversation_id = ""
        else:
            self.presenter.open_conversation(last)

    def _add_research(self) -> None:
        """Research mode: /research INTENT or the Research button plans, shows the plan, runs it."""
        from PySide6.QtWidgets import QPushButton

        from jawad_desktop.ui.chat.research_panel import ResearchPanel
        from jawad_desktop.ui.look.icons import icon

        self.research_panel = ResearchPanel(self.chat)
        self.chat.insert_above_input(self.research_panel)
        self.research_action.setEnabled(True)
        button = QPushButton(icon("telescope"), "", self.chat)
        button.setAccessibleName("Research: plan and run a multi-step search for what the input says")
        button.setToolTip("Plan a multi-step research for what you typed (Ctrl+Shift+R)")
        button.clicked.connect(self.start_research)
        self.chat.add_input_button(button)
        self.chat.busy_widgets.append(button)

    def _add_side_by_side(self) -> None:
        """Two models side by side (``ui.chat.side_by_side``), above the input."""
        from jawad_desktop.ui.chat.side_by_side import SideBySidePanel

        self.side_by_side_panel = SideBySidePanel(self.chat)
        self.chat.insert_above_input(self.side_by_side_panel)
        self.compare_action.setEnabled(True)

    def compare_models(self, provider: str = "") -> None:
        """Send what the input says to the model in use and to another saved provider, side by side
        (``provider``, else the one the user picks)."""
        text = self.chat.input.toPlainText().strip()
        if not text:
            self.show_notice("info", "Type the message first, then choose Compare with another model (Ctrl+Shift+D).")
            self.focus_input()
            return
        active = self.ctx.settings.active()
        others = [p.name for p in self.ctx.settings.providers if active is None or p.name != active.name]
        if not others:
            self.show_notice("info", "Add a second provider in Settings → Providers to compare two models.")
            return
        if not provider:
            from PySide6.QtWidgets import QInputDialog

            provider, chosen = QInputDialog.getItem(self, "Compare with another model",
                                                    "Send the message to the model in use and to:", others, 0, False)
            if not chosen:
                return
        if self.side_by_side is None:
            self.presenter.build()  # its first use (the notice above the chat says why it could not start)
        if self.side_by_side is None:
            return
        why = self.side_by_side.start(text, provider)
        if why:
            self.show_notice("error", why)
        else:
            self.chat.take_input()

    def start_research(self) -> None:
        """The Research button: research what the input says (or ask for it)."""
        intent = self.chat.input.toPlainText().strip()
        if not intent:
            self.chat.add_message(
                "notice", "Type what to research in the input, then press the Research button "
                "(the telescope beside Send), or type `/research …`.")
            self.focus_input()
            return
        self.presenter.send(f"/research {intent}")

    async def _offer_providers(self) -> None:
        """First start: show the providers found on this computer, one click each."""
        from jawad_desktop.core.llm.discovery import discover_providers, models_folder
        from jawad_desktop.ui.window.first_start import OffersPanel

        try:
            offers = await discover_providers(models_folder=models_folder(self.ctx.paths.data))
        except Exception as exc:  # discovery is a convenience: never fail the window for it
            log.info("provider discovery failed: %s", exc)
            return
        if not offers or self.ctx.settings.active() is not None or self.offers_panel is not None:
            return  # a provider was added meanwhile, or the offers are already on screen
        if not shiboken6.isValid(self.chat):
            return  # the window closed while the computer was searched
        panel = OffersPanel(self.ctx, offers, self.chat)
        self.offers_panel = panel
        self.chat.insert_above_input(panel)
        panel.adopted.connect(self._provider_adopted)
        self.order_focus_chain()

    def _provider_adopted(self, name: str) -> None:
        self.update_provider_label()
        self.statusBar().showMessage(f"{name} is ready. Ask away! Add a stronger model any time in "
                                     "Settings → Providers.", 15_000)
        self.focus_input()
