"""The enterprise-managed sign-in (MCP's Enterprise-Managed Authorization extension) from its first step: the
user signs in at the organisation's identity provider (OpenID Connect, in the browser, back to a loopback
listener), the ID token is exchanged there for an ID-JAG, and the ID-JAG for an access token at the MCP
server's authorization server. Real loopback servers (``tests.servers.enterprise_idp``, and a protected
MCP server written with the SDK), the real (private) keyring, the real commands."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.config.mcp import (
    McpOAuth,
    McpServerConfig,
    McpSettings,
    mcp_oauth_id_token_key_name,
    mcp_oauth_key_name,
    mcp_oauth_secret_key_name,
)
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.mcp.adapter import server_tools, sign_in
from jawad_desktop.core.mcp.auth import fetch_url
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.mcp_page import McpPage
from tests.llm.test_cli import jawad
from tests.mcp.conftest import server_process
from tests.mcp.test_page import page  # noqa: F401  (the fixture: Settings' MCP page on the real keyring)
from tests.servers.enterprise_idp import IdentityProvider, ResourceAuthorizationServer

ROOT = Path(__file__).resolve().parents[2]
ACCESS_TOKEN = "org-access-token-for-alice"


@dataclass
class Org:
    idp: IdentityProvider
    auth: ResourceAuthorizationServer
    mcp_url: str

    def config(self) -> McpServerConfig:
        return McpServerConfig(name="acme", transport="http", url=self.mcp_url, oauth=McpOAuth(
            grant="enterprise", client_id="jawad-at-org", idp_issuer=self.idp.url, idp_client_id="jawad-desktop"))

    def grants(self) -> list[str]:
        """The grants asked for at the IdP and at the authorization server, in order."""
        return [f"{who} {form.get('grant_type', '').rsplit(':', 1)[-1]}" for who, method, path, form in self.idp.wire
                if method == "POST"]


def _org(secret_store: SecretStore | None = None, deny: bool = False) -> Iterator[Org]:
    port = free_port()
    mcp_url = f"http://127.0.0.1:{port}/mcp"
    idp = IdentityProvider(deny=deny)
    auth = ResourceAuthorizationServer(idp, lambda: mcp_url, ACCESS_TOKEN)
    try:
        with server_process("protected MCP server", "tests.servers.protected_mcp_server", "{port}", auth.url,
                            ACCESS_TOKEN, port=port):
            yield Org(idp, auth, mcp_url)
    finally:
        if secret_store is not None:  # the session's keyring is shared by the tests: leave nothing of "acme"
            for key in (mcp_oauth_key_name, mcp_oauth_secret_key_name, mcp_oauth_id_token_key_name):
                secret_store.delete(key("acme"))
        idp.close()
        auth.close()


@pytest.fixture
def org(secret_store: SecretStore) -> Iterator[Org]:
    yield from _org(secret_store)


@pytest.fixture
def denying_org(secret_store: SecretStore) -> Iterator[Org]:
    yield from _org(secret_store, deny=True)


def test_signing_in_at_the_identity_provider_then_exchanging_the_id_token(
        org: Org, secret_store: SecretStore, arun: Any) -> None:
    config = org.config()
    settings = McpSettings(servers=[config])
    secret_store.set(mcp_oauth_secret_key_name("acme"), "org-secret")

    with pytest.raises(JawadError) as nobody:  # a connection while nobody signs in says how to
        arun(server_tools(settings, config, secret_store), timeout=60)
    assert "sign in at your organisation" in str(nobody.value) and "jawad mcp login acme" in str(nobody.value)

    tools = arun(sign_in(settings, config, secret_store, fetch_url), timeout=60)
    assert [t.name for t in tools] == ["whoami"]
    # The extension's three steps, in order, on the wire.
    assert org.grants() == ["idp authorization_code", "idp token-exchange", "as jwt-bearer"]
    [authorize] = [q for method, path, q in org.idp.seen if path == "/authorize"]
    assert authorize["code_challenge_method"] == "S256" and authorize["nonce"] and "offline_access" in \
        authorize["scope"].split()
    [exchange] = [f for method, path, f in org.idp.seen if f.get("grant_type", "").endswith("token-exchange")]
    assert (exchange["audience"], exchange["resource"]) == (org.auth.url, org.mcp_url)
    identity = json.loads(secret_store.get(mcp_oauth_id_token_key_name("acme")) or "{}")
    assert identity["id_token"].count(".") == 2 and identity["refresh_token"]

    # The next run uses the kept access token: nobody signs in, nobody is asked.
    asked = len(org.idp.seen)
    assert [t.name for t in arun(server_tools(settings, config, secret_store), timeout=60)] == ["whoami"]
    assert len(org.idp.seen) == asked

    # The access token gone and the ID token expired: the IdP's refresh token renews the ID token, no person.
    secret_store.delete(mcp_oauth_key_name("acme"))
    secret_store.set(mcp_oauth_id_token_key_name("acme"), json.dumps(
        {"id_token": IdentityProvider.id_token(_expired(org.idp)), "refresh_token": identity["refresh_token"]}))
    assert [t.name for t in arun(server_tools(settings, config, secret_store), timeout=60)] == ["whoami"]
    assert org.grants()[-3:] == ["idp refresh_token", "idp token-exchange", "as jwt-bearer"]


def _expired(idp: IdentityProvider) -> IdentityProvider:
    expired = IdentityProvider.__new__(IdentityProvider)
    expired.__dict__.update(idp.__dict__, lifetime=-10)
    return expired


def test_a_refused_sign_in_at_the_identity_provider_is_told(denying_org: Org, secret_store: SecretStore,
                                                            arun: Any) -> None:
    config = denying_org.config()
    secret_store.set(mcp_oauth_secret_key_name("acme"), "org-secret")
    with pytest.raises(JawadError) as refused:
        arun(sign_in(McpSettings(servers=[config]), config, secret_store, fetch_url), timeout=60)
    assert "your organisation does not allow it" in str(refused.value)
    assert secret_store.get(mcp_oauth_id_token_key_name("acme")) is None


def test_jawad_mcp_login_signs_in_at_the_organisation(org: Org, profile_dir: Path, secret_store: SecretStore) -> None:
    added = jawad(profile_dir, "mcp", "add", "acme", "--url", org.mcp_url, "--client-id", "jawad-at-org",
                  "--client-secret-env", "ORG_SECRET", "--idp-issuer", org.idp.url, "--idp-client-id",
                  "jawad-desktop", env={"ORG_SECRET": "org-secret"})
    assert added.returncode == 0, added.stderr
    assert "jawad mcp login acme" in added.stdout
    login = subprocess.Popen([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "mcp", "login",
                              "acme", "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT)
    watchdog = threading.Timer(90, login.kill)
    watchdog.start()
    try:
        assert login.stderr is not None
        line = ""
        while "http" not in line:
            line = login.stderr.readline()
            assert line, "the sign-in address was never printed"
        # The user's browser: follows the identity provider's redirect back to Jawad's loopback listener.
        httpx.get(re.search(r"https?://\S+", line).group(0), follow_redirects=True, timeout=30)  # type: ignore[union-attr]
        out, err = login.communicate(timeout=60)
    finally:
        watchdog.cancel()
    assert login.returncode == 0, err
    assert "Signed in to acme" in out and "whoami" in out
    listed = json.loads(jawad(profile_dir, "mcp", "list", "--tools", "--json").stdout)
    assert listed[0]["sign_in"] == "signed in" and [t["name"] for t in listed[0]["tools"]] == ["whoami"]
    settings = (profile_dir / "config" / "settings.json").read_text()
    identity = secret_store.get(mcp_oauth_id_token_key_name("acme")) or ""
    assert '"idp_issuer"' in settings and json.loads(identity)["id_token"] not in settings


def test_settings_signs_in_at_the_organisation_inside_jawad(org: Org, page: McpPage, qtbot: Any,  # noqa: F811
                                                             secret_store: SecretStore) -> None:
    """Settings → MCP servers → Sign in inside Jawad: the identity provider's page opens in a window of the
    embedded browser (QtWebEngine), its redirect comes back to the loopback listener, the window closes and
    the server is signed in."""
    page.ctx.settings.mcp = page.ctx.settings.mcp.model_copy(update={"servers": [org.config()]})
    secret_store.set(mcp_oauth_secret_key_name("acme"), "org-secret")
    page.refresh()
    page.list.setCurrentRow(0)
    assert page.sign_in_state.text() == "Not signed in" and page.sign_in_here_button.isEnabled()
    qtbot.mouseClick(page.sign_in_here_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.sign_in_state.text() == "Signed in", timeout=60_000)
    assert "Signed in to acme; it has 1 tool." in page.status.text()
    assert page.sign_in_window is None  # closed once the sign-in came back
    assert [path for _, path, _ in org.idp.seen].count("/authorize") == 1
    assert org.grants() == ["idp authorization_code", "idp token-exchange", "as jwt-bearer"]


def test_a_new_server_does_not_inherit_a_sign_in_kept_under_its_name(profile_dir: Path,
                                                                     secret_store: SecretStore) -> None:
    """A sign-in left in the keyring under a name (a server removed by hand from the settings) belongs to
    another server: adding a new one with that name forgets it rather than sending its token elsewhere."""
    secret_store.set(mcp_oauth_key_name("fresh"), '{"tokens": {"access_token": "stale", "token_type": "Bearer"}}')
    secret_store.set(mcp_oauth_id_token_key_name("fresh"), "stale-id-token")
    added = jawad(profile_dir, "mcp", "add", "fresh", "--url", "https://fresh.example/mcp")
    assert added.returncode == 0, added.stderr
    assert secret_store.get(mcp_oauth_key_name("fresh")) is None
    assert secret_store.get(mcp_oauth_id_token_key_name("fresh")) is None
