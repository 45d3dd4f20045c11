"""``jawad providers`` and ``jawad ask`` with the new kinds, as real subprocesses: keys in
the real keyring, answers from the loopback servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from tests.llm.test_cli import jawad
from tests.servers.provider_servers import ANSWER, ProviderServer


@pytest.mark.slow  # 9-14 s in CI: first, not at the end of a parallel run
def test_new_kinds_through_the_cli(profile_dir: Path, secret_store: SecretStore,
                                   provider_server: ProviderServer) -> None:
    for name, kind, fmt in (("Claude", "anthropic", "anthropic"), ("Gemini", "gemini", "gemini"),
                            ("Responses", "openai-responses", "openai")):
        added = jawad(profile_dir, "providers", "add", name, "--kind", kind, "--base-url", provider_server.url(fmt),
                      "--model", "ok", "--reasoning", "low", "--api-key-env", "K", env={"K": f"key-{name}"})
        assert added.returncode == 0, added.stderr
        assert secret_store.get(provider_key_name(name)) == f"key-{name}"
        tested = jawad(profile_dir, "providers", "test", name)
        assert tested.returncode == 0 and tested.stdout.startswith(f"OK: {name} answered"), tested.stderr
        asked = jawad(profile_dir, "ask", "--provider", name, "Hello?")
        assert asked.returncode == 0 and asked.stdout == ANSWER + "\n", asked.stderr
    assert provider_server.last("anthropic")["headers"]["x-api-key"] == "key-Claude"
    assert provider_server.last("gemini")["headers"]["x-goog-api-key"] == "key-Gemini"
    assert provider_server.last("openai")["body"]["reasoning"] == {"effort": "low"}

    local = jawad(profile_dir, "providers", "add", "Ollama", "--kind", "ollama-native", "--base-url",
                  provider_server.url("ollama"), "--model", "ok", "--embedding-model", "all-minilm")
    assert local.returncode == 0, local.stderr
    models = jawad(profile_dir, "providers", "models", "Ollama", "--json")
    assert json.loads(models.stdout) == ["llama3.2:3b", "qwen2.5:7b"]
    rows = {r["name"]: r for r in json.loads(jawad(profile_dir, "providers", "list", "--json").stdout)}
    assert rows["Claude"]["reasoning"] == "low" and rows["Ollama"]["key"] == "no key needed"

    missing = jawad(profile_dir, "providers", "add", "NoKey", "--kind", "anthropic", "--model", "m")
    assert missing.returncode == 1 and "needs an API key" in missing.stderr

    failing = jawad(profile_dir, "providers", "edit", "Claude", "--model", "status-401")
    assert failing.returncode == 0
    tested = jawad(profile_dir, "providers", "test", "Claude")
    assert tested.returncode == 1 and "Invalid API key" in tested.stderr and "Traceback" not in tested.stderr
