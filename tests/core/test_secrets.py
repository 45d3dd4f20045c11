"""Secrets go through the real Secret Service, and never into a file."""

from __future__ import annotations

import subprocess

import pytest

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
