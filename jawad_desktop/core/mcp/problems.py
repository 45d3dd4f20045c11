"""What went wrong with an MCP server, in the user's words: the innermost error of the SDK's exception
groups (``first_error``) and, for a server that could not be used, what happened and what to do
(``explain_failure``: a command not found, a refused sign-in, a URL that is not an MCP endpoint...)."""

from __future__ import annotations

from typing import Any

from jawad_desktop.core.config.mcp import McpServerConfig

__all__ = ["explain_failure", "first_error"]


def innermost(exc: BaseException) -> BaseException:
    """The innermost useful error of an exception group (anyio wraps failures in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def first_error(exc: BaseException) -> str:
    exc = innermost(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def explain_failure(config: McpServerConfig, exc: BaseException, auth: Any = None) -> str:
    from jawad_desktop.core.errors import JawadError
    from jawad_desktop.core.mcp.auth import offers_sign_in

    inner = innermost(exc)
    detail = first_error(exc)
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
