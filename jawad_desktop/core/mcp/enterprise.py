"""The enterprise-managed sign-in to MCP servers: MCP's Enterprise-Managed Authorization extension
(``io.modelcontextprotocol/enterprise-managed-authorization``, SEP-990), an application of the Identity
Assertion JWT Authorization Grant. Three steps, as the extension's specification gives them:

1. **User authentication** (its section 3): the user signs in at the organisation's identity provider with
   OpenID Connect (authorization code with PKCE, in the browser, the redirect coming back to a loopback
   listener: ``core.mcp.auth.LoopbackAuthorizer``); the IdP's token endpoint answers the code with an
   **ID token** (``IdentitySignIn``). Its issuer, audience, expiry and nonce are checked; it came straight
   from the token endpoint over the connection, so its signature is not (OpenID Connect Core 3.1.3.7). The
   ID token (and the IdP's refresh token, when it gives one) is kept in the keyring; an expired ID token is
   renewed with the refresh token without the user, or by signing in again. A user may instead hand over
   an ID token they got elsewhere (``jawad mcp add --id-token-env``).
2. **Token exchange** (section 4, RFC 8693): the ID token for an ID-JAG naming the MCP server's
   authorization server (``audience``, its issuer) and the server (``resource``).
3. **JWT authorization grant** (section 5, RFC 7523): the ID-JAG for an access token at the server's
   authorization server, the client authenticated as registered there.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets as token_bytes
import time
from typing import Any
from urllib.parse import urlencode

import httpx

from jawad_desktop.core.config.mcp import mcp_oauth_id_token_key_name
from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.mcp.auth import Authorizer, JawadClientCredentials, SignInNeeded

log = logging.getLogger("jawad.mcp.auth")

__all__ = ["EnterpriseOAuth", "IdentitySignIn", "forget_identity"]

_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
_EXPIRY_MARGIN_S = 60.0


def _claims(token: str) -> dict[str, Any]:
    """The claims of a JWT (its payload), or {} when it is not one."""
    try:
        payload = token.split(".")[1]
        value = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _issuer(url: Any) -> str:
    """The authorization server's issuer identifier as it publishes it: the SDK's URL type adds a "/" to
    a bare origin ("https://auth.example" becomes "https://auth.example/"), which is another identifier;
    the ID-JAG's audience must be the issuer itself (the extension's section 4)."""
    text = str(url)
    return text[:-1] if text.endswith("/") and text.count("/") == 3 else text


def forget_identity(secrets: Any, server: str) -> None:
    """Forget the ID token (and the IdP's refresh token) kept for ``server``."""
    secrets.delete(mcp_oauth_id_token_key_name(server))


class IdentitySignIn:
    """The user's identity at the organisation's IdP for one server: the kept ID token while it is valid,
    else one renewed with the IdP's refresh token, else a sign-in in the browser (with an ``authorizer``)."""

    def __init__(self, server: str, secrets: Any, *, issuer: str, client_id: str, token_endpoint: str,
                 authorizer: Authorizer | None, network: NetworkSettings | None) -> None:
        self.server = server
        self.secrets = secrets
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self.token_endpoint = token_endpoint
        self.authorizer = authorizer
        self.network = network

    def _kept(self) -> dict[str, Any]:
        text = self.secrets.get(mcp_oauth_id_token_key_name(self.server)) or ""
        if text.startswith("{"):
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                return {}
            return record if isinstance(record, dict) else {}
        return {"id_token": text} if text else {}  # an ID token the user handed over (--id-token-env)

    def _keep(self, answer: dict[str, Any], refresh_token: str = "") -> str:
        record = {"id_token": str(answer["id_token"]), "refresh_token": answer.get("refresh_token") or refresh_token}
        self.secrets.set(mcp_oauth_id_token_key_name(self.server), json.dumps(record))
        return record["id_token"]

    async def id_token(self) -> str:
        """A valid ID token for the user; ``SignInNeeded`` when only the user can get one and nobody is there."""
        kept = self._kept()
        token = str(kept.get("id_token") or "")
        expires = _claims(token).get("exp")
        if token and (not isinstance(expires, (int, float)) or expires - _EXPIRY_MARGIN_S > time.time()):
            return token
        if kept.get("refresh_token") and self.issuer:
            renewed = await self._refresh(str(kept["refresh_token"]))
            if renewed:
                return renewed
        if not self.issuer:
            raise SignInNeeded(f"The MCP server {self.server!r} signs in through your organisation, and the ID "
                               f"token from your identity provider {'has expired' if token else 'is not kept'}.",
                               suggestions=["Add the server again with a new ID token (--id-token-env), or with "
                                            "your identity provider (--idp-issuer) to sign in there."])
        if self.authorizer is None:
            raise SignInNeeded(f"The MCP server {self.server!r} needs you to sign in at your organisation.",
                               suggestions=[f"Run `jawad mcp login {self.server}`, or use Sign in in "
                                            "Settings → MCP servers."])
        return await self._sign_in(self.authorizer)

    async def _post(self, url: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        async with httpx.AsyncClient(**client_options(self.network, url, timeout=httpx.Timeout(30))) as http:
            response = await http.post(url, data=form, headers={"Accept": "application/json"})
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        return response.status_code, answer if isinstance(answer, dict) else {}

    async def _discover(self) -> dict[str, Any]:
        """The IdP's OpenID Provider metadata (``/.well-known/openid-configuration``)."""
        url = f"{self.issuer}/.well-known/openid-configuration"
        async with httpx.AsyncClient(**client_options(self.network, url, timeout=httpx.Timeout(30))) as http:
            response = await http.get(url)
        try:
            metadata = response.json() if response.status_code == 200 else {}
        except ValueError:
            metadata = {}
        if not isinstance(metadata, dict) or metadata.get("issuer", "").rstrip("/") != self.issuer or not (
                metadata.get("authorization_endpoint") and metadata.get("token_endpoint")):
            raise SignInNeeded(f"Your identity provider at {self.issuer} does not describe its sign-in "
                               f"(OpenID configuration: HTTP {response.status_code}).",
                               suggestions=["Check the identity provider's address (--idp-issuer) with your IT team."])
        if not self.token_endpoint:
            self.token_endpoint = str(metadata["token_endpoint"])
        return metadata

    async def _sign_in(self, authorizer: Authorizer) -> str:
        """OpenID Connect's authorization code flow with PKCE in the browser: the user's ID token."""
        metadata = await self._discover()
        verifier = token_bytes.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state, nonce = token_bytes.token_urlsafe(16), token_bytes.token_urlsafe(16)
        scopes = ["openid"] + [s for s in ("email", "offline_access") if s in metadata.get("scopes_supported", [])]
        query = {"response_type": "code", "client_id": self.client_id, "redirect_uri": authorizer.redirect_uri,
                 "scope": " ".join(scopes), "state": state, "nonce": nonce, "code_challenge": challenge,
                 "code_challenge_method": "S256"}
        log.info("enterprise sign-in: signing in at the identity provider %s", self.issuer)
        code, returned_state = await authorizer.authorize(f"{metadata['authorization_endpoint']}?{urlencode(query)}")
        if returned_state != state:
            raise SignInNeeded("The identity provider's answer does not belong to this sign-in (its state differs).",
                               suggestions=["Sign in again."])
        status, answer = await self._post(self.token_endpoint, {
            "grant_type": "authorization_code", "code": code, "redirect_uri": authorizer.redirect_uri,
            "client_id": self.client_id, "code_verifier": verifier})
        return self._keep(self._checked(status, answer, nonce))

    async def _refresh(self, refresh_token: str) -> str:
        """A new ID token from the IdP's refresh token; "" when the IdP no longer accepts it."""
        if not self.token_endpoint:
            await self._discover()
        status, answer = await self._post(self.token_endpoint, {
            "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id})
        try:
            return self._keep(self._checked(status, answer, None), refresh_token)
        except SignInNeeded as exc:
            log.info("enterprise sign-in: the identity provider did not renew the ID token: %s", exc)
            return ""

    def _checked(self, status: int, answer: dict[str, Any], nonce: str | None) -> dict[str, Any]:
        """The token response, once its ID token is for us, from our IdP, current, and of this sign-in."""
        token = str(answer.get("id_token") or "")
        if status != 200 or not token:
            detail = answer.get("error_description") or answer.get("error") or f"HTTP {status}"
            raise SignInNeeded(f"Your identity provider gave no ID token ({detail}).", suggestions=["Sign in again."])
        claims = _claims(token)
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        problem = ("it names another issuer" if str(claims.get("iss", "")).rstrip("/") != self.issuer
                   else "it is for another client" if self.client_id not in audiences
                   else "it has expired" if float(claims.get("exp", 0)) <= time.time()
                   else "it belongs to another sign-in" if nonce is not None and claims.get("nonce") != nonce
                   else "")
        if problem:
            raise SignInNeeded(f"The ID token from your identity provider is refused: {problem}.",
                               suggestions=["Sign in again; if it happens again, tell your IT team."])
        return answer


class EnterpriseOAuth(JawadClientCredentials):
    """The SDK's client-credentials provider with the enterprise grant: the ID token (``IdentitySignIn``)
    exchanged at the IdP for an ID-JAG naming this server's authorization server and resource, then the
    JWT bearer grant at that authorization server with the client's own credentials."""

    def __init__(self, *args: Any, identity: IdentitySignIn, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.identity = identity

    async def _perform_authorization(self) -> httpx.Request:
        from mcp.client.auth import OAuthFlowError

        metadata = self.context.oauth_metadata
        if metadata is None:
            raise OAuthFlowError("the server's authorization server published no metadata")
        resource = self.context.get_resource_url()
        grant = await self._id_jag(await self.identity.id_token(), _issuer(metadata.issuer), resource)
        token_data: dict[str, Any] = {"grant_type": _JWT_BEARER, "assertion": grant}
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        token_data, headers = self.context.prepare_token_auth(token_data, headers)
        if self.context.should_include_resource_param(self.context.protocol_version):
            token_data["resource"] = resource
        if self.context.client_metadata.scope:
            token_data["scope"] = self.context.client_metadata.scope
        return httpx.Request("POST", self._get_token_endpoint(), data=token_data, headers=headers)

    async def _id_jag(self, id_token: str, audience: str, resource: str) -> str:
        """The identity provider's ID-JAG for ``audience`` (the authorization server) and ``resource``."""
        from mcp.client.auth import OAuthTokenError

        identity = self.identity
        if not identity.token_endpoint:
            await identity._discover()
        form = {"grant_type": _TOKEN_EXCHANGE, "subject_token": id_token, "subject_token_type": _ID_TOKEN,
                "requested_token_type": _ID_JAG, "audience": audience, "resource": resource}
        if identity.client_id:
            form["client_id"] = identity.client_id
        status, answer = await identity._post(identity.token_endpoint, form)
        if status != 200 or answer.get("issued_token_type") != _ID_JAG or not answer.get("access_token"):
            detail = answer.get("error_description") or answer.get("error") or f"HTTP {status}"
            raise OAuthTokenError(f"your identity provider refused the exchange: {detail}")
        log.info("enterprise sign-in: the identity provider granted access to %s", audience)
        return str(answer["access_token"])
