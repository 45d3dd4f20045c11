"""The window's controller: turns Send, Stop, New chat, history, voice and permission answers
into core calls, and runs them as asyncio tasks on the one qasync loop.

It holds no business logic. A turn is run by the core ``AgentSession`` (with the basic and
browser tools, Harbor as its permission gate, the page as context); its events reach the
widgets through the bridge. The controller keeps the user's text until a turn is accepted,
saves each message to the conversation store as it completes (the user's message before the
model is asked, the answer when it ends, every action-log entry as it is decided), and
restores conversations picked in the history sidebar.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QPushButton

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.config import ProviderConfig
from jawad_desktop.core.llm.types import Message
from jawad_desktop.core.store.recorder import TurnRecorder, new_messages

if TYPE_CHECKING:
    from jawad_desktop.core.agent.session import AgentSession
    from jawad_desktop.core.llm.client import LLMClient
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.ui.main_window import MainWindow
    from jawad_desktop.ui.settings_dialog import SettingsDialog

log = logging.getLogger("jawad.ui.controller")

Runner = Callable[[str], Awaitable[Any]]


class ChatController(QObject):
    """Sends the user's text to the agent, streams the answer into the chat, stops on request."""

    busy_changed = Signal(bool)
    conversation_changed = Signal(str)  # id, "" for a new chat not yet saved

    def __init__(self, ctx: AppContext, window: MainWindow, runner: Runner | None = None) -> None:
        super().__init__(window)
        self.ctx = ctx
        self.window = window
        self.runner = runner
        self.session: AgentSession | None = None
        self.store: ConversationStore | None = None
        self.conversation_id: str | None = None
        self.driver: Any = None
        self.kit: Any = None
        self.voice_session: Any = None
        self.speaker: Any = None
        self._client: LLMClient | None = None
        self._client_key: tuple[Any, ...] | None = None
        self._task: asyncio.Task[Any] | None = None
        self._answer_id: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._last_user_text = ""
        self._speaker_class: Any = None
        self._cards: dict[str, int] = {}  # action-log entry id -> chat item id of its card
        self._assistant_built = False
        self.research: Any = None
        self.mcp: Any = None
        self._base_registry: Any = None
        self._mcp_task: asyncio.Task[Any] | None = None

    # -- construction -----------------------------------------------------------------------
    def attach(self) -> None:
        """Connect to the window's bridge and build the assistant (called once, by the window)."""
        bridge = self.window.bridge
        bridge.chat_delta.connect(self._on_delta)
        bridge.chat_response.connect(self._on_response)
        bridge.action_log.connect(self._on_action)
        if self.runner is None:
            # The store, the agent, the browser tools and voice import a lot (parsers, numpy, audio): build
            # them right after the window is shown, not before (start-up time). A Send that
            # comes first builds them at once.
            # Started by the window's first show (MainWindow.showEvent), after its first paint.
            self.build_timer = QTimer(self)
            self.build_timer.setSingleShot(True)
            self.build_timer.setInterval(30)
            self.build_timer.timeout.connect(self.ensure_assistant)

    def _open_store(self) -> None:
        from jawad_desktop.core.store.conversations import ConversationStore

        try:
            self.store = ConversationStore.open(self.ctx.paths.data)
        except JawadError as exc:
            self.window.show_notice("error", "Conversations will not be saved: " + exc.user_text())

    def ensure_assistant(self) -> None:
        """Build the browser tools with Harbor, the agent and voice, once. Each part that cannot
        start is reported and left out; the rest of the window keeps working."""
        if self._assistant_built or self.runner is not None:
            return
        self._assistant_built = True
        self._open_store()
        self.window.add_sidebar()
        try:
            self._build_agent()
        except Exception as exc:  # a broken part must not keep the window from opening
            log.exception("the agent could not start")
            self.window.show_notice("error", f"The assistant could not start: {exc}")
        try:
            self._build_voice()
        except Exception as exc:
            log.exception("voice could not start")
            self.window.show_notice("warning", f"Voice input is unavailable: {exc}")

    def _build_agent(self) -> None:
        from jawad_desktop.core.agent.session import AgentSession
        from jawad_desktop.core.tools.basic import basic_registry
        from jawad_desktop.ui.page_driver import attach_agent_browser

        view = self.window.browser.view
        showing_start_page = view.url().scheme() not in ("http", "https", "file")
        self.driver, self.kit = attach_agent_browser(self.ctx, view)
        if showing_start_page and not self.driver.adopted:
            # A new page keeps web pages in view, not built-in HTML (the pane's own page is adopted).
            self.window.browser.show_start_page(self.ctx.settings.browser.home_url)
        registry = basic_registry().merged(self.kit.session.registry())
        self.session = AgentSession(
            client=self._client_for_run,
            registry=registry,
            settings=self.ctx.settings,
            bus=self.ctx.bus,
            gate=self.kit.gate,
            secrets=self.ctx.secrets,
            context_provider=self.kit.session.page_context,
            page_provider=lambda: self.driver,
            last_product_provider=self.kit.session.last_product,
        )
        self.runner = self._run_agent
        self._base_registry = registry
        if self.ctx.settings.mcp.servers:
            self._mcp_task = self.spawn(self.connect_mcp())
        self._build_research()
        panel = self.window.permission_panel
        self.window.bridge.permission_request.connect(panel.show_request)
        panel.decided.connect(self.kit.gate.respond)

    async def connect_mcp(self) -> None:
        """Connect the MCP servers in Settings and add their allowed tools to the agent's."""
        from jawad_desktop.core.mcp.adapter import mcp_registry

        old, self.mcp = self.mcp, None
        if old is not None:
            await old.aclose()
        if self.session is None:
            return
        mcp = await mcp_registry(self.ctx)
        self.mcp = mcp
        self.session.registry = self._base_registry.merged(mcp)
        for problem in mcp.problems.values():
            self.window.show_notice("warning", problem)

    def _build_research(self) -> None:
        """Research mode: /research INTENT or the Research button plans, shows the plan, runs it."""
        from jawad_desktop.ui.research_panel import ResearchController, ResearchPanel

        panel = ResearchPanel(self.window.chat)
        self.window.chat.insert_above_input(panel)
        self.research = ResearchController(self.ctx, panel, client=self._client_for_run, kit=self.kit,
                                           page=self.driver, store=self.store)
        self.window.bridge.workflow_update.connect(self.research.on_workflow_update)
        self.research.busy_changed.connect(self._set_busy)
        self.window.research_action.setEnabled(True)
        button = QPushButton("Research", self.window.chat)
        button.setAccessibleName("Research: plan and run a multi-step search for what the input says")
        button.setToolTip("Plan a multi-step research for what you typed (Ctrl+Shift+R)")
        button.clicked.connect(lambda: self.start_research())
        self.window.chat.add_input_button(button)
        self.window.chat.busy_widgets.append(button)

    def start_research(self, intent: str = "") -> None:
        """The Research button: research what the input says (or ask for it)."""
        intent = intent or self.window.chat.input.toPlainText().strip()
        if not intent:
            self.window.chat.add_message(
                "notice", "Type what to research in the input, then press **Research** (or type `/research …`).")
            self.window.focus_input()
            return
        self.send(f"/research {intent}")

    def _build_voice(self) -> None:
        from jawad_desktop.core.voice import VoiceSession
        from jawad_desktop.ui.tts import ReplySpeaker
        from jawad_desktop.ui.voice_button import VoiceButton

        self.voice_session = VoiceSession(self.ctx)
        button = VoiceButton(self.voice_session, self.window.bridge.voice_state, self.window)
        self.window.chat.add_input_button(button)
        # Ctrl+Space toggles listening (hold the Mic button to push-to-talk). An application-wide
        # key filter would see every event of every object, including ones being destroyed.
        self.window.voice_action.triggered.connect(button.click)
        self.window.voice_action.setEnabled(True)
        self.window.voice_button = button
        button.transcript_ready.connect(self._on_transcript)
        button.partial_transcript.connect(self._on_partial)
        button.send_requested.connect(self._send_spoken)
        button.pressed_to_talk.connect(self._stop_speaking)
        self._speaker_class = ReplySpeaker

    def _reply_speaker(self) -> Any:
        """Created on first use: loading the system's speech engine is slow and noisy."""
        if self.speaker is None:
            self.speaker = self._speaker_class(self)
        return self.speaker

    def _stop_speaking(self) -> None:
        if self.speaker is not None:
            self.speaker.stop()

    # -- the model client -------------------------------------------------------------------
    def _client_for_run(self) -> LLMClient:
        """The client for the active provider; rebuilt when the provider or its key changed."""
        from jawad_desktop.core.llm.factory import client_for

        provider = self.ctx.settings.active()
        key = (provider.model_dump_json() if provider else "", self.ctx.settings.network.model_dump_json())
        if self._client is None or self._client_key != key:
            old, self._client = self._client, client_for(self.ctx)
            self._client_key = key
            if old is not None:
                self.spawn(old.aclose())
        assert self._client is not None
        return self._client

    # -- user actions -----------------------------------------------------------------------
    def send(self, text: str) -> None:
        chat = self.window.chat
        if self.busy or (self.research is not None and self.research.busy):
            return
        self.ensure_assistant()
        if self.ctx.settings.active() is None:
            # Keep what the user typed; tell them what to do.
            chat.add_message("notice", "Add a provider first: **Settings → Providers** (Ctrl+,).")
            self.window.open_settings()
            return
        if self.runner is None:
            chat.add_message("error", "The assistant is not available: see the notice above.")
            return
        from jawad_desktop.core.agent.commands import research_intent

        intent = research_intent(text)
        if intent is not None and self.research is not None:
            chat.take_input()
            chat.add_message("user", text)
            self._save_user_message(text)
            self.research.start(intent, self.conversation_id)
            return
        chat.take_input()
        chat.add_message("user", text)
        self._last_user_text = text
        self._save_user_message(text)
        self._answer_id = None
        self._set_busy(True)
        self._task = asyncio.ensure_future(self._run(text))

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self, text: str) -> None:
        assert self.runner is not None
        try:
            await self.runner(text)
        except asyncio.CancelledError:
            self._finish_answer(interrupted=True)
            raise
        except JawadError as exc:
            with contextlib.suppress(RuntimeError):
                self.window.chat.add_message("error", exc.user_text())
        except Exception as exc:  # the runner reports errors as events; this is the last guard
            log.exception("turn failed")
            with contextlib.suppress(RuntimeError):
                self.window.chat.add_message("error", f"Something went wrong: {exc}")
        finally:
            self._set_busy(False)

    async def _run_agent(self, text: str) -> None:
        assert self.session is not None
        if self.kit is not None:
            self.kit.session.note_user_message(text)
        before = list(self.session.history.messages)
        response = await self.session.run(text)
        self._save_turn(new_messages(before, self.session.history.messages), text, response.interrupted)
        if self.voice_session is not None and self.ctx.settings.voice.speak_replies and not response.is_error:
            self._reply_speaker().say(response.content)

    def stop(self) -> None:
        self._stop_speaking()
        if self.research is not None:
            self.research.cancel()
        if self.window.permission_panel.isVisible():
            self.window.permission_panel.dismiss_all()
        if self.session is not None:
            self.session.stop()
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def new_chat(self) -> None:
        self.stop()
        self._reset_view()
        if self.session is not None:
            self.session.clear()
        self.conversation_id = None
        self.conversation_changed.emit("")
        self.window.chat.input.setFocus()

    def _reset_view(self) -> None:
        self._cards.clear()
        self.window.chat.view.chat_model.clear()
        self.window.action_log.log_model.clear()
        self._answer_id = None

    def open_conversation(self, conversation_id: str) -> None:
        """Show a saved conversation and continue it."""
        if self.store is None or conversation_id == self.conversation_id:
            return
        self.stop()
        try:
            stored = self.store.messages(conversation_id)
            actions = self.store.action_log(conversation_id)
        except JawadError as exc:
            self.window.show_notice("error", exc.user_text())
            return
        from jawad_desktop.ui.chat_view import ChatItem

        self._reset_view()
        results = {s.message.tool_call_id: s.message.content for s in stored if s.message.role == "tool"}
        items: list[ChatItem] = []
        for message in (s.message for s in stored):
            if message.role == "user":
                items.append(ChatItem(role="user", text=message.content))
            elif message.role == "assistant":
                if message.content.strip() and not message.tool_calls:
                    items.append(ChatItem(role="assistant", text=message.content))
                for tool_call in message.tool_calls:
                    arguments = tool_call.arguments if isinstance(tool_call.arguments, dict) else {}
                    result = results.get(tool_call.id, "")
                    items.append(ChatItem(role="tool", tool_name=tool_call.name, tool_args=arguments,
                                          tool_result=result, tool_status="success" if result else "error"))
        self.window.chat.view.chat_model.extend(items)
        for entry in actions:
            self.window.action_log.log_model.upsert(entry)
        if self.session is not None:
            self.session.clear()
            self.session.history.commit([s.message for s in stored])
        self.conversation_id = conversation_id
        self.ctx.settings.ui.last_conversation_id = conversation_id
        if self.research is not None:
            self.research.restore(conversation_id)
        self.conversation_changed.emit(conversation_id)

    def regenerate(self) -> None:
        """Ask again for the last answer: drop it and send the last question again."""
        text = self._drop_last_turn()
        if text:
            self.window.chat.input.setPlainText(text)
            self.send(text)

    def edit_last(self) -> None:
        """Put the last question back into the input to edit and resend it."""
        text = self._drop_last_turn()
        if text:
            self.window.chat.input.setPlainText(text)
            self.window.focus_input()

    def _drop_last_turn(self) -> str:
        if self.busy:
            return ""
        model = self.window.chat.view.chat_model
        items = model.items()
        last_user = next((i for i in range(len(items) - 1, -1, -1) if items[i].role == "user"), None)
        if last_user is None:
            return ""
        text = items[last_user].text
        for item in items[last_user:]:
            model.remove(item.id)
        if self.store is not None and self.conversation_id:
            stored = self.store.messages(self.conversation_id)
            position = next(
                (s.position for s in reversed(stored) if s.message.role == "user" and s.message.content == text),
                None,
            )
            if position is not None:
                self.store.truncate(self.conversation_id, position)
                if self.session is not None:
                    self.session.clear()
                    self.session.history.commit(self.store.history(self.conversation_id))
        return text

    def shutdown(self) -> None:
        """Cancel everything still running (the window is closing)."""
        self.stop()
        if self.voice_session is not None:
            with contextlib.suppress(Exception):
                self.voice_session.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def aclose(self) -> None:
        """Release what needs an orderly end: the page (cookies to disk), the client, the store."""
        if self.driver is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.driver.close(release_profile=True), 1.0)
        if self._client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._client.aclose(), 0.5)
        if self.kit is not None:
            with contextlib.suppress(Exception):
                self.kit.close()
        if self.mcp is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.mcp.aclose(), 0.5)
        if self.store is not None:
            with contextlib.suppress(Exception):
                self.store.close()

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- saving -----------------------------------------------------------------------------
    def _recorder(self) -> TurnRecorder | None:
        if self.store is None:
            return None
        return TurnRecorder(self.store, self.conversation_id)

    def _save_user_message(self, text: str) -> None:
        recorder = self._recorder()
        if recorder is None:
            return
        try:
            new = self.conversation_id is None
            self.conversation_id = recorder.user_message(text)
            if new:
                self.ctx.settings.ui.last_conversation_id = self.conversation_id
                self.conversation_changed.emit(self.conversation_id)
        except JawadError as exc:
            self.window.show_notice("error", "This message could not be saved: " + exc.user_text())

    def _save_turn(self, messages: list[Message], user_text: str, interrupted: bool) -> None:
        recorder = self._recorder()
        if recorder is None:
            return
        try:
            recorder.turn_messages(messages, user_text, interrupted=interrupted)
        except JawadError as exc:
            self.window.show_notice("error", "The answer could not be saved: " + exc.user_text())

    def _on_action(self, entry: ev.ActionLogEntry) -> None:
        self._show_tool_card(entry)
        recorder = self._recorder()
        if recorder is None:
            return
        try:
            recorder.action(entry)
        except JawadError as exc:
            log.warning("action log entry not saved: %s", exc)

    def _show_tool_card(self, entry: ev.ActionLogEntry) -> None:
        """Each tool call is a card in the chat (collapsed: tool and outcome; expanded: the
        arguments and the result)."""
        from jawad_desktop.ui.chat_view import ChatItem

        model = self.window.chat.view.chat_model
        card_id = self._cards.get(entry.id)
        status = entry.result if entry.result in ("success", "error", "denied") else "pending"
        if card_id is None:
            item = ChatItem(role="tool", tool_name=entry.tool_name, tool_args=dict(entry.parameters),
                            tool_result=entry.details, tool_status=status)
            self._cards[entry.id] = model.append(item)
        else:
            model.update(card_id, tool_result=entry.details, tool_status=status)

    # -- settings integration ---------------------------------------------------------------
    def provider_hooks(self) -> dict[str, Any]:
        """Test Connection and model list callables for the Providers page."""
        from jawad_desktop.core.llm.connection import list_models, test_connection

        network = self.ctx.settings.network

        async def tester(provider: ProviderConfig, key: str | None) -> tuple[bool, str]:
            result = await test_connection(provider, key, network)
            if result.success:
                return True, f"Connected to {provider.name} in {result.latency_ms:.0f} ms."
            return False, result.error

        async def lister(provider: ProviderConfig, key: str | None) -> list[str]:
            return await list_models(provider, key, network)

        return {"tester": tester, "model_lister": lister}

    def extend_settings(self, dialog: SettingsDialog) -> None:
        """Add the pages other parts of the app own to the Settings dialog."""
        self.ensure_assistant()
        if self.kit is not None:
            from jawad_desktop.ui.grants_page import GrantsPage

            dialog.add_page("Site permissions", GrantsPage(self.kit.harbor, dialog))
        try:
            from jawad_desktop.ui.mcp_page import McpPage

            mcp_page = McpPage(self.ctx, dialog)
            dialog.add_page("MCP servers", mcp_page)
            mcp_page.changed.connect(lambda: self.spawn(self.connect_mcp()))
        except Exception as exc:
            log.warning("MCP settings unavailable: %s", exc)
        try:
            from jawad_desktop.ui.voice_settings import VoiceSettingsPage

            dialog.add_page("Voice", VoiceSettingsPage(self.ctx, dialog))
        except Exception as exc:  # a missing audio library must not hide the other pages
            log.warning("voice settings unavailable: %s", exc)

    def settings_changed(self) -> None:
        """The user changed settings: the next turn uses the new provider (see _client_for_run)."""

    # -- voice ------------------------------------------------------------------------------
    def _on_partial(self, text: str) -> None:
        self.window.chat.input.setPlaceholderText(f"Hearing: {text}…")

    def _on_transcript(self, text: str) -> None:
        self.window.chat.input.setPlaceholderText("Ask Jawad anything — Enter sends, Shift+Enter adds a line")
        current = self.window.chat.input.toPlainText().rstrip()
        self.window.chat.input.setPlainText(f"{current} {text}".strip() if current else text)
        self.window.focus_input()

    def _send_spoken(self, text: str) -> None:
        self.window.chat.input.setPlainText(text)
        self.send(text)

    # -- events -----------------------------------------------------------------------------
    def _on_delta(self, event: ev.ChatDelta) -> None:
        chat = self.window.chat
        if self._answer_id is None:
            self._answer_id = chat.add_message("assistant", "", streaming=True)
        chat.view.chat_model.append_text(self._answer_id, event.text)

    def _on_response(self, event: ev.ChatResponse) -> None:
        chat = self.window.chat
        model = chat.view.chat_model
        role = "error" if event.is_error else "assistant"
        text = event.content
        if event.interrupted:
            text = (text + "\n\n*(stopped)*").strip()
        if self._answer_id is None:
            self._answer_id = chat.add_message(role, text)
        else:
            model.update(self._answer_id, text=text, role=role, streaming=False)
        self._answer_id = None

    def _finish_answer(self, *, interrupted: bool) -> None:
        if self._answer_id is not None:
            model = self.window.chat.view.chat_model
            model.flush()
            item = model.get(self._answer_id)
            suffix = "\n\n*(stopped)*" if interrupted else ""
            if item is not None:
                model.update(self._answer_id, text=item.text + suffix, streaming=False)
            self._answer_id = None

    def _set_busy(self, busy: bool) -> None:
        # The window may already be gone when a cancelled turn ends (closing while busy).
        with contextlib.suppress(RuntimeError):
            self.window.chat.set_busy(busy)
            self.window.stop_action.setEnabled(busy)
            self.busy_changed.emit(busy)
