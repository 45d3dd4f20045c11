"""The agent loop and the one object the window and the CLI drive: ``AgentSession``.

One ``run(user_text)`` is one turn (spec 000's runAgentLoop, spec 004's pending history):

1. Slash commands (/tools, /clear, /summarize, /help) are handled without the model.
2. Up to ``max_iterations`` times: refresh the page context through the hook, build the
   system prompt, send history + this turn's pending messages, stream the sanitised text
   as ``ChatDelta`` events, then look for calls: native ``tool_calls`` first, else calls
   written in text (XML or the JSON contract). No call: that is the answer.
3. Each call is repaired and validated (invalid ones go back to the model as feedback, at
   most ``max_tool_retries`` rounds in a row), permission is awaited through the gate, the
   tool runs, and every step is an ``ActionLogUpdate``. The same call with the same result a
   third time stops the turn with a message saying so (``core.agent.loop_guard``). After an
   action changed the page, an answer given without looking at the page since is held back
   (not streamed) and checked once against a fresh read_page (``core.agent.confirm``).
4. One ``ChatResponse`` event ends the turn, whatever happened; the turn's messages are
   committed to history only then.

The tool-call format is chosen per model: native function calling unless the settings name
a format, or this model is known to need text. A provider that rejects ``tools``
(``ToolsRejectedError``) gets the same request again at once in the XML format, with the
instructions and the tools' schemas in the system prompt; a model that writes its calls in
text is switched too. What is found (or what the tool-calling test found, ``core.agent.probe``)
is remembered in the profile's model facts under the client's ``model_key`` (provider kind,
base URL, model name), so it outlives the session and the app, and never carries over to
another provider or model.

The context is sized for the model's window (``core.llm.context_window``) at each run:
``ContextBudget`` (``core.agent.budget``) sets the answer's ``max_tokens``, the history's
budget, the page text in the prompt and the most of a tool result the model gets. Files
attached to the message (``run(..., attachments=...)``) take up to half of the room the history
may hold (``core.tools.files.attachments``), so they are still there at the next turn; the model
reads the rest with ``read_attachment``.

Stop: ``session.stop()`` (or cancelling the task that awaits ``run``) cancels the run at
any point, including inside a tool; what was shown stays, the ``ChatResponse`` says
``interrupted``, and the user's message is kept in history.

Events (on ``bus``): ``TurnStarted(run_id, user_text)``, ``ChatDelta(run_id, text)``,
``ActionLogUpdate(entry)`` (an entry is emitted when a call starts, then again with the same
``id`` when it is decided and when it ends), ``PermissionRequest`` (from the gate), ``Notice``
(format switch), ``AgentStep`` (asking the model, step n of max; running a tool),
``ChatResponse(run_id, content, is_error, interrupted, metadata)`` (an error's remedy, where the
user fixes it, is ``metadata["remedy"]``: ``Remedy.as_json()``, worded by each face), then
``TurnFinished(run_id, user_text, messages, response)`` with the messages the turn committed
to the history after the user's (what the recorder saves).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events
from jawad_desktop.core.agent import commands
from jawad_desktop.core.agent.asking import ModelAsking
from jawad_desktop.core.agent.budget import CHARS_PER_TOKEN, ContextBudget
from jawad_desktop.core.agent.history import ConversationHistory
from jawad_desktop.core.agent.running import ToolRunning
from jawad_desktop.core.agent.textcalls import StreamSanitizer
from jawad_desktop.core.agent.turn import ChatClient, OfferedTools, Turn, model_key, remedy_metadata, resolve_client
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import (
    AgentStep,
    EventBus,
    TurnStarted,
)
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import HarborGate, PermissionGate
from jawad_desktop.core.llm.pricing import PriceTable
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.llm.vision import accepts_images
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.memory import MemoryStore, fact_to_remember
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.browser.tool_running import SEEING_TOOLS
from jawad_desktop.core.tools.files.attachments import ATTACHMENT_SHARE, AttachedFiles, file_record, user_message
from jawad_desktop.core.tools.files.extract import ExtractedFile
from jawad_desktop.core.tools.files.file_tools import hidden_file_tools
from jawad_desktop.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession

log = logging.getLogger("jawad.agent")

__all__ = ["AgentSession", "ChatClient", "resolve_client"]


class AgentSession(ModelAsking, ToolRunning):
    """The agent for one conversation, assembled by ``core.assistant.Assistant``.

    Build it with a client (``LLMClient`` or anything with the same ``chat``) or a factory
    returning one (called at each run, so a provider change applies at the next message),
    the tool registry, the settings, the bus, and optionally: the permission ``gate`` (default:
    Harbor with nobody to ask, so read-only runs and the rest is denied), the ``browser`` session
    the tools act on (its page is read into the system prompt every iteration, with the page
    cache's last product), ``extras`` added to every ``ToolContext``, and the ``prices`` a run's
    cost is estimated with (default: the built-in table; ``core.agent.usage``).

    ``await session.run("text")`` returns the ``events.ChatResponse`` it also emitted.
    ``session.stop()`` stops the run in progress. ``session.clear()`` forgets the history.
    """

    def __init__(
        self,
        *,
        client: ChatClient | Callable[[], ChatClient],
        registry: ToolRegistry,
        settings: Settings,
        bus: EventBus,
        gate: PermissionGate | None = None,
        secrets: SecretStore | None = None,
        browser: BrowserSession | None = None,
        history: ConversationHistory | None = None,
        extras: dict[str, Any] | None = None,
        system_extra: str = "",
        prices: PriceTable | None = None,
        facts: ModelFactsStore | None = None,
    ) -> None:
        self._client_source = client
        # What is learned about models (tool format, context window): the profile's, else this session's.
        self.facts = facts if facts is not None else ModelFactsStore(None)
        self.prices = prices if prices is not None else PriceTable()
        self.registry = registry
        self.settings = settings
        self.bus = bus
        self.gate = gate if gate is not None else HarborGate(Harbor(), bus, ask=False)
        self.secrets = secrets
        self.browser = browser
        agent = settings.agent
        self.history = history or ConversationHistory(agent.history_max_messages, agent.history_token_budget)
        self.extras = dict(extras or {})
        self.system_extra = system_extra
        self.mode = "native"  # the format of the current (or last) run
        self.budget = ContextBudget.for_window(8192, agent.max_tokens, agent.history_token_budget)  # set per run
        self._model = ("", "", "")
        self._client_used = None
        self._task: asyncio.Task[events.ChatResponse] | None = None
        self._names_cache: tuple[int, frozenset[str]] | None = None
        self._sanitizer = StreamSanitizer(())
        self._images = {}  # a call's images, until its result message is made
        self._audio = {}  # a call's sounds, likewise
        self._plan_note = ""  # the plan the user approved for the run in progress (plan-first mode)
        self.memory: MemoryStore | None = None  # what the user asked to remember (the Assistant's)
        self._memories = []  # the facts the run in progress gives the model
        # The files attached in this conversation, for read_attachment (core.tools.files).
        self.attachments = AttachedFiles()
        self.extras.setdefault("attachments", self.attachments)
        self.last_attachments: list[ExtractedFile] = []  # the last run's, for regenerate
        # What the user typed, for a message that holds their files too: id(message) -> (content, typed).
        self._typed: dict[int, tuple[str, str]] = {}

    # -- public -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def stop(self) -> bool:
        """Stop the run in progress (Stop button, Ctrl+C). False when nothing runs."""
        if not self.running:
            return False
        assert self._task is not None
        self._task.cancel()
        return True

    def clear(self, *, keep_files: bool = False) -> None:
        """Forget the conversation (spec 001 CLEAR_HISTORY); ``keep_files``: not the files attached
        in it (the history is being cut back, ``Assistant.edit_last``)."""
        self.history.clear()
        if not keep_files:
            self.attachments.clear()
            self._typed.clear()

    def with_files(self, messages: Sequence[Message]) -> list[Message]:
        """``messages`` as saved (a user's message holds what they typed), each user message that had
        files in this session replaced by the one the model was given, with the files' text."""
        held: dict[str, Message] = {}
        for message in self.history.messages:
            content, typed = self._typed.get(id(message), ("", ""))
            if content and content == message.content:
                held.setdefault(typed, message)
        return [held.get(m.content, m) if m.role == "user" else m for m in messages]

    def restore_files(self, typed: str, files: Sequence[tuple[str, ExtractedFile]]) -> Message:
        """The user's message ``typed`` of a conversation opened again, with the files it had
        (``file_record``s saved with it): they are readable again (``read_attachment``) and the
        returned message holds their text, as the model was given it."""
        for name, file in files:
            self.attachments.files[name] = file
        message = user_message(typed, list(files), budget_chars=self._attachment_chars(typed, files))
        self._typed[id(message)] = (message.content, typed)
        return message

    def _attachment_chars(self, typed: str, files: Sequence[tuple[str, ExtractedFile]]) -> int:
        """The characters the files' text may take in the user's message: a share of what the
        history may hold (so the files are still in the next turn's request), as characters
        of these files' text (``core.tokens``: fewer in a script that costs more tokens)."""
        room = min(self.budget.input, self.budget.history)
        share = int(room * CHARS_PER_TOKEN * ATTACHMENT_SHARE)
        text = "\n".join(part.text for _name, file in files for part in file.parts[:50])
        return self.history.counter.chars_for(text, share) - len(typed)

    def typed_text(self, message: Message) -> str:
        """What the user typed in ``message`` (its content without the files attached to it)."""
        content, typed = self._typed.get(id(message), ("", ""))
        return typed if content == message.content else message.content

    def sees_images(self) -> bool:
        """Whether the model the next request goes to accepts images (``core.llm.vision``)."""
        return accepts_images(self.facts, model_key(self._client()))

    async def run(self, user_text: str, *, force_tool: str | None = None,
                  plan_first: bool = False, attachments: Sequence[ExtractedFile] = ()) -> events.ChatResponse:
        """Run one turn and return its final response (also emitted on the bus).

        ``force_tool`` makes the first request require that tool (native format only:
        ``tool_choice``); /summarize forces ``summarize_page`` when there is a page. ``plan_first``:
        before acting, the model proposes a plan the user approves (``core.agent.plan_first``).
        ``attachments``: files read for this message (``core.tools.files``): their text goes after
        the user's words within the model's window, their pictures as the message's images.
        """
        if self.running:
            raise JawadError(
                "Jawad is still working on the previous message.",
                suggestions=["Wait for it to finish, or press Stop first."],
            )
        run_id = events.new_id("run")
        turn = Turn(run_id=run_id, user_text=user_text, force_tool=force_tool, plan_first=plan_first)
        turn.files = list(zip(self.attachments.add(attachments), attachments, strict=True))
        self.last_attachments = list(attachments)
        self.bus.emit(TurnStarted(run_id=run_id, user_text=commands.shown_text(user_text),
                                  attachments=tuple(f.name for f in attachments),
                                  files=tuple(file_record(name, file) for name, file in turn.files),
                                  local=commands.answered_locally(user_text)))
        self._task = asyncio.get_running_loop().create_task(self._run(turn), name=f"jawad-agent-{run_id}")
        try:
            return await asyncio.shield(self._task)
        except asyncio.CancelledError:
            # Our caller was cancelled (not stop()): stop the run too, then pass it on.
            self._task.cancel()
            await asyncio.wait({self._task})
            raise

    # -- the turn -----------------------------------------------------------------------------
    async def _run(self, turn: Turn) -> events.ChatResponse:
        try:
            self._memories = []
            remembered = self._remember(turn)
            if remembered is not None:
                return remembered
            if not commands.answered_locally(turn.user_text):
                self._memories = self._recall(turn.user_text)
            command = commands.parse_slash(turn.user_text)
            if command is not None and commands.known(command[0]):
                name, rest = command
                if name in ("summarize", "summarise"):
                    text = commands.SUMMARIZE_PROMPT + (f" Focus on: {rest}" if rest else "")
                    turn.user_text = text
                    if "summarize_page" in self.registry:
                        turn.force_tool = turn.force_tool or "summarize_page"
                    return await self._loop(turn)
                return self._finish(turn, self._slash(name), commit=False)
            return await self._loop(turn)
        except asyncio.CancelledError:
            return self._interrupted(turn)
        except JawadError as exc:
            self._commit(turn, [Message(role="user", content=turn.user_text)])
            return self._finish(
                turn, exc.user_text(), is_error=True, commit=False,
                metadata={"partial": turn.shown_text(), **remedy_metadata(exc.remedy)},
            )
        except Exception as exc:
            log.exception("the agent failed")
            self._commit(turn, [Message(role="user", content=turn.user_text)])
            return self._finish(
                turn,
                f"Something went wrong inside Jawad ({type(exc).__name__}: {exc}). Your message is kept; "
                "try again, and if it keeps failing the details are in the log file.",
                is_error=True,
                commit=False,
            )

    def _remember(self, turn: Turn) -> events.ChatResponse | None:
        """"Remember that …" in the user's own message: the fact is kept (no model is asked)."""
        if self.memory is None or not self.settings.memory.enabled:
            return None
        fact = fact_to_remember(turn.user_text)
        if fact is None:
            return None
        saved = self.memory.add(fact)
        text = f"I'll remember that: {saved.text}. (Settings → Memory lists and edits what I remember.)"
        turn.pending = [Message(role="user", content=turn.user_text), Message(role="assistant", content=text)]
        return self._finish(turn, text, metadata={"remembered": saved.text})

    def _recall(self, text: str) -> list[str]:
        """The remembered facts to give the model with ``text`` (none when memory is off)."""
        if self.memory is None or not self.settings.memory.enabled:
            return []
        try:
            return [m.text for m in self.memory.relevant(text, self.settings.memory.budget_chars)]
        except JawadError as exc:  # the store could not be read: the turn goes on without
            log.warning("memory not read: %s", exc.message)
            return []

    def _slash(self, name: str) -> str:
        if name == "tools":
            return commands.tools_text(self.registry)
        if name == "clear":
            self.clear()
            return commands.CLEARED
        return commands.help_text()

    def _client(self) -> ChatClient:
        return resolve_client(self._client_source)

    def client(self) -> ChatClient:
        """The client the next request goes to (a factory is asked again each time)."""
        return resolve_client(self._client_source)

    def sibling(
        self,
        *,
        registry: ToolRegistry,
        bus: EventBus,
        gate: PermissionGate,
        extras: dict[str, Any] | None = None,
        system_extra: str = "",
        client: ChatClient | None = None,
    ) -> AgentSession:
        """A new session on this one's client (or ``client``), settings, secrets, browser and prices,
        with its own tools, bus, gate and history (a research step runs in one; each side of a
        side-by-side comparison too)."""
        return AgentSession(client=client or self._client_source, registry=registry, settings=self.settings, bus=bus,
                            gate=gate, secrets=self.secrets, browser=self.browser, extras=extras,
                            system_extra=system_extra, prices=self.prices, facts=self.facts)


    def _names(self) -> frozenset[str]:
        size = len(self.registry)
        if self._names_cache is None or self._names_cache[0] != size:
            self._names_cache = (size, frozenset(self.registry.all_names()))
        return self._names_cache[1]

    # -- the loop, in named phases: prepare, then per step ask the model, repair its calls, check
    # them (budget, validity), run them, record the round. Asking and repairing live in
    # core.agent.asking, checking, running and recording in core.agent.running, the turn's state in
    # core.agent.turn and its end in core.agent.ending ------------------------------------------

    async def _loop(self, turn: Turn) -> events.ChatResponse:
        agent = self.settings.agent
        client = self._client()
        tools = await self._prepare(turn, client)
        if isinstance(tools, events.ChatResponse):  # plan-first mode: the plan was not approved
            return tools
        while turn.iterations < agent.max_iterations:
            turn.iterations += 1
            self.bus.emit(AgentStep(turn.run_id, "thinking", turn.iterations, agent.max_iterations))
            step = await self._ask_model(turn, client, tools)
            calls = self._repair_calls(turn, step, tools)
            if not calls and step.hold and await self._confirm_page(turn, step.response.content, step.page):
                continue  # the held-back answer is not shown: the model answers again, having seen the page
            self._show_rest(turn, step.clean)
            if not calls:
                return self._answer(turn, step.response)
            checked = self._check(turn, calls)
            if isinstance(checked, events.ChatResponse):
                return checked
            results = [await self._execute(turn, item, step.page) for item in checked]
            ended = self._record_round(turn, step, checked, results)
            if ended is not None:
                return ended
        return self._out_of_steps(turn)

    async def _prepare(self, turn: Turn, client: ChatClient) -> OfferedTools | events.ChatResponse:
        """Before the first step: the tool format and the context's size for the model, the tools
        offered (none a text-only model or an empty library cannot use), the user's message (with
        its files) in the turn, and in plan-first mode the plan agreed (or the turn's end)."""
        self._choose_mode(client)
        await self._size_for(client)
        names = self._names()
        offered = self.registry
        hidden = hidden_file_tools(self.extras) & names  # no attachment, no library: not offered
        if SEEING_TOOLS & names and not accepts_images(self.facts, self._model):  # text only: no look, click_at
            hidden |= SEEING_TOOLS & names
        if hidden:
            names = names - hidden
            offered = ToolRegistry().merged(self.registry)
            for name in hidden & set(offered.names()):
                offered.remove(name)
        tools = OfferedTools(names, offered, offered.openai_tools())
        if turn.files:
            message = user_message(turn.user_text, turn.files,
                                   budget_chars=self._attachment_chars(turn.user_text, turn.files))
            self._typed[id(message)] = (message.content, turn.user_text)
        else:
            message = Message(role="user", content=turn.user_text)
        turn.pending.append(message)
        self._sanitizer = StreamSanitizer(names)
        self._plan_note = ""
        if turn.plan_first:
            refused = await self._agree_on_plan(turn, client, names, offered)
            if refused is not None:
                return refused
        return tools


    def _answer(self, turn: Turn, response: ChatResponse) -> events.ChatResponse:
        """No call: the answer ends the turn (an empty one is said to be one)."""
        turn.pending.append(Message(role="assistant", content=response.content))
        if not turn.shown_text().strip():
            return self._finish(
                turn,
                "The model sent an empty answer. Try again, rephrase the request, or choose another model.",
                is_error=True,
                metadata={"empty_answer": True, **remedy_metadata(self._model_remedy())},
            )
        return self._finish(turn, turn.shown_text())


    def _out_of_steps(self, turn: Turn) -> events.ChatResponse:
        limit = self.settings.agent.max_iterations
        return self._finish(
            turn,
            self._with_shown(
                turn,
                f"I stopped after {limit} steps without a final answer, so this request is not finished. "
                "Ask me to continue, make the request more specific, or raise the step limit.",
            ),
            is_error=True,
            metadata={"iteration_limit": True, **remedy_metadata(Remedy("agent"))},
        )


