"""The public surface of the providers, embeddings, structured generation, prompt context
and MCP modules, which the window, research and the CLI code against."""

from __future__ import annotations

import inspect

from jawad_desktop.core.config import mcp as config
from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.llm import (
    anthropic,
    bedrock,
    embeddings,
    gemini,
    ollama_native,
    responses,
    structured,
)
from jawad_desktop.core.llm import prompt_context as context
from jawad_desktop.core.llm import provider_clients as providers
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.mcp import adapter


def test_every_kind_has_a_client() -> None:
    for kind in ProviderKind:
        assert issubclass(providers.client_class(kind), LLMClient), kind
    assert providers.client_class(ProviderKind.ANTHROPIC) is anthropic.AnthropicClient
    assert providers.client_class(ProviderKind.GEMINI) is gemini.GeminiClient
    assert providers.client_class(ProviderKind.OPENAI_RESPONSES) is responses.ResponsesClient
    assert providers.client_class(ProviderKind.OLLAMA_NATIVE) is ollama_native.OllamaNativeClient
    assert providers.client_class(ProviderKind.BEDROCK) is bedrock.BedrockClient


def test_public_names() -> None:
    assert set(embeddings.__all__) >= {"Embedder", "EmbeddingResult", "EmbeddingsResult", "supports_embeddings"}
    assert set(structured.__all__) >= {"generate_structured", "StructuredOutputError", "StructuredResult"}
    assert set(context.__all__) >= {"PromptContexts", "ContextualClient", "PromptContext", "FunctionContext"}
    assert set(adapter.__all__) >= {"mcp_registry", "McpConnections", "McpRegistry"}
    assert set(config.__all__) >= {"McpServerConfig", "McpSettings", "mcp_header_key_name"}
    params = list(inspect.signature(structured.generate_structured).parameters)
    assert params[:3] == ["client", "messages", "model_cls"]
    assert inspect.iscoroutinefunction(adapter.mcp_registry)
