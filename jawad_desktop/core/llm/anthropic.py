"""Anthropic's Messages API (``POST /v1/messages``), streamed and whole, with tool use.

The request: ``system`` apart from ``messages``; tool results are ``tool_result`` blocks in
the next user message; tools carry ``input_schema``. The stream: ``message_start``,
``content_block_start`` / ``_delta`` (``text_delta``, ``input_json_delta``) / ``_stop``,
``message_delta`` (stop reason, output tokens), ``message_stop``, ``ping`` and ``error``.
The HTTP side (retries, timeouts, cancellation, errors) is ``LLMClient``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.formats import (
    EventAccumulator,
    alternating_turns,
    arguments_object,
    forced_tool,
    functions_of,
    json_text,
    obj,
)
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, Usage
from jawad_desktop.core.llm.wire import MalformedResponse, parse_arguments
from jawad_desktop.core.messages import Image, Message, ToolCall

__all__ = ["ANTHROPIC_VERSION", "AnthropicClient", "anthropic_messages"]

log = logging.getLogger("jawad.llm.anthropic")

ANTHROPIC_VERSION = "2023-06-01"
_STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
# The error types of an ``error`` event, as the HTTP statuses the same errors have.
_ERROR_STATUS = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
                 "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
                 "api_error": 500, "overloaded_error": 529}


def _image_block(image: Image) -> dict[str, Any]:
    """An image as the Messages API documents it (base64 source)."""
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.base64()}}


def anthropic_messages(
    messages: list[Message], thinking: Mapping[str, list[dict[str, Any]]] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` text and the ``messages`` of a request; consecutive messages of one
    role are merged (tool results must all sit in the user message after the calls).
    ``thinking`` gives the thinking blocks that preceded a group of tool calls, by the id
    of its first call: they open that assistant message again."""

    def turn_of(message: Message) -> tuple[str, list[dict[str, Any]]]:
        if message.role == "tool":
            result: str | list[dict[str, Any]] = message.content or "(no output)"
            if message.images:  # a tool_result's content may hold image blocks
                result = [{"type": "text", "text": message.content or "(no output)"},
                          *(_image_block(image) for image in message.images)]
            return "user", [{"type": "tool_result", "tool_use_id": message.tool_call_id, "content": result}]
        blocks: list[dict[str, Any]] = [_image_block(image) for image in message.images]
        if thinking and message.tool_calls and message.tool_calls[0].id in thinking:
            blocks.extend(dict(b) for b in thinking[message.tool_calls[0].id])
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        blocks.extend({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments_object(call)}
                      for call in message.tool_calls)
        return message.role, blocks

    system, turns = alternating_turns(messages, turn_of)
    return "\n\n".join(system), turns


def _usage(raw: Any, into: Usage | None = None) -> Usage:
    usage = into or Usage()
    if isinstance(raw, dict):
        if isinstance(raw.get("input_tokens"), int):
            cached = raw.get("cache_read_input_tokens") or 0
            created = raw.get("cache_creation_input_tokens") or 0
            usage.input_tokens = raw["input_tokens"] + int(cached) + int(created)
        if isinstance(raw.get("output_tokens"), int):
            usage.output_tokens = raw["output_tokens"]
    if usage.input_tokens is not None and usage.output_tokens is not None:
        usage.total_tokens = usage.input_tokens + usage.output_tokens
    return usage


