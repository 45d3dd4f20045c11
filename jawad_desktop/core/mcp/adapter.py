"""Spec 003's MCP tool adapter: the tools of MCP servers as tools of the agent's registry.

``McpConnections`` opens one ``ClientSession`` per configured server, over stdio (the
server's command is started as a child process) or streamable HTTP (headers read from
the keyring, or an OAuth sign-in kept there: ``core.mcp.auth``), lists its tools, keeps
those on the allow-list, and registers each as a ``Tool`` whose schema is the server's own
and whose call goes back through the session.
A server that cannot be reached is skipped with a message in ``problems``; the others
still work. A tool whose name is already taken (by a built-in tool or an earlier server)
is registered as ``<server>_<tool>`` and the rename is reported in ``problems`` too.
A server's questions mid-call (elicitation) go to the user through ``core.mcp.elicitation``; its
requests for the model (sampling) through ``core.mcp.sampling`` (Harbor asks the user first). The
folders the user chose (``McpSettings.roots``) are the roots offered to servers that ask.
Besides tools, a server's resources (``resources``, ``read_resource`` as an attachable file,
``subscribe``: ``McpResourceUpdated`` on the bus when one changes) and prompts (``prompts``,
``get_prompt``, ``complete``: argument completion) are offered to the faces.

Each session lives in its own task (the SDK's transports are anyio task groups, which must
be entered and left by one task); calls may come from any task on the loop.

Usage::

    registry = await mcp_registry(ctx, reserved=builtin.all_names())  # McpRegistry, a ToolRegistry
    tools = builtin.merged(registry)              # never clashes: taken names were avoided
    ...
    await registry.aclose()                       # stops stdio servers, ends HTTP sessions
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from pydantic import BaseModel, ConfigDict, Field, create_model

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings, mcp_header_key_name
from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import EventBus, McpResourceUpdated, ToolProgress
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.tools.registry import Tool, ToolError, ToolRegistry, ToolResult, normalize_tool_name
from jawad_desktop.core.tools.tool_context import ToolContext
from jawad_desktop.core.tools.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.auth import Authorizer
    from jawad_desktop.core.mcp.elicitation import Elicitations
    from jawad_desktop.core.mcp.sampling import Sampler
    from jawad_desktop.core.tools.files.extract import ExtractedFile

log = logging.getLogger("jawad.mcp")

__all__ = [
    "McpConnections", "McpPromptInfo", "McpRegistry", "McpRenamedTool", "McpResourceInfo", "McpToolInfo",
    "mcp_registry", "mcp_site", "permission_level", "root_uris", "tool_level",
]

_UNSET: Any = object()  # an optional argument the model left out: not sent to the server
_NAME_CLEAN = re.compile(r"[^A-Za-z0-9_]+")


def _client_info() -> Any:
    from mcp import types

    from jawad_desktop import __version__

    return types.Implementation(name="jawad-desktop", title="Jawad Desktop", version=__version__)


def mcp_site(server: str) -> str:
    """The "site" an MCP server's calls act on, for permission grants: ``mcp.<server>``
    (a host-like name, so Harbor's site grants keep servers apart)."""
    return "mcp." + (re.sub(r"[^a-z0-9-]+", "-", server.lower()).strip("-") or "server")


def _unset() -> Any:
    return _UNSET


def permission_level(permission: str) -> PermissionLevel:
    """The tool level of a server's ``permission``: "ask" is the highest, asked every time."""
    return PermissionLevel.SUBMIT if permission == "ask" else PermissionLevel(permission)


def tool_level(permission: str, annotations: dict[str, Any]) -> PermissionLevel:
    """The level of one tool: the server's ``permission``, raised to SUBMIT (asked for, like a
    purchase) when the tool says it is destructive. A hint never lowers the level the user chose:
    a server's "read-only" is its own claim."""
    level = permission_level(permission)
    destructive = annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True
    return PermissionLevel.SUBMIT if destructive and level.rank < PermissionLevel.SUBMIT.rank else level


_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO, "warning": logging.WARNING,
               "error": logging.ERROR, "critical": logging.CRITICAL, "alert": logging.CRITICAL,
               "emergency": logging.CRITICAL}


