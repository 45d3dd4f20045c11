"""The OpenAI chat-completions wire format, both ways, tolerant of real servers' quirks.

Owns: building the request body, reading a whole (non-streamed) response, folding
streamed chunks into deltas and a final response, and recognising a tools rejection.
Pure functions and one accumulator class, no I/O, so they are property-tested directly.

Quirks handled here (PLATFORM.md and issue 3): ``content: null`` never sent; streamed
tool-call chunks that repeat the id and the name in every chunk (keep the first name,
concatenate only arguments); tool calls without id, type or index; usage in the last
chunk or nowhere; ``content`` null or missing in answers; the legacy ``function_call``.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from httpx_sse import ServerSentEvent

from jawad_desktop.core.llm.errors import parameter_refusal
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, ToolCallFragment, Usage
from jawad_desktop.core.llm.vision import chat_messages
from jawad_desktop.core.messages import Message, ToolCall

log = logging.getLogger("jawad.llm.wire")

_call_ids = itertools.count(1)

# Spec 000: status 400/422 plus error text about tools means "this model takes no tools".
_TOOLS_REJECTION_RE = re.compile(r"tool|function|unsupported|not support|invalid.*param", re.IGNORECASE)


def is_tools_rejection(status: int, error_text: str) -> bool:
    """True when an error answer says the model or server does not take ``tools``.

    400 and 422 as in spec 000; OpenRouter's 404 "no endpoints found that support tool
    use"; and a 500 carrying a validation error about tools,
    because llama.cpp and other pydantic servers report validation errors as 500. Never an
    answer that names another parameter the model refuses ("Unsupported parameter:
    'max_tokens'"): the client repairs those (``core.llm.errors.parameter_refusal``).
    """
    if status in (400, 422) and parameter_refusal(status, error_text) is not None:
        return False
    if status in (400, 422):
        return bool(_TOOLS_REJECTION_RE.search(error_text))
    if status == 404:
        # OpenRouter: "No endpoints found that support tool use" when no host of the model has tools.
        return "tool use" in error_text.lower() or "support tools" in error_text.lower()
    if status == 500:
        lowered = error_text.lower()
        return ("validation error" in lowered or "input should be" in lowered) and (
            "tool" in lowered or "function" in lowered
        )
    return False


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def new_call_id() -> str:
    """An id for a tool call the server sent without one."""
    return f"call_jawad_{next(_call_ids)}"


def build_body(
    model: str,
    messages: list[Message],
    *,
    tools: list[dict[str, Any]] | None,
    tool_choice: str | dict[str, Any] | None,
    stream: bool,
    temperature: float | None,
    max_tokens: int | None,
    include_usage: bool,
) -> dict[str, Any]:
    """The JSON body of a chat-completions request."""
    body: dict[str, Any] = {"model": model, "messages": chat_messages(messages), "stream": stream}
    if temperature is not None:
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if tools:
        body["tools"] = tools
        if tool_choice is not None:
            body["tool_choice"] = tool_choice
    if stream and include_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool-call arguments as an object; the raw text if it is not a JSON object."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return json.dumps(raw)
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return value if isinstance(value, dict) else raw


def _text(value: Any) -> str:
    """Message content as text: a string, or OpenAI's list of content parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in value
        )
    return str(value)


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None

    def num(*keys: str) -> int | None:
        for key in keys:
            value = raw.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value)
        return None

    usage = Usage(
        input_tokens=num("prompt_tokens", "input_tokens"),
        output_tokens=num("completion_tokens", "output_tokens"),
        total_tokens=num("total_tokens"),
    )
    if usage.total_tokens is None and usage.input_tokens is not None and usage.output_tokens is not None:
        usage.total_tokens = usage.input_tokens + usage.output_tokens
    return usage


def usage_details(raw: Any) -> dict[str, Any]:
    """Spec 003's extra usage keys from a chat-completions ``usage``: ``cached_input_tokens``
    (``prompt_tokens_details.cached_tokens``), ``reasoning_tokens``
    (``completion_tokens_details.reasoning_tokens``) and ``cost_usd``, the cost OpenRouter
    reports itself (``usage.cost``, in credits of one dollar); only those present."""
    if not isinstance(raw, dict):
        return {}
    found: dict[str, Any] = {}
    for key, parent, child in (("cached_input_tokens", "prompt_tokens_details", "cached_tokens"),
                               ("reasoning_tokens", "completion_tokens_details", "reasoning_tokens")):
        value = _dict(raw.get(parent)).get(child)
        if isinstance(value, int) and not isinstance(value, bool):
            found[key] = value
    cost = raw.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0:
        found["cost_usd"] = float(cost)
    return found


