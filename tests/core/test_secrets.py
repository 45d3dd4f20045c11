"""Secrets go through the real Secret Service, and never into a file."""

from __future__ import annotations

import subprocess

import pytest
from keyring.backend import KeyringBackend

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