def _logging_callback(config: McpServerConfig) -> Any:
    """A server's log messages (``notifications/message``) into our log, at their level."""
    async def on_log(params: Any) -> None:
        source = f"{config.name}/{params.logger}" if params.logger else config.name
        log.log(_LOG_LEVELS.get(str(params.level), logging.INFO), "MCP server %s: %s", source, params.data)

    return on_log


class SecretReader(Protocol):
    """Where header values and sign-ins are kept: the ``SecretStore`` (or an overlay of it)."""

    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> None: ...
    def delete(self, name: str) -> None: ...


@dataclass(frozen=True)
class McpToolInfo:
    """One tool a server offers, as listed (for `jawad mcp list --tools` and Settings)."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    allowed: bool
    annotations: dict[str, Any] = field(default_factory=dict)  # the server's hints (readOnlyHint, ...)


@dataclass(frozen=True)
class McpResourceInfo:
    """One resource a server offers (a file, a record, a page), as listed."""

    server: str
    uri: str
    name: str
    title: str = ""
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class McpPromptInfo:
    """One prompt a server offers (run as a slash command: ``/<name> <arguments>``)."""

    server: str
    name: str
    title: str = ""
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


def root_uris(folders: Collection[str]) -> list[tuple[str, str]]:
    """The roots offered to servers: (``file://`` URI, name) of each folder the user chose."""
    roots: list[tuple[str, str]] = []
    for folder in folders:
        path = Path(folder).expanduser().resolve()
        roots.append((path.as_uri(), path.name or str(path)))
    return roots


@dataclass
class _Server:
    config: McpServerConfig
    session: Any = None  # mcp.ClientSession once connected
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    problem: str = ""
    tools: list[McpToolInfo] = field(default_factory=list)
    auth: Any = None  # the OAuth provider of an HTTP server that signs in (core.mcp.auth)


class McpConnections:
    """Sessions with the configured MCP servers; ``aclose()`` ends them all."""

    def __init__(self, settings: McpSettings, secrets: SecretReader | None = None, *,
                 log_dir: Path | None = None, authorizer: Authorizer | None = None,
                 elicitations: Elicitations | None = None, network: NetworkSettings | None = None,
                 sampler: Sampler | None = None, bus: EventBus | None = None) -> None:
        self.settings = settings
        self.network = network  # Settings → Network: the proxy and CA bundle of servers over HTTP
        self.secrets = secrets
        self.log_dir = log_dir
        # Who gets the user's consent when a server needs a sign-in (``core.mcp.auth``); None: a
        # server that needs one is reported with how to sign in (``jawad mcp login``, Settings).
        self.authorizer = authorizer
        # Who answers a server's questions mid-call (``core.mcp.elicitation``); None: not offered.
        self.elicitations = elicitations
        # Who answers a server's requests for the model (``core.mcp.sampling``); None: not offered.
        self.sampler = sampler
        self.bus = bus  # where a subscribed resource's change is announced (McpResourceUpdated)
        self._servers: dict[str, _Server] = {}

    @property
    def problems(self) -> dict[str, str]:
        """Servers that could not be used, with what happened and what to do."""
        return {name: s.problem for name, s in self._servers.items() if s.problem}

    def tools(self) -> list[McpToolInfo]:
        return [tool for server in self._servers.values() for tool in server.tools]

    async def connect(self, only: str | None = None) -> None:
        """Connect to every enabled server (or the one named ``only``), in parallel."""
        chosen = [s for s in self.settings.servers
                  if (s.name.casefold() == only.casefold() if only else s.enabled)]
        for config in chosen:
            server = _Server(config)
            self._servers[config.name] = server
            server.task = asyncio.create_task(self._run(server), name=f"mcp:{config.name}")
        waits = [self._wait_ready(s) for s in self._servers.values() if s.config in chosen]
        await asyncio.gather(*waits)

    async def _wait_ready(self, server: _Server) -> None:
        assert server.task is not None
        ready = asyncio.ensure_future(server.ready.wait())
        try:
            done, _ = await asyncio.wait({ready, server.task}, timeout=self.settings.connect_timeout_s,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if not done:
            server.problem = (f"The MCP server {server.config.name!r} ({server.config.where}) did not answer "
                              f"within {self.settings.connect_timeout_s:g} s. Check that it starts and "
                              "answers.")
            await self._stop(server)

    async def _run(self, server: _Server) -> None:
        """The task that owns one session: connect, list tools, wait for ``stop``, close."""
        from mcp import ClientSession

        config = server.config
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open_transport(server, stack)
                session = await stack.enter_async_context(ClientSession(
                    read, write, client_info=_client_info(), elicitation_callback=self._elicitation_callback(config),
                    logging_callback=_logging_callback(config), sampling_callback=self._sampling_callback(config),
                    list_roots_callback=self._roots_callback(), message_handler=self._message_handler(config)))
                await session.initialize()
                listed = await session.list_tools()
                allowed = set(config.allowed_tools)
                server.tools = [
                    McpToolInfo(config.name, t.name, t.description or "", dict(t.inputSchema or {}),
                                not allowed or t.name in allowed,
                                t.annotations.model_dump(exclude_none=True) if t.annotations else {})
                    for t in listed.tools
                ]
                missing = allowed - {t.name for t in listed.tools}
                if missing:
                    log.warning("MCP server %s has no tools named %s", config.name, ", ".join(sorted(missing)))
                server.session = session
                server.ready.set()
                log.info("MCP server %s: %d tools (%d allowed)", config.name, len(server.tools),
                         sum(t.allowed for t in server.tools))
                await server.stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            if server.stop.is_set():  # closing: a stdio server that ends first breaks its pipe, nothing more
                log.debug("MCP server %s closed: %s", config.name, _first_error(exc))
                return
            server.problem = _explain(config, exc, server.auth)
            log.warning("MCP server %s failed: %s", config.name, _first_error(exc))
        finally:
            server.session = None

    async def _open_transport(self, server: _Server, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        """The message streams to and from the server, their transport entered on ``stack``."""
        config = server.config
        if config.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            params = StdioServerParameters(command=config.command, args=config.args, env=config.env or None,
                                           cwd=config.cwd or None)
            read, write = await stack.enter_async_context(stdio_client(params, errlog=self._errlog(config, stack)))
            return read, write
        import httpx
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx.Timeout(self.settings.connect_timeout_s, read=self.settings.call_timeout_s)
        auth = None
        if config.signs_in and self.secrets is not None:
            from jawad_desktop.core.mcp.auth import oauth_for

            auth = server.auth = oauth_for(config, self.settings, self.secrets, self.authorizer, self.network)
        # As the SDK's client (no redirects followed: the transport keeps to the server's origin), with
        # the proxy and CA bundle of Settings → Network like every other connection.
        http = await stack.enter_async_context(httpx.AsyncClient(
            headers=self._headers(config), auth=auth, **client_options(self.network, config.url, timeout=timeout)))
        read, write, _session_id = await stack.enter_async_context(streamable_http_client(config.url, http_client=http))
        return read, write

    def _elicitation_callback(self, config: McpServerConfig) -> Any:
        """The session's answer to ``elicitation/create``: the user's, through ``elicitations``."""
        elicitations = self.elicitations
        if elicitations is None:
            return None

        async def answer(context: Any, params: Any) -> Any:
            return await elicitations.request(config.name, params)

        return answer

    def _sampling_callback(self, config: McpServerConfig) -> Any:
        """The session's answer to ``sampling/createMessage``: the model's, once the user allowed it."""
        sampler = self.sampler
        if sampler is None:
            return None

        async def answer(context: Any, params: Any) -> Any:
            return await sampler.create_message(config.name, params)

        return answer

    def _roots_callback(self) -> Any:
        """The session's answer to ``roots/list``: the folders of ``McpSettings.roots``. None (roots
        not offered) while the user chose none: a server then keeps to its own configuration."""
        if not self.settings.roots:
            return None

        async def answer(context: Any) -> Any:
            from mcp import types

            return types.ListRootsResult(roots=[types.Root(uri=uri, name=name)
                                                for uri, name in root_uris(self.settings.roots)])

        return answer

    def _message_handler(self, config: McpServerConfig) -> Any:
        """Notifications beside the ones the SDK handles: a subscribed resource changed."""
        async def handle(message: Any) -> None:
            from mcp import types

            root = getattr(message, "root", None)
            if isinstance(root, types.ResourceUpdatedNotification):
                uri = str(root.params.uri)
                log.info("MCP server %s: resource %s changed", config.name, uri)
                if self.bus is not None:
                    self.bus.emit(McpResourceUpdated(server=config.name, uri=uri))

        return handle

    async def roots_changed(self) -> None:
        """Tell the connected servers the user's folders changed (``notifications/roots/list_changed``)."""
        for server in self._servers.values():
            if server.session is not None:
                with contextlib.suppress(Exception):
                    await server.session.send_roots_list_changed()

    def _session(self, server_name: str) -> Any:
        server = self._servers.get(server_name)
        if server is None or server.session is None:
            raise ToolError(f"The MCP server {server_name!r} is not connected; the user can check its settings.")
        return server.session

    def _offers(self, server: _Server, what: str) -> bool:
        capabilities = server.session.get_server_capabilities() if server.session is not None else None
        return capabilities is not None and getattr(capabilities, what, None) is not None

    async def resources(self) -> list[McpResourceInfo]:
        """The resources of every connected server that offers some (all pages of each list)."""
        found: list[McpResourceInfo] = []
        for server in self._servers.values():
            if not self._offers(server, "resources"):
                continue
            cursor: str | None = None
            try:
                while True:
                    from mcp import types

                    listed = await server.session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
                    found.extend(McpResourceInfo(server.config.name, str(r.uri), r.name, r.title or "",
                                                 r.description or "", r.mimeType or "") for r in listed.resources)
                    cursor = listed.nextCursor
                    if not cursor:
                        break
            except Exception as exc:
                log.warning("MCP server %s: could not list its resources: %s", server.config.name, _first_error(exc))
        return found

    async def read_resource(self, server_name: str, uri: str) -> ExtractedFile:
        """A resource as a file to attach to a message (its text, or its picture), fenced as data
        when it reaches the model like any attached file."""
        import base64

        from pydantic import AnyUrl

        from jawad_desktop.core.tools.files.extract import ExtractedFile, Part

        session = self._session(server_name)
        try:
            result = await session.read_resource(AnyUrl(uri))
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} could not give {uri}: {_first_error(exc)}") from None
        parts: list[Part] = []
        image: Image | None = None
        notes: list[str] = []
        for item in result.contents:
            mime = str(getattr(item, "mimeType", "") or "")
            text = getattr(item, "text", None)
            if text is not None:
                parts.append(Part(len(parts) + 1, str(item.uri), str(text)))
            elif mime.startswith("image/") and image is None:
                image = Image(base64.b64decode(str(item.blob)), mime)
            else:
                notes.append(f"{item.uri} is {mime or 'binary data'}, which is left out")
        name = uri.rstrip("/").rsplit("/", 1)[-1] or uri
        return ExtractedFile(Path(f"{server_name}: {name}"), "image" if image is not None and not parts else "text",
                             tuple(parts), image, tuple(notes))

    async def subscribe(self, server_name: str, uri: str, *, on: bool = True) -> None:
        """Be told (``McpResourceUpdated``) when ``uri`` changes; ``on=False`` stops it."""
        from pydantic import AnyUrl

        session = self._session(server_name)
        try:
            if on:
                await session.subscribe_resource(AnyUrl(uri))
            else:
                await session.unsubscribe_resource(AnyUrl(uri))
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} does not let you follow {uri}: "
                            f"{_first_error(exc)}") from None

    async def prompts(self) -> list[McpPromptInfo]:
        """The prompts of every connected server that offers some."""
        found: list[McpPromptInfo] = []
        for server in self._servers.values():
            if not self._offers(server, "prompts"):
                continue
            try:
                listed = await server.session.list_prompts()
            except Exception as exc:
                log.warning("MCP server %s: could not list its prompts: %s", server.config.name, _first_error(exc))
                continue
            found.extend(McpPromptInfo(
                server.config.name, p.name, p.title or "", p.description or "",
                tuple(McpPromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or []))
                for p in listed.prompts)
        return found

    async def get_prompt(self, server_name: str, name: str, arguments: dict[str, str]) -> list[Message]:
        """The messages of a prompt with its ``arguments`` (text, embedded resources' text, pictures)."""
        import base64

        session = self._session(server_name)
        try:
            result = await session.get_prompt(name, arguments)
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} could not give the prompt {name!r}: "
                            f"{_first_error(exc)}") from None
        messages: list[Message] = []
        for item in result.messages:
            content = item.content
            kind = getattr(content, "type", "")
            if kind == "text":
                messages.append(Message(role=item.role, content=str(content.text)))
            elif kind == "image":
                messages.append(Message(role=item.role, images=[Image(base64.b64decode(str(content.data)),
                                                                      str(content.mimeType))]))
            elif kind == "resource":
                resource = content.resource
                text = getattr(resource, "text", None)
                messages.append(Message(role=item.role, content=str(text) if text is not None
                                        else f"[{resource.uri}: {resource.mimeType or 'binary data'}]"))
            else:
                messages.append(Message(role=item.role, content=f"[{kind} left out]"))
        return messages

    async def complete(self, server_name: str, prompt: str, argument: str, value: str,
                       context: dict[str, str] | None = None) -> list[str]:
        """The server's completions of ``value`` for a prompt's ``argument`` ([] when it offers none)."""
        from mcp import types

        server = self._servers.get(server_name)
        if server is None or server.session is None or not self._offers(server, "completions"):
            return []
        try:
            result = await server.session.complete(types.PromptReference(type="ref/prompt", name=prompt),
                                                   {"name": argument, "value": value}, context or None)
        except Exception as exc:
            log.info("MCP server %s: no completion for %s.%s: %s", server_name, prompt, argument, _first_error(exc))
            return []
        return list(result.completion.values)

    def _errlog(self, config: McpServerConfig, stack: contextlib.AsyncExitStack) -> TextIO:
        """Where a stdio server's stderr goes: a log file per server (never the user's terminal)."""
        if self.log_dir is None:
            return stack.enter_context(open(os.devnull, "w"))
        safe = _NAME_CLEAN.sub("_", config.name)
        return stack.enter_context((self.log_dir / f"mcp-{safe}.log").open("a", encoding="utf-8"))

    def _headers(self, config: McpServerConfig) -> dict[str, str]:
        headers: dict[str, str] = {}
        for name in config.headers:
            value = self.secrets.get(mcp_header_key_name(config.name, name)) if self.secrets else None
            if value is None:
                log.warning("MCP server %s: no value in the keyring for header %s", config.name, name)
                continue
            headers[name] = value
        return headers

    async def call(self, server_name: str, tool: str, arguments: dict[str, Any],
                   progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None) -> Any:
        """Call ``tool`` on a connected server: the ``CallToolResult``, or ``ToolError``.

        ``progress`` is called with the server's progress notifications. When the call is
        cancelled (Stop), the server is told to stop its work (``notifications/cancelled``)."""
        server = self._servers.get(server_name)
        if server is None or server.session is None:
            raise ToolError(f"The MCP server {server_name!r} is not connected; the user can check its settings.")
        session = server.session
        # The id the SDK gives this request: taken synchronously by call_tool before its first wait.
        request_id = getattr(session, "_request_id", None)
        try:
            return await session.call_tool(
                tool, arguments, read_timeout_seconds=datetime.timedelta(seconds=self.settings.call_timeout_s),
                progress_callback=progress)
        except asyncio.CancelledError:
            if isinstance(request_id, int):
                await _tell_cancelled(session, request_id, server_name)
            raise
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} failed to run {tool}: {_first_error(exc)}") from None

    async def _stop(self, server: _Server) -> None:
        server.stop.set()
        task = server.task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=10)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def aclose(self) -> None:
        await asyncio.gather(*(self._stop(s) for s in self._servers.values()))

    def registry(self, reserved: Collection[str] = ()) -> McpRegistry:
        """The allowed tools of every connected server, as one registry.

        ``reserved`` are the names already in use where this registry will be merged (the
        built-in registry's ``all_names()``: names, aliases, normalised names). A tool whose
        name is reserved, or taken by an earlier server, gets a ``<server>_<tool>`` name
        instead, and the rename is reported in ``renamed`` (and ``problems``): a merge must
        never fail, and no tool is dropped.
        """
        registry = McpRegistry(self)
        # normalised name -> who has it, for the message when another tool wants it
        taken: dict[str, str] = {normalize_tool_name(n): "a built-in tool" for n in reserved}
        for server in self._servers.values():
            if server.session is None:
                continue
            for info in server.tools:
                if not info.allowed:
                    continue
                name = _tool_name(info.name)
                holder = taken.get(normalize_tool_name(name))
                if holder is not None:
                    name = _unique_name(f"{server.config.name}_{name}", taken)
                    registry.renamed.append(McpRenamedTool(server.config.name, info.name, name, holder))
                taken[normalize_tool_name(name)] = f"the MCP server {server.config.name!r}"
                registry.add(_tool(self, info, server.config, name=name))
        return registry


