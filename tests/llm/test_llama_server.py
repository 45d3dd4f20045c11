"""The client against the real llama.cpp OpenAI-compatible server with SmolLM2-135M.

The model is tiny: these tests check the protocol and the quirks (PLATFORM.md), not the
quality of its answers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.local_server import LocalServer, shared_local_server
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.messages import Message, ToolCall

pytestmark = pytest.mark.slow

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}}]
WEATHER = [Message(role="user", content="What is the weather in Paris?")]


def client_for(server: LocalServer) -> LLMClient:
    provider = ProviderConfig(name="llama", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=server.base_url,
                              model="smollm2")
    return LLMClient(provider, None, NetworkSettings(max_retries=2), retry=RetryPolicy(max_retries=2,
                                                                                       base_delay_s=0.1))


async def run_chat(client: LLMClient, *args: Any, **kwargs: Any) -> tuple[list[StreamDelta], ChatResponse]:
    stream = client.chat(*args, **kwargs)
    deltas = [d async for d in stream]
    return deltas, await stream.response()


def test_model_list(llama_server: LocalServer, arun: Any) -> None:
    async def run() -> list[str]:
        async with client_for(llama_server) as client:
            return await client.list_models()

    assert arun(run()) == ["smollm2"]


def test_plain_and_streamed_chat(llama_server: LocalServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, list[StreamDelta], ChatResponse]:
        async with client_for(llama_server) as client:
            _, plain = await run_chat(client, [Message(role="user", content="Say ok")], stream=False,
                                      max_tokens=16)
            deltas, streamed = await run_chat(client, [Message(role="user", content="Count to five.")],
                                              max_tokens=24)
            return plain, deltas, streamed

    plain, deltas, streamed = arun(run(), timeout=60)
    assert plain.content.strip() and plain.finish_reason in ("stop", "length")
    assert plain.usage.input_tokens and plain.usage.output_tokens and plain.metadata["response_id"]
    # Streamed in pieces (how many depends on the tiny model's answer: "1, 2, 3" is a few tokens).
    assert len(deltas) >= 2 and "".join(d.text for d in deltas) == streamed.content
    assert streamed.metadata["time_to_first_token_ms"] is not None and streamed.metadata["api_calls"] == 1


@pytest.mark.parametrize("stream", [True, False])
def test_forced_tool_call(llama_server: LocalServer, arun: Any, stream: bool) -> None:
    async def run() -> ChatResponse:
        async with client_for(llama_server) as client:
            return (await run_chat(client, WEATHER, TOOLS, stream=stream, max_tokens=64,
                                   tool_choice={"type": "function", "function": {"name": "get_weather"}}))[1]

    response = arun(run(), timeout=60)
    [call] = response.tool_calls
    assert call.name == "get_weather"  # not "get_weatherget_weather...": the repeated name is kept once
    assert isinstance(call.arguments, dict) and call.id


def test_automatic_tool_call_survives_the_empty_stream(llama_server: LocalServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, ChatResponse]:
        async with client_for(llama_server) as client:
            first = (await run_chat(client, WEATHER, TOOLS, tool_choice="auto", max_tokens=64))[1]
            second = (await run_chat(client, WEATHER, TOOLS, tool_choice="auto", max_tokens=64))[1]
            return first, second

    first, second = arun(run(), timeout=90)
    # llama.cpp answers a streamed "auto" request with an empty 200: asked again unstreamed.
    assert first.metadata["api_calls"] >= 2 and (first.tool_calls or first.content)
    assert second.metadata["api_calls"] == 1  # remembered: no empty stream first


def test_tool_results_go_back_without_null_content(llama_server: LocalServer, arun: Any) -> None:
    history = [
        *WEATHER,
        Message(role="assistant", content="", tool_calls=[ToolCall("call_1", "get_weather", {"city": "Paris"})]),
        Message(role="tool", content="Sunny, 21 °C", tool_call_id="call_1", name="get_weather"),
    ]

    async def run() -> ChatResponse:
        async with client_for(llama_server) as client:
            return (await run_chat(client, history, max_tokens=24))[1]

    assert arun(run(), timeout=60).content


def test_cancellation_mid_stream(llama_server: LocalServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, float, int]:
        async with client_for(llama_server) as client:
            stream = client.chat([Message(role="user", content="Write a long story about a dragon.")],
                                 max_tokens=400)
            count = 0
            async for _ in stream:
                count += 1
                if count == 5:
                    stream.cancel()
                    cancelled = time.monotonic()
            response = await stream.response()
            return response, time.monotonic() - cancelled, count

    response, took, count = arun(run(), timeout=60)
    assert response.interrupted and response.content and count == 5
    assert took < 2.0  # generous here; benchmarks/bench_llm.py measures the real time


def test_built_in_local_provider_starts_its_server_lazily(arun: Any) -> None:
    provider = ProviderConfig(name="Local", kind=ProviderKind.LOCAL)

    async def run() -> ChatResponse:
        async with LLMClient(provider, None, NetworkSettings()) as client:
            return (await run_chat(client, [Message(role="user", content="Say ok")], max_tokens=8))[1]

    server = shared_local_server()
    try:
        response = arun(run(), timeout=120)
        assert response.content and response.metadata["model"] == "smollm2"
        assert server.running and server.base_url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    assert not server.running


def test_a_model_file_that_cannot_load_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf model")
    server = LocalServer(broken, startup_timeout_s=60)
    with pytest.raises(JawadError) as info:
        server.start()
    assert "stopped while starting" in info.value.message and not server.running
    with pytest.raises(JawadError, match="model file"):
        LocalServer(tmp_path / "missing.gguf").start()
