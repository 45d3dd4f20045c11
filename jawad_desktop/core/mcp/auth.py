"""Signing in to remote MCP servers: OAuth 2.1 as the MCP specification (2025-11-25) gives it.

The protocol itself is the official SDK's (``mcp.client.auth``): protected-resource metadata found
from the ``WWW-Authenticate`` challenge or the well-known URLs, authorization-server metadata (OAuth
and OpenID variants, the 2025-03-26 fallbacks), client ID metadata documents, dynamic client
registration, PKCE, scopes (from the challenge, from ``scopes_supported``, step-up on 403
``insufficient_scope``), the ``resource`` parameter and its check, token endpoint auth methods,
refresh, and the client-credentials grant (secret or private-key JWT). This module owns what is
Jawad's around it:

- the enterprise-managed sign-in (SEP-990), which this SDK does not provide, is ``core.mcp.enterprise``
  (signing in at the organisation's identity provider, the ID token exchanged for an ID-JAG, the
  ID-JAG for an access token);

- ``KeyringTokenStorage``: the tokens, the registered client and the discovered endpoints live in
  the OS keyring (``SecretStore``), one entry per server, never in a file; the expiry is kept too, so
  a token is refreshed a minute before it expires, also after a restart.
- ``Authorizer``: how the user's consent is obtained. ``LoopbackAuthorizer`` listens on
  127.0.0.1 (a random port) for the redirect and hands the authorization URL to an ``open_url``
  function: ``open_in_browser`` (the system browser), the window's embedded browser, or
  ``fetch_url`` (an HTTP GET that follows the redirects, for an authorization server that approves
  without a person, such as the conformance suite's). Without an authorizer (a connection made
  while nobody is signing in), a server that needs a sign-in raises ``SignInNeeded``.
- ``oauth_for``: the SDK provider for one configured server.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import html
import json
import logging
import time
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlparse

import httpx
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
)
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import BaseModel, ValidationError

from jawad_desktop.core.config.mcp import (
    mcp_oauth_key_name,
)
from jawad_desktop.core.errors import JawadError

log = logging.getLogger("jawad.mcp.auth")

__all__ = [
    "CLIENT_NAME",
    "Authorizer",
    "JawadClientCredentials",
    "KeyringTokenStorage",
    "LoopbackAuthorizer",
    "SignInNeeded",
    "fetch_url",
    "offers_sign_in",
    "open_in_browser",
    "restore_kept",
    "sign_out",
    "signed_in",
]

_Kept = TypeVar("_Kept", bound=BaseModel)
REFRESH_MARGIN_S = 60.0  # refresh a token this long before it expires
CLIENT_NAME = "Jawad Desktop"


class SignInNeeded(JawadError):
    """A server asked for a sign-in while nobody was there to sign in."""


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` on the keyring: one JSON entry per server (``mcp_oauth_key_name``)
    with the tokens, when they expire, the client the server registered for us, and the endpoints
    found (so a refresh after a restart goes to the right token endpoint)."""

    def __init__(self, secrets: Any, server: str) -> None:
        self.secrets = secrets
        self.key = mcp_oauth_key_name(server)
        self.provider: OAuthClientProvider | None = None  # set by the provider that uses it

    def _load(self) -> dict[str, Any]:
        text = self.secrets.get(self.key)
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            log.warning("the sign-in kept for %s cannot be read; signing in again", self.key)
            return {}
        return value if isinstance(value, dict) else {}

    def _save(self, record: dict[str, Any]) -> None:
        context = self.provider.context if self.provider is not None else None
        if context is not None:
            if context.oauth_metadata is not None:
                record["as_metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
            if context.protected_resource_metadata is not None:
                record["resource_metadata"] = context.protected_resource_metadata.model_dump(
                    mode="json", exclude_none=True)
            if context.auth_server_url:
                record["auth_server_url"] = context.auth_server_url
        self.secrets.set(self.key, json.dumps(record))

    def _kept(self, part: str, model: type[_Kept]) -> _Kept | None:
        """The ``part`` of the record ("tokens", "client") as ``model``; None when missing or unreadable."""
        data = self._load().get(part)
        try:
            return model.model_validate(data) if data else None
        except ValidationError:
            return None

    def _keep(self, part: str, value: BaseModel, **more: Any) -> None:
        record = self._load()
        record[part] = value.model_dump(mode="json", exclude_none=True)
        record.update(more)
        self._save(record)

    async def get_tokens(self) -> OAuthToken | None:
        return self._kept("tokens", OAuthToken)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._keep("tokens", tokens, expires_at=time.time() + tokens.expires_in if tokens.expires_in else None)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._kept("client", OAuthClientInformationFull)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._keep("client", client_info)

    def restore(self, provider: OAuthClientProvider) -> None:
        """Give ``provider`` what was kept besides tokens and client: the expiry and the endpoints."""
        record = self._load()
        context = provider.context
        expires_at = record.get("expires_at")
        if isinstance(expires_at, (int, float)):
            context.token_expiry_time = float(expires_at) - REFRESH_MARGIN_S
        with contextlib.suppress(ValidationError, TypeError):
            if record.get("as_metadata"):
                context.oauth_metadata = OAuthMetadata.model_validate(record["as_metadata"])
            if record.get("resource_metadata"):
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    record["resource_metadata"])
        if isinstance(record.get("auth_server_url"), str):
            context.auth_server_url = record["auth_server_url"]


