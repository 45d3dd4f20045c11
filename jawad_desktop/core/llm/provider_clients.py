"""Which client class speaks each provider kind's wire format.

OpenAI, OpenRouter, Ollama (its /v1 API), OpenAI-compatible servers and the built-in model
use ``LLMClient`` itself; the others subclass it, keeping its retries, timeouts,
cancellation and errors and changing only the wire format.
"""

from __future__ import annotations

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.anthropic import AnthropicClient
from jawad_desktop.core.llm.bedrock import BedrockClient
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.gemini import GeminiClient
from jawad_desktop.core.llm.ollama_native import OllamaNativeClient
from jawad_desktop.core.llm.responses import ResponsesClient
from jawad_desktop.core.store.model_facts import ModelFactsStore

__all__ = ["client_class", "facts_key", "make_client"]

_CLASSES: dict[ProviderKind, type[LLMClient]] = {
    ProviderKind.ANTHROPIC: AnthropicClient,
    ProviderKind.GEMINI: GeminiClient,
    ProviderKind.OPENAI_RESPONSES: ResponsesClient,
    ProviderKind.OLLAMA_NATIVE: OllamaNativeClient,
    ProviderKind.BEDROCK: BedrockClient,
}


def client_class(kind: ProviderKind) -> type[LLMClient]:
    return _CLASSES.get(kind, LLMClient)


def make_client(
    provider: ProviderConfig,
    api_key: str | None = None,
    network: NetworkSettings | None = None,
    bus: EventBus | None = None,
    *,
    retry: RetryPolicy | None = None,
    facts: ModelFactsStore | None = None,
) -> LLMClient:
    """The client for ``provider``'s kind (same arguments as ``LLMClient``; ``facts``: where
    what is learned about models is kept, ``ctx.model_facts``; in memory when None)."""
    return client_class(provider.kind)(provider, api_key, network, bus, retry=retry, facts=facts)


def facts_key(provider: ProviderConfig) -> tuple[str, str]:
    """The (kind, base URL) under which a client keeps what it learns about ``provider``'s
    models in a ``ModelFactsStore`` (the first two parts of ``LLMClient.model_key``): with
    ``ModelFactsStore.of_provider`` and ``forget`` it gives one saved provider's models."""
    kind, base_url, _ = make_client(provider).model_key
    return kind, base_url