@dataclass(frozen=True)
class McpRenamedTool:
    """A server's tool registered under another name because its own was already taken."""

    server: str
    tool: str  # the name the server gave it (and is called with)
    name: str  # the name the model sees
    taken_by: str  # "a built-in tool" or "the MCP server 'X'"

    @property
    def message(self) -> str:
        return (f"The MCP server {self.server!r} offers a tool named {self.tool!r}, which {self.taken_by} "
                f"already uses; it is available as {self.name!r}.")


class McpRegistry(ToolRegistry):
    """A ``ToolRegistry`` of MCP tools that also owns their connections (``aclose``)."""

    def __init__(self, connections: McpConnections) -> None:
        super().__init__()
        self.connections = connections
        self.renamed: list[McpRenamedTool] = []

    @property
    def problems(self) -> dict[str, str]:
        """What to tell the user: each server that could not be used (keyed by its name), and
        each tool that had to take another name (keyed ``<server>/<tool>``)."""
        found = dict(self.connections.problems)
        found.update({f"{r.server}/{r.tool}": r.message for r in self.renamed})
        return found

    async def aclose(self) -> None:
        await self.connections.aclose()


async def _tell_cancelled(session: Any, request_id: int, server: str) -> None:
    """Tell the server the user stopped request ``request_id`` (best effort, a couple of seconds)."""
    from mcp import types

    note = types.ClientNotification(types.CancelledNotification(
        params=types.CancelledNotificationParams(requestId=request_id, reason="The user stopped the task.")))
    try:
        await asyncio.wait_for(asyncio.shield(session.send_notification(note)), 2)
        log.info("MCP server %s: told to stop request %s", server, request_id)
    except Exception as exc:  # the session may be gone: nothing more to stop
        log.debug("MCP server %s: could not send the cancellation: %s", server, exc)


