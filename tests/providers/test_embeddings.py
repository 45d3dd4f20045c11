"""Embeddings against the loopback servers (OpenAI ``/embeddings``, Gemini ``embedContent``
and ``batchEmbedContents``, Ollama ``/api/embed`` and the older ``/api/embeddings``), and
semantic search of a real conversation store with them, from the API and from ``jawad``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.embeddings import Embedder, EmbeddingsResult
from jawad_desktop.core.llm.errors import LLMError
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.semantic import SemanticIndex
from tests.llm.test_cli import jawad
from tests.servers.provider_servers import EMBED_DIMS, ProviderServer, vector

CASES = [
    (ProviderKind.OPENAI, "openai", "/openai/v1/embeddings"),
    (ProviderKind.OPENAI_RESPONSES, "openai", "/openai/v1/embeddings"),
    (ProviderKind.GEMINI, "gemini", "/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents"),
    (ProviderKind.OLLAMA_NATIVE, "ollama", "/ollama/api/embed"),
    (ProviderKind.OLLAMA, "ollama", "/ollama/api/embed"),
]


def embedder(server: ProviderServer, kind: ProviderKind, fmt: str, model: str = "") -> Embedder:
    url = server.url(fmt) + ("/v1" if kind is ProviderKind.OLLAMA else "")
    provider = ProviderConfig(name="Emb", kind=kind, base_url=url, model="chat-model", embedding_model=model)
    return Embedder(make_client(provider, "key-123", NetworkSettings(max_retries=0)))


@pytest.mark.parametrize(("kind", "fmt", "path"), CASES)
def test_single_and_batch(kind: ProviderKind, fmt: str, path: str, provider_server: ProviderServer,
                          arun: Any) -> None:
    e = embedder(provider_server, kind, fmt)

    async def run() -> tuple[Any, EmbeddingsResult]:
        async with e.client:
            return await e.embed("red apple"), await e.embed_batch(["red apple", "green pear", "blue sky"])

    one, many = arun(run())
    assert one.vector == vector("red apple") and len(one.vector) == EMBED_DIMS
    assert many.vectors == [vector("red apple"), vector("green pear"), vector("blue sky")]
    assert many.metadata["embedding_count"] == 3 and many.metadata["embedding_dims"] == EMBED_DIMS
    assert many.metadata["provider_kind"] == kind.value and many.metadata["api_calls"] == 1
    request = provider_server.last(fmt)
    assert request["path"] == path
    if kind is ProviderKind.GEMINI:
        assert request["body"]["requests"][1] == {"model": "models/gemini-embedding-001",
                                                  "content": {"parts": [{"text": "green pear"}]}}
        assert request["headers"]["x-goog-api-key"] == "key-123"
    elif fmt == "ollama":
        assert request["body"] == {"model": "nomic-embed-text", "input": ["red apple", "green pear", "blue sky"]}
    else:
        assert request["body"] == {"model": "text-embedding-3-small", "input": ["red apple", "green pear", "blue sky"]}


def test_gemini_single_uses_embed_content(provider_server: ProviderServer, arun: Any) -> None:
    e = embedder(provider_server, ProviderKind.GEMINI, "gemini", "text-embedding-004")

    async def run() -> list[float]:
        async with e.client:
            return (await e.embed("hello")).vector

    assert arun(run()) == vector("hello")
    assert provider_server.last("gemini")["path"] == "/gemini/v1beta/models/text-embedding-004:embedContent"


def test_old_ollama_falls_back_to_api_embeddings(provider_server: ProviderServer, arun: Any) -> None:
    e = embedder(provider_server, ProviderKind.OLLAMA_NATIVE, "ollama-old")

    async def run() -> tuple[EmbeddingsResult, EmbeddingsResult]:
        async with e.client:
            return await e.embed_batch(["one two", "three"]), await e.embed_batch(["four"])

    first, second = arun(run())
    assert first.vectors == [vector("one two"), vector("three")] and first.metadata["api_calls"] == 3
    assert second.metadata["api_calls"] == 1  # it remembered: no second try of /api/embed
    assert provider_server.last("ollama-old")["body"] == {"model": "nomic-embed-text", "prompt": "four"}


def test_anthropic_has_no_embeddings() -> None:
    provider = ProviderConfig(name="A", kind=ProviderKind.ANTHROPIC)
    with pytest.raises(LLMError, match="has no embeddings API") as info:
        Embedder(make_client(provider, "k"))
    assert "semantic" in info.value.user_text()


def _fill(store: ConversationStore) -> None:
    laptops = store.create("Laptops")
    store.append_messages(laptops.id, [Message(role="user", content="which laptop has the best battery life"),
                                       Message(role="assistant", content="the battery of this laptop lasts long")])
    food = store.create("Dinner")
    store.append_messages(food.id, [Message(role="user", content="a pasta recipe with tomato please"),
                                    Message(role="tool", content="laptop battery laptop battery")])


def test_semantic_index(provider_server: ProviderServer, arun: Any, tmp_path: Path) -> None:
    store = ConversationStore.open(tmp_path)
    _fill(store)
    e = embedder(provider_server, ProviderKind.OLLAMA_NATIVE, "ollama")
    index = SemanticIndex(store, batch_size=2)

    async def run() -> tuple[Any, Any, int]:
        async with e.client:
            found = await index.search(e, "laptop battery", limit=2)
            again = await index.search(e, "pasta tomato", limit=1)
            return found, again, await index.update(e)

    try:
        found, again, added_later = arun(run())
        assert [f.hit.conversation_title for f in found] == ["Laptops", "Laptops"]
        assert found[0].score >= found[1].score and found[0].score > 0.5
        assert again[0].hit.snippet == "a pasta recipe with tomato please" and again[0].hit.role == "user"
        assert added_later == 0  # everything was indexed once; tool output never is
        with store.db.read() as conn:
            assert conn.execute("SELECT count(*) FROM message_embeddings").fetchone()[0] == 3
    finally:
        store.close()


def test_history_search_semantic_cli(provider_server: ProviderServer, profile_dir: Path,
                                     secret_store: Any) -> None:
    added = jawad(profile_dir, "providers", "add", "Local", "--kind", "ollama-native",
                  "--base-url", provider_server.url("ollama"), "--model", "ok")
    assert added.returncode == 0, added.stderr
    with ConversationStore.open(profile_dir / "data") as store:
        _fill(store)
    searched = jawad(profile_dir, "history", "search", "--semantic", "pasta", "tomato", "--json")
    assert searched.returncode == 0, searched.stderr
    rows = json.loads(searched.stdout)
    assert rows[0]["title"] == "Dinner" and rows[0]["score"] > 0.5
    assert "Indexed 3 new messages" in searched.stderr
    text = jawad(profile_dir, "history", "search", "--semantic", "laptop", "battery", "--limit", "1")
    assert text.returncode == 0 and "Laptops" in text.stdout and "similarity" in text.stdout
    plain = jawad(profile_dir, "history", "search", "pasta")
    assert plain.returncode == 0 and "Dinner" in plain.stdout  # the full-text search is unchanged
