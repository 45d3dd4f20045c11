"""OpenAI's Responses API (``POST /v1/responses``), stateless: every round resubmits the
whole history as input items and ``store`` is false, so no ``previous_response_id`` is ever
needed (spec 003; works under Zero Data Retention).

Input items: messages (``role`` + ``content``), ``function_call`` items for the model's
calls and ``function_call_output`` items for their results. The stream is typed events:
``response.output_item.added``, ``response.output_text.delta``,
``response.function_call_arguments.delta``, ``response.completed`` / ``failed`` /
``incomplete`` and ``error``.
"""

from __future__ import annotations

from typing import Any

from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.formats import EventAccumulator, forced_tool, functions_of, json_text, obj
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, Usage
from jawad_desktop.core.llm.vision import images_note
from jawad_desktop.core.llm.wire import MalformedResponse
from jawad_desktop.core.messages import Image, Message

__all__ = ["ResponsesClient", "responses_input"]

_ERROR_STATUS = {"rate_limit_exceeded": 429, "server_error": 500, "invalid_prompt": 400,
                 "insufficient_quota": 429, "invalid_api_key": 401, "model_not_found": 404}


def _input_image(image: Image) -> dict[str, Any]:
    return {"type": "input_image", "image_url": image.data_url()}


def responses_input(messages: list[Message]) -> list[dict[str, Any]]:
    """The ``input`` items of a request: the whole conversation, tool calls and results included."""
    items: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []  # tool results' images: one user message after the run

    def flush() -> None:
        if held:
            items.append({"role": "user", "content": list(held)})
            held.clear()

    for message in messages:
        if message.role == "tool":
            items.append({"type": "function_call_output", "call_id": message.tool_call_id,
                          "output": message.content})
            if message.images:
                held.append({"type": "input_text", "text": images_note(message)})
                held.extend(_input_image(image) for image in message.images)
            continue
        flush()
        if message.images:
            parts = [{"type": "input_text", "text": message.content}] if message.content else []
            items.append({"role": message.role, "content": parts + [_input_image(i) for i in message.images]})
        elif message.content or not message.tool_calls:
            items.append({"role": message.role, "content": message.content})
        for call in message.tool_calls:
            items.append({"type": "function_call", "call_id": call.id, "name": call.name,
                          "arguments": call.arguments_json()})
    flush()
    return items


def _usage(raw: Any) -> tuple[Usage, int | None, int | None]:
    raw = obj(raw)
    usage = Usage(input_tokens=raw.get("input_tokens"), output_tokens=raw.get("output_tokens"),
                  total_tokens=raw.get("total_tokens"))
    return (usage, obj(raw.get("input_tokens_details")).get("cached_tokens"),
            obj(raw.get("output_tokens_details")).get("reasoning_tokens"))


class ResponsesAccumulator(EventAccumulator):
    """Folds Responses API events (and whole ``response`` objects) into deltas."""

    def __init__(self) -> None:
        super().__init__()
        self.status = ""
        self.reasoning_tokens: int | None = None

    def add_event(self, kind: str, data: dict[str, Any]) -> StreamDelta | None:
        index = data.get("output_index") if isinstance(data.get("output_index"), int) else 0
        if kind == "response.created":
            self.response_id = str(obj(data.get("response")).get("id") or "")
        elif kind == "response.output_item.added":
            item = obj(data.get("item"))
            if item.get("type") == "function_call":
                fragment = self._add_call({"index": index, "id": item.get("call_id") or item.get("id"),
                                           "function": {"name": item.get("name"),
                                                        "arguments": item.get("arguments") or ""}}, 0)
                return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
        elif kind == "response.output_text.delta" and data.get("delta"):
            self.text.append(str(data["delta"]))
            return StreamDelta(text=str(data["delta"]))
        elif kind == "response.function_call_arguments.delta" and data.get("delta"):
            fragment = self._add_call({"index": index, "function": {"arguments": str(data["delta"])}}, 0)
            return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
        elif kind in ("response.completed", "response.incomplete"):
            self._finish_from(obj(data.get("response")))
        return None

    def _finish_from(self, response: dict[str, Any]) -> None:
        self.response_id = str(response.get("id") or self.response_id)
        self.status = str(response.get("status") or "")
        self.usage, self.cached_input_tokens, self.reasoning_tokens = _usage(response.get("usage"))
        if self.status == "incomplete":
            reason = obj(response.get("incomplete_details")).get("reason")
            self.finish_reason = "length" if reason == "max_output_tokens" else str(reason or "incomplete")

    def error_in(self, data: Any) -> tuple[int, str] | None:
        if not isinstance(data, dict):
            return None
        if data.get("type") == "error":
            return _ERROR_STATUS.get(str(data.get("code")), 500), json_text({"error": data})
        if data.get("type") == "response.failed":
            error = obj(obj(data.get("response")).get("error"))
            return _ERROR_STATUS.get(str(error.get("code")), 500), json_text({"error": error})
        return None

    def response(self) -> ChatResponse:
        result = super().response()
        result.metadata.update(response_status=self.status, reasoning_tokens=self.reasoning_tokens)
        return result

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole ``response`` object."""
        if not isinstance(data, dict) or not isinstance(data.get("output"), list):
            raise MalformedResponse("the answer has no output list")
        acc = cls()
        acc.chunks += 1
        for index, item in enumerate(data["output"]):
            item = obj(item)
            if item.get("type") == "message":
                for part in item.get("content") or []:
                    if obj(part).get("type") == "output_text" and obj(part).get("text"):
                        acc.text.append(str(obj(part)["text"]))
            elif item.get("type") == "function_call":
                acc.add({"type": "response.output_item.added", "output_index": index, "item": item})
        acc._finish_from(data)
        return acc.response()


class ResponsesClient(LLMClient):
    """``LLMClient`` speaking the Responses API, with a stateless tool loop."""

    accumulator = ResponsesAccumulator
    chat_path = "/responses"

    @property
    def supports_schema(self) -> bool:
        return True

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        body: dict[str, Any] = {"model": call.model, "input": responses_input(call.messages),
                                "stream": call.stream_now, "store": False}
        # Reasoning models refuse a temperature; ``reasoning.effort`` and what each family
        # accepts are the dialect's (core.llm.dialects), applied after this.
        if call.temperature is not None:
            body["temperature"] = call.temperature
        if call.max_tokens is not None:
            body["max_output_tokens"] = call.max_tokens
        if call.response_schema is not None:
            body["text"] = {"format": {"type": "json_schema", "name": "answer",
                                       "schema": call.response_schema, "strict": False}}
        if call.send_tools:
            body["tools"] = [{"type": "function", "name": f.name, "description": f.description,
                              "parameters": f.parameters, "strict": False}
                             for f in functions_of(call.send_tools)]
            choice = call.tool_choice
            if name := forced_tool(choice):
                body["tool_choice"] = {"type": "function", "name": name}
            elif isinstance(choice, str):
                body["tool_choice"] = choice
        return body
