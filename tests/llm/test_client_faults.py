"""The client against a real faulty OpenAI-compatible server on loopback: every fault ends
in the right answer or the right friendly error, within its time bound, and none crashes."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import Event, EventBus, RetryNotice
from jawad_desktop.core.llm.client import ChatStream, LLMClient, RetryPolicy
from jawad_desktop.core.llm.errors import (
    AuthError,
    BadRequestError,
    LLMError,
    LLMTimeoutError,
    ModelNotFoundError,
    NetworkError,
    ProtocolError,
    RateLimitedError,
    ServerError,
    ToolsRejectedError,
    WebPageError,
    classify_status,
    classify_transport,
    web_page_instead,
)
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.messages import Message, ToolCall
from tests.servers.fault_server import ANSWER, MODELS, OLLAMA_MODELS, FaultServer

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}}]
HELLO = [Message(role="user", content="Hello?")]


def make_client(
    base_url: str, model: str = "ok", *, kind: ProviderKind = ProviderKind.OPENAI_COMPATIBLE,
    retries: int = 3, read_timeout: float = 10.0, total_timeout: float = 60.0, bus: EventBus | None = None,
    api_key: str | None = "sk-test-1234567890",
) -> LLMClient:
    provider = ProviderConfig(name="Fault", kind=kind, base_url=base_url, model=model)
    network = NetworkSettings(connect_timeout_s=5, read_timeout_s=read_timeout, total_timeout_s=total_timeout,
                              max_retries=retries)
    return LLMClient(provider, api_key, network, bus, retry=RetryPolicy(max_retries=retries, base_delay_s=0.05))


async def collect(stream: ChatStream) -> tuple[list[StreamDelta], ChatResponse]:
    deltas = [delta async for delta in stream]
    return deltas, await stream.response()


async def chat(client: LLMClient, *args: Any, **kwargs: Any) -> tuple[list[StreamDelta], ChatResponse]:
    async with client:
        return await collect(client.chat(*args, **kwargs))


async def failure(client: LLMClient, *args: Any, **kwargs: Any) -> LLMError:
    try:
        await chat(client, *args, **kwargs)
    except LLMError as exc:
        return exc
    raise AssertionError("the request did not fail")


def posts(server: FaultServer, marker: str) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["method"] == "POST" and marker in (r["body"] or {}).get("model", "")
            + r["path"]]


# -- answers ---------------------------------------------------------------------------------

def test_streamed_answer_with_usage_in_last_chunk(fault_server: FaultServer, arun: Any) -> None:
    deltas, response = arun(chat(make_client(fault_server.base_url, kind=ProviderKind.OPENAI), HELLO))
    assert "".join(d.text for d in deltas) == ANSWER == response.content
    assert len(deltas) >= 6  # streamed, not one block
    assert response.finish_reason == "stop" and not response.interrupted
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens) == (7, 6, 13)
    meta = response.metadata
    for key in ("provider", "model", "latency_ms", "time_to_first_token_ms", "input_tokens", "output_tokens",
                "total_tokens", "api_calls", "retries", "response_id", "finish_reason"):
        assert key in meta, key
    assert meta["api_calls"] == 1 and meta["retries"] == 0 and meta["response_id"] == "chatcmpl-fault"
    assert 0 <= meta["time_to_first_token_ms"] <= meta["latency_ms"]


def test_plain_answer_and_no_usage(fault_server: FaultServer, arun: Any) -> None:
    deltas, response = arun(chat(make_client(fault_server.base_url), HELLO, stream=False))
    assert [d.text for d in deltas] == [ANSWER] and response.content == ANSWER
    assert response.usage.total_tokens == 13
    _, response = arun(chat(make_client(fault_server.base_url, "no-usage"), HELLO))
    assert response.content == ANSWER and response.usage.total_tokens is None
    assert response.metadata["input_tokens"] is None


@pytest.mark.parametrize("scenario, expected", [
    ("garbage-sse", "Hello world!"),  # comments, pings, non-JSON data, odd shapes, CRLF
    ("split-sse", ANSWER),  # events split across 7-byte network chunks
    ("no-done", ANSWER),  # no [DONE]
    ("partial-sse", ANSWER),  # the last event cut off
])
def test_quirky_streams_still_give_the_answer(fault_server: FaultServer, arun: Any, scenario: str,
                                              expected: str) -> None:
    deltas, response = arun(chat(make_client(fault_server.base_url, scenario), HELLO))
    assert response.content == expected == "".join(d.text for d in deltas)


def test_very_large_answers(fault_server: FaultServer, arun: Any) -> None:
    _, response = arun(chat(make_client(fault_server.base_url, "large"), HELLO, stream=False), timeout=60)
    assert len(response.content) > 1_000_000 and response.content.endswith(" w199999")
    deltas, response = arun(chat(make_client(fault_server.base_url, "words-20000"), HELLO), timeout=60)
    assert len(deltas) == 20_000 and response.content.endswith(" w19999")


def test_openrouter_headers_and_key(fault_server: FaultServer, arun: Any) -> None:
    arun(chat(make_client(fault_server.scenario_url("ok-openrouter"), kind=ProviderKind.OPENROUTER), HELLO))
    headers = posts(fault_server, "ok-openrouter")[-1]["headers"]
    assert headers["Authorization"] == "Bearer sk-test-1234567890"
    assert headers["X-Title"] == "Jawad Desktop" and headers["HTTP-Referer"].startswith("https://")


def test_tool_call_history_is_sent_without_null_content(fault_server: FaultServer, arun: Any) -> None:
    history = [*HELLO,
               Message(role="assistant", content="", tool_calls=[ToolCall("call_1", "get_weather", {"city": "P"})]),
               Message(role="tool", content="sunny", tool_call_id="call_1", name="get_weather")]
    _, response = arun(chat(make_client(fault_server.base_url), history))
    assert response.content == ANSWER


# -- tool calls --------------------------------------------------------------------------------

@pytest.mark.parametrize("stream", [True, False])
def test_tool_calls_that_repeat_id_and_name(fault_server: FaultServer, arun: Any, stream: bool) -> None:
    deltas, response = arun(chat(make_client(fault_server.base_url, "tool-repeat"), HELLO, TOOLS,
                                 stream=stream, tool_choice="auto"))
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("call_r", "get_weather", {"city": "Paris"})
    assert response.finish_reason == "tool_calls"
    names = [f.name for d in deltas for f in d.tool_calls if f.name]
    assert names == ["get_weather"]


@pytest.mark.parametrize("stream", [True, False])
def test_tool_calls_without_id_type_or_index(fault_server: FaultServer, arun: Any, stream: bool) -> None:
    _, response = arun(chat(make_client(fault_server.base_url, "tool-noid"), HELLO, TOOLS, stream=stream))
    [call] = response.tool_calls
    assert call.name == "get_weather" and call.arguments == {"city": "Paris"} and call.id.startswith("call_")


def test_empty_stream_with_tools_falls_back_to_a_plain_request_and_remembers(
    fault_server: FaultServer, arun: Any
) -> None:
    client = make_client(fault_server.base_url, "empty-200@once")

    async def twice() -> tuple[ChatResponse, ChatResponse]:
        async with client:
            first = await client.chat(HELLO, TOOLS, tool_choice="auto").response()
            second = await client.chat(HELLO, TOOLS, tool_choice="auto").response()
            return first, second

    first, second = arun(twice())
    assert first.tool_calls[0].arguments == {"city": "Paris"} and first.metadata["api_calls"] == 2
    assert second.tool_calls[0].name == "get_weather" and second.metadata["api_calls"] == 1
    sent = [r["body"]["stream"] for r in posts(fault_server, "empty-200@once")]
    assert sent == [True, False, False]


@pytest.mark.parametrize("scenario", ["tools-400-openai", "tools-400-openrouter", "tools-400-ollama", "tools-422",
                                      "tools-404-openrouter"])
def test_tools_rejection_is_reported_not_retried_blind_and_remembered(
    fault_server: FaultServer, arun: Any, scenario: str
) -> None:
    """A provider's rejection of ``tools`` comes back as ``ToolsRejectedError`` (the agent asks
    again in its text format, the tools described in the prompt); a second call with tools is
    refused at once without a request; a call without tools is answered."""
    client = make_client(fault_server.base_url, scenario)

    async def three() -> tuple[list[ToolsRejectedError], ChatResponse]:
        refused: list[ToolsRejectedError] = []
        async with client:
            for _ in range(2):
                try:
                    await client.chat(HELLO, TOOLS, tool_choice="auto").response()
                except ToolsRejectedError as exc:
                    refused.append(exc)
            return refused, await client.chat(HELLO).response()

    before = len(posts(fault_server, scenario))
    refused, plain = arun(three())
    assert len(refused) == 2 and all(e.remedy is not None and e.remedy.place == "provider-model" for e in refused)
    assert "does not accept tools" in refused[0].message and refused[0].detail
    assert plain.content == ANSWER
    bodies = [r["body"] for r in posts(fault_server, scenario)[before:]]
    assert len(bodies) == 2  # the second call with tools sent nothing
    assert "tools" in bodies[0] and "tool_choice" in bodies[0]
    assert "tools" not in bodies[1] and "tool_choice" not in bodies[1]


# -- friendly errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario, kind, error_type, words", [
    ("status-401", ProviderKind.OPENAI, AuthError, "Invalid API key"),
    ("status-403-openrouter", ProviderKind.OPENROUTER, AuthError, "add credits at openrouter.ai"),
    ("status-403", ProviderKind.OPENAI, AuthError, "check platform.openai.com"),
    ("status-404", ProviderKind.OPENAI, ModelNotFoundError, "Model not found"),
    ("status-404-ollama", ProviderKind.OLLAMA, ModelNotFoundError, "ollama pull status-404-ollama"),
    ("validation-500", ProviderKind.OPENAI_COMPATIBLE, BadRequestError, "rejected the request"),
])
def test_errors_that_are_never_retried(fault_server: FaultServer, arun: Any, scenario: str,
                                       kind: ProviderKind, error_type: type[LLMError], words: str) -> None:
    bus = EventBus()
    seen: list[Event] = []
    bus.subscribe(seen.append)
    before = len(posts(fault_server, scenario))
    error = arun(failure(make_client(fault_server.base_url, scenario, kind=kind, bus=bus), HELLO))
    assert type(error) is error_type
    assert words in error.user_text() and error.suggestions
    assert len(posts(fault_server, scenario)) - before == 1 and not seen
    assert "sk-test-1234567890" not in error.user_text()


@pytest.mark.parametrize("scenario, error_type, words", [
    ("status-500", ServerError, "Server error"),
    ("status-502", ServerError, "may be down (502)"),
    ("status-503", ServerError, "overloaded"),
    ("malformed-json", ProtocolError, "could not be read"),
])
@pytest.mark.parametrize("stream", [True, False])
def test_errors_retried_a_bounded_number_of_times(fault_server: FaultServer, arun: Any, scenario: str,
                                                  error_type: type[LLMError], words: str, stream: bool) -> None:
    bus = EventBus()
    notices: list[Event] = []
    bus.subscribe(notices.append)
    key = f"{scenario}@{stream}"
    error = arun(failure(make_client(fault_server.base_url, key, retries=2, bus=bus), HELLO, stream=stream))
    assert type(error) is error_type and words in error.user_text()
    assert len(posts(fault_server, key)) == 3  # the first try and two retries
    assert [n.attempt for n in notices if isinstance(n, RetryNotice)] == [1, 2]


def test_rate_limit_honours_retry_after(fault_server: FaultServer, arun: Any) -> None:
    bus = EventBus()
    notices: list[Event] = []
    bus.subscribe(notices.append)
    started = time.monotonic()
    _, response = arun(chat(make_client(fault_server.base_url, "flaky-429-1@a", bus=bus), HELLO))
    elapsed = time.monotonic() - started
    assert response.content == ANSWER and response.metadata["retries"] == 1
    assert elapsed >= 0.95  # Retry-After: 1
    assert isinstance(notices[0], RetryNotice) and notices[0].delay_s == 1.0
    error = arun(failure(make_client(fault_server.base_url, "status-429", retries=0), HELLO))
    assert isinstance(error, RateLimitedError) and error.retry_after == 1.0
    assert "Rate limited — wait and try again" in error.message


@pytest.mark.parametrize("scenario", ["flaky-500-2", "flaky-503-1", "flaky-malformed-2", "flaky-reset-1"])
def test_transient_failures_recover(fault_server: FaultServer, arun: Any, scenario: str) -> None:
    _, response = arun(chat(make_client(fault_server.base_url, f"{scenario}@r"), HELLO))
    assert response.content == ANSWER and response.metadata["retries"] >= 1


def test_a_base_url_without_the_api_says_so(fault_server: FaultServer, arun: Any) -> None:
    error = arun(failure(make_client(fault_server.root), HELLO))  # the API is under /v1
    assert isinstance(error, ModelNotFoundError)
    assert error.message.startswith(f"Nothing answers at {fault_server.root}/chat/completions (404)")
    assert "/v1" in error.suggestions[0]


def test_connection_refused_names_the_server(arun: Any) -> None:
    port = free_port()
    started = time.monotonic()
    error = arun(failure(make_client(f"http://127.0.0.1:{port}/v1", kind=ProviderKind.OLLAMA, retries=1), HELLO))
    assert isinstance(error, NetworkError)
    assert error.message == (f"Can't reach Ollama at http://127.0.0.1:{port}: is it running? "
                             "Start it with `ollama serve`.")
    assert time.monotonic() - started < 5
    error = arun(failure(make_client(f"http://127.0.0.1:{port}/v1", retries=0), HELLO))
    assert f"127.0.0.1:{port}" in error.message and "Can't reach" in error.message


def test_unknown_host_says_the_name_does_not_resolve(arun: Any) -> None:
    error = arun(failure(make_client("http://no-such-host.invalid/v1", retries=0), HELLO))
    assert isinstance(error, NetworkError) and "does not resolve" in error.message


def test_reset_mid_stream_keeps_the_partial_text(fault_server: FaultServer, arun: Any) -> None:
    before = len(posts(fault_server, "reset"))
    error = arun(failure(make_client(fault_server.base_url, "reset"), HELLO))
    assert isinstance(error, NetworkError) and "broke" in error.message
    assert error.partial is not None and error.partial.content == "Hello there"
    assert len(posts(fault_server, "reset")) - before == 1  # text was shown: no retry repeats it


def test_error_inside_the_stream(fault_server: FaultServer, arun: Any) -> None:
    error = arun(failure(make_client(fault_server.base_url, "stream-error", retries=0,
                                     kind=ProviderKind.OPENROUTER), HELLO))
    assert isinstance(error, ServerError) and "Upstream provider error" in error.message


def test_stalled_stream_times_out_between_chunks(fault_server: FaultServer, arun: Any) -> None:
    started = time.monotonic()
    error = arun(failure(make_client(fault_server.base_url, "stall", read_timeout=0.5), HELLO))
    assert isinstance(error, LLMTimeoutError) and "stopped sending" in error.message
    assert error.partial is not None and error.partial.content == "Hello"
    assert time.monotonic() - started < 5
    error = arun(failure(make_client(fault_server.base_url, "stall-before", read_timeout=0.3, retries=1), HELLO))
    assert isinstance(error, LLMTimeoutError) and error.partial is None


def test_total_timeout_bounds_a_slow_drip(fault_server: FaultServer, arun: Any) -> None:
    started = time.monotonic()
    error = arun(failure(make_client(fault_server.base_url, "drip", total_timeout=0.4), HELLO))
    assert isinstance(error, LLMTimeoutError) and "within 0 s" not in error.message
    assert error.partial is not None and error.partial.content.startswith("Hello")
    assert time.monotonic() - started < 3


def test_slow_drip_streams_as_it_comes(fault_server: FaultServer, arun: Any) -> None:
    async def run() -> tuple[float, float, ChatResponse]:
        async with make_client(fault_server.base_url, "drip") as client:
            stream = client.chat(HELLO)
            started = time.monotonic()
            first = 0.0
            async for _ in stream:
                first = first or time.monotonic() - started
            return first, time.monotonic() - started, await stream.response()

    first, total, response = arun(run())
    assert response.content == ANSWER * 3
    assert first < total / 2  # the first words came long before the last


# -- cancellation -------------------------------------------------------------------------------------

def test_cancel_closes_the_stream_and_keeps_the_partial_text(fault_server: FaultServer, arun: Any) -> None:
    async def run() -> tuple[float, ChatResponse]:
        async with make_client(fault_server.base_url, "drip@cancel") as client:
            stream = client.chat(HELLO)
            async for delta in stream:
                if delta.text == " from":
                    stream.cancel()
                    cancelled_at = time.monotonic()
            response = await stream.response()
            return cancelled_at, response

    cancelled_at, response = arun(run())
    assert response.interrupted and response.finish_reason == "interrupted"
    assert response.content.startswith("Hello from") and len(response.content) < len(ANSWER * 3)
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        gone = [r for r in fault_server.requests if r["method"] == "GONE" and r["key"] == "drip@cancel"]
        if gone:
            break
        time.sleep(0.02)
    assert gone, "the server never saw the client go away"
    # The server notices on its next write (50 ms apart); the client closed at once.
    assert gone[0]["at"] - cancelled_at < 1.5


def test_cancelling_the_consuming_task_interrupts(fault_server: FaultServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, float]:
        async with make_client(fault_server.base_url, "drip") as client:
            stream = client.chat(HELLO)
            seen: list[str] = []

            async def consume() -> None:
                async for delta in stream:
                    seen.append(delta.text)

            task = asyncio.get_running_loop().create_task(consume())
            while len(seen) < 3:
                await asyncio.sleep(0.01)
            task.cancel()
            started = time.monotonic()
            with pytest.raises(asyncio.CancelledError):
                await task
            response = await stream.response()
            return response, time.monotonic() - started

    response, took = arun(run())
    assert response.interrupted and response.content.startswith("Hello from the")
    assert took < 1.0  # generous here; benchmarks/bench_llm.py measures the real time


def test_cancel_before_start_sends_nothing(fault_server: FaultServer, arun: Any) -> None:
    async def run() -> ChatResponse:
        async with make_client(fault_server.base_url, "never-sent") as client:
            stream = client.chat(HELLO)
            stream.cancel()
            return await stream.response()

    response = arun(run())
    assert response.interrupted and response.content == ""
    assert not posts(fault_server, "never-sent")


# -- models --------------------------------------------------------------------------------------------

def test_model_lists(fault_server: FaultServer, arun: Any) -> None:
    async def run(client: LLMClient) -> list[str]:
        async with client:
            return await client.list_models()

    assert arun(run(make_client(fault_server.base_url))) == MODELS
    assert arun(run(make_client(fault_server.base_url, kind=ProviderKind.OLLAMA))) == OLLAMA_MODELS
    with pytest.raises(AuthError):
        arun(run(make_client(fault_server.scenario_url("status-401"))))
    with pytest.raises(ProtocolError):
        arun(run(make_client(fault_server.scenario_url("malformed-json"))))
    with pytest.raises(WebPageError, match=r'Got a web page \("Guest Wi-Fi - Sign in"\) instead of an API answer'):
        arun(run(make_client(fault_server.scenario_url("web-page"))))


def test_a_web_page_instead_of_an_answer_says_so_and_is_not_retried(fault_server: FaultServer, arun: Any) -> None:
    def posts() -> int:
        return sum(1 for r in fault_server.requests if r["method"] == "POST" and "/s/web-page/" in r["path"])

    before = posts()
    with pytest.raises(WebPageError) as caught:
        arun(chat(make_client(fault_server.scenario_url("web-page")), HELLO))
    assert "is the base URL right?" in caught.value.message and caught.value.remedy is not None
    assert posts() - before == 1  # asking again gets the same page
    assert web_page_instead(make_client("http://x.test/v1").provider, '{"choices": []}') is None


def test_no_model_set_uses_the_first_listed(fault_server: FaultServer, arun: Any) -> None:
    _, response = arun(chat(make_client(fault_server.base_url, ""), HELLO))
    assert response.content == ANSWER and response.metadata["model"] == MODELS[0]


# -- network settings: proxy and CA bundle ------------------------------------------------------------

def test_requests_go_through_the_proxy_setting(fault_server: FaultServer, arun: Any) -> None:
    provider = ProviderConfig(name="Cloud", kind=ProviderKind.OPENAI, base_url="http://api.example.invalid/v1",
                              model="ok@proxied")
    network = NetworkSettings(proxy_url=fault_server.root)

    async def run() -> ChatResponse:
        async with LLMClient(provider, "sk-proxy-1234567890", network) as client:
            return await client.chat(HELLO).response()

    assert arun(run()).content == ANSWER
    assert posts(fault_server, "ok@proxied")[-1]["path"] == "http://api.example.invalid/v1/chat/completions"


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FaultServer, Path]]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = FaultServer().start(tls=context)
    try:
        yield server, cert
    finally:
        server.stop()


def test_tls_failure_is_explained_and_the_ca_bundle_setting_fixes_it(
    tls_server: tuple[FaultServer, Path], arun: Any, tmp_path: Path
) -> None:
    server, cert = tls_server
    error = arun(failure(make_client(server.base_url, retries=0), HELLO))
    assert isinstance(error, NetworkError) and "certificate could not be verified" in error.message
    assert any("CA bundle" in s for s in error.suggestions)

    provider = ProviderConfig(name="TLS", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=server.base_url, model="ok")

    async def run(bundle: str) -> ChatResponse:
        async with LLMClient(provider, None, NetworkSettings(ca_bundle=bundle)) as client:
            return await client.chat(HELLO).response()

    assert arun(run(str(cert))).content == ANSWER
    with pytest.raises(LLMError, match="does not exist"):
        arun(run(str(tmp_path / "missing.pem")))


def test_cancel_from_another_task_stops_an_unstreamed_request(fault_server: FaultServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, float]:
        async with make_client(fault_server.base_url, "stall-before") as client:
            stream = client.chat(HELLO, stream=False)
            loop = asyncio.get_running_loop()
            loop.call_later(0.3, stream.cancel)  # e.g. the Stop button
            started = time.monotonic()
            response = await stream.response()
            return response, time.monotonic() - started

    response, took = arun(run())
    assert response.interrupted and response.content == ""
    assert 0.25 < took < 1.0


def test_an_error_names_the_built_in_model_without_an_address() -> None:
    """The built-in model's server has no fixed address (it was "The connection to Built-in local
    model at  broke"); a sentence that starts with it starts with a capital."""
    built_in = ProviderConfig(name="built-in", kind=ProviderKind.LOCAL, model="smollm2")
    broke = classify_transport(built_in, httpx.ReadError("reset"))
    assert broke.message == "The connection to the built-in local model broke before the answer was complete."
    stopped = classify_transport(built_in, httpx.ReadTimeout("slow"), timeout_s=120)
    assert stopped.message == "The built-in local model stopped sending the answer (no data for 120 s)."
    refused = classify_status(built_in, "smollm2", 400, '{"error": {"message": "bad"}}')
    assert refused.message.startswith("The built-in local model rejected the request"), refused.message
    remote = ProviderConfig(name="r", kind=ProviderKind.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:9/v1")
    assert "OpenAI-compatible" in classify_transport(remote, httpx.ReadError("x")).message
    assert "at http://127.0.0.1:9/v1 broke" in classify_transport(remote, httpx.ReadError("x")).message
