"""The LLM layer's public surface, which the agent, the window and the CLI code against,
does not drift without this test changing with it."""

from __future__ import annotations

import inspect

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm import (
    anthropic,
    bedrock,
    chat_api,
    client,
    connection,
    discovery,
    errors,
    factory,
    gemini,
    local_server,
    ollama_native,
    responses,
)

# What a provider with another API overrides in its LLMClient subclass (core.llm.chat_api).
CHAT_API_HOOKS = {"accumulator", "chat_path", "chat_url", "request_headers", "http_client", "request_body",
                  "stream_events", "status_error", "response_for", "supports_schema", "list_models"}


def test_public_names() -> None:
    assert set(client.__all__) == {"ChatStream", "LLMClient", "RetryPolicy", "forget_capabilities"}
    assert set(connection.__all__) >= {"list_models", "test_connection", "FIRST_START_MESSAGE"}
    assert set(discovery.__all__) >= {"ProviderOffer", "discover_providers", "local_model_offer"}
    assert set(factory.__all__) >= {"client_for", "resolve_provider"}
    assert callable(local_server.shared_local_server) and callable(local_server.local_available)


def test_provider_clients_speak_through_the_public_chat_api_only() -> None:
    assert set(chat_api.__all__) == {"ChatCall"}
    for module, cls in ((anthropic, anthropic.AnthropicClient), (bedrock, bedrock.BedrockClient),
                        (gemini, gemini.GeminiClient), (ollama_native, ollama_native.OllamaNativeClient),
                        (responses, responses.ResponsesClient)):
        overridden = {name for name in vars(cls) if not name.startswith("__") and hasattr(client.LLMClient, name)}
        assert overridden and overridden <= CHAT_API_HOOKS, (cls.__name__, overridden - CHAT_API_HOOKS)
        source = inspect.getsource(module)
        imported = [line for line in source.splitlines() if line.startswith("from jawad_desktop.core.llm.client ")]
        assert all("import _" not in line and ", _" not in line for line in imported), (module.__name__, imported)


def test_chat_signature() -> None:
    params = inspect.signature(client.LLMClient.chat).parameters
    assert list(params) == ["self", "messages", "tools", "stream", "temperature", "max_tokens", "tool_choice"]
    assert params["stream"].default is True and params["max_tokens"].default == 4096
    for name in ("response", "cancel", "aclose", "__aiter__", "__anext__", "__aenter__", "__aexit__"):
        assert hasattr(client.ChatStream, name), name
    for name in ("list_models", "aclose", "__aenter__", "__aexit__"):
        assert hasattr(client.LLMClient, name), name


def test_error_hierarchy() -> None:
    for name in ("AuthError", "RateLimitedError", "ModelNotFoundError", "BadRequestError", "ServerError",
                 "NetworkError", "LLMTimeoutError", "ProtocolError", "CancelledRequest"):
        cls = getattr(errors, name)
        assert issubclass(cls, errors.LLMError) and issubclass(cls, JawadError), name
    assert errors.RateLimitedError("x", retry_after=3).retry_after == 3
    assert errors.NetworkError.retryable and not errors.AuthError.retryable
