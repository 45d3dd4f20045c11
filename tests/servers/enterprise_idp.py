"""An organisation's identity provider and an MCP server's authorization server on loopback, answering as
MCP's Enterprise-Managed Authorization extension documents (its sections 3 to 5):

- ``IdentityProvider``: OpenID Connect discovery (``/.well-known/openid-configuration``), an authorization
  endpoint that signs the user "alice" in at once (or refuses, for ``deny``) and redirects back with a code,
  and a token endpoint for the code (PKCE S256 checked; an ID token with ``iss``, ``aud``, ``exp``,
  ``nonce``, and a refresh token), for the refresh token (a new ID token), and for the token exchange of an
  ID token it issued into an ID-JAG (``typ`` oauth-id-jag+jwt) naming the audience and resource asked for.
- ``ResourceAuthorizationServer``: RFC 8414 metadata and a token endpoint that takes the JWT bearer grant:
  an ID-JAG from that IdP, for this issuer and the server's resource, presented by the registered client
  (HTTP basic) — and answers with the access token the protected MCP server accepts.

Both record the requests they answered (``seen``; both in order in the IdP's ``wire``) so a test can say
what happened on the wire.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import jwt

_KEY = "the-idp-signing-key-of-the-test-only-32b"  # HS256: the AS trusts the IdP's key, as it would its JWKS
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class _Server:
    """A ThreadingHTTPServer on 127.0.0.1 whose GETs and POSTs go to ``get`` / ``post``."""

    name = "server"

    def __init__(self, wire: list[tuple[str, str, str, dict[str, str]]] | None = None) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlparse(self.path)
                owner._record("GET", url.path, {k: v[0] for k, v in parse_qs(url.query).items()})
                owner._answer(self, *owner.get(url.path, {k: v[0] for k, v in parse_qs(url.query).items()}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                owner._record("POST", self.path, form)
                owner._answer(self, *owner.post(self.path, form, self.headers.get("Authorization", "")))

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.wire = wire if wire is not None else []  # shared by servers: who was asked what, in order
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _record(self, method: str, path: str, form: dict[str, str]) -> None:
        self.seen.append((method, path, form))
        self.wire.append((self.name, method, path, form))

    @staticmethod
    def _answer(handler: BaseHTTPRequestHandler, status: int, body: Any, location: str = "") -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        if location:
            handler.send_header("Location", location)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Cache-Control", "no-store")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def get(self, path: str, query: dict[str, str]) -> tuple[int, Any, str]:
        return 404, {"error": "not_found"}, ""

    def post(self, path: str, form: dict[str, str], authorization: str) -> tuple[int, Any, str]:
        return 404, {"error": "not_found"}, ""

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _error(code: str, description: str) -> tuple[int, Any, str]:
    return 400, {"error": code, "error_description": description}, ""


class IdentityProvider(_Server):
    """The organisation's IdP: Jawad is registered as the public client ``client_id``."""

    name = "idp"

    def __init__(self, client_id: str = "jawad-desktop", *, id_token_lifetime_s: int = 600,
                 deny: bool = False) -> None:
        super().__init__()
        self.client_id = client_id
        self.lifetime = id_token_lifetime_s
        self.deny = deny
        self._codes: dict[str, dict[str, str]] = {}
        self._refresh: dict[str, str] = {}  # refresh token -> subject

    def id_token(self, nonce: str = "") -> str:
        now = int(time.time())
        claims = {"iss": self.url, "sub": "alice", "aud": self.client_id, "iat": now, "exp": now + self.lifetime,
                  "email": "alice@example.org", **({"nonce": nonce} if nonce else {})}
        return jwt.encode(claims, _KEY, algorithm="HS256")

    def get(self, path: str, query: dict[str, str]) -> tuple[int, Any, str]:
        if path == "/.well-known/openid-configuration":
            return 200, {"issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
                         "token_endpoint": f"{self.url}/token", "response_types_supported": ["code"],
                         "scopes_supported": ["openid", "email", "offline_access"],
                         "grant_types_supported": ["authorization_code", "refresh_token",
                                                   "urn:ietf:params:oauth:grant-type:token-exchange"],
                         "code_challenge_methods_supported": ["S256"], "subject_types_supported": ["public"],
                         "id_token_signing_alg_values_supported": ["HS256"]}, ""
        if path != "/authorize":
            return super().get(path, query)
        redirect = query.get("redirect_uri", "")
        if (query.get("client_id") != self.client_id or query.get("response_type") != "code"
                or query.get("code_challenge_method") != "S256" or "openid" not in query.get("scope", "").split()
                or not redirect.startswith("http://127.0.0.1:")):
            return _error("invalid_request", "not a sign-in this IdP accepts")
        answer = {"state": query.get("state", "")}
        if self.deny:
            answer.update(error="access_denied", error_description="your organisation does not allow it")
        else:
            code = f"code-{len(self._codes) + 1}"
            self._codes[code] = query
            answer["code"] = code
        return 302, {}, f"{redirect}?{urlencode(answer)}"

    def post(self, path: str, form: dict[str, str], authorization: str) -> tuple[int, Any, str]:
        if path != "/token":
            return super().post(path, form, authorization)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            asked = self._codes.pop(form.get("code", ""), None)
            if asked is None or form.get("redirect_uri") != asked["redirect_uri"] or form.get("client_id") != \
                    self.client_id:
                return _error("invalid_grant", "unknown code")
            challenge = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest())
            if challenge.rstrip(b"=").decode() != asked["code_challenge"]:
                return _error("invalid_grant", "PKCE verification failed")
            refresh = f"refresh-{len(self._refresh) + 1}"
            self._refresh[refresh] = "alice"
            return 200, {"id_token": self.id_token(asked.get("nonce", "")), "access_token": "idp-session",
                         "token_type": "Bearer", "refresh_token": refresh, "scope": asked["scope"]}, ""
        if grant == "refresh_token":
            if form.get("refresh_token") not in self._refresh:
                return _error("invalid_grant", "unknown refresh token")
            return 200, {"id_token": self.id_token(), "access_token": "idp-session", "token_type": "Bearer"}, ""
        if grant == "urn:ietf:params:oauth:grant-type:token-exchange":
            return self._exchange(form)
        return _error("unsupported_grant_type", str(grant))

    def _exchange(self, form: dict[str, str]) -> tuple[int, Any, str]:
        """Section 4: the ID token for an ID-JAG (the IdP's policy: alice may use any server asked for)."""
        if form.get("requested_token_type") != _ID_JAG or not form.get("audience"):
            return _error("invalid_request", "an ID-JAG needs requested_token_type and audience")
        try:
            subject = jwt.decode(form.get("subject_token", ""), _KEY, algorithms=["HS256"], audience=self.client_id,
                                 issuer=self.url)
        except jwt.PyJWTError as exc:
            return _error("invalid_grant", f"the subject token is not valid: {exc}")
        now = int(time.time())
        grant = jwt.encode({"iss": self.url, "sub": subject["sub"], "aud": form["audience"],
                            "resource": form.get("resource", ""), "client_id": self.client_id,
                            "jti": f"jag-{now}", "iat": now, "exp": now + 300}, _KEY, algorithm="HS256",
                           headers={"typ": "oauth-id-jag+jwt"})
        return 200, {"issued_token_type": _ID_JAG, "access_token": grant, "token_type": "N_A",
                     "expires_in": 300}, ""


