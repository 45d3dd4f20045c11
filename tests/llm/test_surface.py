"""The LLM layer's public surface, which the agent, the window and the CLI code against,
does not drift without this test changing with it."""

from __future__ import annotations

import inspect

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm import client, connection, errors, factory, local_server


def test_public_names() -> None:
    assert set(client.__all__) == {"ChatStream", "LLMClient", "RetryPolicy", "forget_capabilities"}
    assert set(connection.__all__) >= {"ProviderOffer", "discover_providers", "list_models", "test_connection",
                                       "FIRST_START_MESSAGE"}
    assert set(factory.__all__) >= {"client_for", "resolve_provider"}
    assert callable(local_server.shared_local_server) and callable(local_server.local_available)


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
