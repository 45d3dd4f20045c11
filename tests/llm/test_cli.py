"""``jawad providers`` and ``jawad ask`` run as real subprocesses, with keys in the real
(private) Secret Service and answers from the fault server on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from tests.servers.fault_server import ANSWER, MODELS, FaultServer

KEY = "sk-cli-secret-key-1234567890"


def jawad(profile: Path, *args: str, env: dict[str, str] | None = None,
          stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
        capture_output=True, text=True, timeout=60, input=stdin, env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.mark.slow  # 9-14 s in CI: first, not at the end of a parallel run
def test_providers_lifecycle_keeps_keys_in_the_keyring(
    profile_dir: Path, secret_store: SecretStore, fault_server: FaultServer
) -> None:
    added = jawad(profile_dir, "providers", "add", "Work AI", "--kind", "openai", "--base-url",
                  fault_server.base_url, "--model", "ok", "--api-key-env", "MY_KEY", env={"MY_KEY": KEY})
    assert added.returncode == 0, added.stderr
    assert secret_store.get(provider_key_name("Work AI")) == KEY
    settings = (profile_dir / "config" / "settings.json").read_text()
    assert KEY not in settings and '"active_provider": "Work AI"' in settings

    listed = jawad(profile_dir, "providers", "list")
    assert listed.returncode == 0 and "* Work AI" in listed.stdout and "key stored" in listed.stdout

    assert jawad(profile_dir, "providers", "add", "Local", "--kind", "ollama").returncode == 0
    assert jawad(profile_dir, "providers", "use", "local").returncode == 0
    rows = json.loads(jawad(profile_dir, "providers", "list", "--json").stdout)
    assert [(r["name"], r["active"], r["key"]) for r in rows] == [
        ("Work AI", False, "key stored"), ("Local", True, "no key needed")]
    assert jawad(profile_dir, "providers", "remove", "Local").returncode == 0
    assert json.loads(jawad(profile_dir, "providers", "list", "--json").stdout)[0]["active"] is True

    tested = jawad(profile_dir, "providers", "test", "Work AI")
    assert tested.returncode == 0 and tested.stdout.startswith("OK: Work AI answered in")
    assert fault_server.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"

    models = jawad(profile_dir, "providers", "models", "Work AI", "--json")
    assert json.loads(models.stdout) == MODELS

    asked = jawad(profile_dir, "ask", "Hello?")
    assert asked.returncode == 0 and asked.stdout == ANSWER + "\n"

    renamed = jawad(profile_dir, "providers", "edit", "Work AI", "--rename", "Team", "--model", "no-usage")
    assert renamed.returncode == 0, renamed.stderr
    assert secret_store.get(provider_key_name("Team")) == KEY
    assert secret_store.get(provider_key_name("Work AI")) is None
    as_json = jawad(profile_dir, "ask", "Hello?", "--json")
    data = json.loads(as_json.stdout)
    assert data["content"] == ANSWER and data["metadata"]["model"] == "no-usage"
    assert data["metadata"]["provider"] == "Team" and data["metadata"]["api_calls"] == 1

    failed = jawad(profile_dir, "providers", "edit", "Team", "--base-url", fault_server.scenario_url("status-401"))
    assert failed.returncode == 0
    denied = jawad(profile_dir, "ask", "Hello?")
    assert denied.returncode == 1 and denied.stdout == ""
    assert denied.stderr.startswith("jawad: Invalid API key") and "Traceback" not in denied.stderr
    test_failed = jawad(profile_dir, "providers", "test")
    assert test_failed.returncode == 1 and "Invalid API key" in test_failed.stderr

    removed = jawad(profile_dir, "providers", "remove", "team")
    assert removed.returncode == 0 and secret_store.get(provider_key_name("Team")) is None
    for result in (added, listed, tested, models, asked, renamed, as_json, denied, removed):
        assert KEY not in result.stdout + result.stderr


def test_key_from_standard_input(profile_dir: Path, secret_store: SecretStore) -> None:
    added = jawad(profile_dir, "providers", "add", "Router", "--kind", "openrouter", "--api-key-stdin",
                  stdin=KEY + "\n")
    assert added.returncode == 0, added.stderr
    assert secret_store.get(provider_key_name("Router")) == KEY
    missing = jawad(profile_dir, "providers", "add", "Other", "--kind", "openai")
    assert missing.returncode == 1 and "needs an API key" in missing.stderr
    assert jawad(profile_dir, "providers", "remove", "Router").returncode == 0


@pytest.mark.slow  # 9-14 s in CI: first, not at the end of a parallel run
def test_ask_with_an_unsaved_provider_and_friendly_failures(profile_dir: Path, fault_server: FaultServer) -> None:
    asked = jawad(profile_dir, "ask", "Hello?", "--kind", "openai-compatible", "--base-url", fault_server.base_url,
                  "--model", "drip")
    assert asked.returncode == 0 and asked.stdout == ANSWER * 3 + "\n"
    assert not (profile_dir / "config" / "settings.json").exists()  # nothing saved

    none = jawad(profile_dir, "ask", "Hello?")
    assert none.returncode == 1 and "No AI provider is set up yet" in none.stderr

    down = jawad(profile_dir, "ask", "Hello?", "--kind", "ollama", "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "llama3.2")
    assert down.returncode == 1
    assert down.stderr.startswith("jawad: Can't reach Ollama at http://127.0.0.1:9: is it running?")

    reset = jawad(profile_dir, "ask", "Hello?", "--kind", "openai-compatible", "--base-url",
                  fault_server.base_url, "--model", "reset")
    assert reset.returncode == 1 and reset.stdout.startswith("Hello there")  # what streamed stays
    assert "broke before the answer was complete" in reset.stderr

    retried = jawad(profile_dir, "ask", "Hello?", "--kind", "openai-compatible", "--base-url",
                    fault_server.base_url, "--model", "flaky-503-1@cli")
    assert retried.returncode == 0 and retried.stdout == ANSWER + "\n"
    assert "Retrying in 1.0 s (1 of 3)" in retried.stderr
    assert retried.stderr.count("Retrying") == 1 and "WARNING" not in retried.stderr  # said once, not logged too

    portal = jawad(profile_dir, "ask", "Hello?", "--kind", "openai-compatible", "--base-url",
                   fault_server.scenario_url("web-page"), "--model", "any")
    assert portal.returncode == 1
    assert portal.stderr.startswith('jawad: Got a web page ("Guest Wi-Fi - Sign in") instead of an API answer')
    assert "is the base URL right?" in portal.stderr and "captive portal" in portal.stderr
    assert "Retrying" not in portal.stderr  # the same page would come back

    usage = jawad(profile_dir, "ask")
    assert usage.returncode == 2
    empty = jawad(profile_dir, "ask", "-", "--kind", "ollama", "--base-url", fault_server.base_url, stdin="  \n")
    assert empty.returncode == 1 and "The question is empty" in empty.stderr
