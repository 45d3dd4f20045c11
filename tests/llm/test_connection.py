"""Test Connection, the model list, first-start discovery and ``client_for``, on real loopback
servers and the real (private) Secret Service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.catalog import GB
from jawad_desktop.core.llm.connection import (
    FIRST_START_MESSAGE,
    connection_timeout_s,
    list_models,
    test_connection,
)
from jawad_desktop.core.llm.discovery import discover_providers, local_model_offer
from jawad_desktop.core.llm.factory import client_for
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from tests.servers.fault_server import ANSWER, MODELS, OLLAMA_MODELS, FaultServer


def provider(url: str, kind: ProviderKind = ProviderKind.OPENAI_COMPATIBLE, model: str = "ok") -> ProviderConfig:
    return ProviderConfig(name="Fault", kind=kind, base_url=url, model=model)


def test_test_connection_reports_success_and_friendly_failures(fault_server: FaultServer, arun: Any) -> None:
    ok = arun(test_connection(provider(fault_server.base_url), None))
    assert ok.success and ok.error == "" and ok.provider == "Fault" and ok.latency_ms > 0
    said = fault_server.requests[-1]["body"]
    assert said["messages"] == [{"role": "user", "content": "Say ok"}] and said["stream"] is False

    bad_key = arun(test_connection(provider(fault_server.base_url, ProviderKind.OPENAI, "status-401"), "sk-x"))
    assert not bad_key.success and bad_key.error.startswith("Invalid API key")

    port = free_port()
    down = arun(test_connection(provider(f"http://127.0.0.1:{port}/v1", ProviderKind.OLLAMA), None))
    assert not down.success and "ollama serve" in down.error and down.latency_ms < 5000

    no_key = arun(test_connection(provider(fault_server.base_url, ProviderKind.OPENROUTER), None))
    assert not no_key.success and "No API key is stored" in no_key.error


def test_test_connection_time_limits_follow_spec_000() -> None:
    assert connection_timeout_s(ProviderKind.OLLAMA) == 30
    assert connection_timeout_s(ProviderKind.OPENAI) == connection_timeout_s(ProviderKind.OPENROUTER) == 20


def test_model_list_for_the_settings_dialog(fault_server: FaultServer, arun: Any) -> None:
    assert arun(list_models(provider(fault_server.base_url), None)) == MODELS
    assert arun(list_models(provider(f"{fault_server.root}/v1", ProviderKind.OLLAMA), None)) == OLLAMA_MODELS
    # The address Ollama prints, without /v1, works for both its model list and chat.
    assert arun(list_models(provider(fault_server.root, ProviderKind.OLLAMA), None)) == OLLAMA_MODELS
    assert arun(test_connection(provider(fault_server.root, ProviderKind.OLLAMA), None)).success
    assert fault_server.requests[-1]["path"] == "/v1/chat/completions"


def test_discovery_finds_local_servers_environment_keys_and_the_built_in_model(
    fault_server: FaultServer, arun: Any, tmp_path: Path
) -> None:
    offers = arun(discover_providers(ollama_url=fault_server.root, lmstudio_url=fault_server.base_url,
                                     environ={"OPENROUTER_API_KEY": "sk-or-secret-123456", "OPENAI_API_KEY": ""},
                                     models_folder=tmp_path))
    by_name = {o.provider.name: o for o in offers}
    assert list(by_name) == ["Ollama", "LM Studio", "OpenRouter", "Built-in"]  # this computer runs Qwen 1.5B
    assert by_name["Ollama"].models == OLLAMA_MODELS and by_name["Ollama"].provider.model == OLLAMA_MODELS[0]
    assert by_name["Ollama"].provider.base_url == f"{fault_server.root}/v1"
    assert by_name["LM Studio"].models == MODELS
    assert by_name["OpenRouter"].api_key_env == "OPENROUTER_API_KEY"
    assert "sk-or-secret" not in repr(offers)  # only the variable's name is offered
    assert by_name["Built-in"].provider.kind is ProviderKind.LOCAL
    assert by_name["Built-in"].download == "qwen2.5-coder-1.5b-instruct"

    nothing = arun(discover_providers(ollama_url=f"http://127.0.0.1:{free_port()}",
                                      lmstudio_url=f"http://127.0.0.1:{free_port()}/v1", environ={},
                                      include_local=False))
    assert nothing == []


@pytest.fixture
def ctx(profile_dir: Path, secret_store: SecretStore) -> AppContext:
    return AppContext.open(str(profile_dir), secrets=secret_store)


def test_client_for_resolves_saved_and_unsaved_providers(
    ctx: AppContext, fault_server: FaultServer, arun: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # else "Work" would use it (test_environment_keys)
    with pytest.raises(JawadError) as info:
        client_for(ctx)
    assert info.value.message == FIRST_START_MESSAGE

    ctx.settings.providers = [ProviderConfig(name="Work", kind=ProviderKind.OPENAI,
                                             base_url=fault_server.base_url, model="ok")]
    with pytest.raises(JawadError, match="No API key is stored for 'Work'"):
        client_for(ctx)
    with pytest.raises(JawadError, match="No provider is named 'Home'"):
        client_for(ctx, "Home")

    ctx.secrets.set(provider_key_name("Work"), "sk-work-key-123456")
    try:
        async def ask(client: Any) -> str:
            async with client:
                return (await client.chat([Message(role="user", content="hi")]).response()).content

        assert arun(ask(client_for(ctx, "work"))) == ANSWER  # names are case-insensitive
        assert fault_server.requests[-1]["headers"]["Authorization"] == "Bearer sk-work-key-123456"
        assert arun(ask(client_for(ctx, model="no-usage"))) == ANSWER
        assert fault_server.requests[-1]["body"]["model"] == "no-usage"
    finally:
        ctx.secrets.delete(provider_key_name("Work"))

    monkeypatch.setenv("JAWAD_TEST_KEY", "sk-env-key-123456")
    client = client_for(ctx, kind="openrouter", base_url=fault_server.base_url, model="ok",
                        api_key_env="JAWAD_TEST_KEY")
    assert arun(ask(client)) == ANSWER
    assert fault_server.requests[-1]["headers"]["Authorization"] == "Bearer sk-env-key-123456"
    with pytest.raises(JawadError, match="JAWAD_MISSING is not set"):
        client_for(ctx, kind="openai", base_url=fault_server.base_url, api_key_env="JAWAD_MISSING")
    with pytest.raises(JawadError, match="either a saved provider"):
        client_for(ctx, "Work", kind="ollama")
    with pytest.raises(JawadError, match="Unknown provider kind"):
        client_for(ctx, kind="anthropic-ish", base_url=fault_server.base_url)


def test_the_first_start_offers_a_capable_local_model_for_this_computer(tmp_path: Path) -> None:
    """Issue 31: with no provider, a small model this computer can run, its download and memory said
    plainly; once downloaded, no download; none when it does not fit; never the 135M test model."""
    offer = local_model_offer(tmp_path, memory_bytes=8 * GB, free_bytes=50 * GB)
    assert offer is not None and offer.download == "qwen2.5-coder-1.5b-instruct"
    assert offer.provider.kind is ProviderKind.LOCAL and offer.provider.model == offer.download
    assert "Qwen2.5 Coder 1.5B" in offer.description and "1.1 GB download" in offer.description
    assert "2.0 GB of memory" in offer.description and "one tool at a time" in offer.description
    assert "SmolLM2" not in offer.description
    small = local_model_offer(tmp_path, memory_bytes=3 * GB, free_bytes=50 * GB)  # less memory: the 0.5B
    assert small is not None and small.download == "qwen2.5-coder-0.5b-instruct"
    assert "491 MB download" in small.description and "1.0 GB of memory" in small.description
    (tmp_path / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").write_bytes(b"GGUF")
    ready = local_model_offer(tmp_path, memory_bytes=8 * GB, free_bytes=50 * GB)
    assert ready is not None and not ready.download and "download" not in ready.description
    assert ready.provider.model_file == str(tmp_path / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    assert local_model_offer(tmp_path, memory_bytes=GB, free_bytes=50 * GB) is None
    assert local_model_offer(tmp_path, memory_bytes=8 * GB, free_bytes=GB // 2) is None
