"""Each provider with its own wire format against a loopback server speaking that format:
the requests it sends, streamed and whole answers, tool calls and their results, metadata,
and errors turned into the same friendly ``LLMError`` kinds as the OpenAI-compatible client."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.errors import (
    AuthError,
    LLMError,
    ModelNotFoundError,
    NetworkError,
    RateLimitedError,
    ServerError,
)
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from tests.servers.provider_servers import ANSWER, WORDS, ProviderServer, weather_answer

TOOLS: list[dict[str, Any]] = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}}]
HELLO = [Message(role="system", content="Be brief."), Message(role="user", content="Hello?")]
KINDS = {
    ProviderKind.ANTHROPIC: "anthropic",
    ProviderKind.GEMINI: "gemini",
    ProviderKind.OPENAI_RESPONSES: "openai",
    ProviderKind.OLLAMA_NATIVE: "ollama",
}
ALL = list(KINDS)


def client(server: ProviderServer, kind: ProviderKind, model: str = "ok", *, reasoning: str = "",
           retries: int = 0) -> LLMClient:
    provider = ProviderConfig(name="Loop", kind=kind, base_url=server.url(KINDS[kind]), model=model,
                              reasoning=reasoning)
    network = NetworkSettings(connect_timeout_s=5, read_timeout_s=10, total_timeout_s=30, max_retries=retries)
    return make_client(provider, "key-123", network, retry=RetryPolicy(max_retries=retries, base_delay_s=0.01))


async def _stream(c: LLMClient, messages: list[Message], tools: list[dict[str, Any]] | None = None
                  ) -> tuple[list[str], ChatResponse]:
    texts: list[str] = []
    async with c, c.chat(messages, tools) as stream:
        async for delta in stream:
            if delta.text:
                texts.append(delta.text)
        return texts, await stream.response()


@pytest.mark.parametrize("kind", ALL)
def test_streamed_text_and_metadata(kind: ProviderKind, provider_server: ProviderServer, arun: Any) -> None:
    texts, response = arun(_stream(client(provider_server, kind), HELLO))
    assert "".join(texts) == ANSWER and len(texts) >= len(WORDS) - 1  # it really streamed
    assert response.content == ANSWER and response.finish_reason == "stop" and not response.tool_calls
    meta = response.metadata
    assert meta["provider"] == "Loop" and meta["provider_kind"] == kind.value and meta["model"] == "ok"
    assert meta["api_calls"] == 1 and meta["latency_ms"] is not None
    assert isinstance(meta["input_tokens"], int) and isinstance(meta["output_tokens"], int)
    assert meta["total_tokens"] == meta["input_tokens"] + meta["output_tokens"] or kind is ProviderKind.GEMINI


@pytest.mark.parametrize("kind", ALL)
def test_unstreamed_text(kind: ProviderKind, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> ChatResponse:
        async with client(provider_server, kind) as c:
            return await c.chat(HELLO, stream=False).response()

    response = arun(run())
    assert response.content == ANSWER and response.metadata["api_calls"] == 1


def test_anthropic_request(provider_server: ProviderServer, arun: Any) -> None:
    arun(_stream(client(provider_server, ProviderKind.ANTHROPIC, reasoning="low"), HELLO, TOOLS))
    request = provider_server.last("anthropic")
    assert request["path"] == "/anthropic/v1/messages"
    assert request["headers"]["x-api-key"] == "key-123" and "authorization" not in {
        k.lower() for k in request["headers"]}
    assert request["headers"]["anthropic-version"] == "2023-06-01"
    body = request["body"]
    assert body["system"] == "Be brief." and body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello?"}]}]
    assert body["stream"] is True and body["max_tokens"] > 1024
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024} and "temperature" not in body
    assert body["tools"][0]["name"] == "get_weather" and body["tools"][0]["input_schema"]["required"] == ["city"]


def test_gemini_request(provider_server: ProviderServer, arun: Any) -> None:
    arun(_stream(client(provider_server, ProviderKind.GEMINI, "tool", reasoning="none"), HELLO, TOOLS))
    request = provider_server.last("gemini")
    assert request["path"] == "/gemini/v1beta/models/tool:streamGenerateContent?alt=sse"
    assert request["headers"]["x-goog-api-key"] == "key-123"
    body = request["body"]
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Hello?"}]}]
    assert body["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 0}
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather" and declaration["parameters"]["properties"] == {
        "city": {"type": "string"}}
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}


def test_responses_request_is_stateless(provider_server: ProviderServer, arun: Any) -> None:
    arun(_stream(client(provider_server, ProviderKind.OPENAI_RESPONSES, reasoning="high"), HELLO, TOOLS))
    request = provider_server.last("openai")
    assert request["path"] == "/openai/v1/responses" and request["headers"]["authorization"] == "Bearer key-123"
    body = request["body"]
    assert body["store"] is False and "previous_response_id" not in body
    assert body["input"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]
    assert body["reasoning"] == {"effort": "high"} and "temperature" not in body
    assert body["tools"][0] == {"type": "function", "name": "get_weather", "description": "The weather in a city",
                                "parameters": TOOLS[0]["function"]["parameters"], "strict": False}


def test_ollama_request(provider_server: ProviderServer, arun: Any) -> None:
    arun(_stream(client(provider_server, ProviderKind.OLLAMA_NATIVE, reasoning="medium"), HELLO, TOOLS))
    request = provider_server.last("ollama")
    assert request["path"] == "/ollama/api/chat"
    body = request["body"]
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]
    assert body["think"] is True and body["options"]["num_predict"] == 4096 and body["stream"] is True
    assert body["tools"] == TOOLS


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("kind", ALL)
def test_tool_call_round_trip(kind: ProviderKind, stream: bool, provider_server: ProviderServer, arun: Any) -> None:
    """The model asks for a tool; the result goes back in the provider's own shape and the
    model answers from it: the stateless loop the agent runs."""

    async def run() -> tuple[ChatResponse, ChatResponse]:
        async with client(provider_server, kind, "tool") as c:
            first = await c.chat(HELLO, TOOLS, stream=stream).response()
            history = [*HELLO, first.to_message(),
                       Message(role="tool", content="sunny, 21 C", tool_call_id=first.tool_calls[0].id)]
            second = await c.chat(history, TOOLS, stream=stream).response()
            return first, second

    first, second = arun(run())
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert first.finish_reason == "tool_calls" and first.tool_calls[0].id
    assert second.content == weather_answer("sunny, 21 C") and not second.tool_calls
    body = provider_server.last(KINDS[kind])["body"]
    if kind is ProviderKind.ANTHROPIC:
        assert body["messages"][-2]["content"][-1] == {"type": "tool_use", "id": "toolu_01", "name": "get_weather",
                                                        "input": {"city": "Paris"}}
        assert body["messages"][-1] == {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny, 21 C"}]}
    elif kind is ProviderKind.GEMINI:
        assert body["contents"][-2]["role"] == "model"
        assert {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}} in body["contents"][-2]["parts"]
        assert body["contents"][-1] == {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"result": "sunny, 21 C"}}}]}
    elif kind is ProviderKind.OPENAI_RESPONSES:
        assert body["input"][-2:] == [
            {"type": "function_call", "call_id": "call_abc", "name": "get_weather", "arguments": '{"city": "Paris"}'},
            {"type": "function_call_output", "call_id": "call_abc", "output": "sunny, 21 C"}]
    else:
        assert body["messages"][-2]["tool_calls"] == [{"function": {"name": "get_weather",
                                                                    "arguments": {"city": "Paris"}}}]
        assert body["messages"][-1] == {"role": "tool", "content": "sunny, 21 C", "tool_name": "get_weather"}


@pytest.mark.parametrize("stream", [True, False])
def test_ollama_prefixed_tool_name(stream: bool, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> ChatResponse:
        async with client(provider_server, ProviderKind.OLLAMA_NATIVE, "prefixed") as c:
            return await c.chat(HELLO, TOOLS, stream=stream).response()

    assert [c.name for c in arun(run()).tool_calls] == ["get_weather"]


ERRORS = [
    (ProviderKind.ANTHROPIC, "status-401", AuthError, "Invalid API key"),
    (ProviderKind.ANTHROPIC, "status-404", ModelNotFoundError, "Model not found"),
    (ProviderKind.ANTHROPIC, "status-429", RateLimitedError, "Rate limited"),
    (ProviderKind.ANTHROPIC, "status-529", ServerError, "Overloaded"),
    (ProviderKind.GEMINI, "status-400", AuthError, "API key not valid"),
    (ProviderKind.GEMINI, "status-404", ModelNotFoundError, "is not found"),
    (ProviderKind.GEMINI, "status-429", RateLimitedError, "Resource has been exhausted"),
    (ProviderKind.GEMINI, "status-503", ServerError, "overloaded"),
    (ProviderKind.OPENAI_RESPONSES, "status-401", AuthError, "Incorrect API key"),
    (ProviderKind.OPENAI_RESPONSES, "status-404", ModelNotFoundError, "does not exist"),
    (ProviderKind.OPENAI_RESPONSES, "status-500", ServerError, "server had an error"),
    (ProviderKind.OLLAMA_NATIVE, "status-404", ModelNotFoundError, "ollama pull status-404"),
    (ProviderKind.OLLAMA_NATIVE, "status-500", ServerError, "llama runner"),
]


@pytest.mark.parametrize(("kind", "model", "error", "words"), ERRORS)
def test_errors_are_friendly(kind: ProviderKind, model: str, error: type[LLMError], words: str,
                             provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> LLMError:
        try:
            await _stream(client(provider_server, kind, model), HELLO)
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert type(exc) is error, exc.user_text()
    assert words in exc.user_text() and exc.suggestions


@pytest.mark.parametrize("kind", ALL)
def test_error_inside_the_stream_keeps_the_partial_text(kind: ProviderKind, provider_server: ProviderServer,
                                                        arun: Any) -> None:
    async def run() -> LLMError:
        try:
            await _stream(client(provider_server, kind, "stream-error", retries=2), HELLO)
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert isinstance(exc, (ServerError, LLMError)) and exc.partial is not None
    assert exc.partial.content.startswith("Hello") and exc.partial.interrupted


@pytest.mark.parametrize("kind", ALL)
def test_unreachable_server(kind: ProviderKind, arun: Any) -> None:
    provider = ProviderConfig(name="Gone", kind=kind, base_url="http://127.0.0.1:9/v1", model="m")

    async def run() -> LLMError:
        try:
            async with make_client(provider, "k", NetworkSettings(max_retries=0)) as c:
                await c.chat(HELLO).response()
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert isinstance(exc, NetworkError) and "reach" in exc.message


@pytest.mark.parametrize(("kind", "names"), [
    (ProviderKind.GEMINI, ["gemini-2.5-flash"]),
    (ProviderKind.ANTHROPIC, ["claude-sonnet-4-5"]),
    (ProviderKind.OLLAMA_NATIVE, ["llama3.2:3b", "qwen2.5:7b"]),
])
def test_list_models(kind: ProviderKind, names: list[str], provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> list[str]:
        async with client(provider_server, kind) as c:
            return await c.list_models()

    assert arun(run()) == names


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_thinking_blocks_go_back_with_the_tool_calls(stream: bool, provider_server: ProviderServer,
                                                               arun: Any) -> None:
    """With thinking on, the signed thinking block before a tool call must come back verbatim
    in the next request (the API refuses it otherwise); the agent's messages never carry it."""
    from tests.servers.provider_servers import THOUGHT

    async def run() -> tuple[ChatResponse, ChatResponse, dict[str, Any]]:
        async with client(provider_server, ProviderKind.ANTHROPIC, "think", reasoning="medium") as c:
            first = await c.chat(HELLO, TOOLS, stream=stream).response()
            # The message as the agent rebuilds it: content and calls only.
            again = Message(role="assistant", content=first.content, tool_calls=list(first.tool_calls))
            history = [*HELLO, again, Message(role="tool", content="rainy", tool_call_id=first.tool_calls[0].id)]
            second = await c.chat(history, TOOLS, stream=stream).response()
            return first, second, provider_server.last("anthropic")["body"]

    first, second, body = arun(run())
    assert first.content == "Let me check." and first.tool_calls[0].name == "get_weather"
    assert second.content == weather_answer("rainy")
    assert body["messages"][1]["content"][0] == THOUGHT and body["thinking"]["type"] == "enabled"


