"""``jawad mcp``: add, list and remove MCP servers whose tools the assistant may use; sign in
to remote ones (``login``, ``logout``).

A server is a command started over stdio (``--command``) or a streamable-HTTP URL
(``--url``). HTTP header values (tokens) go only to the system keyring: from an environment
variable the user names (``--header-env NAME=VARIABLE``), or from a hidden prompt
(``--ask-header NAME``); ``--header NAME=VALUE`` is for values that are not secret and still
goes to the keyring (the settings file keeps only header names). An HTTP server without headers
signs in with OAuth: ``jawad mcp login NAME`` opens the sign-in page in the browser (the redirect
comes back to a listener on 127.0.0.1) and keeps the tokens in the keyring; a client the server's
owner registered for you is given with ``--client-id`` (its secret from ``--client-secret-env`` or
a hidden prompt), and machine-to-machine servers take ``--client-credentials``.

``--from KEY`` fills in a well-known server from the catalog (``jawad mcp catalog``); ``resources`` and
``prompts`` list what the servers offer beside tools (a prompt runs in ``jawad ask`` as ``/NAME args``,
a resource is attached with ``jawad ask --resource SERVER URI``); ``roots`` sets the folders servers
may work in.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.config.mcp import (
    MCP_PERMISSIONS,
    McpOAuth,
    McpServerConfig,
    mcp_header_key_name,
    mcp_oauth_id_token_key_name,
    mcp_oauth_key_name,
    mcp_oauth_secret_key_name,
)
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

    _add_arguments(actions.add_parser("add", help="save an MCP server (replaces one with the same name)"))

    p_list = actions.add_parser("list", help="the saved MCP servers")
    p_list.add_argument("--tools", action="store_true", help="connect and list each server's tools")
    p_list.add_argument("--json", action="store_true", help="print JSON")

    p_remove = actions.add_parser("remove", help="delete a saved MCP server, its header values and its sign-in")
    p_remove.add_argument("name")

    p_login = actions.add_parser("login", help="sign in to an HTTP MCP server in the browser")
    p_login.add_argument("name")
    p_login.add_argument("--no-browser", action="store_true",
                         help="only print the sign-in address (open it in a browser on this computer)")
    p_logout = actions.add_parser("logout", help="forget the sign-in kept for an MCP server")
    p_logout.add_argument("name")
    actions.add_parser("catalog", help="well-known MCP servers to add with `jawad mcp add NAME --from KEY`")
    p_resources = actions.add_parser("resources", help="connect and list the resources the servers offer")
    which = p_resources.add_mutually_exclusive_group()
    which.add_argument("--subscribe", nargs=2, metavar=("SERVER", "URI"),
                       help="follow a resource and print each change until interrupted")
    which.add_argument("--templates", action="store_true",
                       help="list the resource templates (families of resources named by parameters)")
    which.add_argument("--read", nargs=2, metavar=("SERVER", "URI"),
                       help="print a resource; a template's URI (with {parameters}) is filled from --set")
    p_resources.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                             help="with --read: a template parameter's value (repeatable)")
    actions.add_parser("prompts", help="connect and list the prompts the servers offer (run them as /NAME)")
    p_roots = actions.add_parser("roots", help="the folders MCP servers may work in (their roots)")
    p_roots.add_argument("--add", action="append", default=[], metavar="DIR", help="offer this folder")
    p_roots.add_argument("--remove", action="append", default=[], metavar="DIR", help="no longer offer it")
    return parser


def _add_arguments(p_add: argparse.ArgumentParser) -> None:
    """``jawad mcp add``'s options: where the server is, its headers, its sign-in, what it may do."""
    p_add.add_argument("name", help="a name you choose, e.g. 'files'")
    where = p_add.add_mutually_exclusive_group(required=True)
    where.add_argument("--from", dest="from_catalog", metavar="KEY",
                       help="a well-known server from `jawad mcp catalog` (its command or URL filled in)")
    p_add.add_argument("--folder", metavar="DIR", default="",
                       help="with --from: the folder a files or git server works in (default: your home folder)")
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
    _sign_in_arguments(p_add)
    p_add.add_argument("--allow", action="append", default=[], metavar="TOOL",
                       help="only this tool of the server (repeatable, or comma-separated; default: all)")
    p_add.add_argument("--permission", choices=MCP_PERMISSIONS, default=None,
                       help="'ask' (default) asks before each call; a level follows the policy of built-in tools")
    p_add.add_argument("--disabled", action="store_true", help="save it without using it yet")


