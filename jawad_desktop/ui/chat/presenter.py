"""The window's presenter: the core ``Assistant``'s events shown on the chat panel, and the
user's actions (Send, Stop, New chat, history, regenerate, voice) turned into its calls.

It holds no business logic: the ``Assistant`` (``core.assistant``) does the work and announces
what happened; this maps each event onto a small widget API (``ChatPanel.stream_answer``,
``end_answer``, ``show_tool_call``, ``show_conversation``...; the action log's ``upsert``; the
permission panel's ``show_request``/``settle``; plan-first mode's plan panel, ``ui.prompts.plan_panel``,
which it puts above the input when not given one) and says in the status line where a run is
('Step 3 of 10: clicking "Add to cart"'). It is given the widgets it drives; it never reaches into the
window. Background work runs through ``ui.base.background``. While conversation mode runs
(``conversation``), a typed message is handed to it (``Conversation.send_text``): its reply is
spoken there, and a message it could not send comes back into the composer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Message
from jawad_desktop.ui.base.background import run_async, tell
from jawad_desktop.ui.base.remedies import error_text

if TYPE_CHECKING:
    import asyncio

    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.chat.action_log import ActionLogView
    from jawad_desktop.ui.chat.chat_model import ChatItem
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.chat.research_panel import ResearchController
    from jawad_desktop.ui.prompts.permission_panel import PermissionPanel
    from jawad_desktop.ui.prompts.plan_panel import PlanPanel
    from jawad_desktop.ui.prompts.take_over_banner import TakeOverBanner

log = logging.getLogger("jawad.ui.presenter")

NO_PROVIDER = "Add a provider first: **Settings → Providers** (Ctrl+,)."


class ChatPresenter(QObject):
    """Drives one ``Assistant`` from the window's widgets and shows its events.

    ``busy_changed(bool)``: a turn or a research started or ended. ``status(text)``: the run's
    step, for the status bar ("" clears it). ``settings_needed()``: the user must add a
    provider first. ``ready()``: the assistant is built (the window adds the history, research
    and voice controls then).
    """

    busy_changed = Signal(bool)
    status = Signal(str)
    settings_needed = Signal()
    ready = Signal()
    hands_free = False  # conversation mode runs: it speaks the replies itself
    conversation: Any = None  # the running core.voice.conversation.Conversation: typed messages are its turns

    def __init__(
        self,
        ctx: AppContext,
        bridge: EventBridge,
        chat: ChatPanel,
        action_log: ActionLogView,
        permissions: PermissionPanel,
        *,
        make_page: Callable[[], Any] | None = None,
        take_over: TakeOverBanner | None = None,
        plans: PlanPanel | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.chat = chat
        self.action_log = action_log
        self.permissions = permissions
        self.take_over = take_over
        self._make_page = make_page
        self.assistant: Assistant | None = None
        # The conversation store the window's history opened before the assistant was needed
        # (``open_store``): the assistant saves in it once built.
        self.history_store: ConversationStore | None = None
        self.research: ResearchController | None = None
        self.speaker: Any = None
        self._speaker_factory: Callable[[], Any] | None = None
        self._turn: Any = None
        self._turn_running = False  # set with the widgets, so "not busy" means Send works again
        self._unsent: tuple[str, list[Path]] | None = None  # the message sent until its turn starts
        self._no_provider_notice: int | None = None  # "Add a provider first", until one is added
        bridge.turn_started.connect(self._on_turn_started)
        bridge.chat_delta.connect(lambda e: self.chat.stream_answer(e.text))
        bridge.chat_response.connect(self._on_response)
        bridge.turn_finished.connect(self._on_turn_finished)
        bridge.agent_step.connect(self._on_step)
        bridge.action_log.connect(self._on_action)
        bridge.permission_request.connect(permissions.show_request)
        bridge.permission_settled.connect(permissions.settle)
        if plans is None:  # plan-first mode's plan waits for approval above the input, like a permission
            from jawad_desktop.ui.prompts.plan_panel import PlanPanel

            plans = PlanPanel(chat, shortcut_parent=chat.window())
            chat.insert_above_input(plans)
        self.plans = plans
        bridge.plan_proposed.connect(plans.show_plan)
        bridge.plan_settled.connect(plans.settle)
        if take_over is not None:  # the agent hands the page to the user: the banner above the browser
            bridge.hand_over_requested.connect(take_over.show_request)
            bridge.hand_over_finished.connect(take_over.finish)
        bridge.conversation_changed.connect(self._on_conversation_changed)
        bridge.retry.connect(self._on_retry)
        # An MCP server's question mid-call: a form above the input (ui.prompts.elicitation_panel).
        from jawad_desktop.ui.prompts.elicitation_panel import ElicitationPanel

        self.elicitation = ElicitationPanel(self._respond_to_server, chat)
        chat.insert_above_input(self.elicitation)
        bridge.other.connect(self._on_other_event)
        chat.resources_requested.connect(self.offer_mcp_resources)  # an MCP server's resource, attached
        self.resource_menu: Any = None  # the menu of MCP resources last shown
        self.template_dialog: Any = None  # the parameters of the MCP resource template last chosen
        self._followed: dict[tuple[str, str], Path] = {}  # (server, uri) -> the attached copy
        from jawad_desktop.ui.chat.prompt_completion import attach  # an MCP prompt's slash command, completed

        self.prompt_completion = attach(chat.input, self._mcp_connections)

    # -- building ---------------------------------------------------------------------------

    def build(self) -> Assistant | None:
        """Build the assistant on the browser's page, once; None (and a notice) when it cannot."""
        if self.assistant is not None:
            return self.assistant
        from jawad_desktop.core.assistant import Assistant

        try:
            page = self._make_page() if self._make_page is not None else None
            assistant = Assistant(self.ctx, page=page, store=self.history_store)
        except Exception as exc:  # a broken part must not keep the window from opening
            log.exception("the assistant could not start")
            tell(self.ctx.bus, "error", f"The assistant could not start: {exc}")
            return None
        self.assistant = assistant
        self.permissions.decided.connect(assistant.gate.respond)
        self.permissions.revised.connect(assistant.sampler.revise)  # an MCP sampling request, edited
        self.plans.answered.connect(assistant.gate.plans.respond)
        if self.take_over is not None and assistant.hand_over is not None:
            self.take_over.answered.connect(assistant.hand_over.respond)
        assistant.elicitations.answered_here()  # the form above the input answers the servers' questions
        if self.ctx.settings.mcp.servers:
            self.reconnect_mcp()
        assistant.watch_library()  # the document library's files re-indexed as they change
        self.ready.emit()
        return assistant

    def _respond_to_server(self, request_id: str, action: str, values: dict[str, Any]) -> list[str]:
        """The form's answer to a server's question; the problems of values that do not fit."""
        if self.assistant is None:
            return []
        return self.assistant.elicitations.respond(request_id, action, values)

    def _on_other_event(self, event: Any) -> None:
        if isinstance(event, ev.ElicitationRequested):
            self.elicitation.show_request(event)
        elif isinstance(event, ev.ElicitationSettled):
            self.elicitation.settle(event)
        elif isinstance(event, ev.McpResourceUpdated):  # a followed resource changed: its attachment too
            self._on_resource_updated(event)
        elif isinstance(event, ev.ToolProgress):  # on the running tool's card (Stop cancels it)
            self.chat.show_progress(event.call_id, event.progress, event.total, event.message)

    def _mcp_connections(self) -> Any:
        return self.assistant.mcp.connections if self.assistant is not None and self.assistant.mcp else None

    def reconnect_mcp(self) -> None:
        """Connect (again) to the MCP servers in Settings."""
        self.chat.resource_button.setVisible(bool(self.ctx.settings.mcp.servers))
        if self.assistant is not None:
            run_async(self.assistant.connect_mcp(), what="connecting the MCP servers", bus=self.ctx.bus)

    def offer_mcp_resources(self) -> None:
        """The MCP resources button: a menu of the servers' resources and resource templates; the one chosen
        is attached (a template once its parameters are filled)."""

        assistant = self.assistant
        if assistant is None or assistant.mcp is None:
            self.ctx.bus.emit(ev.Notice(level="info", text="The MCP servers are not connected yet."))
            return

        connections = assistant.mcp.connections

        async def listing() -> tuple[list[Any], list[Any]]:
            return await connections.resources(), await connections.resource_templates()

        def show(found: tuple[list[Any], list[Any]]) -> None:
            from jawad_desktop.ui.chat.mcp_resources import resource_menu

            self.resource_menu = resource_menu(self.chat, *found, self.attach_mcp_resource, self.fill_mcp_template)
            button = self.chat.resource_button
            self.resource_menu.popup(button.mapToGlobal(button.rect().topLeft()))

        run_async(listing(), what="listing the MCP resources", bus=self.ctx.bus, on_done=show)

    def fill_mcp_template(self, template: Any) -> None:
        """A resource template chosen: its parameters asked for (completed by its server), then attached."""
        from jawad_desktop.ui.chat.mcp_resources import TemplateDialog

        if self.assistant is None or self.assistant.mcp is None:
            return
        self.template_dialog = TemplateDialog(template, self.assistant.mcp.connections, self.chat)
        self.template_dialog.accepted.connect(
            lambda d=self.template_dialog: self.attach_mcp_resource(template.server, d.uri))
        self.template_dialog.open()

    def attach_mcp_resource(self, server: str, uri: str) -> None:
        """Attach ``uri`` of ``server`` to the next message (as a file in the composer), and follow it: when
        the server says it changed, the attached copy is read again (``_on_resource_updated``)."""
        assistant = self.assistant
        if assistant is None:
            return

        def attached(path: Path) -> None:
            self.chat.attachments.add([path])
            self._followed[(server, uri)] = path
            if assistant.mcp is not None:  # a server that offers no subscriptions is simply not followed
                run_async(assistant.mcp.connections.subscribe(server, uri), what=f"following {uri}",
                          on_error=lambda exc: log.info("not following %s: %s", uri, exc))

        run_async(assistant.save_mcp_resource(server, uri), what=f"reading {uri}", bus=self.ctx.bus, on_done=attached)

    def _on_resource_updated(self, event: ev.McpResourceUpdated) -> None:
        path = self._followed.get((event.server, event.uri))
        if path is None or path not in self.chat.attachments.files() or self.assistant is None:
            return
        run_async(self.assistant.save_mcp_resource(event.server, event.uri), what=f"reading {event.uri} again",
                  bus=self.ctx.bus, on_done=lambda _path: self.ctx.bus.emit(ev.Notice(
                      level="info", text=f"{event.uri} changed on {event.server}; the attached copy is up to date.")))

    def attach_research(self, research: ResearchController) -> None:
        self.research = research
        research.busy_changed.connect(self._set_busy)

    def attach_speaker(self, factory: Callable[[], Any]) -> None:
        """Replies are spoken with ``factory()`` (made on first use: the speech engine is slow to load)."""
        self._speaker_factory = factory

    # -- state --------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._turn_running or (self.research is not None and self.research.busy)

    @property
    def store(self) -> ConversationStore | None:
        return self.assistant.store if self.assistant is not None else self.history_store

    def open_store(self) -> ConversationStore | None:
        """The conversation store, opened now if the assistant has not opened it (the history shows
        it before the first turn builds the assistant); None, and a notice, when it cannot be opened."""
        if self.store is None and self.assistant is None:
            from jawad_desktop.core.store.conversations import ConversationStore

            try:
                self.history_store = ConversationStore.open(self.ctx.paths.data, bus=self.ctx.bus)
            except JawadError as exc:
                tell(self.ctx.bus, "error", "Conversations will not be saved: " + exc.user_text())
        return self.store

    @property
    def conversation_id(self) -> str | None:
        return self.assistant.conversation_id if self.assistant is not None else None

    def provider_ready(self) -> None:
        """A provider is set up: the "Add a provider first" notice no longer applies."""
        if self._no_provider_notice is not None:
            self.chat.remove_message(self._no_provider_notice)
            self._no_provider_notice = None

    # -- what the user does -----------------------------------------------------------------

    def send(self, text: str) -> None:
        """Send what the user typed; the input keeps it until the turn is accepted."""
        if self.busy:
            return
        assistant = self.build()
        if assistant is None:
            self.chat.add_message("error", "The assistant is not available: see the notice above.")
            return
        from jawad_desktop.core.agent.commands import research_intent

        intent = research_intent(text)
        if self.ctx.settings.active() is None and intent is None:
            shown = self._no_provider_notice
            if shown is None or self.chat.view.chat_model.get(shown) is None:  # once, again after New chat
                self._no_provider_notice = self.chat.add_message("notice", NO_PROVIDER)
            self.settings_needed.emit()
            return
        if intent is not None and self.research is not None:
            self.chat.take_input()
            self.research.start(intent)
            return
        self.chat.take_input()
        files = self.chat.take_attachments()
        conversation = self.conversation
        if conversation is not None and conversation.active:
            # Conversation mode: the message is the conversation's next turn (it stops listening,
            # or waits for the reply being spoken), answered aloud; then it listens again.
            self._unsent = (text, files)
            conversation.send_text(text, files).add_done_callback(
                lambda done: self._typed_turn_ended(done, text, files))
            return
        # Until the turn starts, the message may still be refused (a file that cannot be read):
        # then it goes back into the composer with its files, nothing lost.
        self._unsent = (text, files)
        self._run(assistant.send(text, attachments=files))

    def _run(self, work: Any) -> None:
        self._turn_running = True
        self._set_busy(True)
        self._turn = run_async(work, what="the answer", bus=self.ctx.bus, on_done=lambda _r: self._turn_ended(),
                               on_error=self._turn_failed)
        self._turn.add_done_callback(lambda t: self._turn_ended() if t.cancelled() else None)

    def _turn_ended(self) -> None:
        self._turn_running = False
        self._set_busy(False)

    def _turn_failed(self, exc: BaseException) -> None:
        self._turn_ended()
        text = error_text(exc) if isinstance(exc, JawadError) else f"Something went wrong: {exc}"
        if not isinstance(exc, JawadError):
            log.error("turn failed", exc_info=exc)
        unsent, self._unsent = self._unsent, None
        if unsent is not None:  # refused before it was sent: back into the composer
            self.chat.restore_message(*unsent)
        self.chat.end_answer(text, error=True)

    def _typed_turn_ended(self, done: asyncio.Future[ev.ChatResponse], text: str, files: list[Path]) -> None:
        """A message typed in conversation mode was answered, or could not be sent: then it goes
        back into the composer (if its turn had not started) and the error is shown."""
        if done.cancelled() or done.exception() is None:
            return
        exc = done.exception()
        if self._unsent == (text, files):
            self._unsent = None
            self.chat.restore_message(text, files)
        if isinstance(exc, JawadError) and getattr(exc, "code", "") == "CONVERSATION_ENDED":
            tell(self.ctx.bus, "info", error_text(exc))  # not an answer's failure: a notice says it
            return
        shown = error_text(exc) if isinstance(exc, JawadError) else f"Something went wrong: {exc}"
        if not isinstance(exc, JawadError):
            log.error("typed turn failed", exc_info=exc)
        self.chat.end_answer(shown, error=True)

    def stop(self) -> None:
        """Stop speaking, the research and the turn (a pending permission request closes itself)."""
        if self.speaker is not None:
            self.speaker.stop()
        if self.research is not None:
            self.research.cancel()
        if self.assistant is not None:
            self.assistant.stop()

    def new_chat(self) -> None:
        if self.assistant is not None:
            self.assistant.new_chat()  # ConversationChanged("") clears the view
        else:
            self._clear_view()
        self.chat.input.setFocus()

    def open_conversation(self, conversation_id: str) -> None:
        """Show a saved conversation and continue it (the history is shown before the assistant is
        built: a conversation opened builds it)."""
        assistant = self.build()
        if assistant is None or conversation_id == assistant.conversation_id:
            return
        try:
            opened = assistant.open_conversation(conversation_id)
        except JawadError as exc:
            tell(self.ctx.bus, "error", error_text(exc))
            return
        self._clear_view()
        self.chat.show_conversation(chat_items(opened.messages, opened.usage, opened.attached))
        for entry in opened.actions:
            self.action_log.log_model.upsert(entry)
        if self.research is not None:
            self.research.restore(conversation_id)

    def regenerate(self) -> None:
        """Ask the last question again, in place of its answer."""
        if self.busy or self.assistant is None:
            return
        text = self.assistant.edit_last()
        if text:
            self.chat.retract_last_turn()
            self._run(self.assistant.send(text))

    def edit_last(self) -> None:
        """Put the last question back into the input to edit and resend it."""
        if self.busy or self.assistant is None:
            return
        text = self.assistant.edit_last()
        if text:
            self.chat.retract_last_turn()
            self.chat.edit_text(text)

    def _speaker(self) -> Any:
        if self.speaker is None and self._speaker_factory is not None:
            self.speaker = self._speaker_factory()
        return self.speaker

    def remember(self, text: str) -> None:
        """A message's Remember: its words become a fact Jawad keeps (Settings → Memory)."""
        from jawad_desktop.core.store.memory import as_fact

        assistant = self.build()
        memory = assistant.memory if assistant is not None else None
        if memory is None:
            tell(self.ctx.bus, "error", "Memory is not available: the conversation history could not be opened.")
            return
        try:
            saved = memory.add(as_fact(text))
        except JawadError as exc:
            tell(self.ctx.bus, "error", error_text(exc))
            return
        self.status.emit(f"Remembered: {saved.text[:80]}{'…' if len(saved.text) > 80 else ''} "
                         "(Settings → Memory)")

    def speak(self, text: str) -> None:
        if self._speaker_factory is not None:
            self._speaker().say(text)

    def stop_speaking(self) -> None:
        if self.speaker is not None:
            self.speaker.stop()

    async def aclose(self) -> None:
        """Stop, then release the assistant's client, MCP servers, cache and store."""
        self.stop()
        if self.assistant is not None:
            await self.assistant.aclose()
        elif self.history_store is not None:
            self.history_store.close()

    # -- events -----------------------------------------------------------------------------

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        self._unsent = None
        self.chat.add_message("user", with_attached(event.user_text, event.attachments))
        if self.ctx.settings.voice.speak_replies and not self.hands_free and self._speaker_factory is not None:
            self._speaker().warm_up()  # a local voice loads while the model thinks

    def _on_response(self, event: ev.ChatResponse) -> None:
        from jawad_desktop.core.errors import Remedy
        from jawad_desktop.core.llm.pricing import describe
        from jawad_desktop.ui.base.remedies import with_remedy

        content = event.content
        if event.is_error:  # the turn's error says what to change; the window says where
            content = with_remedy(content, Remedy.from_json(event.metadata.get("remedy")))
        usage = describe(event.metadata)  # "1,234 tokens · about $0.0021"
        remembered = event.metadata.get("memories")
        if isinstance(remembered, list) and remembered:  # what the model was reminded of
            usage = " · ".join(part for part in (usage, f"with {len(remembered)} remembered fact"
                                                 f"{'s' if len(remembered) != 1 else ''}") if part)
        self.chat.end_answer(content, error=event.is_error, stopped=event.interrupted, usage=usage)

    def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        self.status.emit("")
        response = event.response
        if (self.ctx.settings.voice.speak_replies and not self.hands_free and not response.is_error
                and not response.interrupted):
            self.speak(response.content)

    def _on_step(self, event: ev.AgentStep) -> None:
        step = f"Step {event.iteration} of {event.max_iterations}"
        self.status.emit(f"{step}: {event.doing or event.tool_name}" if event.state == "tool" else f"{step}: thinking…")

    def _on_action(self, entry: ev.ActionLogEntry) -> None:
        self.action_log.log_model.upsert(entry)
        self.chat.show_tool_call(entry.id, entry.tool_name, dict(entry.parameters), entry.details, entry.result,
                                 tool_call_id=entry.call_id)

    def _on_conversation_changed(self, conversation_id: str) -> None:
        if conversation_id:
            self.ctx.settings.ui.last_conversation_id = conversation_id  # opened again at the next start
        else:
            self._clear_view()

    def _on_retry(self, notice: ev.RetryNotice) -> None:
        self.status.emit(f"{notice.reason} — retrying in {notice.delay_s:.1f} s "
                         f"(attempt {notice.attempt} of {notice.max_attempts})")

    def _clear_view(self) -> None:
        self.chat.clear_messages()
        self.action_log.log_model.clear()

    def _set_busy(self, busy: bool) -> None:
        busy = busy or self.busy
        try:
            self.chat.set_busy(busy)
        except RuntimeError:  # the window is already gone (closing while busy)
            return
        if not busy:
            self.status.emit("")
        self.busy_changed.emit(busy)


