"""AWS Bedrock's Converse API (``POST /model/{id}/converse`` and ``/converse-stream``) with
tool use, signed with SigV4 (``core.llm.sigv4``).

Credentials come from the environment or a profile (spec 003), never from the keyring or
the settings file; the region from the provider's setting, else ``AWS_REGION``, else the
profile's, else ``us-east-1``; the endpoint is ``https://bedrock-runtime.{region}.amazonaws.com``
unless the provider has a base URL (spec 003's ``BaseEndpoint`` override).

The streamed answer is AWS's binary event stream (``application/vnd.amazon.eventstream``):
frames with a length prelude, typed headers (``:event-type``, ``:message-type``) and a JSON
payload, each checked by CRC32. ``read_frames`` turns it into the same events the other
providers fold.
"""

from __future__ import annotations

import binascii
import json
import os
import struct
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any
from urllib.parse import quote

import httpx
from httpx_sse import ServerSentEvent

from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.errors import AuthError, LLMError, ProtocolError
from jawad_desktop.core.llm.formats import (
    EventAccumulator,
    alternating_turns,
    arguments_object,
    forced_tool,
    functions_of,
    given,
    json_text,
    obj,
)
from jawad_desktop.core.llm.sigv4 import SigV4Auth, find_credentials, profile_region
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, Usage
from jawad_desktop.core.llm.wire import MalformedResponse, parse_arguments
from jawad_desktop.core.messages import Image, Message, ToolCall

__all__ = ["BedrockClient", "bedrock_messages", "bedrock_region", "read_frames"]

_STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
         "content_filtered": "content_filter", "guardrail_intervened": "content_filter"}
_EXCEPTION_STATUS = {"throttlingException": 429, "validationException": 400, "accessDeniedException": 403,
                     "resourceNotFoundException": 404, "modelTimeoutException": 504,
                     "serviceUnavailableException": 503, "internalServerException": 500,
                     "modelStreamErrorException": 500, "modelNotReadyException": 503}


def bedrock_region(provider_region: str = "", profile: str = "") -> str:
    return provider_region or os.environ.get("AWS_REGION") or profile_region(profile) or "us-east-1"


def _image_block(image: Image) -> dict[str, Any]:
    """A Converse image block; in JSON the bytes are base64 text."""
    return {"image": {"format": image.media_type.rsplit("/", 1)[-1], "source": {"bytes": image.base64()}}}


