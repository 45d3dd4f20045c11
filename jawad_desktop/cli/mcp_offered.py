"""``jawad mcp resources`` and ``jawad mcp prompts``: what the enabled MCP servers offer besides tools, on the
terminal. Resources are listed, read (``--read SERVER URI``) and followed (``--subscribe``: each change
printed until interrupted); resource templates are listed (``--templates``) and read with their parameters
filled (``--read SERVER TEMPLATE --set NAME=VALUE``); prompts are listed as the slash commands that run them
in ``jawad ask``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError


async def offered(args: argparse.Namespace, ctx: AppContext) -> int:
    """Connect to the enabled servers, show or follow what was asked, close."""
    from jawad_desktop.core.mcp.adapter import McpConnections

    secrets = ctx.secrets if ctx.secrets.available else None
    connections = McpConnections(ctx.settings.mcp, secrets, log_dir=ctx.paths.logs, network=ctx.settings.network,
                                 bus=ctx.bus)
    try:
        await connections.connect()
        for problem in connections.problems.values():
            print(f"! {problem}", file=sys.stderr)
        if args.mcp_action == "prompts":
            await _prompts(connections)
        elif args.subscribe:
            await _follow(connections, ctx, *args.subscribe)
        elif args.read:
            await _read(connections, *args.read, values=_values(args.set))
        else:
            await _resources(connections, templates=args.templates)
    finally:
        await connections.aclose()
    return 1 if connections.problems else 0


async def _prompts(connections: Any) -> None:
    prompts = await connections.prompts()
    for prompt in prompts:
        wanted = " ".join(a.name if a.required else f"[{a.name}]" for a in prompt.arguments)
        print(one_line(f"/{prompt.name} {wanted}".rstrip() + f" ({prompt.server}) {prompt.description}"))
    if not prompts:
        print("The servers offer no prompts.")


async def _resources(connections: Any, *, templates: bool = False) -> None:
    """One line per resource (or resource template): its server, its URI (or template), its name."""
    if templates:
        rows = [f"{t.server} {t.uri_template} {t.label}{' — ' + t.description if t.description else ''}"
                for t in await connections.resource_templates()]
    else:
        rows = [f"{r.server} {r.uri} {r.label}{' (' + r.mime_type + ')' if r.mime_type else ''}"
                for r in await connections.resources()]
    for row in rows:
        print(one_line(row))
    what = "resource templates" if templates else "resources"
    if not rows:
        print(f"The servers offer no {what}.")
    elif templates:
        print("Read one with `jawad mcp resources --read SERVER TEMPLATE --set NAME=VALUE ...`.")


def _values(pairs: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise JawadError(f"--set wants NAME=VALUE, not {pair!r}.")
        values[name.strip()] = value
    return values


async def _read(connections: Any, server: str, uri: str, *, values: dict[str, str]) -> None:
    """Print a resource's text; a template is filled with ``values`` first (each parameter needed)."""
    from jawad_desktop.core.mcp.offers import fill_template, template_parameters
    from jawad_desktop.core.tools.registry import ToolError

    missing = [name for name in template_parameters(uri) if name not in values]
    if missing:
        offered = [f"{name}: {', '.join(found[:10])}" for name in missing
                   if (found := await connections.complete(server, "", name, "", values, template=uri))]
        raise JawadError(f"The template {uri} needs {', '.join(missing)}.",
                         suggestions=["Add " + " ".join(f"--set {name}=..." for name in missing),
                                      *([f"The server offers {'; '.join(offered)}."] if offered else [])])
    try:
        found = await connections.read_resource(server, fill_template(uri, values))
    except ToolError as exc:
        raise JawadError(str(exc)) from None
    for part in found.parts:
        print(part.text)
    for note in found.notes:
        print(f"({note})", file=sys.stderr)
    if found.image is not None and not found.parts:
        print(f"({found.name} is a picture, {found.image.media_type}; attach it with `jawad ask --resource`)")


async def _follow(connections: Any, ctx: AppContext, server: str, uri: str) -> None:
    """Print each change of ``uri`` (``notifications/resources/updated``) until interrupted."""
    from jawad_desktop.core.events import McpResourceUpdated
    from jawad_desktop.core.tools.registry import ToolError

    changes: asyncio.Queue[str] = asyncio.Queue()
    ctx.bus.subscribe(lambda e: changes.put_nowait(e.uri) if isinstance(e, McpResourceUpdated) else None)
    try:
        await connections.subscribe(server, uri)
    except ToolError as exc:
        raise JawadError(str(exc)) from None
    print(f"Following {uri} on {server}; Ctrl+C to stop.", flush=True)
    while True:
        print(f"changed: {await changes.get()}", flush=True)
