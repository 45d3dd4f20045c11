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
Besides tools, a server's resources, resource templates and prompts are offered to the faces
(``core.mcp.offers``: ``ServerOffers``, which ``McpConnections`` is); a subscribed resource's change
is announced on the bus (``McpResourceUpdated``). How tools become registry tools is
``core.mcp.tool_bridge``; how a failure is told, ``core.mcp.problems``.

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

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings, mcp_header_key_name
from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import EventBus, McpResourceUpdated
from jawad_desktop.core.mcp.offers import McpToolInfo, ServerOffers
from jawad_desktop.core.mcp.problems import explain_failure, first_error
from jawad_desktop.core.mcp.tool_bridge import McpRenamedTool, registry_tool, tool_name, unique_name
from jawad_desktop.core.tools.registry import ToolError, ToolRegistry, normalize_tool_name

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.auth import Authorizer
    from jawad_desktop.core.mcp.elicitation import Elicitations
    from jawad_desktop.core.mcp.sampling import Sampler

log = logging.getLogger("jawad.mcp")

__all__ = ["McpConnections", "McpRegistry", "mcp_registry", "root_uris", "server_tools", "sign_in"]

_NAME_CLEAN = re.compile(r"[^A-Za-z0-9_]+")


def _client_info() -> Any:
    from mcp import types

    from jawad_desktop import __version__

    return types.Implementation(name="jawad-desktop", title="Jawad Desktop", version=__version__)


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