def _tool_name(text: str) -> str:
    """``text`` as a valid registry name: letters, digits and ``_``, not starting with a digit, 64 at most."""
    name = _NAME_CLEAN.sub("_", text).strip("_")[:64] or "tool"
    if not re.match(r"[A-Za-z_]", name):
        name = f"t_{name}"[:64]
    return name


def _unique_name(wanted: str, taken: Collection[str]) -> str:
    """A valid name from ``wanted`` whose normalised form is not in ``taken`` (``_2``, ``_3``... added)."""
    base = _tool_name(wanted)
    name, n = base, 1
    while normalize_tool_name(name) in taken:
        n += 1
        suffix = f"_{n}"
        name = base[: 64 - len(suffix)] + suffix
    return name


def _tool(connections: McpConnections, info: McpToolInfo, config: McpServerConfig, *, name: str) -> Tool:
    """A registry ``Tool`` named ``name`` calling ``info`` on its server, with the server's own schema."""
    raw_properties = info.input_schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    required = set(info.input_schema.get("required") or [])
    fields: dict[str, Any] = {}
    originals: dict[str, str] = {}
    for index, (prop, spec) in enumerate(properties.items()):
        field_name = f"a{index}"
        originals[field_name] = prop
        description = spec.get("description") if isinstance(spec, dict) else None
        fields[field_name] = (Any, (Field(alias=prop, description=description) if prop in required
                            else Field(default_factory=_unset, alias=prop, description=description)))
    model = create_model(f"mcp_{name}_arguments", __config__=ConfigDict(extra="forbid", populate_by_name=False),
                         **fields)

    async def call(ctx: ToolContext, **kwargs: Any) -> ToolResult:
        arguments = {originals[k]: v for k, v in kwargs.items() if v is not _UNSET}

        async def progress(done: float, total: float | None, message: str | None) -> None:
            ctx.bus.emit(ToolProgress(run_id=ctx.run_id, call_id=ctx.call_id, tool_name=name, progress=done,
                                      total=total or 0.0, message=message or ""))

        result = await connections.call(config.name, info.name, arguments, progress)
        text = _result_text(result)
        # What a server returns is data, like a page: fenced with a fresh marker (core.tools.untrusted).
        source = f"MCP server {config.name}"
        if getattr(result, "isError", False):
            raise ToolError(wrap_untrusted(text, source) if text else f"{info.name} failed on the MCP server "
                                                                       f"{config.name!r}")
        wrapped = wrap_untrusted(text, source)
        # Pictures go to the model as pictures (to models that take them; core.llm.vision).
        return ToolResult(for_model=wrapped, data=result, images=_result_images(result))

    tool = Tool(
        name=name,
        description=(info.description or info.name).strip() + f" (MCP server: {config.name})",
        fn=call,
        takes_context=True,
        arguments_model=_as_model(model),
        level=tool_level(config.permission, info.annotations),
        site=lambda ctx, args: mcp_site(config.name),
    )
    schema = dict(info.input_schema) or {"type": "object", "properties": {}}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    tool.schema = schema
    return tool