def _sign_in_arguments(p_add: argparse.ArgumentParser) -> None:
    """The options of a server that signs in with OAuth."""
    sign_in = p_add.add_argument_group("sign-in", "for HTTP servers that sign in with OAuth (no --header)")
    sign_in.add_argument("--client-id", metavar="ID", default="", help="a client registered with the server's "
                         "sign-in beforehand (default: Jawad registers itself)")
    sign_in.add_argument("--client-secret-env", metavar="VAR", help="the client's secret is in environment "
                         "variable VAR (kept in the keyring)")
    sign_in.add_argument("--ask-client-secret", action="store_true", help="ask for the client's secret (hidden)")
    sign_in.add_argument("--private-key-file", metavar="PEM", type=Path,
                         help="sign the client's requests with this private key (private_key_jwt; kept in the "
                         "keyring, not read again from the file)")
    sign_in.add_argument("--client-credentials", action="store_true",
                         help="a machine-to-machine server: no person signs in (needs --client-id)")
    sign_in.add_argument("--token-auth", choices=("client_secret_basic", "client_secret_post", "none"), default="",
                         help="how the client's secret is sent to the token endpoint (default: the server's choice)")
    sign_in.add_argument("--scopes", default="", help="space-separated scopes to ask for (default: the server's)")
    sign_in.add_argument("--idp-issuer", metavar="URL", default="",
                         help="your organisation signs you in (enterprise-managed, SEP-990): its identity provider's "
                         "address, where you sign in with `jawad mcp login` (needs --client-id and --idp-client-id)")
    sign_in.add_argument("--idp-token-endpoint", metavar="URL", default="",
                         help="your organisation signs you in (enterprise-managed, SEP-990): its identity provider's "
                         "token endpoint, where your ID token is exchanged (needs --client-id and --id-token-env)")
    sign_in.add_argument("--idp-client-id", metavar="ID", default="",
                         help="Jawad's client ID at that identity provider")
    sign_in.add_argument("--id-token-env", metavar="VAR", help="the ID token your identity provider gave you is in "
                         "environment variable VAR (kept in the keyring)")


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    if args.mcp_action == "add":
        return _add(args, ctx)
    if args.mcp_action == "remove":
        return _remove(args, ctx)
    if args.mcp_action == "login":
        return await _login(args, ctx)
    if args.mcp_action == "logout":
        return _logout(args, ctx)
    if args.mcp_action == "catalog":
        return _catalog()
    if args.mcp_action == "roots":
        return _roots(args, ctx)
    if args.mcp_action in ("resources", "prompts"):
        from jawad_desktop.cli.mcp_offered import offered

        return await offered(args, ctx)
    return await _list(args, ctx)


def _catalog() -> int:
    from jawad_desktop.core.config.mcp_catalog import CATALOG

    for entry in CATALOG:
        print(f"{entry.key}: {entry.title}. {entry.description}\n  needs: {entry.needs}\n  "
              f"{entry.config().where}")
    print("Add one with `jawad mcp add NAME --from KEY`.")
    return 0


def _roots(args: argparse.Namespace, ctx: AppContext) -> int:
    roots = list(ctx.settings.mcp.roots)
    for folder in args.add:
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise JawadError(f"{path} is not a folder.", suggestions=["Give a folder that exists."])
        if str(path) not in roots:
            roots.append(str(path))
    for folder in args.remove:
        gone = str(Path(folder).expanduser().resolve())
        roots = [r for r in roots if r not in (folder, gone)]
    if args.add or args.remove:
        ctx.settings.mcp = ctx.settings.mcp.model_copy(update={"roots": roots})
        ctx.save_settings()
    print("\n".join(roots) if roots else "No folders are offered to MCP servers. Add one with "
          "`jawad mcp roots --add DIR`.")
    return 0