class McpConnections(ServerOffers):
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

    def connected(self) -> list[tuple[McpServerConfig, list[McpToolInfo]]]:
        """Each connected server's settings and tools, in the order of the settings."""
        return [(s.config, s.tools) for s in self._servers.values() if s.session is not None]

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
                    read, write, client_info=_client_info(), elicitation_callback=self._asker(
                        config, self.elicitations.request if self.elicitations is not None else None),
                    logging_callback=_logging_callback(config), sampling_callback=self._asker(
                        config, self.sampler.create_message if self.sampler is not None else None),
                    list_roots_callback=self._roots_callback(), message_handler=self._message_handler(config)))
                await session.initialize()
                listed = await session.list_tools()
                allowed = set(config.allowed_tools)
                server.tools = [
                    McpToolInfo(config.name, t.name, t.title or "", t.description or "",
                                input_schema=dict(t.inputSchema or {}), allowed=not allowed or t.name in allowed,
                                annotations=t.annotations.model_dump(exclude_none=True) if t.annotations else {})
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
                log.debug("MCP server %s closed: %s", config.name, first_error(exc))
                return
            server.problem = explain_failure(config, exc, server.auth)
            log.warning("MCP server %s failed: %s", config.name, first_error(exc))
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
            from jawad_desktop.core.mcp.server_auth import oauth_for

            auth = server.auth = oauth_for(config, self.settings, self.secrets, self.authorizer, self.network)
        # As the SDK's client (no redirects followed: the transport keeps to the server's origin), with
        # the proxy and CA bundle of Settings → Network like every other connection.
        http = await stack.enter_async_context(httpx.AsyncClient(
            headers=self._headers(config), auth=auth, **client_options(self.network, config.url, timeout=timeout)))
        read, write, _session_id = await stack.enter_async_context(streamable_http_client(config.url, http_client=http))
        return read, write

    @staticmethod
    def _asker(config: McpServerConfig, ask: Callable[[str, Any], Awaitable[Any]] | None) -> Any:
        """A session callback for a server's request to us, answered by ``ask(server name, params)``: the
        user's answer to ``elicitation/create`` (``elicitations.request``), or the model's to
        ``sampling/createMessage`` once the user allowed it (``sampler.create_message``). None: not offered."""
        if ask is None:
            return None

        async def answer(context: Any, params: Any) -> Any:
            return await ask(config.name, params)

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

    def _offering(self, what: str) -> list[tuple[str, Any]]:
        found = []
        for server in self._servers.values():
            capabilities = server.session.get_server_capabilities() if server.session is not None else None
            if capabilities is not None and getattr(capabilities, what, None) is not None:
                found.append((server.config.name, server.session))
        return found

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
            raise ToolError(f"The MCP server {server_name!r} failed to run {tool}: {first_error(exc)}") from None

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
        """The allowed tools of every connected server, as one registry (``tool_bridge.build_registry``:
        a tool whose name is taken is renamed ``<server>_<tool>`` and the rename reported)."""
        return build_registry(self, reserved)


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




async def server_tools(settings: McpSettings, config: McpServerConfig, secrets: SecretReader | None, *,
                       log_dir: Path | None = None, network: NetworkSettings | None = None,
                       authorizer: Authorizer | None = None, every_tool: bool = False) -> list[McpToolInfo]:
    """Connect to ``config``'s server alone (enabled, whatever the settings say), list its tools and close:
    its tools (with ``every_tool``, all of them marked allowed: a check before the user chooses).
    Raises ``JawadError`` with what happened and what to do when it cannot be used."""
    from jawad_desktop.core.errors import JawadError

    config = config.model_copy(update={"enabled": True, **({"allowed_tools": []} if every_tool else {})})
    connections = McpConnections(settings.model_copy(update={"servers": [config]}), secrets, log_dir=log_dir,
                                 authorizer=authorizer, network=network)
    try:
        await connections.connect()
    finally:
        await connections.aclose()
    problem = connections.problems.get(config.name)
    if problem:
        raise JawadError(problem)
    return connections.tools()


async def sign_in(settings: McpSettings, config: McpServerConfig, secrets: SecretReader,
                  open_url: Callable[[str], Awaitable[None]], *, log_dir: Path | None = None,
                  network: NetworkSettings | None = None) -> list[McpToolInfo]:
    """A fresh sign-in to ``config``'s server (the kept one forgotten first): ``open_url`` shows the
    sign-in page, the redirect comes back to a loopback listener, the sign-in is kept in ``secrets``.
    The server's tools; ``JawadError`` when the sign-in fails."""
    from jawad_desktop.core.mcp.auth import LoopbackAuthorizer, sign_out

    sign_out(secrets, config.name)
    if config.oauth.grant == "enterprise" and config.oauth.idp_issuer:  # signed in at the organisation again too
        from jawad_desktop.core.mcp.enterprise import forget_identity

        forget_identity(secrets, config.name)
    async with LoopbackAuthorizer(open_url) as authorizer:
        return await server_tools(settings, config, secrets, log_dir=log_dir, network=network, authorizer=authorizer)


def build_registry(connections: McpConnections, reserved: Collection[str] = ()) -> McpRegistry:
    """The allowed tools of every connected server, as one registry.

    ``reserved`` are the names already in use where this registry will be merged (the
    built-in registry's ``all_names()``: names, aliases, normalised names). A tool whose
    name is reserved, or taken by an earlier server, gets a ``<server>_<tool>`` name
    instead, and the rename is reported in ``renamed`` (and ``problems``): a merge must
    never fail, and no tool is dropped.
    """
    registry = McpRegistry(connections)
    # normalised name -> who has it, for the message when another tool wants it
    taken: dict[str, str] = {normalize_tool_name(n): "a built-in tool" for n in reserved}
    for config, tools in connections.connected():
        for info in tools:
            if not info.allowed:
                continue
            name = tool_name(info.name)
            holder = taken.get(normalize_tool_name(name))
            if holder is not None:
                name = unique_name(f"{config.name}_{name}", taken)
                registry.renamed.append(McpRenamedTool(config.name, info.name, name, holder))
            taken[normalize_tool_name(name)] = f"the MCP server {config.name!r}"
            registry.add(registry_tool(connections, info, config, name=name))
    return registry


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