class AnthropicAccumulator(EventAccumulator):
    """Folds Messages API stream events (and whole answers) into deltas."""

    def __init__(self) -> None:
        super().__init__()
        # Thinking blocks by content index, kept verbatim (signature included): they must go
        # back with the tool calls they preceded (see AnthropicClient.response_for).
        self.thinking: dict[int, dict[str, Any]] = {}

    def add_event(self, kind: str, data: dict[str, Any]) -> StreamDelta | None:
        if kind == "message_start":
            message = obj(data.get("message"))
            self.response_id = str(message.get("id") or "")
            self.usage = _usage(message.get("usage"))
            self._cache(message.get("usage"))
        elif kind == "content_block_start":
            block = obj(data.get("content_block"))
            if block.get("type") in ("thinking", "redacted_thinking"):
                self.thinking[int(data.get("index") or 0)] = dict(block)
                return None
            if block.get("type") == "tool_use":
                fragment = self._add_call({"index": data.get("index"), "id": block.get("id"),
                                           "function": {"name": block.get("name")}}, 0)
                return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
            if block.get("type") == "text" and block.get("text"):
                self.text.append(str(block["text"]))
                return StreamDelta(text=str(block["text"]))
        elif kind == "content_block_delta":
            delta = obj(data.get("delta"))
            thought = self.thinking.get(int(data.get("index") or 0))
            if thought is not None and delta.get("type") == "thinking_delta":
                thought["thinking"] = str(thought.get("thinking") or "") + str(delta.get("thinking") or "")
                return None
            if thought is not None and delta.get("type") == "signature_delta":
                thought["signature"] = str(delta.get("signature") or "")
                return None
            if delta.get("type") == "text_delta" and delta.get("text"):
                self.text.append(str(delta["text"]))
                return StreamDelta(text=str(delta["text"]))
            if delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                fragment = self._add_call({"index": data.get("index"),
                                           "function": {"arguments": str(delta["partial_json"])}}, 0)
                return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
        elif kind == "message_delta":
            delta = obj(data.get("delta"))
            if delta.get("stop_reason"):
                reason = str(delta["stop_reason"])
                self.finish_reason = _STOP_REASONS.get(reason, reason)
            self.usage = _usage(data.get("usage"), self.usage)
        return None

    def _cache(self, raw: Any) -> None:
        if isinstance(raw, dict) and isinstance(raw.get("cache_read_input_tokens"), int):
            self.cached_input_tokens = raw["cache_read_input_tokens"]

    def error_in(self, data: Any) -> tuple[int, str] | None:
        if isinstance(data, dict) and data.get("type") == "error":
            error = obj(data.get("error"))
            return _ERROR_STATUS.get(str(error.get("type")), 500), json_text(data)
        return None

    def absorb(self, whole: ChatResponse) -> StreamDelta | None:
        blocks = whole.metadata.pop("anthropic_thinking", None)
        if isinstance(blocks, list):
            self.thinking = dict(enumerate(blocks))
        delta = super().absorb(whole)
        self.cached_input_tokens = whole.metadata.get("cached_input_tokens")
        return delta

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole Messages API answer."""
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise MalformedResponse("the answer has no content list")
        text: list[str] = []
        calls: list[ToolCall] = []
        thinking: list[dict[str, Any]] = []
        for block in data["content"]:
            if not isinstance(block, dict):
                continue
            if block.get("type") in ("thinking", "redacted_thinking"):
                thinking.append(dict(block))
            elif block.get("type") == "text":
                text.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use" and block.get("name"):
                calls.append(ToolCall(id=str(block.get("id") or ""), name=str(block["name"]),
                                      arguments=parse_arguments(block.get("input"))))
        reason = str(data.get("stop_reason") or "")
        raw_usage = data.get("usage")
        return ChatResponse(
            content="".join(text), tool_calls=calls,
            finish_reason=_STOP_REASONS.get(reason, reason) or ("tool_calls" if calls else "stop"),
            usage=_usage(raw_usage),
            metadata={"response_id": str(data.get("id") or ""),
                      "cached_input_tokens": raw_usage.get("cache_read_input_tokens")
                      if isinstance(raw_usage, dict) else None,
                      "anthropic_thinking": thinking},
        )


class AnthropicClient(LLMClient):
    """``LLMClient`` speaking the Messages API. ``x-api-key`` and ``anthropic-version`` headers.

    With thinking on, the thinking blocks of an answer that calls tools must come back
    verbatim with those calls in the next request. The agent's messages have no place for
    them, so the client remembers them by tool-call id and puts them back itself; a tool
    loop it cannot complete that way (a forced tool, a conversation reopened) runs that
    request without thinking instead of failing.
    """

    accumulator = AnthropicAccumulator
    chat_path = "/messages"
    _MEMORY = 64  # tool-call groups remembered

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._thinking: dict[str, list[dict[str, Any]]] = {}

    def request_headers(self) -> dict[str, str]:
        headers = super().request_headers()
        headers.pop("Authorization", None)
        if self._api_key:
            headers["x-api-key"] = self._api_key
        headers["anthropic-version"] = ANTHROPIC_VERSION
        return headers

    def response_for(self, call: ChatCall, *, interrupted: bool = False) -> ChatResponse:
        result = super().response_for(call, interrupted=interrupted)
        acc = call.acc
        if isinstance(acc, AnthropicAccumulator) and acc.thinking and result.tool_calls and not interrupted:
            blocks = [acc.thinking[i] for i in sorted(acc.thinking)]
            self._thinking[result.tool_calls[0].id] = blocks
            while len(self._thinking) > self._MEMORY:
                self._thinking.pop(next(iter(self._thinking)))
        return result

    def _thinking_possible(self, messages: list[Message]) -> bool:
        """Whether thinking may be on: not when the open tool loop's last calls came
        without their thinking blocks."""
        last = next((m for m in reversed(messages) if m.role == "assistant"), None)
        if last is None or not last.tool_calls or messages[-1].role != "tool":
            return True
        return last.tool_calls[0].id in self._thinking

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        system, messages = anthropic_messages(call.messages, self._thinking)
        thinking_ok = self._thinking_possible(call.messages)
        if call.response_schema is not None:
            # No schema mode: the instruction goes in the system text, the caller validates.
            system = (system + "\n\n" if system else "") + (
                "Answer with one JSON object following this JSON schema, and nothing else:\n"
                + json_text(call.response_schema))
        body: dict[str, Any] = {"model": call.model, "messages": messages, "stream": call.stream_now,
                                "max_tokens": call.max_tokens or 4096}
        if system:
            body["system"] = system
        # The budget for the user's level is the dialect's (core.llm.dialects): at least 1024
        # and below max_tokens, as the API requires.
        budget = self.dialect.reasoning_value(self.provider.reasoning)
        forced = call.send_tools and (call.tool_choice == "required" or isinstance(call.tool_choice, dict))
        if budget and (not thinking_ok or forced):
            # Anthropic refuses thinking with a forced tool, and a tool loop whose calls came
            # without thinking cannot continue with it: this request goes without.
            log.info("thinking off for this request (%s)", "forced tool" if forced else "tool loop without thinking")
            budget = None
        if budget:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            body["max_tokens"] = max(body["max_tokens"], budget + 1024)
        elif call.temperature is not None:
            body["temperature"] = min(call.temperature, 1.0)  # thinking requires the default
        if call.send_tools:
            body["tools"] = [{"name": f.name, "description": f.description, "input_schema": f.parameters}
                             for f in functions_of(call.send_tools)]
            choice = call.tool_choice
            if choice == "required":
                body["tool_choice"] = {"type": "any"}
            elif choice == "none":
                body["tool_choice"] = {"type": "none"}
            elif name := forced_tool(choice):
                body["tool_choice"] = {"type": "tool", "name": name}
        return body