def _saved(ctx: AppContext, name: str) -> McpServerConfig:
    config = ctx.settings.mcp.server(name)
    if config is None:
        known = ", ".join(s.name for s in ctx.settings.mcp.servers) or "none yet"
        raise JawadError(f"No MCP server is named {name!r} (saved: {known}).",
                         suggestions=["`jawad mcp list` shows them."])
    return config


async def _login(args: argparse.Namespace, ctx: AppContext) -> int:
    config = _saved(ctx, args.name)
    if not config.signs_in:
        raise JawadError(f"The MCP server {config.name} does not sign in with OAuth "
                         f"({'it is a command' if config.transport == 'stdio' else 'it uses headers'}).",
                         suggestions=["Add it again with --url and without --header to sign in."])
    if not ctx.secrets.available:
        raise JawadError(ctx.secrets.problem or "No keyring is available for the sign-in.",
                         suggestions=["The sign-in is only kept in the system keyring."])
    from jawad_desktop.core.mcp.adapter import sign_in
    from jawad_desktop.core.mcp.auth import open_in_browser

    async def show(url: str) -> None:
        print(f"Sign in to {config.name} in your browser. If no page opens, open this address:\n  {url}",
              file=sys.stderr, flush=True)
        if not args.no_browser:
            with contextlib.suppress(JawadError):  # the address is printed above
                await open_in_browser(url)

    tools = [t.name for t in await sign_in(ctx.settings.mcp, config, ctx.secrets, show, log_dir=ctx.paths.logs,
                                           network=ctx.settings.network)]
    print(f"Signed in to {config.name}; the sign-in is kept in the system keyring. "
          f"Its tools: {one_line(', '.join(tools)) or 'none'}.")
    return 0


def _logout(args: argparse.Namespace, ctx: AppContext) -> int:
    config = _saved(ctx, args.name)
    if ctx.secrets.available:
        from jawad_desktop.core.mcp.auth import sign_out

        sign_out(ctx.secrets, config.name)
    print(f"Signed out of {config.name}: its sign-in is no longer kept.")
    return 0


def _pairs(values: list[str], what: str) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name.strip():
            raise JawadError(f"{what} {value!r} is not NAME=VALUE.", suggestions=[f"e.g. {what} Authorization=..."])
        pairs.append((name.strip(), rest))
    return pairs


def _fill_from_catalog(args: argparse.Namespace) -> None:
    """``--from KEY``: the catalog's command or URL and permission, as if the user had typed them."""
    from jawad_desktop.core.config.mcp_catalog import CATALOG, catalog_entry

    entry = catalog_entry(args.from_catalog)
    if entry is None:
        raise JawadError(f"The catalog has no server {args.from_catalog!r}.",
                         suggestions=[f"Choose one of {', '.join(e.key for e in CATALOG)} (`jawad mcp catalog`)."])
    known = entry.config(args.name, args.folder)
    if known.transport == "http":
        args.url = known.url
    else:
        args.stdio_command = shlex.join([known.command, *known.args])
    args.permission = args.permission or known.permission
    print(f"{entry.title} needs: {entry.needs}")


def _header_values(args: argparse.Namespace) -> dict[str, str]:
    """The headers' values: given, from environment variables, or asked for (hidden)."""
    headers: dict[str, str] = dict(_pairs(args.header, "--header"))
    for name, variable in _pairs(args.header_env, "--header-env"):
        value = os.environ.get(variable, "")
        if not value:
            raise JawadError(f"The environment variable {variable} is not set or is empty.",
                             suggestions=[f"Set it first, e.g. `export {variable}=...` (it is never printed)."])
        headers[name] = value
    for name in args.ask_header:
        headers[name] = getpass.getpass(f"Value of header {name} for {args.name} (input hidden): ")
    return headers


