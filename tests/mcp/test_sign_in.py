"""Signing in to remote MCP servers (``core.mcp.auth``, ``jawad mcp login``): real loopback servers,
the real (private) keyring."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import AnyUrl

from jawad_desktop.core.config.mcp import (
    McpServerConfig,
    McpSettings,
    mcp_oauth_id_token_key_name,
    mcp_oauth_key_name,
    mcp_oauth_secret_key_name,
)
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.mcp.auth import (
    REFRESH_MARGIN_S,
    KeyringTokenStorage,
    LoopbackAuthorizer,
    SignInNeeded,
    fetch_url,
    signed_in,
)
from jawad_desktop.core.mcp.server_auth import oauth_for
from jawad_desktop.core.store.secrets import SecretStore
from tests.llm.test_cli import jawad
from tests.mcp.conformance import ConformanceUnavailable, install, run_scenario
from tests.mcp.conftest import HttpMcp


class _Consent(BaseHTTPRequestHandler):
    """An authorization endpoint that approves (or, for ``?deny=1``, refuses) at once."""

    def do_GET(self) -> None:
        query = parse_qs(urlparse(self.path).query)
        redirect = query["redirect_uri"][0]
        answer = {"error": "access_denied", "error_description": "the user said no"} if "deny" in query else {
            "code": "the-code", "state": query["state"][0]}
        self.send_response(302)
        self.send_header("Location", f"{redirect}?{urlencode(answer)}")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def consent_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Consent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/authorize"
    finally:
        server.shutdown()
        server.server_close()


def test_the_loopback_authorizer_gets_the_code_from_the_redirect(arun: Any, consent_server: str) -> None:
    async def sign_in(extra: str) -> tuple[str, tuple[str, str | None] | str]:
        async with LoopbackAuthorizer(fetch_url, timeout_s=10) as authorizer:
            url = f"{consent_server}?{urlencode({'redirect_uri': authorizer.redirect_uri, 'state': 's1'})}{extra}"
            try:
                return authorizer.redirect_uri, await authorizer.authorize(url)
            except SignInNeeded as exc:
                return authorizer.redirect_uri, str(exc)

    redirect_uri, answer = arun(sign_in(""))
    assert redirect_uri.startswith("http://127.0.0.1:") and redirect_uri.endswith("/callback")
    assert answer == ("the-code", "s1")
    _, refused = arun(sign_in("&deny=1"))
    assert refused == "The sign-in was refused: the user said no."


def test_tokens_client_and_endpoints_are_kept_in_the_keyring_and_refreshed_before_expiry(
        arun: Any, secret_store: SecretStore, tmp_path: Path) -> None:
    config = McpServerConfig(name="mail", transport="http", url="https://mail.example/mcp")
    provider = oauth_for(config, McpSettings(servers=[config]), secret_store, None)
    storage = provider.context.storage  # type: ignore[attr-defined]
    assert isinstance(storage, KeyringTokenStorage)
    provider.context.oauth_metadata = OAuthMetadata(  # type: ignore[attr-defined]
        issuer=AnyUrl("https://auth.example"), authorization_endpoint=AnyUrl("https://auth.example/authorize"),
        token_endpoint=AnyUrl("https://auth.example/token"))
    client = OAuthClientInformationFull(client_id="jawad-1", redirect_uris=[AnyUrl("http://127.0.0.1:1/callback")])

    async def keep() -> None:
        await storage.set_client_info(client)
        await storage.set_tokens(OAuthToken(access_token="at-1", refresh_token="rt-1", expires_in=3600))

    arun(keep())
    assert signed_in(secret_store, "mail")
    kept = json.loads(secret_store.get(mcp_oauth_key_name("mail")) or "{}")
    assert kept["tokens"]["refresh_token"] == "rt-1" and kept["client"]["client_id"] == "jawad-1"
    assert kept["as_metadata"]["token_endpoint"] == "https://auth.example/token"

    # A later run (a new provider) starts from what the keyring kept: the expiry with its margin,
    # and the token endpoint, so the refresh goes to the right server.
    again = oauth_for(config, McpSettings(servers=[config]), secret_store, None)
    arun(again._initialize())  # type: ignore[attr-defined]
    context = again.context  # type: ignore[attr-defined]
    assert context.current_tokens.access_token == "at-1" and context.client_info.client_id == "jawad-1"
    assert abs(context.token_expiry_time - (time.time() + 3600 - REFRESH_MARGIN_S)) < 5
    assert str(context.oauth_metadata.token_endpoint) == "https://auth.example/token"
    context.token_expiry_time = time.time() - 1  # expired: refreshed before the next request
    assert not context.is_token_valid() and context.can_refresh_token()
    assert not any(p.is_file() and "at-1" in p.read_text(errors="ignore") for p in tmp_path.rglob("*"))


def test_a_server_that_refuses_and_offers_no_sign_in_is_explained(arun: Any, http_mcp: HttpMcp,
                                                                  secret_store: SecretStore) -> None:
    settings = McpSettings(servers=[McpServerConfig(name="locked", transport="http", url=http_mcp.url)])
    connections = McpConnections(settings, secret_store)

    async def connect() -> None:
        try:
            await connections.connect()
        finally:
            await connections.aclose()

    arun(connect(), timeout=60)
    problem = connections.problems["locked"]
    assert "locked" in problem and "Set its headers" not in problem and "Traceback" not in problem
    assert "--header" in problem, problem


def test_jawad_mcp_login_signs_in_in_the_browser_and_keeps_it_in_the_keyring(
        profile_dir: Path, secret_store: SecretStore) -> None:
    """The conformance suite's OAuth scenario, passed by the real commands: `jawad mcp add --url`,
    `jawad mcp login` (the browser follows the sign-in to the loopback listener), and a new
    `jawad mcp list --tools` that uses the sign-in kept in the keyring."""
    try:
        install()
    except ConformanceUnavailable as exc:
        pytest.skip(str(exc))
    result = run_scenario("auth/metadata-default",
                          client_args=["-m", "tests.mcp.login_client", str(profile_dir)], timeout_s=120)
    assert result.passed, "\n".join(result.failures) + "\n" + result.output[-4000:]
    assert "Signed in to remote" in result.output
    assert signed_in(secret_store, "remote")  # the commands ran on this test's private keyring
    assert '"sign_in": "signed in"' in result.output, result.output[-3000:]
    settings = (profile_dir / "config" / "settings.json").read_text()
    token = json.loads(secret_store.get(mcp_oauth_key_name("remote")) or "{}")["tokens"]["access_token"]
    assert token not in settings


def test_an_enterprise_sign_in_from_the_terminal(profile_dir: Path, secret_store: SecretStore) -> None:
    """The suite's enterprise-managed scenario (SEP-990) passed by the real commands: `jawad mcp add` with the
    organisation's client, identity provider and ID token (kept in the keyring, never in the settings), then
    `jawad mcp list --tools`, which exchanges the ID token at the identity provider and signs in with it."""
    try:
        install()
    except ConformanceUnavailable as exc:
        pytest.skip(str(exc))
    result = run_scenario("auth/cross-app-access-complete-flow",
                          client_args=["-m", "tests.mcp.enterprise_client", str(profile_dir)], timeout_s=120)
    assert result.passed, "\n".join(result.failures) + "\n" + result.output[-4000:]
    assert '"sign_in": "signed in"' in result.output, result.output[-3000:]
    settings = (profile_dir / "config" / "settings.json").read_text()
    assert '"grant": "enterprise"' in settings
    id_token = secret_store.get(mcp_oauth_id_token_key_name("org"))
    assert id_token and id_token not in settings
    removed = jawad(profile_dir, "mcp", "remove", "org")
    assert removed.returncode == 0, removed.stderr
    assert secret_store.get(mcp_oauth_id_token_key_name("org")) is None


def test_sign_in_options_keep_secrets_in_the_keyring_and_remove_forgets_them(
        profile_dir: Path, secret_store: SecretStore) -> None:
    added = jawad(profile_dir, "mcp", "add", "crm", "--url", "https://crm.example/mcp", "--client-id", "jawad-app",
                  "--client-secret-env", "CRM_SECRET", "--scopes", "read write", env={"CRM_SECRET": "s3cret"})
    assert added.returncode == 0, added.stderr
    assert "jawad mcp login crm" in added.stdout
    assert secret_store.get(mcp_oauth_secret_key_name("crm")) == "s3cret"
    saved = json.loads((profile_dir / "config" / "settings.json").read_text())
    server = saved["mcp"]["servers"][0]
    assert server["oauth"]["client_id"] == "jawad-app" and server["oauth"]["scopes"] == "read write"
    assert "s3cret" not in json.dumps(saved)
    secret_store.set(mcp_oauth_key_name("crm"), json.dumps({"tokens": {"access_token": "at", "token_type": "Bearer"}}))
    rows = json.loads(jawad(profile_dir, "mcp", "list", "--json").stdout)
    assert rows[0]["sign_in"] == "signed in"
    out = jawad(profile_dir, "mcp", "logout", "crm")
    assert out.returncode == 0 and "Signed out of crm" in out.stdout
    assert json.loads(jawad(profile_dir, "mcp", "list", "--json").stdout)[0]["sign_in"] == "not signed in"
    assert secret_store.get(mcp_oauth_secret_key_name("crm")) == "s3cret"  # the client stays registered
    removed = jawad(profile_dir, "mcp", "remove", "crm")
    assert removed.returncode == 0 and "sign-in" in removed.stdout
    assert secret_store.get(mcp_oauth_secret_key_name("crm")) is None

    machine = jawad(profile_dir, "mcp", "add", "m2m", "--url", "https://m2m.example/mcp", "--client-credentials")
    assert machine.returncode == 1 and "client ID" in machine.stderr and "Traceback" not in machine.stderr
    stdio = jawad(profile_dir, "mcp", "add", "s", "--command", "some-server", "--client-id", "x")
    assert stdio.returncode == 1 and "for HTTP servers that sign in" in stdio.stderr
    login = jawad(profile_dir, "mcp", "login", "nothing")
    assert login.returncode == 1 and "No MCP server is named 'nothing'" in login.stderr