class ResourceAuthorizationServer(_Server):
    """The MCP server's authorization server: trusts ``idp``, knows the client ``client_id``/``secret``."""

    name = "as"

    def __init__(self, idp: IdentityProvider, resource: Callable[[], str], access_token: str, *,
                 client_id: str = "jawad-at-org", secret: str = "org-secret") -> None:
        super().__init__(idp.wire)
        self.idp = idp
        self.resource = resource  # the MCP server's URL, known once it has started
        self.access_token = access_token
        self.client = (client_id, secret)

    def get(self, path: str, query: dict[str, str]) -> tuple[int, Any, str]:
        if path != "/.well-known/oauth-authorization-server":
            return super().get(path, query)
        return 200, {"issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
                     "token_endpoint": f"{self.url}/token",
                     "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                     "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                     "authorization_grant_profiles_supported": ["urn:ietf:params:oauth:grant-profile:id-jag"]}, ""

    def post(self, path: str, form: dict[str, str], authorization: str) -> tuple[int, Any, str]:
        if path != "/token":
            return super().post(path, form, authorization)
        expected = "Basic " + base64.b64encode(":".join(self.client).encode()).decode()
        if authorization != expected:
            return 401, {"error": "invalid_client"}, ""
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return _error("unsupported_grant_type", str(form.get("grant_type")))
        try:
            header = jwt.get_unverified_header(form.get("assertion", ""))
            claims = jwt.decode(form.get("assertion", ""), _KEY, algorithms=["HS256"], audience=self.url,
                                issuer=self.idp.url)
        except jwt.PyJWTError as exc:
            return _error("invalid_grant", f"the ID-JAG is not valid: {exc}")
        if header.get("typ") != "oauth-id-jag+jwt" or claims.get("resource") != self.resource():
            return _error("invalid_grant", "the ID-JAG is not for this server")
        return 200, {"access_token": self.access_token, "token_type": "Bearer", "expires_in": 3600}, ""
