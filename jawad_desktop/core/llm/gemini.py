"""Google Gemini's API (``models/{model}:generateContent`` and ``:streamGenerateContent?alt=sse``)
with function declarations, thinking budgets and a JSON-schema answer mode.

Messages become ``contents`` (roles ``user`` and ``model``) with ``text``, ``functionCall``
and ``functionResponse`` parts; system messages become ``systemInstruction``. Gemini sends
each function call whole in one chunk. The key goes in the ``x-goog-api-key`` header.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from jawad_desktop.core.llm.audio_input import gemini_media_type
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.errors import LLMError
from jawad_desktop.core.llm.formats import (
    alternating_turns,
    arguments_object,
    forced_tool,
    functions_of,
    given,
    obj,
    tool_names_by_call_id,
)
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, Usage
from jawad_desktop.core.llm.wire import MalformedResponse, StreamAccumulator, new_call_id
from jawad_desktop.core.messages import Image, Message

__all__ = ["GeminiClient", "gemini_contents", "gemini_schema"]

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter"}
# The OpenAPI subset Gemini's ``parameters`` and ``responseSchema`` accept.
_SCHEMA_KEYS = {"type", "format", "description", "nullable", "enum", "properties", "required", "items",
                "minItems", "maxItems", "minimum", "maximum", "anyOf", "title", "minLength", "maxLength",
                "pattern", "propertyOrdering", "minProperties", "maxProperties"}


def gemini_schema(schema: Any) -> Any:
    """A JSON schema cut down to what Gemini accepts: unknown keys dropped, ``["x", "null"]``
    types as ``nullable``, ``$ref`` to ``$defs`` inlined (pydantic emits them)."""
    defs = obj(schema).get("$defs", {}) if isinstance(schema, dict) else {}

    def clean(node: Any, depth: int = 0) -> Any:
        if isinstance(node, list):
            return [clean(item, depth) for item in node]
        if not isinstance(node, dict) or depth > 20:
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            return clean(defs[ref[8:]], depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key not in _SCHEMA_KEYS:
                continue
            if key == "type" and isinstance(value, list):
                kinds = [t for t in value if t != "null"]
                out["type"] = kinds[0] if kinds else "string"
                if "null" in value:
                    out["nullable"] = True
            elif key == "properties" and isinstance(value, dict):
                out[key] = {name: clean(sub, depth + 1) for name, sub in value.items()}
            elif key in ("items", "anyOf"):
                out[key] = clean(value, depth + 1)
            else:
                out[key] = value
        if "anyOf" in out:  # Optional[X] from pydantic: anyOf [X, null]
            options = [o for o in out["anyOf"] if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(options) == 1 and isinstance(options[0], dict):
                merged = {**options[0], **{k: v for k, v in out.items() if k != "anyOf"}}
                merged["nullable"] = True
                return merged
        return out

    return clean(schema)


def _inline(image: Image) -> dict[str, Any]:
    """An image part (``inlineData``: the REST API's JSON name of ``inline_data``)."""
    return {"inlineData": {"mimeType": image.media_type, "data": image.base64()}}


def _sounds(message: Message) -> list[dict[str, Any]]:
    """The message's sounds as ``inlineData`` parts with an audio MIME type (``core.llm.audio_input`` left
    out the ones the model does not hear)."""
    return [{"inlineData": {"mimeType": gemini_media_type(audio) or audio.media_type, "data": audio.base64()}}
            for audio in message.audio]


def gemini_contents(
    messages: list[Message], signatures: Mapping[str, str] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """The system instruction and the ``contents`` of a request. ``signatures`` gives the
    ``thoughtSignature`` a thinking model sent with a function call, by call id: it goes back
    on that call's part (Gemini 3 refuses a function call's turn without it)."""
    names = tool_names_by_call_id(messages)

    def turn_of(message: Message) -> tuple[str, list[dict[str, Any]]]:
        if message.role == "tool":
            name = message.name or names.get(message.tool_call_id, "tool")
            return "user", [{"functionResponse": {"name": name, "response": {"result": message.content}}},
                            *(_inline(image) for image in message.images), *_sounds(message)]
        parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
        parts.extend(_inline(image) for image in message.images)
        parts.extend(_sounds(message))
        for call in message.tool_calls:
            part: dict[str, Any] = {"functionCall": {"name": call.name, "args": arguments_object(call)}}
            if signatures and call.id in signatures:
                part["thoughtSignature"] = signatures[call.id]
            parts.append(part)
        return ("model" if message.role == "assistant" else "user"), parts

    system, contents = alternating_turns(messages, turn_of, key="parts")
    return "\n\n".join(system), contents


class GeminiAccumulator(StreamAccumulator):
    """Folds ``GenerateContentResponse`` chunks (streamed or whole) into deltas."""

    def __init__(self) -> None:
        super().__init__()
        self.cached_input_tokens: int | None = None
        self.reasoning_tokens: int | None = None
        self.signatures: dict[str, str] = {}  # call id -> thoughtSignature
        self._next_index = 0

    def add(self, data: Any) -> StreamDelta | None:
        if not isinstance(data, dict) or not ("candidates" in data or "usageMetadata" in data):
            self.skipped += 1
            return None
        self.chunks += 1
        if data.get("responseId") and not self.response_id:
            self.response_id = str(data["responseId"])
        meta = obj(data.get("usageMetadata"))
        if meta:
            self.usage = Usage(input_tokens=meta.get("promptTokenCount"),
                               output_tokens=(meta.get("candidatesTokenCount") or 0)
                               + (meta.get("thoughtsTokenCount") or 0),
                               total_tokens=meta.get("totalTokenCount"))
            self.cached_input_tokens = meta.get("cachedContentTokenCount", self.cached_input_tokens)
            self.reasoning_tokens = meta.get("thoughtsTokenCount", self.reasoning_tokens)
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            return None
        candidate = obj(candidates[0])
        if candidate.get("finishReason"):
            reason = str(candidate["finishReason"])
            self.finish_reason = _FINISH.get(reason, reason.lower())
        text: list[str] = []
        fragments = []
        for part in obj(candidate.get("content")).get("parts") or []:
            part = obj(part)
            if part.get("thought"):
                continue  # thinking summaries are not the answer
            if isinstance(part.get("text"), str) and part["text"]:
                text.append(part["text"])
            call = obj(part.get("functionCall"))
            if call.get("name"):
                call_id = str(call.get("id") or new_call_id())
                if part.get("thoughtSignature"):
                    self.signatures[call_id] = str(part["thoughtSignature"])
                fragment = self._add_call({"index": self._next_index, "id": call_id,
                                           "function": {"name": call["name"], "arguments": call.get("args") or {}}},
                                          0)
                self._next_index += 1
                if fragment is not None:
                    fragments.append(fragment)
        if text:
            self.text.append("".join(text))
        if fragments and self.finish_reason == "stop":
            self.finish_reason = "tool_calls"
        if not text and not fragments:
            return None
        return StreamDelta(text="".join(text), tool_calls=fragments)

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole ``GenerateContentResponse``; the thought signatures ride in its metadata
        to ``absorb``."""
        if not isinstance(data, dict) or "candidates" not in data:
            raise MalformedResponse("the answer has no candidates")
        acc = cls()
        acc.add(data)
        result = acc.response()
        result.metadata["gemini_signatures"] = acc.signatures
        return result

    def absorb(self, whole: ChatResponse) -> StreamDelta | None:
        signatures = whole.metadata.pop("gemini_signatures", None)
        if isinstance(signatures, dict):
            self.signatures.update(signatures)
        return super().absorb(whole)

    def response(self) -> ChatResponse:
        result = super().response()
        if result.tool_calls and result.finish_reason == "stop":
            result.finish_reason = "tool_calls"
        result.metadata.update(cached_input_tokens=self.cached_input_tokens, reasoning_tokens=self.reasoning_tokens)
        return result


class GeminiClient(LLMClient):
    """``LLMClient`` speaking the Gemini API (``BackendGeminiAPI``: key in a header).

    Thought signatures of function calls are remembered by call id and sent back with them
    (the agent's messages have no place for them)."""

    accumulator = GeminiAccumulator

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._signatures: dict[str, str] = {}

    def request_headers(self) -> dict[str, str]:
        headers = super().request_headers()
        headers.pop("Authorization", None)
        if self._api_key:
            headers["x-goog-api-key"] = self._api_key
        return headers

    @property
    def supports_schema(self) -> bool:
        return True

    def _model_path(self, model: str) -> str:
        return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"

    def chat_url(self, call: ChatCall) -> str:
        method = "streamGenerateContent?alt=sse" if call.stream_now else "generateContent"
        return f"{self._base_url}/{self._model_path(call.model)}:{method}"

    def response_for(self, call: ChatCall, *, interrupted: bool = False) -> ChatResponse:
        result = super().response_for(call, interrupted=interrupted)
        if isinstance(call.acc, GeminiAccumulator) and call.acc.signatures:
            self._signatures.update(call.acc.signatures)
            while len(self._signatures) > 256:
                self._signatures.pop(next(iter(self._signatures)))
        return result

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        system, contents = gemini_contents(call.messages, self._signatures)
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        config = given(temperature=call.temperature, maxOutputTokens=call.max_tokens)
        # thinkingConfig (a level for Gemini 3, a budget for 2.5) is the dialect's, added after
        # this (core.llm.dialects); a model that refuses it answers with its default thinking.
        if call.response_schema is not None:
            config["responseMimeType"] = "application/json"
            config["responseSchema"] = gemini_schema(call.response_schema)
        if config:
            body["generationConfig"] = config
        if call.send_tools:
            body["tools"] = [{"functionDeclarations": [
                {"name": f.name, "description": f.description, "parameters": gemini_schema(f.parameters)}
                for f in functions_of(call.send_tools)]}]
            choice = call.tool_choice
            mode = {"required": "ANY", "none": "NONE"}.get(choice if isinstance(choice, str) else "", "AUTO")
            function_config: dict[str, Any] = {"mode": mode}
            if name := forced_tool(choice):
                function_config = {"mode": "ANY", "allowedFunctionNames": [name]}
            body["toolConfig"] = {"functionCallingConfig": function_config}
        return body

    def status_error(self, status: int, raw: str, headers: httpx.Headers | None) -> LLMError:
        # Gemini answers a wrong key with 400 API_KEY_INVALID: it is an authentication failure.
        if status == 400 and ("API_KEY_INVALID" in raw or "API key not valid" in raw):
            status = 401
        return super().status_error(status, raw, headers)

    async def list_models(self) -> list[str]:
        data = await self._get_json(await self.http_client(), f"{self._base_url}/models")
        names: list[str] = []
        for item in obj(data).get("models") or []:
            name = str(obj(item).get("name") or "")
            methods = obj(item).get("supportedGenerationMethods") or ["generateContent"]
            if name and "generateContent" in methods:
                names.append(name.removeprefix("models/"))
        return names


