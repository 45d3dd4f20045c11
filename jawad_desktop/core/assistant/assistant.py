"""The ``Assistant`` and what it shows of a saved conversation (``OpenedConversation``); what it
assembles, offers and announces is in the package's docstring (``core.assistant``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.agent import commands
from jawad_desktop.core.agent.session import AgentSession, ChatClient
from jawad_desktop.core.assistant.mcp_use import mcp_prompt, mcp_prompts_text, read_mcp_resource, save_mcp_resource
from jawad_desktop.core.assistant.speculation import HeldBus, Speculation
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import HarborGate, Inspector
from jawad_desktop.core.harbor.plan_approval import ActionPlan
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.pricing import PriceTable
from jawad_desktop.core.mcp.elicitation import Elicitations
from jawad_desktop.core.mcp.sampling import Sampler
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.files.attachments import file_from_record, read_attachments
from jawad_desktop.core.tools.files.extract import ExtractedFile
from jawad_desktop.core.tools.files.file_tools import files_registry
from jawad_desktop.core.tools.files.library import DocumentLibrary
from jawad_desktop.core.tools.registry import ToolRegistry
from jawad_desktop.core.tools.untrusted import fenced_parts

if TYPE_CHECKING:
    from jawad_desktop.core.llm.embeddings import Embedder
    from jawad_desktop.core.mcp.adapter import McpRegistry
    from jawad_desktop.core.research.executor import ResearchExecutor
    from jawad_desktop.core.research.plan import ResearchPlan
    from jawad_desktop.core.store.conversation_records import StoredMessage
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.core.store.memory import MemoryStore
    from jawad_desktop.core.store.page_cache import PageCache
    from jawad_desktop.core.store.projects import Project
    from jawad_desktop.core.store.recorder import ConversationRecorder
    from jawad_desktop.core.tools.browser import BrowserSession, PageReading
    from jawad_desktop.core.tools.browser.hand_over import HandOver
    from jawad_desktop.core.tools.page import Page

log = logging.getLogger("jawad.assistant")

__all__ = ["Assistant", "OpenedConversation"]


@dataclass(frozen=True, slots=True)
class OpenedConversation:
    """A saved conversation as it is shown again: its messages, its action log, and what each
    message's turn used (``usage[i]`` for ``messages[i]``: the saved ``{"input_tokens", ...,
    "cost_usd"}`` on a turn's last message, ``{}`` on the others) and the names of the files
    attached to it (``attached[i]``)."""

    conversation_id: str
    messages: list[Message]
    actions: list[ev.ActionLogEntry]
    usage: list[dict[str, Any]] = field(default_factory=list)
    attached: list[tuple[str, ...]] = field(default_factory=list)  # the files' names, per message


class Assistant:
    """One assistant for one face (the window, a command). See the module docstring.

    ``page``: the browser page the tools act on (None: no browser tools). ``client``: a
    ready client (a command's ``--provider``/``--kind`` choice; the assistant closes it), else
    the active provider's, rebuilt when it changes. ``ask``: whether a person can answer
    permission requests (the window, an interactive terminal); without one, what would ask is
    denied. ``auto_levels``: levels allowed without asking (``--allow``). ``deny_all``: deny
    everything that would ask. ``save``: record the conversation in the history and remember
    the pages read (the page cache); off for a private read. ``plan_first``: propose a plan for
    the user's approval before acting (``jawad ask --plan-first``); None follows the setting
    (``agent.plan_first``). ``scope``: a plan approved ahead for every request (a scheduled task's,
    ``core.tasks``): no plan is proposed, and anything outside it asks (without a person: denied).
    ``project``: the project (name or id, ``core.store.projects``) new conversations start in
    (``set_project`` changes it). ``store``: the conversation store, if already open (the window's
    history shows it before the assistant is built); ``aclose`` closes it.
    """

    def __init__(
        self,
        ctx: AppContext,
        *,
        page: Page | None = None,
        client: ChatClient | None = None,
        ask: bool = True,
        auto_levels: Iterable[PermissionLevel | str] = (),
        deny_all: bool = False,
        save: bool = True,
        conversation_id: str | None = None,
        plan_first: bool | None = None,
        scope: ActionPlan | None = None,
        project: str | None = None,
        store: ConversationStore | None = None,
    ) -> None:
        self.ctx = ctx
        self.plan_first = plan_first
        self.bus = ctx.bus
        settings = ctx.settings
        self._given_client = client
        self._client: Any = None
        self._client_key: tuple[str, str] | None = None
        self.harbor = Harbor.in_folder(ctx.paths.config, auto_levels=auto_levels, bus=self.bus)
        if deny_all:
            self.harbor.policy.deny_all = True
        self.page = page
        self.cache: PageCache | None = None
        self.browser: BrowserSession | None = None
        self.base_registry: ToolRegistry = basic_registry().merged(files_registry())
        self.hand_over: HandOver | None = None
        self.gate = self._gate_and_page(page, ask=ask, save=save)
        if scope is not None:
            self.plan_first = False
            self.gate.plans.hold(scope)
        self.mcp: McpRegistry | None = None
        # An MCP server's questions mid-call go to the user (the window's form, the terminal); without
        # a person they are declined.
        self.elicitations = Elicitations(self.bus, ask=ask)
        # A server asking the model passes Harbor's gate like every action (``core.mcp.sampling``).
        self.sampler = Sampler(self.gate, self._sampling_client, settings.agent,
                               settings=lambda: self.ctx.settings.mcp,
                               providers=lambda: [(p.name, p.model) for p in self.ctx.settings.providers])
        self._sampling_clients: dict[str, Any] = {}  # other providers' clients that answered servers
        self.session = AgentSession(
            client=self._client_for_run, registry=self.base_registry, settings=settings, bus=self.bus,
            gate=self.gate, secrets=ctx.secrets, browser=self.browser,
            prices=PriceTable.in_folder(ctx.paths.config, bus=self.bus),  # the user's prices.json over the defaults
            facts=ctx.model_facts,  # each model's tool format and context window, kept in the profile
        )
        # The user's document library, for search_documents (indexed by `jawad docs` or the window).
        self.library = DocumentLibrary.open(ctx.paths.config, ctx.paths.data, bus=self.bus,
                                            max_bytes=settings.agent.max_attachment_mb * 1_000_000)
        self.session.extras["library"] = self.library
        self.library.embedder = self._library_embedder  # vectors when the provider has embeddings
        self._embedder: Embedder | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self.store: ConversationStore | None = None
        self.recorder: ConversationRecorder | None = None
        self.memory: MemoryStore | None = None  # what the user asked to remember, beside the conversations
        self.project: Project | None = None
        self._base_extra = self.session.system_extra
        if save:
            self._open_store(conversation_id, store)
        if project:
            self.set_project(project)
        self._research: ResearchExecutor | None = None
        self._mcp_lock = asyncio.Lock()
        self._caching_page = False  # a page the user browsed is being read into the page cache
        self._page_to_cache = ""  # a page that finished loading meanwhile: read once more after

    # -- assembly ---------------------------------------------------------------------------

    def _gate_and_page(self, page: Page | None, *, ask: bool, save: bool) -> HarborGate:
        """The one permission gate; with a ``page``: the browser session on it, the browser tools,
        the gate's inspector of page actions, the hand-over and the page's download guard."""
        inspector: Inspector | None = None
        if page is not None:
            self.browser = self._browser_for(page, remember=save)
            from jawad_desktop.core.tools.browser import browser_registry, inspector_for

            self.base_registry = self.base_registry.merged(browser_registry())
            inspector = inspector_for(self.browser)
        gate = HarborGate(
            self.harbor, self.bus, timeout_s=self.ctx.settings.browser.permission_timeout_s,
            inspector=inspector, ask=ask,
        )
        if self.browser is not None:
            from jawad_desktop.core.tools.browser.hand_over import HandOver

            # Login, CAPTCHA, codes, payment: the user does them in the browser (the banner, the terminal).
            self.hand_over = self.browser.hand_over = HandOver(self.bus, ask=ask)
        if page is not None and hasattr(page, "download_guard"):
            from jawad_desktop.core.tools.browser import make_download_guard

            page.download_guard = make_download_guard(gate, self.bus)  # the agent's downloads are asked for
        return gate

    def _browser_for(self, page: Page, *, remember: bool) -> BrowserSession:
        from jawad_desktop.core.store.page_cache import PageCache
        from jawad_desktop.core.tools.browser import BrowserSession, make_navigation_guard, make_request_guard

        browser = self.ctx.settings.browser
        if remember:
            try:
                self.cache = PageCache.open(self.ctx.paths.data)
            except JawadError as exc:  # pages are still read; "the previous product" is not remembered
                log.warning("the page cache is unavailable: %s", exc.message)
                self.bus.emit(ev.Notice(level="warning", text="Pages you visit will not be remembered: " + exc.message))
        session = BrowserSession(page, harbor=self.harbor, cache=self.cache, search_engine=browser.search_engine,
                                 max_elements=browser.max_elements, highlight_s=browser.highlight_ms / 1000)
        if hasattr(page, "navigation_guard"):
            page.navigation_guard = make_navigation_guard(self.harbor)
        if hasattr(page, "request_guard"):
            page.request_guard = make_request_guard(self.harbor, session)
        return session

    def _open_store(self, conversation_id: str | None, store: ConversationStore | None) -> None:
        from jawad_desktop.core.store.conversations import ConversationStore
        from jawad_desktop.core.store.recorder import ConversationRecorder

        try:
            self.store = store or ConversationStore.open(self.ctx.paths.data, bus=self.bus)
        except JawadError as exc:
            self.bus.emit(ev.Notice(level="error", text="Conversations will not be saved: " + exc.user_text()))
            return
        self.recorder = ConversationRecorder(self.store, self.bus, conversation_id)
        from jawad_desktop.core.store.memory import MemoryStore

        self.memory = self.session.memory = MemoryStore(self.store.db, bus=self.bus)

    def _library_embedder(self) -> Embedder | None:
        """The embedder of the provider the chat uses, for the document library; None when it has
        no embeddings API or the setting keeps the documents from it (``library_embeddings``:
        only a model on this computer by default). Raises the ``JawadError`` of a provider that
        cannot be used."""
        from jawad_desktop.core.config.network import is_loopback
        from jawad_desktop.core.config.providers import ProviderKind
        from jawad_desktop.core.llm.client import LLMClient
        from jawad_desktop.core.llm.embeddings import Embedder, supports_embeddings

        allowed = self.ctx.settings.agent.library_embeddings
        if allowed == "off":
            return None
        client = self._client_for_run()
        if not isinstance(client, LLMClient) or not supports_embeddings(client.provider.kind):
            return None
        if allowed == "local" and not (client.provider.kind is ProviderKind.LOCAL or is_loopback(client.base_url)):
            return None  # the documents' text stays on this computer
        if self._embedder is None or self._embedder.client is not client:
            self._embedder = Embedder(client)
        return self._embedder

    def watch_library(self) -> None:
        """Keep the document library up to date while the app runs (``core.tools.files.watch``):
        a scan now, then the files' changes as they happen. Stopped by ``aclose``."""
        if self._watch_task is not None and not self._watch_task.done():
            return
        from jawad_desktop.core.tools.files.watch import LibraryWatcher

        watcher = LibraryWatcher(self.library)
        self._watch_task = asyncio.ensure_future(watcher.run())  # on the app's loop (qasync's in the window)

    def set_project(self, project: str | None) -> Project | None:
        """Work in ``project`` (a name or id; None: in no project): new conversations start in it,
        the model gets its instructions, its remembered facts and only its files, and its chats use
        its model when it names one. A ``JawadError`` when there is no such project."""
        found = None
        if project:
            if self.store is None:
                raise JawadError("Projects are not available: the history could not be opened.")
            from jawad_desktop.core.store.projects import ProjectStore

            found = ProjectStore(self.store.db, bus=self.bus).find(project)
        self.project = found
        if self.recorder is not None:
            self.recorder.project_id = found.id if found else None
        if self.memory is not None:
            self.memory.project_id = found.id if found else None
        if found is not None and found.folders:
            self.session.extras["library_scope"] = found.folders
        else:
            self.session.extras.pop("library_scope", None)
        note = (f"THIS CONVERSATION IS IN THE USER'S PROJECT \"{found.name}\"."
                + (f" The project's instructions (follow them):\n{found.instructions}" if found.instructions else "")
                + (" search_documents searches only the project's own files." if found.folders else "")
                ) if found is not None else ""
        self.session.system_extra = "\n\n".join(part for part in (self._base_extra, note) if part)
        return found

    @property
    def registry(self) -> ToolRegistry:
        """The tools the agent has now (the MCP servers' included once connected)."""
        return self.session.registry

    @property
    def conversation_id(self) -> str | None:
        return self.recorder.conversation_id if self.recorder is not None else None

    def _client_for_run(self) -> ChatClient:
        """The given client, or the active provider's (rebuilt when the provider or network changed)."""
        if self._given_client is not None:
            return self._given_client
        from jawad_desktop.core.llm.factory import client_for

        settings = self.ctx.settings
        provider = settings.active()
        chosen = (self.project.provider, self.project.model) if self.project is not None else ("", "")
        key = (provider.model_dump_json() if provider else "", settings.network.model_dump_json() + repr(chosen))
        if self._client is None or self._client_key != key:
            old, self._client = self._client, client_for(self.ctx, chosen[0] or None, model=chosen[1] or None)
            self._client_key = key
            if old is not None:
                _close_later(old)
        return self._client

    def _sampling_client(self, provider: str) -> Any:
        """The client of the saved ``provider`` for a server's sampling request ("": the one in use)."""
        if not provider or (self._given_client is None and self.ctx.settings.active_provider == provider):
            return self._client_for_run()
        if provider not in self._sampling_clients:
            from jawad_desktop.core.llm.factory import client_for

            self._sampling_clients[provider] = client_for(self.ctx, provider)
        return self._sampling_clients[provider]

    async def connect_mcp(self) -> list[str]:
        """(Re)connect the MCP servers in Settings and give their tools to the agent; returns
        the problems, which are also announced as notices."""
        async with self._mcp_lock:
            old, self.mcp = self.mcp, None
            self.session.registry = self.base_registry
            if old is not None:
                await old.aclose()
            if not self.ctx.settings.mcp.servers:
                return []
            from jawad_desktop.core.mcp.adapter import mcp_registry

            mcp = await mcp_registry(self.ctx, reserved=self.base_registry.all_names(), elicitations=self.elicitations,
                                     sampler=self.sampler)
            self.mcp = mcp
            self.session.registry = self.base_registry.merged(mcp)
            problems = [*mcp.problems.values()]
            for problem in problems:
                self.bus.emit(ev.Notice(level="warning", text=problem))
            return problems

    # -- what a user does -------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.session.running or (self._research is not None and self._research.running)

    async def send(self, text: str, attachments: Sequence[str | Path | ExtractedFile] = ()) -> ev.ChatResponse:
        """Run one turn for ``text`` (its events on the bus) and return its final response.

        ``attachments``: files to send with the message (``core.tools.files``): paths, read first
        off the event loop, or files read before (a question asked again). A file that cannot be
        read (encrypted, unsupported, too large), or a picture for a model that does not see images,
        raises its ``JawadError`` before anything is sent, so the message is not sent and the
        caller keeps what the user typed.
        ``/clear`` starts a new conversation (the same as New chat).
        """
        files = await read_attachments(
            attachments, max_bytes=self.ctx.settings.agent.max_attachment_mb * 1_000_000) if attachments else []
        pictures = [file.name for file in files if file.image is not None]
        if pictures and not self.session.sees_images():
            raise JawadError(
                f"The model cannot see images, so {', '.join(pictures)} cannot be sent to it. "
                "Your message was not sent.",
                suggestions=["Choose a model that accepts images (GPT-4o, Claude, Gemini, llava...), "
                             "or send the message without the picture."],
                remedy=Remedy("provider-model"),
            )
        command = commands.parse_slash(text)
        if command is not None and command[0] == "clear":
            self.new_chat()
            response = ev.ChatResponse(run_id=ev.new_id("run"), content=commands.CLEARED)
            self.bus.emit(response)
            return response
        if command is not None and command[0] == "prompts":
            response = ev.ChatResponse(run_id=ev.new_id("run"), content=await mcp_prompts_text(self.mcp))
            self.bus.emit(response)
            return response
        if command is not None and not commands.known(command[0]) and self.mcp is not None:
            prompt = await mcp_prompt(self.mcp, command[0], command[1])
            if prompt is not None:
                text = prompt
        if self.browser is not None:
            self.browser.note_user_message(text)
        plan_first = self.ctx.settings.agent.plan_first if self.plan_first is None else self.plan_first
        return await self.session.run(text, plan_first=plan_first, attachments=files)

    async def read_mcp_resource(self, server: str, uri: str) -> ExtractedFile:
        """An MCP server's resource as a file to attach to a message (``send``'s ``attachments``)."""
        return await read_mcp_resource(self.mcp, server, uri)

    async def save_mcp_resource(self, server: str, uri: str) -> Path:
        """An MCP server's resource written to a file in the profile's cache, to attach like any file
        (the window's composer holds files): its text as ``.md`` or ``.txt``, or its picture."""
        return await save_mcp_resource(self.mcp, self.ctx.paths.cache / "mcp-resources", server, uri)

    def speculate(self, text: str) -> Speculation | None:
        """Start answering ``text`` before the user has surely finished (conversation mode, on a
        likely end of the turn); None when it cannot be done so (a run in progress, a slash
        command, a plan to approve first). See ``Speculation``."""
        plan_first = self.ctx.settings.agent.plan_first if self.plan_first is None else self.plan_first
        if self.busy or plan_first or commands.parse_slash(text) is not None:
            return None
        held = HeldBus(self.bus)
        kept = self.session.history.messages

        async def run() -> ev.ChatResponse:
            self.session.bus = held
            try:
                return await self.session.run(text)
            finally:
                self.session.bus = self.bus

        task = asyncio.ensure_future(run())
        held.on_tool = task.cancel  # no tool runs for an answer that may be dropped
        return Speculation(text, held, task, self.session, self.browser, kept)


    def stop(self) -> None:
        """Stop whatever runs: the turn (and a permission request it waits on) or a research."""
        self.session.stop()
        if self._research is not None:
            self._research.cancel()

    def new_chat(self) -> None:
        """Forget the conversation and start a new one (saved once its first message is sent)."""
        self.stop()
        self.session.clear()
        self.harbor.dataflow.clear()  # what was read is no longer in the model's context
        if self.recorder is not None:
            self.recorder.new_conversation()
        self.bus.emit(ev.ConversationChanged(conversation_id=""))

    def open_conversation(self, conversation_id: str) -> OpenedConversation:
        """Continue a saved conversation: its history goes back to the agent; returns what to show."""
        if self.store is None or self.recorder is None:
            raise JawadError("Saved conversations are not available: the history could not be opened.")
        self.stop()
        stored = self.store.messages(conversation_id)
        actions = self.store.action_log(conversation_id)
        self.session.clear()
        self.session.history.commit(self._with_saved_files(stored))
        self._retaint([s.message for s in stored])
        self.recorder.follow(conversation_id)
        summary = self.store.get(conversation_id, include_deleted=True)
        if (summary.project_id or None) != (self.project.id if self.project else None):
            try:
                self.set_project(summary.project_id)
            except JawadError:  # its project was removed meanwhile: continued in none
                self.set_project(None)
        self.bus.emit(ev.ConversationChanged(conversation_id=conversation_id))
        usage: list[dict[str, Any]] = [u if isinstance(u := s.metadata.get("usage"), dict) else {} for s in stored]
        attached = [tuple(str(r.get("name", "")) for r in records if isinstance(r, dict))
                    if isinstance(records := s.metadata.get("files"), list) else () for s in stored]
        return OpenedConversation(conversation_id, [s.message for s in stored], actions, usage, attached)

    def _with_saved_files(self, stored: Sequence[StoredMessage]) -> list[Message]:
        """The saved messages for the model: a user's message that had files holds their text again
        (saved with it, ``TurnStarted.files``), and they are readable again with read_attachment."""
        messages: list[Message] = []
        for item in stored:
            records = item.metadata.get("files") if item.message.role == "user" else None
            files = [f for f in map(file_from_record, records) if f is not None] if isinstance(records, list) else []
            messages.append(self.session.restore_files(item.message.content, files) if files else item.message)
        return messages

    def _retaint(self, messages: list[Message]) -> None:
        """The data-flow record for a conversation taken up again: what its pages and MCP servers
        gave the model (the fenced tool results, each with its source) is in its context again."""
        flow = self.harbor.dataflow
        flow.clear()
        for message in messages:
            if message.role == "tool" and message.content:
                for source, text in fenced_parts(message.content):
                    flow.record(text, source)

    def edit_last(self) -> str:
        """Take back the last question and what followed it; returns its text ("" when none)."""
        if self.busy:
            return ""
        history = self.session.history.messages
        last = next((i for i in range(len(history) - 1, -1, -1) if history[i].role == "user"), None)
        if last is None:
            return ""
        text = self.session.typed_text(history[last])
        kept = list(history[:last])
        if self.store is not None and self.conversation_id:
            stored = self.store.messages(self.conversation_id)
            position = next((s.position for s in reversed(stored) if s.message.role == "user"), None)
            if position is not None:
                self.store.truncate(self.conversation_id, position)
                kept = self.session.with_files(self.store.history(self.conversation_id))
        self.session.clear(keep_files=True)  # the conversation's files stay readable
        self.session.history.commit(kept)
        return text

    async def regenerate(self) -> ev.ChatResponse | None:
        """Ask the last question again (with the files it had), in place of its answer; None when
        there is none."""
        files = list(self.session.last_attachments)
        text = self.edit_last()
        return await self.send(text, files) if text else None

    async def read_page(self) -> PageReading:
        """What read_page gives the model for the current page (``jawad read-page``)."""
        if self.browser is None:
            raise JawadError("No web page is open to read.")
        return await self.browser.read()

    async def page_loaded(self, url: str) -> None:
        """A page finished loading in the browser (spec 001 PAGE_CONTENT_READY): read it into the
        page cache, so "the previous product" also knows pages the user browsed by hand.

        Skipped without a cache (a private session), for built-in and error pages, and while a
        turn or a research runs (they read the page themselves). Loads that finish while a read
        runs are folded into one more read of the page then shown. A page that cannot be read
        is simply not cached: the user asked for nothing.
        """
        browser = self.browser
        if browser is None or browser.cache is None or self.busy:
            return
        if not url.startswith(("http://", "https://")):
            return  # a local file the user opened is not kept for the model either
        if self._caching_page:
            self._page_to_cache = url
            return
        self._caching_page = True
        try:
            while url:
                self._page_to_cache = ""
                try:
                    await browser.cache_current_page()
                except JawadError as exc:
                    log.info("the page %s was not cached: %s", url, exc.message)
                url = "" if self.busy else self._page_to_cache
        finally:
            self._caching_page = False

    # -- research -----------------------------------------------------------------------------

    async def plan_research(self, intent: str, *, max_steps: int | None = None) -> ResearchPlan:
        """A draft plan for ``intent`` (the user approves or edits it before it runs)."""
        from jawad_desktop.core.research.planner import Planner

        hint = ""
        if self.page is not None:
            with contextlib.suppress(Exception):
                hint = f"{await self.page.title()} ({await self.page.url()})"
        planner = Planner(self._client_for_run, **({"max_steps": max_steps} if max_steps else {}))
        return await planner.plan(intent, page_hint=hint)

    def research_executor(self, intent: str) -> ResearchExecutor:
        """The executor for a research the user asked for: ``/research INTENT`` is saved as the
        user's message now, and the plan and its answer in the same conversation."""
        from jawad_desktop.core.research.executor import ResearchExecutor

        self.bus.emit(ev.TurnStarted(run_id=ev.new_id("research"), user_text=f"/research {intent}"))
        self._research = ResearchExecutor(self.session, store=self.store, conversation_id=self.conversation_id)
        return self._research

    # -- the end ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release what needs an orderly end: the client, the MCP servers, the page cache, the
        store. The page belongs to whoever made it."""
        self.stop()
        if self._watch_task is not None:
            self._watch_task.cancel()
            await asyncio.wait({self._watch_task})
        with contextlib.suppress(Exception):
            await self.library.aclose()
        client = self._given_client or self._client
        if client is not None and hasattr(client, "aclose"):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.aclose(), 1.0)
        for other in self._sampling_clients.values():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(other.aclose(), 1.0)
        if self.mcp is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.mcp.aclose(), 1.0)
        if self.cache is not None:
            with contextlib.suppress(Exception):
                self.cache.close()
        if self.recorder is not None:
            self.recorder.close()
        if self.store is not None:
            with contextlib.suppress(Exception):
                self.store.close()


def _close_later(client: Any) -> None:
    """Close a replaced client without waiting for it (its requests have ended)."""
    close: Callable[[], Any] | None = getattr(client, "aclose", None)
    if close is None:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(close())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


_closing: set[asyncio.Task[Any]] = set()
