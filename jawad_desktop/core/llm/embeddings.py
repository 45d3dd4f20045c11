"""Embeddings (spec 003), single and batch, for the providers that have them: OpenAI and
OpenAI-compatible servers (``/embeddings``), Gemini (``embedContent`` and
``batchEmbedContents``) and Ollama (``/api/embed``, falling back to the older
``/api/embeddings`` one text at a time). Requests go through the provider's ``LLMClient``
connection, so timeouts, proxy, CA bundle and friendly errors are the chat's.

Usage::

    async with make_client(provider, key, network) as client:
        embedder = Embedder(client)                     # the provider's embedding model
        one = await embedder.embed("hello")             # EmbeddingResult: vector, metadata
        many = await embedder.embed_batch(["a", "b"])   # EmbeddingsResult: vectors, metadata
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.errors import LLMError, ModelNotFoundError, ProtocolError
from jawad_desktop.core.llm.formats import obj

log = logging.getLogger("jawad.llm.embeddings")

__all__ = ["DEFAULT_EMBEDDING_MODELS", "Embedder", "EmbeddingResult", "EmbeddingsResult", "supports_embeddings"]

DEFAULT_EMBEDDING_MODELS: dict[ProviderKind, str] = {
    ProviderKind.OPENAI: "text-embedding-3-small",
    ProviderKind.OPENAI_RESPONSES: "text-embedding-3-small",
    ProviderKind.OPENROUTER: "openai/text-embedding-3-small",
    ProviderKind.GEMINI: "gemini-embedding-001",
    ProviderKind.OLLAMA: "nomic-embed-text",
    ProviderKind.OLLAMA_NATIVE: "nomic-embed-text",
}
_NO_EMBEDDINGS = (ProviderKind.ANTHROPIC, ProviderKind.BEDROCK)  # spec 003: Bedrock has none here


def supports_embeddings(kind: ProviderKind) -> bool:
    return kind not in _NO_EMBEDDINGS


@dataclass
class EmbeddingResult:
    vector: list[float]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class EmbeddingsResult:
    vectors: list[list[float]]
    metadata: dict[str, Any] = field(default_factory=dict)


class Embedder:
    """Embeds text with ``client``'s provider. ``model`` defaults to the provider's
    ``embedding_model`` setting, else a common model of its kind."""

    def __init__(self, client: LLMClient, model: str = "", *, dimensions: int | None = None) -> None:
        kind = client.provider.kind
        if not supports_embeddings(kind):
            raise LLMError(
                f"{kind.label} has no embeddings API, so it cannot index conversations for semantic search.",
                suggestions=["Choose an OpenAI, Gemini or Ollama provider for semantic search."])
        self.client = client
        self.kind = kind
        self.model = model or client.provider.embedding_model or DEFAULT_EMBEDDING_MODELS.get(kind, "")
        if not self.model:
            raise LLMError(f"No embedding model is set for {client.provider.name!r}.",
                           suggestions=[f"Set the embedding model of {client.provider.name!r}."],
                           remedy=Remedy("provider", client.provider.name))
        self.dimensions = dimensions
        self._old_ollama = False  # learned: this Ollama has only /api/embeddings

    @property
    def key(self) -> str:
        """What the vectors are comparable under: kind, model and dimensions."""
        return f"{self.kind.value}:{self.model}" + (f":{self.dimensions}" if self.dimensions else "")

    async def embed(self, text: str) -> EmbeddingResult:
        result = await self.embed_batch([text])
        return EmbeddingResult(result.vectors[0], result.metadata)

    async def embed_batch(self, texts: list[str]) -> EmbeddingsResult:
        if not texts:
            return EmbeddingsResult([], self._metadata(0.0, 0, [], None))
        started = time.monotonic()
        calls = 1
        tokens: int | None = None
        base = self.client.base_url
        if self.kind in (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE):
            root = base[: -len("/v1")] if base.endswith("/v1") else base
            vectors, calls = await self._ollama(root, texts)
        elif self.kind is ProviderKind.GEMINI:
            model = self.model if self.model.startswith("models/") else f"models/{self.model}"
            extra: dict[str, Any] = {"outputDimensionality": self.dimensions} if self.dimensions else {}
            if len(texts) == 1:
                data = await self.client.post_json(f"{base}/{model}:embedContent",
                                                   {"content": {"parts": [{"text": texts[0]}]}, **extra})
                vectors = [self._floats(obj(data.get("embedding")).get("values"))]
            else:
                data = await self.client.post_json(f"{base}/{model}:batchEmbedContents", {"requests": [
                    {"model": model, "content": {"parts": [{"text": t}]}, **extra} for t in texts]})
                vectors = [self._floats(obj(e).get("values")) for e in obj(data).get("embeddings") or []]
        else:
            body: dict[str, Any] = {"model": self.model, "input": texts}
            if self.dimensions:
                body["dimensions"] = self.dimensions
            data = obj(await self.client.post_json(f"{base}/embeddings", body))
            items = sorted((obj(i) for i in data.get("data") or []), key=lambda i: i.get("index", 0))
            vectors = [self._floats(i.get("embedding")) for i in items]
            usage = obj(data.get("usage"))
            tokens = usage.get("prompt_tokens") if isinstance(usage.get("prompt_tokens"), int) else None
        if len(vectors) != len(texts):
            raise ProtocolError(f"{self.kind.label} returned {len(vectors)} embeddings for {len(texts)} texts.",
                                suggestions=["Try again.", f"Check that {self.model!r} is an embedding model."])
        return EmbeddingsResult(vectors, self._metadata(started, calls, vectors, tokens))

    async def _ollama(self, root: str, texts: list[str]) -> tuple[list[list[float]], int]:
        tried = 0
        if not self._old_ollama:
            tried = 1
            try:
                data = obj(await self.client.post_json(f"{root}/api/embed", {"model": self.model, "input": texts}))
                return [self._floats(v) for v in data.get("embeddings") or []], 1
            except ModelNotFoundError as exc:
                if "model" in exc.detail.lower():
                    raise  # the model is missing, not the endpoint
                log.info("Ollama at %s has no /api/embed; using /api/embeddings", root)
                self._old_ollama = True
        vectors = []
        for text in texts:
            data = obj(await self.client.post_json(f"{root}/api/embeddings", {"model": self.model, "prompt": text}))
            vectors.append(self._floats(data.get("embedding")))
        return vectors, len(texts) + tried

    def _floats(self, values: Any) -> list[float]:
        if not isinstance(values, list) or not values or not all(isinstance(v, (int, float)) for v in values):
            raise ProtocolError(f"{self.kind.label} sent an embedding that is not a list of numbers.",
                                suggestions=[f"Check that {self.model!r} is an embedding model."])
        return [float(v) for v in values]

    def _metadata(self, started: float, calls: int, vectors: list[list[float]], tokens: int | None) -> dict[str, Any]:
        return {
            "provider": self.client.provider.name, "provider_kind": self.kind.value, "model": self.model,
            "latency_ms": round((time.monotonic() - started) * 1000, 1) if started else 0.0,
            "api_calls": calls, "embedding_count": len(vectors),
            "embedding_dims": len(vectors[0]) if vectors else 0, "input_tokens": tokens,
        }
