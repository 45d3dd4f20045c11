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
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from jawad_desktop.core import events
from jawad_desktop.core.agent import commands
from jawad_desktop.core.agent.budget import CHARS_PER_TOKEN, ContextBudget
from jawad_desktop.core.agent.confirm import CONFIRM_TOOL, PageConfirmation, confirmation_message
from jawad_desktop.core.agent.history import ConversationHistory
from jawad_desktop.core.agent.loop_guard import Repeated, RepeatGuard
from jawad_desktop.core.agent.plan_first import ask_for_plan
from jawad_desktop.core.agent.prompts import ToolMode, build_system_prompt, tool_results_message
from jawad_desktop.core.agent.step_words import describe_step
from jawad_desktop.core.agent.textcalls import StreamSanitizer, clean_response, parse_text_reply
from jawad_desktop.core.agent.toolcalls import CheckedCall, RepairedCall, arguments_for_display, check_call, check_calls
from jawad_desktop.core.agent.usage import RunUsage
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import (
    ActionLogEntry,
    ActionLogUpdate,
    AgentStep,
    ChatDelta,
    EventBus,
    Notice,
    TurnFinished,
    TurnStarted,
)
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import GateDecision, HarborGate, PermissionCheck, PermissionGate
from jawad_desktop.core.llm.context_window import context_window
from jawad_desktop.core.llm.errors import ToolsRejectedError
from jawad_desktop.core.llm.pricing import PriceTable
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.llm.vision import accepts_images
from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.store.memory import MemoryStore, fact_to_remember
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tokens import counter_for
from jawad_desktop.core.tools.browser.tool_running import SEEING_TOOLS
from jawad_desktop.core.tools.files.attachments import ATTACHMENT_SHARE, AttachedFiles, file_record, user_message
from jawad_desktop.core.tools.files.extract import ExtractedFile
from jawad_desktop.core.tools.files.file_tools import hidden_file_tools
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolRegistry
from jawad_desktop.core.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession

log = logging.getLogger("jawad.agent")


class ChatStreamLike(Protocol):
    def __aiter__(self) -> AsyncIterator[StreamDelta]: ...

    async def response(self) -> ChatResponse: ...


class ChatClient(Protocol):
    """What the agent needs of ``core.llm.client.LLMClient``."""

    def chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        stream: bool = True,
        temperature: float | None = None,
        max_tokens: int | None = 4096,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Any: ...


ModelKey = tuple[str, str, str]  # provider kind, base URL, model: what a tool format is remembered for


async def _page_state(browser: BrowserSession | None) -> tuple[PageContext | None, dict[str, Any] | None]:
    """The current page and the page cache's last product, for the system prompt. A page that
    cannot be read costs the context, not the turn."""
    if browser is None:
        return None, None
    try:
        page = await browser.page_context()
        product = await browser.last_product()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("the page could not be read for the prompt; continuing without it")
        return None, None
    return page, product


def resolve_client(source: ChatClient | Callable[[], ChatClient]) -> ChatClient:
    """A client, or a factory of one (called each time, so a provider change applies)."""
    if hasattr(source, "chat"):
        return source
    assert callable(source)
    return source()


def _model_key(client: ChatClient | None) -> ModelKey:
    key = getattr(client, "model_key", None)
    return key if isinstance(key, tuple) and len(key) == 3 else ("", "", "")


def _remedy(remedy: Remedy | None) -> dict[str, Any]:
    """A response's metadata for ``remedy``: plain JSON, as metadata is saved and printed."""
    return {"remedy": remedy.as_json()} if remedy is not None else {}


@dataclass
class _Turn:
    """The state of one run: pending messages, what was shown, counters."""

    run_id: str
    user_text: str
    pending: list[Message] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    iterations: int = 0
    invalid_rounds: int = 0
    deny_all: bool = False
    tool_calls: int = 0
    started: float = field(default_factory=time.monotonic)
    usage_in: int = 0
    usage_out: int = 0
    spent: RunUsage = field(default_factory=RunUsage)  # tokens and cost, against the run's budget
    llm_metadata: dict[str, Any] = field(default_factory=dict)  # the last response's, api_calls summed
    force_tool: str | None = None  # the tool the first request must call (/summarize)
    committed: list[Message] = field(default_factory=list)
    confirmation: PageConfirmation = field(default_factory=PageConfirmation)  # check the page before answering
    repeats: RepeatGuard = field(default_factory=RepeatGuard)  # the same call, the same result: stop
    plan_first: bool = False  # propose a plan and wait for the user's approval before acting
    files: list[tuple[str, ExtractedFile]] = field(default_factory=list)  # attached to the message: (name, file)

    def shown_text(self) -> str:
        return "\n\n".join(part for part in self.shown if part.strip())