def _add(args: argparse.Namespace, ctx: AppContext) -> int:
    if args.from_catalog:
        _fill_from_catalog(args)
    headers = _header_values(args)
    if headers and not args.url:
        raise JawadError("Headers are for HTTP servers (--url), not for stdio commands.",
                         suggestions=["Give a stdio server its secrets with --env instead."])
    try:
        command = shlex.split(args.stdio_command or "")
    except ValueError as exc:
        raise JawadError(f"The command line cannot be read: {exc}.",
                         suggestions=["Quote it as one argument, e.g. --command 'npx -y some-server'."]) from None
    allowed = [t.strip() for item in args.allow for t in item.split(",") if t.strip()]
    client_secret = _client_secret(args)
    id_token = os.environ.get(args.id_token_env, "") if args.id_token_env else ""
    if args.id_token_env and not id_token:
        raise JawadError(f"The environment variable {args.id_token_env} is not set or is empty.",
                         suggestions=["Put the ID token your identity provider gave you in it (it is never printed)."])
    enterprise = bool(id_token or args.idp_issuer)
    if id_token and not (args.idp_token_endpoint or args.idp_issuer):
        raise JawadError("An ID token is exchanged at your identity provider: give its --idp-issuer or "
                         "--idp-token-endpoint too.")
    if args.idp_token_endpoint and not enterprise:
        raise JawadError("An enterprise sign-in needs your identity provider (--idp-issuer, where you sign in) "
                         "or an ID token it gave you (--id-token-env).")
    if args.idp_issuer and not args.idp_client_id:
        raise JawadError("Signing in at your identity provider needs Jawad's client ID there (--idp-client-id).",
                         suggestions=["Your IT team registers Jawad with the identity provider and gives it to you."])
    if (args.client_id or client_secret or args.client_credentials or enterprise) and (not args.url or headers):
        raise JawadError("--client-id and the other sign-in options are for HTTP servers that sign in (--url, "
                         "no --header).")
    try:
        grant = ("enterprise" if enterprise else "client_credentials" if args.client_credentials
                 else "authorization_code")
        oauth = McpOAuth(grant=grant, client_id=args.client_id.strip(), idp_issuer=args.idp_issuer.strip(),
                         idp_token_endpoint=args.idp_token_endpoint.strip(), idp_client_id=args.idp_client_id.strip(),
                         auth_method="private_key_jwt" if args.private_key_file else args.token_auth,
                         scopes=args.scopes.strip())
        config = McpServerConfig(
            name=args.name, transport="http" if args.url else "stdio",
            command=command[0] if command else "", args=command[1:], env=dict(_pairs(args.env, "--env")),
            cwd=args.cwd or "",
            url=args.url or "", headers=list(headers), allowed_tools=allowed, permission=args.permission or "ask",
            enabled=not args.disabled, oauth=oauth,
        )
    except ValidationError as exc:
        raise JawadError(f"The MCP server is not valid: {exc.errors()[0]['msg']}.") from None
    if (headers or client_secret or id_token) and not ctx.secrets.available:
        raise JawadError(ctx.secrets.problem or "No keyring is available for the header values.",
                         suggestions=["Header values are only kept in the system keyring."])
    mcp = ctx.settings.mcp
    old = mcp.server(config.name)
    if old is None:  # a new server: a sign-in kept under its name (another server's, once) is not its own
        _forget_sign_in(ctx, config)
    for name, value in headers.items():  # secrets first: if the keyring refuses, nothing changes
        ctx.secrets.set(mcp_header_key_name(config.name, name), value)
    if client_secret:
        ctx.secrets.set(mcp_oauth_secret_key_name(config.name), client_secret)
    if id_token:
        ctx.secrets.set(mcp_oauth_id_token_key_name(config.name), id_token)
    if old is not None:
        _forget_headers(ctx, old, keep=set(config.headers) if old.name == config.name else set())
        _forget_sign_in(ctx, old, keep_secret=bool(client_secret) and old.name == config.name)
    ctx.settings.mcp = mcp.model_copy(update={"servers": [s for s in mcp.servers if s is not old] + [config]})
    ctx.save_settings()
    what = "Replaced" if old is not None else "Added"
    then = (f"If it asks you to sign in, run `jawad mcp login {config.name}`; see its tools with "
            "`jawad mcp list --tools`." if config.signs_in and (config.oauth.grant == "authorization_code"
                                                                or config.oauth.idp_issuer)
            else "See its tools with `jawad mcp list --tools`.")
    print(f"{what} the MCP server {config.name} ({config.where})"
          f"{' with its header values in the system keyring' if headers else ''}"
          f"{' with its client secret in the system keyring' if client_secret else ''}. {then}")
    return 0


