"""Ollama's models through its API: the list (``/api/tags``) and a pull with progress
(``/api/pull``), against a loopback server that answers as Ollama's API documents."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm.errors import LLMError, ModelNotFoundError, NetworkError
from jawad_desktop.core.llm.ollama_native import PullProgress, ollama_client
from tests.servers.ollama_models import OllamaModels, serve_ollama


@pytest.fixture
def ollama() -> Iterator[OllamaModels]:
    yield from serve_ollama({"qwen2.5:0.5b": [397_807_936, 6_000]}, installed={"llama3.2:1b": 1_321_098_329})


def provider(server: OllamaModels, kind: ProviderKind = ProviderKind.OLLAMA) -> ProviderConfig:
    base = server.base_url + ("/v1" if kind is ProviderKind.OLLAMA else "")
    return ProviderConfig(name="Ollama", kind=kind, base_url=base)


async def pull_all(config: ProviderConfig, name: str) -> list[PullProgress]:
    client = ollama_client(config)
    async with client:
        return [p async for p in client.pull(name)]


@pytest.mark.parametrize("kind", [ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE])
def test_list_pull_and_list_again(ollama: OllamaModels, arun: Any, kind: ProviderKind) -> None:
    async def installed() -> list[str]:
        client = ollama_client(provider(ollama, kind))
        async with client:
            return [f"{m.name} {m.size} {m.parameter_size} {m.quantization}" for m in await client.installed_models()]

    assert arun(installed()) == ["llama3.2:1b 1321098329 494.03M Q4_K_M"]
    events = arun(pull_all(provider(ollama, kind), "qwen2.5:0.5b"))
    assert events[0].status == "pulling manifest" and events[-1].done
    layer = [e for e in events if e.digest == f"sha256:{0:064x}"]
    assert [e.completed for e in layer] == [0, 99_451_984, 198_903_968, 298_355_952, 397_807_936]
    assert {e.total for e in layer} == {397_807_936}
    assert "qwen2.5:0.5b 397813936 494.03M Q4_K_M" in arun(installed())


def test_a_model_the_registry_lacks(ollama: OllamaModels, arun: Any) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        arun(pull_all(provider(ollama), "no-such-model:7b"))
    assert "no-such-model:7b" in caught.value.message and "file does not exist" in caught.value.message
    assert caught.value.suggestions


def test_an_error_body(ollama: OllamaModels, arun: Any) -> None:
    with pytest.raises(LLMError) as caught:
        arun(pull_all(provider(ollama), "bad name!"))
    assert "invalid model name" in caught.value.message and not isinstance(caught.value, ModelNotFoundError)


def test_cancel_midway_stops_the_pull(ollama: OllamaModels, arun: Any) -> None:
    ollama.line_pause_s = 0.05
    seen: list[PullProgress] = []

    async def pull_some() -> None:
        client = ollama_client(provider(ollama))
        async with client:
            async for event in client.pull("qwen2.5:0.5b"):
                seen.append(event)

    async def run() -> None:
        task = asyncio.ensure_future(pull_some())
        while len(seen) < 3:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    arun(run())
    assert 3 <= len(seen) < 10 and not seen[-1].done
    assert "qwen2.5:0.5b" not in ollama.installed


def test_ollama_not_running(arun: Any) -> None:
    config = ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA_NATIVE, base_url="http://127.0.0.1:9")
    with pytest.raises(NetworkError) as caught:
        arun(pull_all(config, "qwen2.5:0.5b"))
    assert caught.value.suggestions
