"""The sign-in for one MCP server over HTTP (``oauth_for``): the OAuth provider its configuration asks for —
the authorization code flow with the user (a pre-registered client or one registered on the fly), client
credentials (a secret or a private key), or the organisation's enterprise-managed sign-in
(``core.mcp.enterprise``) — each keeping its tokens in the keyring (``core.mcp.auth.KeyringTokenStorage``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator
from typing import Any, Literal
from urllib.parse import urlparse

import httpx
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import PrivateKeyJWTOAuthProvider, SignedJWTParameters
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings, mcp_oauth_secret_key_name
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.mcp.auth import (
    CLIENT_NAME,
    Authorizer,
    JawadClientCredentials,
    KeyringTokenStorage,
    SignInNeeded,
    restore_kept,
)
from jawad_desktop.core.mcp.enterprise import EnterpriseOAuth, IdentitySignIn

__all__ = ["oauth_for"]

log = logging.getLogger("jawad.mcp.auth")
_AS_WELL_KNOWN = "/.well-known/oauth-authorization-server"


def _origin(url: str) -> str:
    parsed = urlparse(url)
    return f"{parsed.scheme}://{parsed.netloc}".lower()


def legacy_same_origin_metadata(server_url: str, response: httpx.Response) -> httpx.Response:
    """``response`` (the 2025-03-26 metadata at the MCP server's own origin) as the SDK's issuer check
    accepts it, when its issuer is a path on that same origin (``https://mcp.example/oauth``).

    The 2025-03-26 specification finds the metadata at ``<origin of the MCP server>/.well-known/
    oauth-authorization-server``: the MCP server's origin *is* the authorization base. Servers of that
    time (and the conformance suite's ``2025-03-26-oauth-metadata-backcompat``) publish there an issuer
    with a path; the SDK (RFC 8414 section 3.3, SEP-2468) wants exactly the origin and refuses them.
    Accepting a same-origin issuer here gives that origin nothing it did not have: it is the server we
    send the token to anyway, and whatever issuer it names, it chose the endpoints. What the check is
    for, mix-up protection (metadata naming *another* authorization server), stays: an issuer on any
    other origin is handed to the SDK unchanged and refused; and this is only the legacy path, taken
    when the server publishes no protected-resource metadata. Every server of the current spec names
    its authorization server in that metadata, and its issuer is checked exactly. What it trades: on a
    host shared by tenants at paths, the root's metadata may name one tenant's issuer; but only the
    host's owner serves the root's well-known address, and that owner serves the MCP endpoint too. The
    SDK then binds the registered client to the origin (SEP-2352), as it does for any legacy server."""
    if response.status_code != 200:
        return response
    try:
        metadata = json.loads(response.content)
    except ValueError:
        return response
    issuer = metadata.get("issuer") if isinstance(metadata, dict) else None
    origin = _origin(server_url)
    if not isinstance(issuer, str) or _origin(issuer) != origin or issuer.rstrip("/").lower() == origin:
        return response
    log.info("legacy (2025-03-26) sign-in: the issuer %s is on the MCP server's own origin", issuer)
    return httpx.Response(200, json={**metadata, "issuer": origin}, request=response.request)


class _JawadOAuth(OAuthClientProvider):
    """The SDK's provider with the kept expiry and endpoints restored on first use, and a
    pre-registered client (``fixed_client``) used instead of one registered on the fly."""

    fixed_client: OAuthClientInformationFull | None = None

    async def _initialize(self) -> None:
        await super()._initialize()
        if self.fixed_client is not None:
            self.context.client_info = self.fixed_client
        restore_kept(self)

    def _legacy_discovery(self, outgoing: httpx.Request) -> bool:
        """Whether ``outgoing`` is the 2025-03-26 metadata request: no protected-resource metadata was
        found, and the metadata is asked of the MCP server's own origin."""
        server_url = self.context.server_url
        return (self.context.protected_resource_metadata is None and not self.context.auth_server_url
                and _origin(str(outgoing.url)) == _origin(server_url) and outgoing.url.path == _AS_WELL_KNOWN)

    async def _auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """The SDK's flow, with the legacy metadata's same-origin issuer accepted
        (``legacy_same_origin_metadata``)."""
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if outgoing is not request and self._legacy_discovery(outgoing):
                    await response.aread()
                    response = legacy_same_origin_metadata(self.context.server_url, response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


class _JawadPrivateKeyJwt(PrivateKeyJWTOAuthProvider):
    async def _initialize(self) -> None:
        await super()._initialize()
        restore_kept(self)


def oauth_for(config: McpServerConfig, settings: McpSettings, secrets: Any,
              authorizer: Authorizer | None, network: NetworkSettings | None = None) -> httpx.Auth:
    """The httpx ``Auth`` that signs in to ``config``'s server and keeps the sign-in in ``secrets``.

    With ``authorizer`` None, a sign-in that needs the user raises ``SignInNeeded`` (a refresh,
    or client credentials, still work)."""
    oauth = config.oauth
    storage = KeyringTokenStorage(secrets, config.name)
    client_secret = secrets.get(mcp_oauth_secret_key_name(config.name)) if oauth.client_id else None
    scopes = oauth.scopes or None
    issuer = oauth.issuer or None
    provider: OAuthClientProvider
    if oauth.grant == "enterprise":
        identity = IdentitySignIn(config.name, secrets, issuer=oauth.idp_issuer, client_id=oauth.idp_client_id,
                                  token_endpoint=oauth.idp_token_endpoint, authorizer=authorizer, network=network)
        provider = EnterpriseOAuth(config.url, storage, oauth.client_id, client_secret or "", scopes=scopes,
                                   issuer=issuer, identity=identity)
        storage.provider = provider
        return provider
    if oauth.grant == "client_credentials":
        if oauth.auth_method == "private_key_jwt":
            if not client_secret:
                raise SignInNeeded(f"The MCP server {config.name!r} signs in with a private key, and none is "
                                   "kept in the keyring.", suggestions=["Add the server again with its private key."])
            assertion = SignedJWTParameters(issuer=oauth.client_id, subject=oauth.client_id, signing_key=client_secret,
                                            signing_algorithm=oauth.signing_algorithm).create_assertion_provider()
            provider = _JawadPrivateKeyJwt(config.url, storage, oauth.client_id, assertion, scopes=scopes,
                                           issuer=issuer)
        else:
            method: Literal["client_secret_basic", "client_secret_post"] = (
                "client_secret_post" if oauth.auth_method == "client_secret_post" else "client_secret_basic")
            provider = JawadClientCredentials(config.url, storage, oauth.client_id, client_secret or "",
                                               token_endpoint_auth_method=method, scopes=scopes, issuer=issuer)
        storage.provider = provider
        return provider

    redirect_uri = authorizer.redirect_uri if authorizer is not None else "http://127.0.0.1/callback"
    metadata = OAuthClientMetadata(client_name=CLIENT_NAME, redirect_uris=[AnyUrl(redirect_uri)],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   scope=scopes)
    code: dict[str, tuple[str, str | None]] = {}

    async def redirect(url: str) -> None:
        if authorizer is None:
            raise SignInNeeded(f"The MCP server {config.name!r} needs you to sign in.",
                               suggestions=[f"Run `jawad mcp login {config.name}`, or use Sign in in "
                                            "Settings → MCP servers."])
        code["answer"] = await authorizer.authorize(url)

    async def callback() -> tuple[str, str | None]:
        return code.pop("answer")

    code_flow = _JawadOAuth(config.url, metadata, storage, redirect_handler=redirect, callback_handler=callback,
                           client_metadata_url=settings.client_metadata_url or None)
    storage.provider = code_flow
    if oauth.client_id:
        auth_method = oauth.auth_method or ("client_secret_basic" if client_secret else "none")
        pre_registered = OAuthClientInformationFull(
            client_id=oauth.client_id, client_secret=client_secret, redirect_uris=[AnyUrl(redirect_uri)],
            token_endpoint_auth_method=auth_method,
            grant_types=["authorization_code", "refresh_token"], issuer=issuer)
        code_flow.fixed_client = pre_registered
    return code_flow
