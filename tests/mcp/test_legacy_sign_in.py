"""The 2025-03-26 sign-in (``core.mcp.server_auth.legacy_same_origin_metadata``): a server with no
protected-resource metadata whose authorization-server metadata, at its own origin, names an issuer with a
path is signed in to; metadata naming another origin, or a current-spec server whose authorization server
names another issuer, is still refused (the SDK's RFC 8414 issuer check). A real loopback server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import pytest

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.mcp.auth import LoopbackAuthorizer, fetch_url
from jawad_desktop.core.mcp.server_auth import oauth_for
from jawad_desktop.core.store.secrets import SecretStore


@dataclass
class _Setup:
    issuer: str = "{origin}/oauth"  # what the metadata names ({origin}: the server's own)
    prm: bool = False  # publish protected-resource metadata (the current spec) naming {origin}/oauth


class _LegacyServer(BaseHTTPRequestHandler):
    """One origin: the MCP endpoint /mcp, the metadata at the origin's well-known address, and the
    authorization server's endpoints under /oauth."""

    serves: _Setup = _Setup()

    def _json(self, status: int, body: dict[str, Any], **headers: str) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]!s}"  # type: ignore[index]

    def do_GET(self) -> None:
        url = urlparse(self.path)
        origin = self._origin()
        if url.path == "/mcp":
            if self.headers.get("Authorization") == "Bearer the-token":
                self._json(200, {"ok": True})
            else:
                self._json(401, {"error": "invalid_token"}, **{"WWW-Authenticate": "Bearer"})
        elif url.path.startswith("/.well-known/oauth-protected-resource") and self.serves.prm:
            self._json(200, {"resource": f"{origin}/mcp", "authorization_servers": [f"{origin}/oauth"]})
        elif url.path.startswith("/.well-known/oauth-authorization-server"):
            self._json(200, {"issuer": self.serves.issuer.format(origin=origin),
                             "authorization_endpoint": f"{origin}/oauth/authorize",
                             "token_endpoint": f"{origin}/oauth/token",
                             "registration_endpoint": f"{origin}/oauth/register",
                             "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"]})
        elif url.path == "/oauth/authorize":
            query = parse_qs(url.query)
            self.send_response(302)
            self.send_header("Location", f"{query['redirect_uri'][0]}?"
                                         f"{urlencode({'code': 'the-code', 'state': query['state'][0]})}")
            self.end_headers()
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = urlparse(self.path).path
        if path == "/oauth/register":
            self._json(201, {"client_id": "jawad-client", "redirect_uris": ["http://127.0.0.1/callback"],
                             "token_endpoint_auth_method": "none"})
        elif path == "/oauth/token":
            self._json(200, {"access_token": "the-token", "token_type": "Bearer", "expires_in": 3600})
        else:
            self._json(404, {"error": "not_found"})

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def legacy_server() -> Iterator[type[_LegacyServer]]:
    handler = type("Handler", (_LegacyServer,), {"serves": _Setup()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.origin = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()


def _sign_in(arun: Any, origin: str, secret_store: SecretStore) -> int | str:
    """The status of a GET of the server's /mcp once signed in, or the sign-in's error."""
    # Named by the port: the keyring is the session's, and a sign-in kept by another test must not answer.
    config = McpServerConfig(name=f"legacy-{urlparse(origin).port}", transport="http", url=f"{origin}/mcp")

    async def run() -> int | str:
        async with LoopbackAuthorizer(fetch_url, timeout_s=20) as authorizer:
            auth = oauth_for(config, McpSettings(servers=[config]), secret_store, authorizer)
            async with httpx.AsyncClient(auth=auth, timeout=20) as client:
                try:
                    return (await client.get(config.url)).status_code
                except Exception as exc:  # the SDK's OAuthFlowError: what the test looks at
                    return str(exc)

    result: int | str = arun(run(), timeout=60)
    return result


def test_a_2025_03_26_server_with_a_path_issuer_on_its_own_origin_is_signed_in_to(
        arun: Any, secret_store: SecretStore, legacy_server: Any) -> None:
    assert _sign_in(arun, legacy_server.origin, secret_store) == 200


def test_legacy_metadata_naming_another_origin_is_refused(arun: Any, secret_store: SecretStore,
                                                          legacy_server: Any) -> None:
    legacy_server.serves.issuer = "http://elsewhere.example/oauth"
    answer = _sign_in(arun, legacy_server.origin, secret_store)
    assert isinstance(answer, str) and "issuer mismatch" in answer, answer


def test_a_current_server_s_authorization_server_is_held_to_its_exact_issuer(
        arun: Any, secret_store: SecretStore, legacy_server: Any) -> None:
    # Protected-resource metadata names {origin}/oauth; the metadata found for it says {origin}: refused,
    # even though it is the same origin (the exception is for the legacy path only).
    legacy_server.serves.prm = True
    legacy_server.serves.issuer = "{origin}"
    answer = _sign_in(arun, legacy_server.origin, secret_store)
    assert isinstance(answer, str) and "issuer mismatch" in answer, answer