def _as_model(model: Any) -> type[BaseModel]:
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model


def _result_text(result: Any) -> str:
    parts: list[str] = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(str(item.text))
        elif kind == "image":
            parts.append(f"[image {getattr(item, 'mimeType', '')}, {len(getattr(item, 'data', ''))} bytes base64]")
        elif kind == "resource":
            resource = getattr(item, "resource", None)
            parts.append(str(getattr(resource, "text", "") or getattr(resource, "uri", "")))
        elif kind == "resource_link":  # a resource the user may attach (the composer's MCP button)
            about = f": {item.description}" if getattr(item, "description", None) else ""
            parts.append(f"[resource {item.name} at {item.uri}{about}]")
        elif kind == "audio":  # no model here hears sound: said, not sent (its base64 would flood the text)
            parts.append(f"[audio {getattr(item, 'mimeType', '')}, {len(getattr(item, 'data', ''))} bytes base64, "
                         "not passed to the model]")
        else:
            parts.append(f"[{kind or 'content'} left out]")
    structured = getattr(result, "structuredContent", None)
    if not parts and structured is not None:
        import json

        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts)


def _innermost(exc: BaseException) -> BaseException:
    """The innermost useful error of an exception group (anyio wraps failures in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _result_images(result: Any) -> list[Image]:
    """The pictures of a tool's result (image content, base64 in the protocol)."""
    import base64
    import binascii

    images: list[Image] = []
    for item in getattr(result, "content", None) or []:
        media_type = str(getattr(item, "mimeType", "") or "")
        if getattr(item, "type", "") == "image" and media_type.startswith("image/"):
            try:
                images.append(Image(base64.b64decode(str(item.data), validate=True), media_type))
            except (binascii.Error, ValueError):
                log.warning("an MCP tool returned an image that is not base64; left out")
    return images


