"""Secrets go through the real Secret Service, and never into a file; the window's start looks for
the keyring only when the saved settings keep a secret (else on the first use)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext, keeps_secrets
from jawad_desktop.core.store.secrets import SERVICE, SecretStore, SecretStoreError


def test_round_trip_through_real_secret_service(secret_store: SecretStore) -> None:
    assert "SecretService" in secret_store.backend_name
    secret_store.set("provider:Test", "sk-test-roundtrip-123456")
    assert secret_store.get("provider:Test") == "sk-test-roundtrip-123456"
    # The same item is visible to the desktop's own tools.
    out = subprocess.run(
        ["secret-tool", "lookup", "service", SERVICE, "username", "provider:Test"],
        capture_output=True, text=True, timeout=10, check=False,
    )
    assert out.stdout.strip() == "sk-test-roundtrip-123456"
    secret_store.delete("provider:Test")
    assert secret_store.get("provider:Test") is None


def test_no_keyring_explains_and_offers_session_memory() -> None:
    store = SecretStore(problem="No system keyring is available")
    assert not store.available
    with pytest.raises(SecretStoreError) as info:
        store.set("provider:X", "sk-secret")
    assert "session" in info.value.user_text()
    store.use_session_memory()
    store.set("provider:X", "sk-secret")
    assert store.get("provider:X") == "sk-secret"
    assert store.backend_name == "session memory"


class _FileBackend(KeyringBackend):
    """A third-party backend that keeps secrets in a plain file, viable and eager to be chosen."""

    priority = 100.0  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise AssertionError("a plain-file backend must never receive a key")

    def delete_password(self, service: str, username: str) -> None:
        pass


def test_a_third_party_file_backend_is_never_chosen(secret_service: dict[str, str]) -> None:
    assert _FileBackend in KeyringBackend.get_viable_backends()  # keyring itself would offer it
    store = SecretStore.detect()
    assert not isinstance(store.backend, _FileBackend)
    assert "SecretService" in store.backend_name


def test_a_start_with_no_saved_secrets_finds_the_keyring_when_a_key_is_first_kept(
    tmp_path: Path, secret_service: dict[str, str]
) -> None:
    ctx = AppContext.open(str(tmp_path / "p"), defer_keyring=True)
    assert not keeps_secrets(ctx.settings)
    assert not ctx.keyring_sought  # the window's start: no provider, no MCP server, no keyring looked for
    ctx.secrets.set("provider:Later", "sk-kept-on-first-use-1234")  # Settings → Providers: a key typed
    assert ctx.keyring_sought and "SecretService" in ctx.secrets.backend_name
    assert SecretStore.detect().get("provider:Later") == "sk-kept-on-first-use-1234"  # in the real keyring
    ctx.secrets.delete("provider:Later")
    assert ctx.secrets.get("provider:Later") is None


def test_a_start_with_a_saved_provider_looks_for_the_keyring_at_once(
    tmp_path: Path, secret_service: dict[str, str]
) -> None:
    first = AppContext.open(str(tmp_path / "p"), defer_keyring=True)
    first.settings.providers.append(ProviderConfig(name="Remote", kind=ProviderKind.OPENAI, model="gpt-4o-mini"))
    first.save_settings()
    ctx = AppContext.open(str(tmp_path / "p"), defer_keyring=True)
    assert keeps_secrets(ctx.settings)
    assert ctx.keyring_sought  # in the background, while the window is built
    assert ctx.secrets.available and "SecretService" in ctx.secrets.backend_name