def bedrock_messages(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``system`` blocks and the ``messages`` of a Converse request (tool results are
    ``toolResult`` blocks of a user message; consecutive messages of one role are merged)."""

    def turn_of(message: Message) -> tuple[str, list[dict[str, Any]]]:
        if message.role == "tool":
            return "user", [{"toolResult": {"toolUseId": message.tool_call_id,
                                            "content": [{"text": message.content or "(no output)"},
                                                        *(_image_block(i) for i in message.images)]}}]
        blocks: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
        blocks.extend(_image_block(image) for image in message.images)
        blocks.extend({"toolUse": {"toolUseId": call.id, "name": call.name, "input": arguments_object(call)}}
                      for call in message.tool_calls)
        return message.role, blocks

    system, turns = alternating_turns(messages, turn_of)
    return [{"text": text} for text in system], turns


class EventStreamError(ValueError):
    """The bytes are not a valid AWS event stream."""


def _headers(raw: bytes) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    at = 0
    while at < len(raw):
        size = raw[at]
        name = raw[at + 1: at + 1 + size].decode()
        at += 1 + size
        kind = raw[at]
        at += 1
        if kind in (0, 1):
            headers[name] = kind == 0
        elif kind in (2, 3, 4, 5, 8):
            width = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8}[kind]
            headers[name] = int.from_bytes(raw[at: at + width], "big", signed=True)
            at += width
        elif kind in (6, 7):
            length = struct.unpack(">H", raw[at: at + 2])[0]
            value = raw[at + 2: at + 2 + length]
            headers[name] = value.decode() if kind == 7 else value
            at += 2 + length
        elif kind == 9:
            headers[name] = raw[at: at + 16]
            at += 16
        else:
            raise EventStreamError(f"unknown header type {kind}")
    return headers


async def read_frames(chunks: AsyncIterator[bytes]) -> AsyncGenerator[tuple[dict[str, Any], bytes], None]:
    """The (headers, payload) of each event-stream frame, CRCs checked."""
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        while len(buffer) >= 12:
            total, header_size, prelude_crc = struct.unpack(">III", buffer[:12])
            if binascii.crc32(buffer[:8]) != prelude_crc or total < 16:
                raise EventStreamError("bad prelude checksum")
            if len(buffer) < total:
                break
            frame, buffer = buffer[:total], buffer[total:]
            if binascii.crc32(frame[:-4]) != struct.unpack(">I", frame[-4:])[0]:
                raise EventStreamError("bad message checksum")
            yield _headers(frame[12: 12 + header_size]), frame[12 + header_size: -4]
    if buffer:
        raise EventStreamError("the stream ended inside a frame")


async def _events(response: httpx.Response) -> AsyncGenerator[ServerSentEvent, None]:
    """Frames as events with a JSON ``data``: ``{"type": <event type>, ...payload}``."""
    try:
        async for headers, payload in read_frames(response.aiter_bytes()):
            try:
                body = json.loads(payload) if payload else {}
            except ValueError:
                body = {"message": payload.decode("utf-8", errors="replace")}
            if headers.get(":message-type") == "exception" or headers.get(":message-type") == "error":
                name = headers.get(":exception-type") or headers.get(":error-code") or "internalServerException"
                data = {"type": "exception", "exception": name, "message": obj(body).get("message", "")}
            else:
                data = {"type": headers.get(":event-type", ""), **obj(body)}
            yield ServerSentEvent(data=json.dumps(data))
    except EventStreamError as exc:
        yield ServerSentEvent(data=json.dumps({"type": "exception", "exception": "modelStreamErrorException",
                                               "message": f"unreadable event stream: {exc}"}))


class BedrockAccumulator(EventAccumulator):
    """Folds Converse stream events (and whole answers) into deltas."""

    def add_event(self, kind: str, data: dict[str, Any]) -> StreamDelta | None:
        index = data.get("contentBlockIndex") if isinstance(data.get("contentBlockIndex"), int) else 0
        if kind == "contentBlockStart":
            tool = obj(obj(data.get("start")).get("toolUse"))
            if tool.get("name"):
                fragment = self._add_call({"index": index, "id": tool.get("toolUseId"),
                                           "function": {"name": tool["name"]}}, 0)
                return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
        elif kind == "contentBlockDelta":
            delta = obj(data.get("delta"))
            if isinstance(delta.get("text"), str) and delta["text"]:
                self.text.append(delta["text"])
                return StreamDelta(text=delta["text"])
            tool = obj(delta.get("toolUse"))
            if tool.get("input"):
                fragment = self._add_call({"index": index, "function": {"arguments": str(tool["input"])}}, 0)
                return StreamDelta(tool_calls=[fragment]) if fragment is not None else None
        elif kind == "messageStop":
            reason = str(data.get("stopReason") or "")
            self.finish_reason = _STOP.get(reason, reason)
        elif kind == "metadata":
            self._usage(data.get("usage"))
        return None

    def _usage(self, raw: Any) -> None:
        usage = obj(raw)
        if usage:
            self.usage = Usage(input_tokens=usage.get("inputTokens"), output_tokens=usage.get("outputTokens"),
                               total_tokens=usage.get("totalTokens"))
            self.cached_input_tokens = usage.get("cacheReadInputTokens")

    def error_in(self, data: Any) -> tuple[int, str] | None:
        if isinstance(data, dict) and data.get("type") == "exception":
            status = _EXCEPTION_STATUS.get(str(data.get("exception")), 500)
            return status, json_text({"message": f"{data.get('exception')}: {data.get('message', '')}"})
        return None

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole Converse answer."""
        message = obj(obj(obj(data).get("output")).get("message"))
        if not isinstance(message.get("content"), list):
            raise MalformedResponse("the answer has no output message")
        text: list[str] = []
        calls: list[ToolCall] = []
        for block in message["content"]:
            block = obj(block)
            if isinstance(block.get("text"), str):
                text.append(block["text"])
            tool = obj(block.get("toolUse"))
            if tool.get("name"):
                calls.append(ToolCall(id=str(tool.get("toolUseId") or ""), name=str(tool["name"]),
                                      arguments=parse_arguments(tool.get("input"))))
        acc = cls()
        acc._usage(data.get("usage"))
        reason = str(data.get("stopReason") or "")
        return ChatResponse(
            content="".join(text), tool_calls=calls,
            finish_reason=_STOP.get(reason, reason) or ("tool_calls" if calls else "stop"),
            usage=acc.usage or Usage(),
            metadata={"response_id": "", "cached_input_tokens": acc.cached_input_tokens},
        )


class BedrockClient(LLMClient):
    """``LLMClient`` speaking Bedrock Converse, every request signed with SigV4."""

    accumulator = BedrockAccumulator

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.region = bedrock_region(self.provider.region, self.provider.profile)
        self._base_url = self.provider.base_url or f"https://bedrock-runtime.{self.region}.amazonaws.com"

    def request_headers(self) -> dict[str, str]:
        headers = super().request_headers()
        headers.pop("Authorization", None)  # SigV4 signs each request instead
        return headers

    async def http_client(self) -> httpx.AsyncClient:
        fresh = self._http is None
        http = await super().http_client()
        if fresh:
            credentials = find_credentials(self.provider.profile)
            if credentials is None:
                await self.aclose()
                where = f"the profile {self.provider.profile!r}" if self.provider.profile else "the environment"
                raise AuthError(
                    f"No AWS credentials for Bedrock were found in {where}.",
                    suggestions=["Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for "
                                 "temporary credentials), or AWS_PROFILE with a profile in ~/.aws/credentials.",
                                 "Or set the AWS profile of this provider."],
                    remedy=Remedy("provider", self.provider.name))
            http.auth = SigV4Auth(credentials, self.region)
        return http

    def chat_url(self, call: ChatCall) -> str:
        action = "converse-stream" if call.stream_now else "converse"
        return f"{self._base_url}/model/{quote(call.model, safe='')}/{action}"

    def stream_events(self, response: httpx.Response) -> AsyncGenerator[ServerSentEvent, None] | None:
        if "eventstream" in response.headers.get("content-type", ""):
            return _events(response)
        return super().stream_events(response)

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        system, messages = bedrock_messages(call.messages)
        if call.response_schema is not None:
            system.append({"text": "Answer with one JSON object following this JSON schema, and nothing else:\n"
                                   + json_text(call.response_schema)})
        body: dict[str, Any] = {"messages": messages}
        if system:
            body["system"] = system
        config = given(maxTokens=call.max_tokens, temperature=call.temperature)
        if config:
            body["inferenceConfig"] = config
        if call.send_tools:
            tool_config: dict[str, Any] = {"tools": [
                {"toolSpec": {"name": f.name, "description": f.description or f.name,
                              "inputSchema": {"json": f.parameters}}} for f in functions_of(call.send_tools)]}
            choice = call.tool_choice
            if name := forced_tool(choice):
                tool_config["toolChoice"] = {"tool": {"name": name}}
            elif choice == "required":
                tool_config["toolChoice"] = {"any": {}}
            body["toolConfig"] = tool_config
        return body

    def status_error(self, status: int, raw: str, headers: httpx.Headers | None) -> LLMError:
        error = super().status_error(status, raw, headers)
        if status in (401, 403):
            error.suggestions = ["Check the AWS credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) and that this "
                                 f"account may use the model in Bedrock's model access page ({self.region}).",
                                 *error.suggestions[1:]]
            error.remedy = Remedy("provider", self.provider.name)  # Bedrock has no API key: its profile
        return error

    async def list_models(self) -> list[str]:
        http = await self.http_client()
        root = self.provider.base_url or f"https://bedrock.{self.region}.amazonaws.com"
        data = await self._get_json(http, f"{root}/foundation-models")
        names = [str(obj(m).get("modelId")) for m in obj(data).get("modelSummaries") or [] if obj(m).get("modelId")]
        if not names and not isinstance(obj(data).get("modelSummaries"), list):
            raise ProtocolError("Bedrock answered the model list with something unexpected.",
                                suggestions=["Check the region and the endpoint of this provider."],
                                remedy=Remedy("provider", self.provider.name))
        return names
