"""``jawad mcp``: add, list and remove MCP servers whose tools the assistant may use.

A server is a command started over stdio (``--command``) or a streamable-HTTP URL
(``--url``). HTTP header values (tokens) go only to the system keyring: from an environment
variable the user names (``--header-env NAME=VARIABLE``), or from a hidden prompt
(``--ask-header NAME``); ``--header NAME=VALUE`` is for values that are not secret and still
goes to the keyring (the settings file keeps only header names).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import shlex
import sys
from typing import Any

from pydantic import ValidationError

from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.config.mcp import MCP_PERMISSIONS, McpServerConfig, mcp_header_key_name
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError


def register(subparsers: Any) -> argparse.ArgumentParser:
    from jawad_desktop.cli import add_actions

    parser, actions = add_actions(
        subparsers, "mcp",
        help="add, list and remove MCP servers (their tools join the assistant's)",
        description="MCP servers give the assistant more tools. Their header values (tokens) are kept "
        "in the system keyring; each call is asked for unless you choose another permission.",
        dest="mcp_action", handler=run,
    )

    p_add = actions.add_parser("add", help="save an MCP server (replaces one with the same name)")
    p_add.add_argument("name", help="a name you choose, e.g. 'files'")
    where = p_add.add_mutually_exclusive_group(required=True)
    # dest: "command" is the name of the subcommand, which `jawad` reads to choose the handler.
    where.add_argument("--command", dest="stdio_command", metavar="CMD",
                       help="start the server with this command line (stdio), quoted as one argument, "
                       "e.g. --command 'npx -y @modelcontextprotocol/server-memory'")
    where.add_argument("--url", metavar="URL", help="the server's streamable-HTTP endpoint, e.g. https://host/mcp")
    p_add.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                       help="an environment variable for the stdio server (not secret; repeatable)")
    p_add.add_argument("--cwd", metavar="DIR", help="the stdio server's working folder")
    p_add.add_argument("--header", action="append", default=[], metavar="NAME=VALUE",
                       help="an HTTP header; its value goes to the keyring (repeatable)")
    p_add.add_argument("--header-env", action="append", default=[], metavar="NAME=VAR",
                       help="an HTTP header whose value is in environment variable VAR (repeatable)")
    p_add.add_argument("--ask-header", action="append", default=[], metavar="NAME",
                       help="ask for the value of header NAME (hidden input; repeatable)")
    p_add.add_argument("--allow", action="append", default=[], metavar="TOOL",
                       help="only this tool of the server (repeatable, or comma-separated; default: all)")
    p_add.add_argument("--permission", choices=MCP_PERMISSIONS, default="ask",
                       help="'ask' (default) asks before each call; a level follows the policy of built-in tools")
    p_add.add_argument("--disabled", action="store_true", help="save it without using it yet")

    p_list = actions.add_parser("list", help="the saved MCP servers")
    p_list.add_argument("--tools", action="store_true", help="connect and list each server's tools")
    p_list.add_argument("--json", action="store_true", help="print JSON")

    p_remove = actions.add_parser("remove", help="delete a saved MCP server and its header values")
    p_remove.add_argument("name")
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    if args.mcp_action == "add":
        return _add(args, ctx)
    if args.mcp_action == "remove":
        return _remove(args, ctx)
    return await _list(args, ctx)


def _pairs(values: list[str], what: str) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name.strip():
            raise JawadError(f"{what} {value!r} is not NAME=VALUE.", suggestions=[f"e.g. {what} Authorization=..."])
        pairs.append((name.strip(), rest))
    return pairs


def _add(args: argparse.Namespace, ctx: AppContext) -> int:
    headers: dict[str, str] = dict(_pairs(args.header, "--header"))
    for name, variable in _pairs(args.header_env, "--header-env"):
        value = os.environ.get(variable, "")
        if not value:
            raise JawadError(f"The environment variable {variable} is not set or is empty.",
                             suggestions=[f"Set it first, e.g. `export {variable}=...` (it is never printed)."])
        headers[name] = value
    for name in args.ask_header:
        headers[name] = getpass.getpass(f"Value of header {name} for {args.name} (input hidden): ")
    if headers and not args.url:
        raise JawadError("Headers are for HTTP servers (--url), not for stdio commands.",
                         suggestions=["Give a stdio server its secrets with --env instead."])
    try:
        command = shlex.split(args.stdio_command or "")
    except ValueError as exc:
        raise JawadError(f"The command line cannot be read: {exc}.",
                         suggestions=["Quote it as one argument, e.g. --command 'npx -y some-server'."]) from None
    allowed = [t.strip() for item in args.allow for t in item.split(",") if t.strip()]
    try:
        config = McpServerConfig(
            name=args.name, transport="http" if args.url else "stdio",
            command=command[0] if command else "", args=command[1:], env=dict(_pairs(args.env, "--env")),
            cwd=args.cwd or "",
            url=args.url or "", headers=list(headers), allowed_tools=allowed, permission=args.permission,
            enabled=not args.disabled,
        )
    except ValidationError as exc:
        raise JawadError(f"The MCP server is not valid: {exc.errors()[0]['msg']}.") from None
    if headers and not ctx.secrets.available:
        raise JawadError(ctx.secrets.problem or "No keyring is available for the header values.",
                         suggestions=["Header values are only kept in the system keyring."])
    mcp = ctx.settings.mcp
    old = mcp.server(config.name)
    for name, value in headers.items():  # secrets first: if the keyring refuses, nothing changes
        ctx.secrets.set(mcp_header_key_name(config.name, name), value)
    if old is not None:
        _forget_headers(ctx, old, keep=set(config.headers) if old.name == config.name else set())
    ctx.settings.mcp = mcp.model_copy(update={"servers": [s for s in mcp.servers if s is not old] + [config]})
    ctx.save_settings()
    what = "Replaced" if old is not None else "Added"
    print(f"{what} the MCP server {config.name} ({config.where})"
          f"{' with its header values in the system keyring' if headers else ''}. "
          f"See its tools with `jawad mcp list --tools`.")
    return 0


def _forget_headers(ctx: AppContext, config: McpServerConfig, *, keep: set[str] | None = None) -> None:
    if not ctx.secrets.available:
        return
    for name in config.headers:
        if name not in (keep or set()):
            ctx.secrets.delete(mcp_header_key_name(config.name, name))


def _remove(args: argparse.Namespace, ctx: AppContext) -> int:
    mcp = ctx.settings.mcp
    config = mcp.server(args.name)
    if config is None:
        known = ", ".join(s.name for s in mcp.servers) or "none yet"
        raise JawadError(f"No MCP server is named {args.name!r} (saved: {known}).",
                         suggestions=["`jawad mcp list` shows them."])
    _forget_headers(ctx, config)
    ctx.settings.mcp = mcp.model_copy(update={"servers": [s for s in mcp.servers if s is not config]})
    ctx.save_settings()
    print(f"Removed the MCP server {config.name}{' and its header values' if config.headers else ''}.")
    return 0


async def _list(args: argparse.Namespace, ctx: AppContext) -> int:
    servers = ctx.settings.mcp.servers
    tools: dict[str, list[dict[str, Any]]] = {}
    problems: dict[str, str] = {}
    if args.tools and servers:
        from jawad_desktop.core.mcp.adapter import McpConnections

        secrets = ctx.secrets if ctx.secrets.available else None
        connections = McpConnections(ctx.settings.mcp, secrets, log_dir=ctx.paths.logs)
        try:
            for server in servers:
                await connections.connect(only=server.name)
        finally:
            await connections.aclose()
        problems = connections.problems
        for info in connections.tools():
            tools.setdefault(info.server, []).append(
                {"name": info.name, "description": info.description, "allowed": info.allowed})
    rows: list[dict[str, Any]] = [{"name": s.name, "transport": s.transport, "where": s.where, "headers": s.headers,
             "allowed_tools": s.allowed_tools, "permission": s.permission, "enabled": s.enabled,
             **({"tools": tools.get(s.name, []), "problem": problems.get(s.name, "")} if args.tools else {})}
            for s in servers]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 1 if problems else 0
    if not rows:
        print("No MCP servers yet. Add one with `jawad mcp add NAME --command CMD -- ARGS` "
              "or `jawad mcp add NAME --url URL`.")
        return 0
    for row in rows:
        state = "" if row["enabled"] else " (disabled)"
        allow = ", ".join(row["allowed_tools"]) or "all tools"
        print(f"{row['name']}{state}: {row['transport']} {row['where']}  [{allow}; permission {row['permission']}]")
        if args.tools:
            if row["problem"]:
                print(f"  ! {row['problem']}", file=sys.stderr)
            for tool in row["tools"]:
                mark = "+" if tool["allowed"] else "-"
                first = tool["description"].splitlines()[0] if tool["description"] else ""
                print(one_line(f"  {mark} {tool['name']}: {first}"))  # a server's words, as a terminal may show them
    return 1 if problems else 0