def _tool_calls_from_message(message: dict[str, Any]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls")
    if isinstance(raw_calls, list):
        for raw in raw_calls:
            if not isinstance(raw, dict):
                continue
            function = _dict(raw.get("function")) or raw
            name = str(function.get("name") or "")
            if not name:
                continue
            calls.append(ToolCall(
                id=str(raw.get("id") or new_call_id()),
                name=name,
                arguments=parse_arguments(function.get("arguments")),
            ))
    legacy = message.get("function_call")
    if not calls and isinstance(legacy, dict) and legacy.get("name"):
        calls.append(ToolCall(id=new_call_id(), name=str(legacy["name"]),
                              arguments=parse_arguments(legacy.get("arguments"))))
    return calls


_DETAIL_KEYS = ("cached_input_tokens", "reasoning_tokens", "cost_usd")


class MalformedResponse(ValueError):
    """The body is not a chat-completions answer (bad JSON or the wrong shape)."""


def parse_completion(data: Any) -> ChatResponse:
    """A whole chat-completions answer as a ``ChatResponse`` (metadata filled by the caller)."""
    if not isinstance(data, dict):
        raise MalformedResponse("the answer is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse("the answer has no choices")
    choice = choices[0]
    # Some servers answer a non-streamed request in the streamed shape.
    message = _dict(choice.get("message")) or _dict(choice.get("delta"))
    if "text" in choice and not message:
        message = {"content": choice.get("text")}
    calls = _tool_calls_from_message(message)
    finish = str(choice.get("finish_reason") or ("tool_calls" if calls else "stop"))
    return ChatResponse(
        content=_text(message.get("content")),
        tool_calls=calls,
        finish_reason=finish,
        usage=_usage(data.get("usage")) or Usage(),
        metadata={"response_id": str(data.get("id") or ""), **usage_details(data.get("usage"))},
    )


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamAccumulator:
    """Folds streamed chunks into deltas as they come and a final ``ChatResponse``."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._ids: dict[str, int] = {}
        self._saw_tool_calls = False
        self.finish_reason = ""
        self.usage: Usage | None = None
        self.usage_details: dict[str, Any] = {}  # cached and reasoning tokens, cost (usage_details)
        self.response_id = ""
        self.chunks = 0  # valid chunks seen
        self.skipped = 0  # events that were not JSON chunks (skipped, logged)

    @property
    def has_output(self) -> bool:
        return bool(self.text) or bool(self._calls)

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole (unstreamed) answer in this format; raises ``MalformedResponse`` when it
        is not one. ``absorb`` then takes it in like the chunks of a stream."""
        return parse_completion(data)

    def add(self, data: Any) -> StreamDelta | None:
        """Fold one decoded chunk in; returns what it adds for the user (None if nothing)."""
        if not isinstance(data, dict):
            self.skipped += 1
            return None
        self.chunks += 1
        if data.get("id") and not self.response_id:
            self.response_id = str(data["id"])
        usage = _usage(data.get("usage"))
        if usage is not None:
            self.usage = usage
            self.usage_details = usage_details(data.get("usage"))
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
        delta = _dict(choice.get("delta")) or _dict(choice.get("message"))
        text = _text(delta.get("content"))
        fragments: list[ToolCallFragment] = []
        raw_calls = delta.get("tool_calls")
        if isinstance(raw_calls, list) and raw_calls:
            self._saw_tool_calls = True
            for position, raw in enumerate(raw_calls):
                if isinstance(raw, dict):
                    fragment = self._add_call(raw, position)
                    if fragment is not None:
                        fragments.append(fragment)
        legacy = delta.get("function_call")
        # The legacy field only when there is no tool_calls (llama.cpp sends both, the same call).
        if isinstance(legacy, dict) and not self._saw_tool_calls:
            fragment = self._add_call({"function": legacy}, 0)
            if fragment is not None:
                fragments.append(fragment)
        if text:
            self.text.append(text)
        if not text and not fragments:
            return None
        return StreamDelta(text=text, tool_calls=fragments)

    def _add_call(self, raw: dict[str, Any], position: int) -> ToolCallFragment | None:
        function = _dict(raw.get("function"))
        call_id = str(raw.get("id") or "")
        index = raw.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            # No index: a known id names its call; otherwise its place in this chunk.
            index = self._ids.get(call_id, position) if call_id else position
        partial = self._calls.setdefault(index, _PartialCall())
        fragment = ToolCallFragment(index=index)
        if call_id and not partial.id:
            partial.id = fragment.id = call_id
            self._ids[call_id] = index
        name = str(function.get("name") or "")
        if name and not partial.name:
            # Servers that repeat the name in every chunk (llama.cpp): keep the first.
            partial.name = fragment.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        if isinstance(arguments, str) and arguments:
            partial.arguments.append(arguments)
            fragment.arguments = arguments
        if not (fragment.id or fragment.name or fragment.arguments):
            return None
        return fragment

    def absorb(self, whole: ChatResponse) -> StreamDelta | None:
        """Take a whole (non-streamed) answer in; returns it as one delta (None if empty)."""
        if whole.content:
            self.text.append(whole.content)
        fragments: list[ToolCallFragment] = []
        for index, call in enumerate(whole.tool_calls):
            arguments = call.arguments_json()
            self._calls[index] = _PartialCall(call.id, call.name, [arguments])
            fragments.append(ToolCallFragment(index=index, id=call.id, name=call.name, arguments=arguments))
        self.finish_reason = whole.finish_reason
        self.usage = whole.usage
        self.usage_details = {k: v for k, v in whole.metadata.items() if k in _DETAIL_KEYS and v is not None}
        self.response_id = str(whole.metadata.get("response_id") or "")
        self.chunks += 1
        if not whole.content and not fragments:
            return None
        return StreamDelta(text=whole.content, tool_calls=fragments)

    def error_in(self, data: Any) -> tuple[int, str] | None:
        """The (status, body) of an error sent inside a stream or as a whole answer, else None."""
        return stream_error(data)

    def tool_calls(self) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for index in sorted(self._calls):
            partial = self._calls[index]
            if not partial.name:
                continue  # a fragment with no name cannot be called; the agent never sees it
            calls.append(ToolCall(
                id=partial.id or new_call_id(),
                name=partial.name,
                arguments=parse_arguments("".join(partial.arguments)),
            ))
        return calls

    def response(self) -> ChatResponse:
        calls = self.tool_calls()
        return ChatResponse(
            content="".join(self.text),
            tool_calls=calls,
            finish_reason=self.finish_reason or ("tool_calls" if calls else "stop"),
            usage=self.usage or Usage(),
            metadata={"response_id": self.response_id, **self.usage_details},
        )


def stream_error(data: Any) -> tuple[int, str] | None:
    """An error sent inside a stream (OpenRouter sends ``{"error": {...}}`` chunks)."""
    if isinstance(data, dict) and data.get("error") and not data.get("choices"):
        error = data["error"]
        status = 500
        if isinstance(error, dict):
            code = error.get("code") or error.get("status")
            if isinstance(code, int) and 400 <= code < 600:
                status = code
        return status, json.dumps(data)
    return None


class StreamFailure(Exception):
    """The server reported an error inside the stream; ``status`` and ``body`` classify it."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(body)
        self.status = status
        self.body = body


async def fold_events(
    events: AsyncIterator[ServerSentEvent], acc: StreamAccumulator
) -> AsyncGenerator[StreamDelta, None]:
    """Fold server-sent events into ``acc``, yielding each delta for the user as it comes.

    Ends at ``data: [DONE]`` or when the events end (a missing ``[DONE]`` is normal for
    some servers). Events that are not JSON are skipped and counted in ``acc.skipped``;
    an error event raises ``StreamFailure``. The events are always read to their end:
    leaving httpx's byte stream half-read leaves its generators to be closed by the
    garbage collector from another task, which httpcore does not survive.
    """
    finished = False
    failure: StreamFailure | None = None
    async for event in events:
        data = event.data.strip()
        if finished or failure is not None or not data:
            continue
        if data == "[DONE]":
            finished = True
            continue
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError):
            acc.skipped += 1
            log.debug("skipped a stream event that is not JSON: %.120s", data)
            continue
        error = acc.error_in(chunk)
        if error is not None:
            failure = StreamFailure(*error)
            continue
        delta = acc.add(chunk)
        if delta is not None:
            yield delta
    if failure is not None:
        raise failure