def _client_secret(args: argparse.Namespace) -> str:
    """The sign-in client's secret or private key, from where the user said (never a command-line value)."""
    if args.private_key_file:
        try:
            return str(args.private_key_file.expanduser().read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise JawadError(f"The private key {args.private_key_file} cannot be read ({exc.__class__.__name__}).",
                             suggestions=["Give the path of a PEM file."]) from None
    if args.client_secret_env:
        value = os.environ.get(args.client_secret_env, "")
        if not value:
            raise JawadError(f"The environment variable {args.client_secret_env} is not set or is empty.",
                             suggestions=[f"Set it first, e.g. `export {args.client_secret_env}=...`."])
        return value
    if args.ask_client_secret:
        return getpass.getpass(f"Client secret for {args.name} (input hidden): ")
    return ""


def _forget_sign_in(ctx: AppContext, config: McpServerConfig, *, keep_secret: bool = False) -> None:
    if not ctx.secrets.available:
        return
    ctx.secrets.delete(mcp_oauth_key_name(config.name))
    if not keep_secret:
        ctx.secrets.delete(mcp_oauth_secret_key_name(config.name))
        ctx.secrets.delete(mcp_oauth_id_token_key_name(config.name))


def _forget_headers(ctx: AppContext, config: McpServerConfig, *, keep: set[str] | None = None) -> None:
    if not ctx.secrets.available:
        return
    for name in config.headers:
        if name not in (keep or set()):
            ctx.secrets.delete(mcp_header_key_name(config.name, name))


def _remove(args: argparse.Namespace, ctx: AppContext) -> int:
    mcp = ctx.settings.mcp
    config = _saved(ctx, args.name)
    _forget_headers(ctx, config)
    _forget_sign_in(ctx, config)
    ctx.settings.mcp = mcp.model_copy(update={"servers": [s for s in mcp.servers if s is not config]})
    ctx.save_settings()
    print(f"Removed the MCP server {config.name}{' and its header values' if config.headers else ''}"
          f"{' and its sign-in' if config.signs_in else ''}.")
    return 0


def _sign_in_state(ctx: AppContext, config: McpServerConfig) -> str:
    """"signed in", "not signed in", "client credentials", or "" (no OAuth sign-in)."""
    if not config.signs_in:
        return ""
    if config.oauth.grant == "client_credentials":
        return "client credentials"
    if not ctx.secrets.available:
        return "not signed in"
    from jawad_desktop.core.mcp.auth import signed_in

    return "signed in" if signed_in(ctx.secrets, config.name) else "not signed in"


async def _list(args: argparse.Namespace, ctx: AppContext) -> int:
    servers = ctx.settings.mcp.servers
    tools: dict[str, list[dict[str, Any]]] = {}
    problems: dict[str, str] = {}
    if args.tools and servers:
        from jawad_desktop.core.mcp.adapter import McpConnections

        secrets = ctx.secrets if ctx.secrets.available else None
        connections = McpConnections(ctx.settings.mcp, secrets, log_dir=ctx.paths.logs, network=ctx.settings.network)
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
             "sign_in": _sign_in_state(ctx, s),
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
        signed = f"; {row['sign_in']}" if row["sign_in"] else ""
        print(f"{row['name']}{state}: {row['transport']} {row['where']}  [{allow}; permission {row['permission']}"
              f"{signed}]")
        if args.tools:
            if row["problem"]:
                print(f"  ! {row['problem']}", file=sys.stderr)
            for tool in row["tools"]:
                mark = "+" if tool["allowed"] else "-"
                first = tool["description"].splitlines()[0] if tool["description"] else ""
                # a server's words, as a terminal may show them
                print("  " + one_line(f"{mark} {tool['name']}: {first}"))
    return 1 if problems else 0