def with_attached(text: str, names: Sequence[str]) -> str:
    """A user's message as the chat shows it: its text, then the files sent with it."""
    return text + (f"\n\n*Attached: {', '.join(names)}*" if names else "")


def chat_items(messages: list[Message], usage: list[dict[str, Any]] | None = None,
               attached: Sequence[Sequence[str]] = ()) -> list[ChatItem]:
    """A saved conversation as chat rows: messages, and a card for each tool call with its result;
    an answer that ended a turn has the turn's usage line (``usage[i]`` for ``messages[i]``); a
    message sent with files names them (``attached[i]``), as when it was sent."""
    from jawad_desktop.core.agent.confirm import CONFIRM_HEADER
    from jawad_desktop.core.llm.pricing import describe
    from jawad_desktop.ui.chat.chat_model import ChatItem

    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    items: list[ChatItem] = []
    for index, message in enumerate(messages):
        if message.role == "user" and message.content.startswith(CONFIRM_HEADER):
            # The page check before an answer (core.agent.confirm), not the user's words; the
            # answer it held back was never shown either: the reply after it takes its place.
            if items and items[-1].role == "assistant":
                items.pop()
            continue
        if message.role == "user":
            names = attached[index] if index < len(attached) else ()
            items.append(ChatItem(role="user", text=with_attached(message.content, names)))
        elif message.role == "assistant":
            if message.content.strip() and not message.tool_calls:
                used = usage[index] if usage is not None and index < len(usage) else {}
                items.append(ChatItem(role="assistant", text=message.content, usage=describe(used)))
            for call in message.tool_calls:
                arguments = call.arguments if isinstance(call.arguments, dict) else {}
                result = results.get(call.id, "")
                items.append(ChatItem(role="tool", tool_name=call.name, tool_args=arguments, tool_result=result,
                                      tool_status="success" if result else "error"))
    return items