def offers_sign_in(auth: Any) -> bool:
    """Whether the server behind a provider (``oauth_for``) showed any OAuth sign-in: metadata of a
    protected resource or of an authorization server. A server that refuses without either takes
    other credentials (a header)."""
    context = getattr(auth, "context", None)
    return context is not None and (context.protected_resource_metadata is not None
                                    or context.oauth_metadata is not None)


def signed_in(secrets: Any, server: str) -> bool:
    """Whether a sign-in (tokens) is kept for ``server``."""
    text = secrets.get(mcp_oauth_key_name(server)) if secrets is not None else None
    with contextlib.suppress(json.JSONDecodeError, TypeError):
        return bool(text and json.loads(text).get("tokens"))
    return False


def sign_out(secrets: Any, server: str) -> None:
    """Forget the sign-in kept for ``server`` (tokens and the registered client)."""
    secrets.delete(mcp_oauth_key_name(server))


# -- the user's consent ---------------------------------------------------------------------------

OpenUrl = Callable[[str], Awaitable[None]]


async def open_in_browser(url: str) -> None:
    """Open ``url`` in the system browser (the user signs in there)."""
    if not await asyncio.to_thread(webbrowser.open, url):
        raise SignInNeeded("No web browser could be opened to sign in.",
                           suggestions=[f"Open this address in a browser yourself: {url}"])


async def fetch_url(url: str) -> None:
    """Follow ``url`` with HTTP GETs, redirects included: an authorization server that approves
    by itself (the conformance suite's) sends us to the loopback redirect this way."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=30) as client:
        response = await client.get(url)
    if response.status_code >= 400:
        raise SignInNeeded(f"The sign-in page answered {response.status_code}.")


class Authorizer(abc.ABC):
    """Gets the authorization code for a sign-in: ``redirect_uri`` is where the authorization
    server sends the browser back; ``authorize(url)`` shows ``url`` to the user and returns the
    code and state the redirect carried."""

    redirect_uri: str = ""

    @abc.abstractmethod
    async def authorize(self, url: str) -> tuple[str, str | None]:
        """The code and state the authorization server's redirect carried, once the user agreed."""


_DONE_PAGE = ("<!doctype html><meta charset=utf-8><title>Jawad Desktop</title>"
              "<body style='font-family:sans-serif;margin:3em'><h1>{title}</h1><p>{text}</p>")


class LoopbackAuthorizer(Authorizer):
    """The redirect comes back to a listener on 127.0.0.1 (a random port, RFC 8252); the URL is
    opened with ``open_url``. Use as ``async with LoopbackAuthorizer(open_in_browser) as a: ...``."""

    def __init__(self, open_url: OpenUrl = open_in_browser, *, timeout_s: float = 300.0) -> None:
        self.open_url = open_url
        self.timeout_s = timeout_s
        self._server: asyncio.Server | None = None
        self._waiting: asyncio.Future[tuple[str, str | None]] | None = None

    async def __aenter__(self) -> LoopbackAuthorizer:
        self._server = await asyncio.start_server(self._on_connection, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/callback"
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def authorize(self, url: str) -> tuple[str, str | None]:
        if self._server is None:
            raise RuntimeError("LoopbackAuthorizer is used outside its `async with`")
        self._waiting = asyncio.get_running_loop().create_future()
        log.info("signing in: opening the authorization page")
        try:
            await self.open_url(url)
        except Exception:
            if not self._waiting.done():  # else the redirect came back first: its answer says more
                raise
        try:
            async with asyncio.timeout(self.timeout_s):  # not wait_for: on 3.11 it swallows a Stop with the answer
                return await self._waiting
        except TimeoutError:
            raise SignInNeeded(f"The sign-in was not finished within {self.timeout_s / 60:g} minutes.",
                               suggestions=["Sign in again, and finish it in the browser."]) from None
        finally:
            self._waiting = None

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            parts = request_line.split()
            target = urlparse(parts[1]) if len(parts) >= 2 else urlparse("/")
            query = parse_qs(target.query)
            code, state = query.get("code", [""])[0], query.get("state", [None])[0]
            error = query.get("error_description", query.get("error", [""]))[0]
            waiting = self._waiting
            if target.path != "/callback" or waiting is None or waiting.done():
                status, title, text = "404 Not Found", "Nothing to do here", "No sign-in is waiting."
            elif code:
                waiting.set_result((code, state))
                status, title, text = ("200 OK", "Signed in", "You are signed in to the MCP server. "
                                                             "You can close this page and go back to Jawad.")
            else:
                waiting.set_exception(SignInNeeded(f"The sign-in was refused: {error or 'no code came back'}.",
                                                   suggestions=["Sign in again and allow Jawad's access."]))
                status, title, text = "400 Bad Request", "Not signed in", f"The sign-in did not succeed: {error}"
            body = _DONE_PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                         f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        except (TimeoutError, ConnectionError, OSError):
            log.debug("a loopback connection went away", exc_info=True)
        finally:
            writer.close()


# -- the provider for one server -------------------------------------------------------------------

def restore_kept(provider: OAuthClientProvider) -> None:
    """The kept expiry and endpoints put back into ``provider`` on its first use."""
    storage = provider.context.storage
    if isinstance(storage, KeyringTokenStorage):
        storage.restore(provider)


class JawadClientCredentials(ClientCredentialsOAuthProvider):
    async def _initialize(self) -> None:
        await super()._initialize()
        restore_kept(self)