@dataclass(frozen=True)
class _Tools:
    """The tools offered in this turn: their names, the registry, and their schemas as sent."""

    names: frozenset[str]
    offered: ToolRegistry
    spec: list[dict[str, Any]]


@dataclass
class _Step:
    """One step's request and what was read of its answer."""

    page: PageContext | None
    response: ChatResponse
    hold: bool  # the answer waits for the page's check before it is shown
    clean: str = ""  # the answer's text without the calls written in it
    text_format: bool = False  # the calls came written in text, not as native tool calls


class AgentSession:
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
        self.gate: PermissionGate = gate if gate is not None else HarborGate(Harbor(), bus, ask=False)
        self.secrets = secrets
        self.browser = browser
        agent = settings.agent
        self.history = history or ConversationHistory(agent.history_max_messages, agent.history_token_budget)
        self.extras = dict(extras or {})
        self.system_extra = system_extra
        self.mode: ToolMode = "native"  # the format of the current (or last) run
        self.budget = ContextBudget.for_window(8192, agent.max_tokens, agent.history_token_budget)  # set per run
        self._model: ModelKey = ("", "", "")
        self._client_used: ChatClient | None = None
        self._task: asyncio.Task[events.ChatResponse] | None = None
        self._names_cache: tuple[int, frozenset[str]] | None = None
        self._sanitizer = StreamSanitizer(())
        self._images: dict[str, list[Image]] = {}  # a call's images, until its result message is made
        self._plan_note = ""  # the plan the user approved for the run in progress (plan-first mode)
        self.memory: MemoryStore | None = None  # what the user asked to remember (the Assistant's)
        self._memories: list[str] = []  # the facts the run in progress gives the model
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
        return accepts_images(self.facts, _model_key(self._client()))

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
        turn = _Turn(run_id=run_id, user_text=user_text, force_tool=force_tool, plan_first=plan_first)
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
    async def _run(self, turn: _Turn) -> events.ChatResponse:
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
                metadata={"partial": turn.shown_text(), **_remedy(exc.remedy)},
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

    def _remember(self, turn: _Turn) -> events.ChatResponse | None:
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

    def _choose_mode(self, client: ChatClient) -> None:
        """This run's tool format: the settings', else what this model is known to need."""
        self._client_used = client
        self._model = _model_key(client)
        chosen = self.settings.agent.tool_format
        known = self.facts.get(self._model).tool_format if self._model[2] else ""
        if chosen in ("xml", "json"):
            self.mode = chosen
        elif chosen == "auto" and known == "xml":
            self.mode = "xml"
        elif chosen == "auto" and known == "json":
            self.mode = "json"
        else:
            self.mode = "native"

    async def _size_for(self, client: ChatClient) -> None:
        """This run's budget, from the model's context window (learned once, then remembered)."""
        agent = self.settings.agent
        window = await context_window(client, self.facts)
        self.budget = ContextBudget.for_window(window.tokens, agent.max_tokens, agent.history_token_budget)
        self.history.token_budget = self.budget.history
        self.history.counter = counter_for(self._model[2])
        await asyncio.to_thread(self.history.counter.load)  # an encoding's file, read off the loop once
        log.debug("context window of %s: %d tokens (%s); budget %s", self._model[2] or "the model",
                  window.tokens, window.source, self.budget)

    def _system_message(self, page: PageContext | None, last_product: dict[str, Any] | None,
                        names: frozenset[str], offered: ToolRegistry) -> Message:
        """The system prompt of one request, in the current tool format and the run's budget;
        ``offered``: the tools this model is given (the text formats describe them in the prompt)."""
        return Message(
            role="system",
            content=build_system_prompt(
                offered,
                self.mode,
                page=page,
                last_product=last_product,
                previous_answer=clean_response(self.history.last_answer(), names),
                extra="\n\n".join(part for part in (self.system_extra, self._plan_note) if part),
                user_instructions=self.settings.agent.system_prompt,  # the user's own, from Settings
                memories=self._memories,
                # The budgets' characters as characters of this page (fewer where they cost more tokens).
                page_chars=self._chars_for(page.markdown if page else "", self.budget.page_chars),
                elements_chars=self._chars_for(page.interactive_elements if page else "",
                                               self.budget.elements_chars),
            ),
        )

    def _chars_for(self, text: str, chars: int) -> int:
        """A budget of ``chars`` (``ContextBudget``, sized in English) as characters of ``text``."""
        return self.history.counter.chars_for(text, chars)

    def _model_remedy(self) -> Remedy:
        """Where another model is chosen: this run's provider (a scripted client names none)."""
        provider = getattr(self._client_used, "provider", None)
        return Remedy("provider-model", str(getattr(provider, "name", "") or ""))

    def _names(self) -> frozenset[str]:
        size = len(self.registry)
        if self._names_cache is None or self._names_cache[0] != size:
            self._names_cache = (size, frozenset(self.registry.all_names()))
        return self._names_cache[1]

    # -- the loop, in named phases: prepare, then per step ask the model, repair its calls, check
    # them (budget, validity), run them, record the round ---------------------------------------

    async def _loop(self, turn: _Turn) -> events.ChatResponse:
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

    async def _prepare(self, turn: _Turn, client: ChatClient) -> _Tools | events.ChatResponse:
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
        tools = _Tools(names, offered, offered.openai_tools())
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

    async def _ask_model(self, turn: _Turn, client: ChatClient, tools: _Tools) -> _Step:
        """One request: the page read into the system prompt, the history that fits, the tools in
        the format of the mode; a provider that rejects tools is asked again at once in text."""
        agent = self.settings.agent
        names, offered = tools.names, tools.offered
        page, last_product = await _page_state(self.browser)
        system = self._system_message(page, last_product, names, offered)
        reserve = self.history.tokens([system]) + self.history.counter.count(str(tools.spec))
        messages = [system, *self.history.for_request(turn.pending, reserve_tokens=reserve)]
        native = self.mode == "native" and bool(tools.spec)
        tool_choice: dict[str, Any] | None = None
        forced = self.registry.get(turn.force_tool) if turn.force_tool and turn.iterations == 1 else None
        if native and forced is not None:
            tool_choice = {"type": "function", "function": {"name": forced.name}}
        # After an action the model has not looked at, its answer waits for the page's check.
        hold = turn.confirmation.due and turn.iterations < agent.max_iterations and CONFIRM_TOOL in self.registry
        try:
            response = await self._request(
                turn, client, messages, tools.spec if native else None, names, tool_choice=tool_choice, hold=hold,
            )
        except ToolsRejectedError:
            if not self._switch_mode("xml", "the provider does not accept native tool calls"):
                raise
            # Asked again at once in the text format, with its instructions and the tools'
            # schemas in the system prompt: a bare retry without tools could call none.
            system = self._system_message(page, last_product, names, offered)
            messages = [system, *self.history.for_request(turn.pending,
                                                          reserve_tokens=self.history.tokens([system]))]
            response = await self._request(turn, client, messages, None, names, hold=hold)
        if response.tool_calls and self.mode == "native":
            self._learn_format("native", "Native tool calls work (seen in a conversation).")
        if response.interrupted:
            raise asyncio.CancelledError
        return _Step(page, response, hold)

    def _repair_calls(self, turn: _Turn, step: _Step, tools: _Tools) -> list[Any]:
        """The calls of the answer: native ones, else those written in its text (which switches
        the mode to text); ``step.clean`` is the answer's text without them."""
        response = step.response
        calls: list[Any] = list(response.tool_calls)
        reply = parse_text_reply(response.content, tools.names) if not calls else None
        if reply is not None and reply.calls:
            calls = list(reply.calls)
            if self.mode == "native":
                self._switch_mode("xml", "the model writes its tool calls as text")
        step.clean = clean_response(response.content, tools.names, reply)
        step.text_format = not response.tool_calls
        return calls

    def _answer(self, turn: _Turn, response: ChatResponse) -> events.ChatResponse:
        """No call: the answer ends the turn (an empty one is said to be one)."""
        turn.pending.append(Message(role="assistant", content=response.content))
        if not turn.shown_text().strip():
            return self._finish(
                turn,
                "The model sent an empty answer. Try again, rephrase the request, or choose another model.",
                is_error=True,
                metadata={"empty_answer": True, **_remedy(self._model_remedy())},
            )
        return self._finish(turn, turn.shown_text())

    def _check(self, turn: _Turn, calls: list[Any]) -> list[CheckedCall] | events.ChatResponse:
        """The run's budget before any call of the request that crossed it, then each call
        repaired and validated against its tool's schema."""
        over = turn.spent.exceeded(self.settings.agent)
        if over is not None:
            return self._finish(turn, self._with_shown(turn, over[1]), is_error=True,
                                metadata={"budget_exceeded": over[0], **_remedy(Remedy("agent"))})
        return check_calls(calls, self.registry)

    def _record_round(self, turn: _Turn, step: _Step, checked: list[CheckedCall],
                      results: list[Any]) -> events.ChatResponse | None:
        """The round into the turn's messages; the turn's end when the same call keeps bringing
        the same result, or the model keeps sending calls that cannot run."""
        self._append_round(turn, step.response.content, checked, results, step.text_format)
        repeated = self._repeated(turn, checked, results)
        if repeated is not None:
            return self._finish(turn, self._with_shown(turn, repeated.message()), is_error=True,
                                metadata={"repeated_action": repeated.tool})
        if any(item.ok for item in checked):
            turn.invalid_rounds = 0
            return None
        turn.invalid_rounds += 1
        if turn.invalid_rounds <= self.settings.agent.max_tool_retries:
            return None
        problems = "; ".join(p for item in checked for p in item.problems)
        return self._finish(
            turn,
            self._with_shown(turn, f"The model kept sending tool calls that cannot run ({problems}). "
                                   "Try rephrasing the request, or choose a more capable model."),
            is_error=True,
            metadata=_remedy(self._model_remedy()),
        )

    def _out_of_steps(self, turn: _Turn) -> events.ChatResponse:
        limit = self.settings.agent.max_iterations
        return self._finish(
            turn,
            self._with_shown(
                turn,
                f"I stopped after {limit} steps without a final answer, so this request is not finished. "
                "Ask me to continue, make the request more specific, or raise the step limit.",
            ),
            is_error=True,
            metadata={"iteration_limit": True, **_remedy(Remedy("agent"))},
        )

    async def _agree_on_plan(self, turn: _Turn, client: ChatClient, names: frozenset[str],
                             offered: ToolRegistry) -> events.ChatResponse | None:
        """Plan-first mode: the model's plan, approved by the user through the gate's round trip
        (``core.harbor.plan_approval``); the turn's end when it is not approved, else None (the run goes on
        with the plan in its system prompt, and the gate lets what is within it through)."""
        plans = getattr(self.gate, "plans", None)  # HarborGate's; a gate without one cannot ask
        if plans is None:
            raise JawadError("Plan-first mode cannot ask for the plan's approval here, so nothing was done.",
                             remedy=Remedy("plan-first"))
        page, last_product = await _page_state(self.browser)
        system = self._system_message(page, last_product, names, offered)
        history = self.history.for_request([], reserve_tokens=self.history.tokens([system]))

        async def ask(messages: list[Message], tools: list[dict[str, Any]] | None,
                      choice: dict[str, Any] | None) -> ChatResponse:
            return await self._request(turn, client, messages, tools, names, tool_choice=choice, hold=True)

        try:
            plan = await ask_for_plan(ask, system, history, turn.user_text, native=self.mode == "native")
        except ToolsRejectedError:
            if not self._switch_mode("xml", "the provider does not accept native tool calls"):
                raise
            system = self._system_message(page, last_product, names, offered)
            plan = await ask_for_plan(ask, system, history, turn.user_text, native=False)
        answer = await plans.propose(plan, run_id=turn.run_id, request=turn.user_text)
        if answer.approved:
            self._plan_note = ("THE PLAN THE USER APPROVED for this request (stay within it; anything outside it "
                               "asks the user first):\n" + plan.describe())
            return None
        if answer.outcome == "rejected" and answer.asked:
            text = ("You rejected the plan, so nothing was done. Ask again with what to change (the sites, or "
                    "what to do there), or turn plan-first mode off.")
            turn.pending.append(Message(role="assistant", content=text))
            return self._finish(turn, text, metadata={"plan": answer.outcome})
        text = f"Nothing was done: {answer.reason}."
        turn.pending.append(Message(role="assistant", content=text))
        return self._finish(turn, text, is_error=True,
                            metadata={"plan": answer.outcome, **_remedy(Remedy("plan-first"))})

    async def _request(
        self,
        turn: _Turn,
        client: ChatClient,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        names: frozenset[str],
        *,
        tool_choice: dict[str, Any] | None = None,
        hold: bool = False,
    ) -> ChatResponse:
        """One request, its text streamed as it comes; ``hold`` streams none of it (an answer that may
        be replaced after the page's check: ``_show_rest`` shows what stays)."""
        agent = self.settings.agent
        estimated = self.history.tokens(messages)
        stream = client.chat(
            messages,
            tools,
            stream=True,
            temperature=agent.temperature,
            max_tokens=self.budget.answer,  # the setting, within the model's window
            tool_choice=tool_choice,
        )
        sanitizer = StreamSanitizer(names)
        self._sanitizer = sanitizer
        separator_pending = bool(turn.shown_text())
        async for delta in stream:
            if not delta.text or hold:
                continue
            out = sanitizer.feed(delta.text)
            if out:
                if separator_pending:
                    out = "\n\n" + out
                    separator_pending = False
                self.bus.emit(ChatDelta(run_id=turn.run_id, text=out))
        response: ChatResponse = await stream.response()
        self.history.record_usage(estimated, response.usage.input_tokens)
        turn.usage_in += response.usage.input_tokens or 0
        turn.usage_out += response.usage.output_tokens or 0
        turn.spent.add(response, _model_key(client), self.prices)
        warning = turn.spent.budget_warning(agent)
        if warning:
            self.bus.emit(Notice(level="warning", text=warning))
        calls_so_far = turn.llm_metadata.get("api_calls", 0), turn.llm_metadata.get("retries", 0)
        turn.llm_metadata = dict(response.metadata)
        for key, before in zip(("api_calls", "retries"), calls_so_far, strict=True):
            if isinstance(turn.llm_metadata.get(key), int):
                turn.llm_metadata[key] += before
        return response

    def _show_rest(self, turn: _Turn, clean: str) -> None:
        """Emit what the stream held back, and remember this iteration's shown text."""
        sanitizer = self._sanitizer
        shown_before = sanitizer.shown
        rest = sanitizer.finish(clean)
        if rest:
            prefix = "\n\n" if not shown_before and turn.shown_text() else ""
            self.bus.emit(ChatDelta(run_id=turn.run_id, text=prefix + rest))
        if not clean.startswith(shown_before.rstrip()):
            log.debug("streamed text and cleaned reply differ; the final response carries the clean text")
        if clean.strip():
            turn.shown.append(clean)

    def _switch_mode(self, mode: ToolMode, why: str) -> bool:
        """Use ``mode`` from now on and remember it for the model; False when the settings fix
        the format (nothing changes)."""
        if self.settings.agent.tool_format != "auto":
            return False
        if self.mode == mode:
            return True
        log.info("switching to the %s tool format for %s: %s", mode, self._model[2] or "this model", why)
        self.mode = mode
        self._learn_format(mode, f"Uses the {mode.upper()} tool format: {why}.")
        self.bus.emit(
            Notice(
                level="info",
                text=f"This model does not use native tool calls ({why}); Jawad switched to its text tool format.",
            )
        )
        return True

    def _learn_format(self, mode: str, note: str) -> None:
        """Remember ``mode`` as the model's tool format (in the profile when the session has it)."""
        # Read again: a client learns its model and address with its first answer (the built-in
        # model's server, a provider whose model is picked from its list).
        self._model = _model_key(self._client_used)
        if not self._model[2] or self.facts.get(self._model).tool_format == mode:
            return
        self.facts.learn(self._model, lambda facts: setattr(facts, "tool_format", mode), note=note)

    def _append_round(
        self, turn: _Turn, content: str, checked: list[CheckedCall], results: list[str], text_format: bool
    ) -> None:
        images = {item.call.id: self._images.pop(item.call.id, []) for item in checked}
        if any(images.values()):
            # Only the newest screenshots go with each request: older ones are words by now.
            for message in turn.pending:
                if message.images:
                    message.images = []
                    message.content += "\n[an earlier screenshot, no longer shown]"
        if text_format:
            turn.pending.append(Message(role="assistant", content=content))
            pairs = [(item.display_name, result) for item, result in zip(checked, results, strict=True)]
            mode: ToolMode = "json" if self.mode == "json" else "xml"
            turn.pending.append(Message(role="user", content=tool_results_message(pairs, mode),
                                        images=[image for shots in images.values() for image in shots]))
            return
        turn.pending.append(
            Message(role="assistant", content=content, tool_calls=[item.call.to_tool_call() for item in checked])
        )
        for item, result in zip(checked, results, strict=True):
            turn.pending.append(Message(role="tool", content=result, tool_call_id=item.call.id, name=item.display_name,
                                        images=images[item.call.id]))

    # -- one call -----------------------------------------------------------------------------
    async def _execute(self, turn: _Turn, item: CheckedCall, page: PageContext | None) -> str:
        """Permission, run, action log; returns the text the model gets for this call."""
        turn.tool_calls += 1
        parameters = arguments_for_display(item.call)
        ctx = ToolContext(
            settings=self.settings,
            bus=self.bus,
            secrets=self.secrets,
            browser=self.browser,
            run_id=turn.run_id,
            call_id=item.call.id,
            site=page.site if page is not None else "",
            result_chars=self.budget.tool_result_chars,
            tokens=self.history.counter,
            extras=dict(self.extras),
        )
        entry = ActionLogEntry(
            id=events.new_id("log"),
            timestamp=events.now_ms(),
            tool_name=item.display_name,
            parameters=parameters,
            site=ctx.site,
            permission_level=item.tool.level.value if item.tool is not None else "",
            decision="pending",
            result="pending",
            run_id=turn.run_id,
            call_id=item.call.id,
        )
        if not item.ok or item.tool is None or item.args is None:
            feedback = item.feedback()
            self._log(dataclasses.replace(entry, decision="invalid", result="error", details=feedback))
            return feedback
        tool, args = item.tool, item.args
        level = tool.permission_level(args)
        site = tool.site_for(ctx, args)
        entry = dataclasses.replace(entry, site=site, permission_level=level.value)
        self._log(entry)
        if turn.deny_all:
            decision = GateDecision.denied("the user denied every further action of this request")
        else:
            request = self.extras.get("user_request")
            check = PermissionCheck(
                tool=tool.name,
                call_id=item.call.id,
                arguments=parameters,
                level=level,
                site=site,
                current_site=ctx.site,
                run_id=turn.run_id,
                from_page_content=_from_page(parameters, turn.user_text, page),
                user_texts=(turn.user_text, *([request] if isinstance(request, str) and request else [])),
            )
            try:
                decision = await self.gate.check(check)
            except asyncio.CancelledError:  # Stop while the user was being asked
                self._log(dataclasses.replace(entry, decision="denied", result="error", details="stopped by the user"))
                raise
        if decision.stop_run:
            turn.deny_all = True
        if not decision.allowed:
            reason = decision.reason or "permission was denied"
            self._log(dataclasses.replace(entry, decision="denied", result="denied", details=reason))
            where = f" on {site}" if site else ""
            return (
                f"Permission denied: {tool.name}{where} was not run because {reason}. "
                "Do not try this action again; tell the user what you could not do."
            )
        self._log(dataclasses.replace(entry, decision=decision.decision))
        max_iterations = self.settings.agent.max_iterations
        reading = getattr(self.browser, "last_reading", None)  # the listing the model's [n] refers to
        listed = reading.elements if reading is not None else ()
        self.bus.emit(AgentStep(turn.run_id, "tool", turn.iterations, max_iterations, tool_name=tool.name,
                                doing=describe_step(tool.name, parameters, listed)))
        try:
            result = await tool.run(ctx, args)
            turn.confirmation.saw(changed_page=result.ok and result.changed_page,
                                  observed_page=result.ok and result.observed_page)
        except asyncio.CancelledError:
            self._log(
                dataclasses.replace(entry, decision=decision.decision, result="error", details="stopped by the user")
            )
            raise
        self._log(
            dataclasses.replace(
                entry, decision=decision.decision, result="success" if result.ok else "error", details=result.for_log
            )
        )
        if result.images:
            self._images[item.call.id] = list(result.images)
        text = result.for_model
        record = getattr(self.gate, "record_result", None)  # the data-flow record (HarborGate's)
        if record is not None and result.ok:
            record(site or ctx.site, text)
        # The model's share, as characters of this text; tools that can shorten have done so.
        limit = self._chars_for(text, self.budget.tool_result_chars)
        if len(text) > limit:
            text = text[:limit] + f"\n[... {len(text) - limit} more characters cut]"
        return text

    async def _confirm_page(self, turn: _Turn, draft: str, page: PageContext | None) -> bool:
        """Read the page once with the registry's read_page and give it to the model in place of its
        draft answer (``core.agent.confirm``); False when the page could not be read (the draft stands)."""
        turn.confirmation.done = True
        item = check_call(RepairedCall(index=0, id=events.new_id("call"), name=CONFIRM_TOOL, arguments={}),
                          self.registry)
        if not item.ok:
            return False
        reading = await self._execute(turn, item, page)
        if turn.confirmation.changed:  # read_page failed or was refused
            return False
        turn.pending.append(Message(role="assistant", content=draft))
        turn.pending.append(Message(role="user", content=confirmation_message(reading)))
        return True

    @staticmethod
    def _repeated(turn: _Turn, checked: list[CheckedCall], results: list[str]) -> Repeated | None:
        """The call of this round the model has now made with the same result too often, if any."""
        for item, result in zip(checked, results, strict=True):
            if item.ok and item.tool is not None:
                repeated = turn.repeats.note(item.tool.name, arguments_for_display(item.call), result)
                if repeated is not None:
                    return repeated
        return None

    def _log(self, entry: ActionLogEntry) -> None:
        self.bus.emit(ActionLogUpdate(entry=entry))

    # -- ending -------------------------------------------------------------------------------
    def _with_shown(self, turn: _Turn, message: str) -> str:
        shown = turn.shown_text()
        return f"{shown}\n\n{message}" if shown else message

    def _finish(
        self,
        turn: _Turn,
        content: str,
        *,
        is_error: bool = False,
        interrupted: bool = False,
        commit: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> events.ChatResponse:
        if commit and turn.pending:
            self._commit(turn, turn.pending)
        meta: dict[str, Any] = {
            **turn.llm_metadata,
            "iterations": turn.iterations,
            "tool_calls": turn.tool_calls,
            "tool_format": self.mode,
            "input_tokens": turn.usage_in,
            "output_tokens": turn.usage_out,
            **turn.spent.metadata(),  # the run's tokens, cost_usd (None: unknown), cost_known, model
            "latency_ms": round((time.monotonic() - turn.started) * 1000, 1),
        }
        if self._memories:
            meta["memories"] = list(self._memories)  # what the model was reminded of
        meta.update(metadata or {})
        response = events.ChatResponse(
            run_id=turn.run_id, content=content, is_error=is_error, interrupted=interrupted, metadata=meta
        )
        self.bus.emit(response)
        added = turn.committed
        if added and added[0].role == "user":
            added = added[1:]
        self.bus.emit(TurnFinished(run_id=turn.run_id, user_text=turn.user_text, messages=tuple(added),
                                   response=response))
        return response

    def _commit(self, turn: _Turn, messages: Sequence[Message]) -> None:
        self.history.commit(list(messages))
        turn.committed = list(messages)

    def _interrupted(self, turn: _Turn) -> events.ChatResponse:
        """Stop: keep the user's message and what was shown; drop unfinished tool rounds."""
        kept = [Message(role="user", content=turn.user_text)]
        shown = turn.shown_text()
        partial = self._sanitizer.shown
        if partial.strip() and not shown.endswith(partial.strip()):
            shown = f"{shown}\n\n{partial}" if shown else partial
        if shown.strip():
            kept.append(Message(role="assistant", content=shown + "\n\n[stopped by the user]"))
        self._commit(turn, kept)
        return self._finish(turn, shown, interrupted=True, commit=False)


def _from_page(parameters: dict[str, Any], user_text: str, page: PageContext | None) -> bool:
    """Whether a text argument was taken from the page rather than from the user's words.

    A hint for the permission prompt (prompt injection, spec issue 5): a string of some
    length that appears in the page but not in what the user typed.
    """
    if page is None:
        return False
    haystack = f"{page.markdown}\n{page.interactive_elements}".lower()
    said = user_text.lower()
    for value in parameters.values():
        if isinstance(value, str) and len(value.strip()) >= 4:
            needle = value.strip().lower()
            if needle in haystack and needle not in said:
                return True
    return False
