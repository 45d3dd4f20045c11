"""A model's context window: the user's setting, what was learned, what the provider's model
details say (loopback servers answering as OpenRouter, Ollama, llama.cpp, LM Studio and vLLM
document), the built-in server, the table of model families, a default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm.context_window import (
    OLLAMA_DEFAULT_CONTEXT,
    ContextWindow,
    context_window,
    default_window,
    window_from_name,
)
from jawad_desktop.core.llm.local_server import LOCAL_CONTEXT_TOKENS
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers.model_details import ModelDetailsServer


@pytest.fixture(scope="module")
def model_details() -> Iterator[ModelDetailsServer]:
    server = ModelDetailsServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("model, tokens", [
    ("gpt-4o-mini", 128_000), ("openai/gpt-4o", 128_000), ("gpt-4.1-nano", 1_047_576), ("gpt-4", 8_192),
    ("o3-mini", 200_000), ("claude-sonnet-4-5", 200_000), ("anthropic.claude-3-5-sonnet-20240620-v1:0", 200_000),
    ("gemini-2.5-flash", 1_048_576), ("llama3.2", 131_072), ("meta-llama/Meta-Llama-3-8B-Instruct", 8_192),
    ("mistral-large-latest", 131_072), ("qwen2.5:7b", 32_768), ("smollm2", 8_192), ("phi3", 4_096),
    ("something-new", 0),
])
def test_the_table_knows_model_families(model: str, tokens: int) -> None:
    assert window_from_name(model) == tokens


def _window(provider: ProviderConfig, facts: ModelFactsStore | None, arun: Any) -> tuple[ContextWindow, Any]:
    client = make_client(provider)

    async def run() -> ContextWindow:
        async with client:
            return await context_window(client, facts)

    return arun(run()), client


@pytest.mark.parametrize("prefix, kind, model, tokens, where", [
    ("openrouter/v1", ProviderKind.OPENROUTER, "mistralai/mistral-7b-instruct", 32_768, "OpenRouter"),
    ("ollama", ProviderKind.OLLAMA, "llama3.2", 8_192, "running model"),  # loaded: what it runs with
    ("ollama-idle", ProviderKind.OLLAMA, "tuned", 16_384, "num_ctx"),
    ("ollama-idle", ProviderKind.OLLAMA_NATIVE, "plain", OLLAMA_DEFAULT_CONTEXT, "131,072"),
    ("llamacpp/v1", ProviderKind.OPENAI_COMPATIBLE, "model.gguf", 8_192, "llama.cpp"),  # n_ctx, not n_ctx_train
    ("lmstudio/v1", ProviderKind.OPENAI_COMPATIBLE, "qwen3-8b", 4_096, "LM Studio's loaded model"),
    ("lmstudio/v1", ProviderKind.OPENAI_COMPATIBLE, "gemma-3-4b", 131_072, "LM Studio's model details"),
    ("vllm/v1", ProviderKind.OPENAI_COMPATIBLE, "Qwen/Qwen2.5-7B-Instruct", 32_768, "model list"),
])
def test_the_provider_says_and_it_is_learned_once(
    model_details: ModelDetailsServer, arun: Any, tmp_path: Path,
    prefix: str, kind: ProviderKind, model: str, tokens: int, where: str,
) -> None:
    facts = ModelFactsStore(tmp_path / "model_facts.json")
    provider = ProviderConfig(name="p", kind=kind, base_url=model_details.url(prefix), model=model)
    before = len(model_details.requests)
    found, client = _window(provider, facts, arun)
    assert found.tokens == tokens and where in found.source, found
    learned = ModelFactsStore(tmp_path / "model_facts.json").get(client.model_key)  # on disk
    assert learned.context_window == tokens and any(f"{tokens:,} tokens" in n for n in learned.notes)
    asked = len(model_details.requests) - before
    again, _ = _window(provider, facts, arun)
    assert again == ContextWindow(tokens, "learned earlier")
    assert len(model_details.requests) - before == asked  # not asked again


def test_the_users_setting_wins_without_asking(model_details: ModelDetailsServer, arun: Any) -> None:
    provider = ProviderConfig(name="p", kind=ProviderKind.OPENROUTER, base_url=model_details.url("openrouter/v1"),
                              model="mistralai/mistral-7b-instruct", context_window=6_000)
    before = len(model_details.requests)
    found, _ = _window(provider, ModelFactsStore(None), arun)
    assert found == ContextWindow(6_000, "the provider's setting") and len(model_details.requests) == before


def test_a_server_that_says_nothing_is_asked_once_then_the_table_or_a_default(
    model_details: ModelDetailsServer, arun: Any
) -> None:
    facts = ModelFactsStore(None)
    silent = ProviderConfig(name="p", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=model_details.url("silent/v1"),
                            model="mystery-model")
    before = len(model_details.requests)
    found, client = _window(silent, facts, arun)
    assert found.tokens == default_window(ProviderKind.OPENAI_COMPATIBLE) == 8_192
    asked = len(model_details.requests) - before
    assert asked >= 1 and facts.get(client.model_key).context_window == 0  # nothing was learned
    assert _window(silent, facts, arun)[0] == found and len(model_details.requests) - before == asked
    named = silent.model_copy(update={"model": "qwen3-8b"})  # the family is known
    assert _window(named, facts, arun)[0] == ContextWindow(32_768, "the model's family")


def test_cloud_models_come_from_the_table_without_a_request(arun: Any) -> None:
    # OpenAI's model list does not say; nothing is asked (the address would fail the test).
    provider = ProviderConfig(name="o", kind=ProviderKind.OPENAI, base_url="http://127.0.0.1:9/v1", model="gpt-4o")
    assert _window(provider, None, arun)[0] == ContextWindow(128_000, "the model's family")
    unknown = provider.model_copy(update={"model": "brand-new-model"})
    assert _window(unknown, None, arun)[0].tokens == 32_768


def test_the_built_in_model_uses_its_servers_context(arun: Any) -> None:
    built_in = ProviderConfig(name="Built-in", kind=ProviderKind.LOCAL, model="smollm2")
    found, _ = _window(built_in, None, arun)
    assert found == ContextWindow(LOCAL_CONTEXT_TOKENS, "the built-in model's server")
    assert window_from_name("smollm2") == LOCAL_CONTEXT_TOKENS  # SmolLM2's trained context, all of it