def _first_error(exc: BaseException) -> str:
    exc = _innermost(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _explain(config: McpServerConfig, exc: BaseException, auth: Any = None) -> str:
    from jawad_desktop.core.errors import JawadError
    from jawad_desktop.core.mcp.auth import offers_sign_in

    inner = _innermost(exc)
    detail = _first_error(exc)
    if isinstance(inner, JawadError):  # SignInNeeded and the keyring's errors say what to do
        return " ".join([str(inner), *inner.suggestions])
    if config.transport == "stdio":
        if "FileNotFoundError" in detail or "No such file" in detail:
            return (f"The MCP server {config.name!r} could not be started: the command {config.command!r} "
                    "was not found. Install it, or fix the server's command.")
        return (f"The MCP server {config.name!r} ({config.where}) stopped or did not speak MCP ({detail}). "
                "Run its command in a terminal to see why; its output is in the log folder.")
    if auth is not None and not offers_sign_in(auth) and ("401" in detail or "403" in detail):
        return (f"The MCP server {config.name!r} at {config.url} refused the connection ({detail}) and offers no "
                "OAuth sign-in. If it takes a token or key, add it again with it as a header, e.g. "
                f"`jawad mcp add {config.name} --url {config.url} --header-env Authorization=VARIABLE`.")
    if type(inner).__module__.startswith("mcp.client.auth"):  # OAuthFlowError, OAuthTokenError, ...
        return (f"Signing in to the MCP server {config.name!r} at {config.url} failed ({detail}). "
                f"Sign in again with `jawad mcp login {config.name}` (or Sign in in Settings → MCP servers); "
                "if it fails again, the server's sign-in does not accept Jawad.")
    if config.signs_in and auth is None and ("401" in detail or "403" in detail):
        return (f"The MCP server {config.name!r} at {config.url} refused the connection ({detail}). Signing in "
                "needs the system keyring, to keep the sign-in, and none is available: start your desktop's keyring "
                "and try again; or, if the server takes a token or key, add it again with it as a header, e.g. "
                f"`jawad mcp add {config.name} --url {config.url} --header-env Authorization=VARIABLE`.")
    if config.signs_in and ("401" in detail or "403" in detail):
        return (f"The MCP server {config.name!r} at {config.url} refused the sign-in ({detail}). "
                f"Sign in again with `jawad mcp login {config.name}` (or Sign in in Settings → MCP servers).")
    if "401" in detail or "403" in detail:
        return (f"The MCP server {config.name!r} at {config.url} refused the credentials ({detail}). "
                "Set its headers (the credentials) again.")
    return (f"Can't use the MCP server {config.name!r} at {config.url} ({detail}). "
            "Check that it is running and that the URL is its streamable-HTTP endpoint (often ending in /mcp).")


async def mcp_registry(ctx: Any, *, only: str | None = None, reserved: Collection[str] = (),
                       elicitations: Elicitations | None = None, sampler: Sampler | None = None) -> McpRegistry:
    """Connect to the MCP servers in ``ctx``'s settings; their allowed tools as a registry.

    Pass the ``all_names()`` of the registry it will be merged into as ``reserved``, so a
    server's ``search`` is renamed (and reported) instead of breaking the merge.
    ``elicitations``: who answers a server's questions mid-call (the assistant's); ``sampler``: who
    answers its requests for the model (the assistant's, through Harbor). A server that
    needs a sign-in nobody made is reported with how to sign in (``jawad mcp login``); a kept one is
    used, and refreshed when it expires.
    Never raises for a server that fails: see ``registry.problems``. Close it with ``aclose()``.
    """
    secrets = ctx.secrets if ctx.secrets.available else None
    connections = McpConnections(ctx.settings.mcp, secrets, log_dir=ctx.paths.logs, elicitations=elicitations,
                                 network=ctx.settings.network, sampler=sampler, bus=ctx.bus)
    try:
        await connections.connect(only)
    except BaseException:
        await connections.aclose()
        raise
    return connections.registry(reserved)