def test_anthropic_thinking_off_when_it_cannot_be_on(provider_server: ProviderServer, arun: Any) -> None:
    """A forced tool, or a tool loop whose thinking blocks are unknown (a reopened
    conversation, another client), runs without thinking instead of failing."""

    async def run() -> tuple[ChatResponse, dict[str, Any], ChatResponse, dict[str, Any]]:
        async with client(provider_server, ProviderKind.ANTHROPIC, "think", reasoning="high") as c:
            forced = await c.chat(HELLO, TOOLS, tool_choice={"type": "function", "function": {"name": "get_weather"}},
                                  stream=False).response()
            forced_body = provider_server.last("anthropic")["body"]
        async with client(provider_server, ProviderKind.ANTHROPIC, "think", reasoning="high") as other:
            history = [*HELLO, forced.to_message(),
                       Message(role="tool", content="foggy", tool_call_id=forced.tool_calls[0].id)]
            answer = await other.chat(history, TOOLS).response()
            return forced, forced_body, answer, provider_server.last("anthropic")["body"]

    forced, forced_body, answer, body = arun(run())
    assert "thinking" not in forced_body and forced_body["tool_choice"] == {"type": "tool", "name": "get_weather"}
    assert forced.tool_calls and answer.content == weather_answer("foggy") and "thinking" not in body


@pytest.mark.parametrize("stream", [True, False])
def test_gemini_thought_signatures_go_back_with_the_calls(stream: bool, provider_server: ProviderServer,
                                                          arun: Any) -> None:
    from tests.servers.provider_servers import GEMINI_SIGNATURE

    async def run() -> tuple[ChatResponse, dict[str, Any]]:
        async with client(provider_server, ProviderKind.GEMINI, "think") as c:
            first = await c.chat(HELLO, TOOLS, stream=stream).response()
            again = Message(role="assistant", content=first.content, tool_calls=list(first.tool_calls))
            history = [*HELLO, again, Message(role="tool", content="windy", tool_call_id=first.tool_calls[0].id)]
            second = await c.chat(history, TOOLS, stream=stream).response()
            return second, provider_server.last("gemini")["body"]

    second, body = arun(run())
    assert second.content == weather_answer("windy")
    call_part = next(p for p in body["contents"][-2]["parts"] if "functionCall" in p)
    assert call_part["thoughtSignature"] == GEMINI_SIGNATURE
