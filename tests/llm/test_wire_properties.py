"""Property tests of the SSE and JSON handling: whatever the bytes and however the network
splits them, the answer comes out whole, and nothing but the documented errors escapes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import httpx
from httpx_sse import EventSource
from hypothesis import given, settings
from hypothesis import strategies as st

from jawad_desktop.core.llm.errors import error_text_from_body, parse_retry_after
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.llm.wire import (
    MalformedResponse,
    StreamAccumulator,
    StreamFailure,
    fold_events,
    is_tools_rejection,
    parse_arguments,
    parse_completion,
)

T = TypeVar("T")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


def drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits on real I/O (in-memory bytes) to its end."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise AssertionError("the coroutine waited for I/O")


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    parts, last = [], 0
    for point in [*points, len(data)]:
        parts.append(data[last:point])
        last = point
    return [p for p in parts if p]


async def fold(parts: list[bytes]) -> tuple[list[StreamDelta], ChatResponse, StreamAccumulator]:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(parts))
    acc = StreamAccumulator()
    deltas = [d async for d in fold_events(EventSource(response).aiter_sse(), acc)]
    return deltas, acc.response(), acc


def event(payload: Any, newline: str) -> bytes:
    return f"data: {json.dumps(payload)}{newline}{newline}".encode()


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.text(min_size=1, max_size=12), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    done=st.booleans(),
    noise=st.booleans(),
)
def test_streamed_text_survives_any_split(pieces: list[str], cuts: list[int], newline: str, done: bool,
                                          noise: bool) -> None:
    body = b""
    for piece in pieces:
        if noise:
            body += f": comment{newline}event: ping{newline}{newline}data: not json{newline}{newline}".encode()
        body += event({"choices": [{"delta": {"content": piece}}]}, newline)
    body += event({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3,
                                                                                  "completion_tokens": 4}}, newline)
    if done:
        body += f"data: [DONE]{newline}{newline}".encode()
    deltas, response, _ = drive(fold(split(body, cuts)))
    assert "".join(d.text for d in deltas) == "".join(pieces) == response.content
    assert response.finish_reason == "stop" and response.usage.total_tokens == 7


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.dictionaries(st.text(max_size=8), json_values, max_size=5),
    sizes=st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=40),
    repeat_name=st.booleans(),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=10),
)
def test_streamed_tool_arguments_reassemble(arguments: dict[str, Any], sizes: list[int], repeat_name: bool,
                                            cuts: list[int]) -> None:
    text = json.dumps(arguments)
    pieces, at, i = [], 0, 0
    while at < len(text):
        size = sizes[i % len(sizes)]
        pieces.append(text[at:at + size])
        at, i = at + size, i + 1
    body = b""
    for n, piece in enumerate(pieces or [""]):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        if n == 0 or repeat_name:
            call.update(id="call_x", type="function")
            call["function"]["name"] = "tool_name"
        body += event({"choices": [{"delta": {"tool_calls": [call]}}]}, "\n")
    body += b"data: [DONE]\n\n"
    _, response, _ = drive(fold(split(body, cuts)))
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_x", "tool_name", arguments)


@settings(max_examples=300, deadline=None)
@given(chunks=st.lists(json_values, max_size=8))
def test_any_json_chunks_never_crash_the_accumulator(chunks: list[Any]) -> None:
    acc = StreamAccumulator()
    for chunk in chunks:
        acc.add(chunk)
    response = acc.response()
    assert isinstance(response.content, str)


@settings(max_examples=300, deadline=None)
@given(data=json_values)
def test_any_json_answer_parses_or_is_malformed(data: Any) -> None:
    try:
        response = parse_completion(data)
    except MalformedResponse:
        return
    assert isinstance(response.content, str)
    assert all(call.name for call in response.tool_calls)


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=300), cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_garbage_bytes_only_skip_or_fail_cleanly(raw: bytes, cuts: list[int]) -> None:
    try:
        deltas, response, _ = drive(fold(split(raw, cuts)))
    except StreamFailure:
        return
    assert "".join(d.text for d in deltas) == response.content


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200) | json_values.map(json.dumps), status=st.integers(100, 599))
def test_error_bodies_always_give_a_message(text: str, status: int) -> None:
    message = error_text_from_body(text)
    assert isinstance(message, str) and len(message) <= 1000
    assert isinstance(is_tools_rejection(status, message), bool)
    assert isinstance(parse_arguments(text), (dict, str))


@given(value=st.text(max_size=40))
def test_retry_after_never_crashes(value: str) -> None:
    seconds = parse_retry_after(value)
    assert seconds is None or seconds >= 0


def test_tool_rejections_in_every_shape() -> None:
    assert is_tools_rejection(400, error_text_from_body('{"error": {"message": "tools is not supported"}}'))
    assert is_tools_rejection(400, error_text_from_body('{"error": "llama2 does not support tools"}'))
    assert is_tools_rejection(422, error_text_from_body(
        '{"detail": [{"loc": ["body", "tools"], "msg": "extra fields not permitted"}]}'))
    assert is_tools_rejection(400, error_text_from_body(
        '{"error": {"code": 400, "message": "Provider returned error", '
        '"metadata": {"raw": "does not support function calling"}}}'))
    assert not is_tools_rejection(400, "context length exceeded")
    assert not is_tools_rejection(401, "tools")
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("2") == 2.0
