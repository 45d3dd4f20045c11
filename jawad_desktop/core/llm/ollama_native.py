"""Ollama's native API (``POST /api/chat``): newline-delimited JSON streaming, tool calls
with arguments as objects, ``think`` for reasoning models and ``format`` for a JSON schema.
Also its model management: the models it has (``GET /api/tags``) and pulling one with
progress (``POST /api/pull``, streamed NDJSON, errors as ``{"error": ...}``).

Some models prefix the tool name (``tool.get_weather``, ``functions.get_weather``); a
prefixed name is resolved to the offered tool it names (spec 003).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.errors import (
    LLMError,
    ModelNotFoundError,
    ProtocolError,
    ServerError,
    error_text_from_body,
)
from jawad_desktop.core.llm.formats import arguments_object, functions_of, given, obj, tool_names_by_call_id
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, ToolCallFragment, Usage
from jawad_desktop.core.llm.vision import images_note
from jawad_desktop.core.llm.wire import MalformedResponse, StreamAccumulator, new_call_id
from jawad_desktop.core.messages import Message

__all__ = ["OllamaModel", "OllamaNativeClient", "PullProgress", "ollama_client", "ollama_messages", "resolve_tool_name"]

_PREFIXES = ("tool.", "tools.", "functions.", "function.")


def resolve_tool_name(name: str, offered: set[str]) -> str:
    """The offered tool ``name`` means: itself, or itself without a model-side prefix."""
    if name in offered or not offered:
        return name
    for prefix in _PREFIXES:
        if name.startswith(prefix) and name[len(prefix):] in offered:
            return name[len(prefix):]
    return name


def ollama_messages(messages: list[Message]) -> list[dict[str, Any]]:
    names = tool_names_by_call_id(messages)
    out: list[dict[str, Any]] = []
    held: list[Message] = []  # tool results with images: shown in a user message after the run

    def flush() -> None:
        if held:
            out.append({"role": "user", "content": "\n".join(images_note(m) for m in held),
                        "images": [image.base64() for m in held for image in m.images]})
            held.clear()

    for message in messages:
        if message.role != "tool":
            flush()
        wire: dict[str, Any] = {"role": message.role, "content": message.content or ""}
        if message.images and message.role == "tool":
            held.append(message)
        elif message.images:
            wire["images"] = [image.base64() for image in message.images]
        if message.tool_calls:
            wire["tool_calls"] = [{"function": {"name": call.name, "arguments": arguments_object(call)}}
                                  for call in message.tool_calls]
        if message.role == "tool":
            wire["tool_name"] = message.name or names.get(message.tool_call_id, "")
        out.append(wire)
    flush()
    return out


class OllamaAccumulator(StreamAccumulator):
    """Folds ``/api/chat`` lines (streamed or whole) into deltas."""

    def __init__(self, offered: set[str] | None = None) -> None:
        super().__init__()
        self.offered = offered or set()
        self._next_index = 0

    def add(self, data: Any) -> StreamDelta | None:
        if not isinstance(data, dict) or ("message" not in data and "done" not in data):
            self.skipped += 1
            return None
        self.chunks += 1
        message = obj(data.get("message"))
        text = str(message.get("content") or "")
        fragments: list[ToolCallFragment] = []
        for raw in message.get("tool_calls") or []:
            function = obj(obj(raw).get("function"))
            if not function.get("name"):
                continue
            fragment = self._add_call({"index": self._next_index, "id": obj(raw).get("id") or new_call_id(),
                                       "function": {"name": resolve_tool_name(str(function["name"]), self.offered),
                                                    "arguments": function.get("arguments") or {}}}, 0)
            self._next_index += 1
            if fragment is not None:
                fragments.append(fragment)
        if data.get("done"):
            reason = str(data.get("done_reason") or "stop")
            self.finish_reason = "tool_calls" if self._next_index else reason
            prompt, output = data.get("prompt_eval_count"), data.get("eval_count")
            if isinstance(prompt, int) or isinstance(output, int):
                self.usage = Usage(input_tokens=prompt, output_tokens=output,
                                   total_tokens=(prompt or 0) + (output or 0))
        if text:
            self.text.append(text)
        if not text and not fragments:
            return None
        return StreamDelta(text=text, tool_calls=fragments)

    @classmethod
    def parse_whole(cls, data: Any) -> ChatResponse:
        """A whole ``/api/chat`` answer (one line with ``done``)."""
        if not isinstance(data, dict) or "message" not in data:
            raise MalformedResponse("the answer has no message")
        acc = cls()
        acc.add(data)
        return acc.response()

    def absorb(self, whole: ChatResponse) -> StreamDelta | None:
        for call in whole.tool_calls:  # a whole answer is parsed before the offered names are known
            call.name = resolve_tool_name(call.name, self.offered)
        return super().absorb(whole)


async def _lines(response: httpx.Response) -> AsyncGenerator[ServerSentEvent, None]:
    async for line in response.aiter_lines():
        if line.strip():
            yield ServerSentEvent(data=line)


class OllamaNativeClient(LLMClient):
    """``LLMClient`` speaking Ollama's own ``/api/chat``."""

    accumulator = OllamaAccumulator
    chat_path = "/api/chat"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        root = self._base_url
        self._base_url = root[: -len("/v1")] if root.endswith("/v1") else root

    @property
    def supports_schema(self) -> bool:
        return True

    def stream_events(self, response: httpx.Response) -> AsyncGenerator[ServerSentEvent, None] | None:
        if "ndjson" in response.headers.get("content-type", ""):
            return _lines(response)
        return super().stream_events(response)

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        functions = functions_of(call.send_tools)
        if isinstance(call.acc, OllamaAccumulator):
            call.acc.offered = {f.name for f in functions}
        body: dict[str, Any] = {"model": call.model, "messages": ollama_messages(call.messages),
                                "stream": call.stream_now}
        options = given(temperature=call.temperature, num_predict=call.max_tokens)
        if options:
            body["options"] = options
        # ``think`` (true/false, or gpt-oss's levels) is the dialect's (core.llm.dialects).
        if call.response_schema is not None:
            body["format"] = call.response_schema
        if functions:
            body["tools"] = [{"type": "function", "function": {
                "name": f.name, "description": f.description, "parameters": f.parameters}} for f in functions]
        return body

    async def list_models(self) -> list[str]:
        data = await self._get_json(await self.http_client(), f"{self._base_url}/api/tags")
        return [str(obj(m).get("name")) for m in obj(data).get("models") or [] if obj(m).get("name")]

    async def installed_models(self) -> list[OllamaModel]:
        """The models Ollama has (``GET /api/tags``), with their size and details."""
        data = await self._get_json(await self.http_client(), f"{self._base_url}/api/tags")
        models = []
        for item in obj(data).get("models") or []:
            model = obj(item)
            details = obj(model.get("details"))
            if model.get("name"):
                models.append(OllamaModel(
                    name=str(model["name"]), size=int(model.get("size") or 0),
                    parameter_size=str(details.get("parameter_size") or ""),
                    quantization=str(details.get("quantization_level") or ""), family=str(details.get("family") or ""),
                ))
        return models

    async def pull(self, name: str) -> AsyncGenerator[PullProgress, None]:
        """Pull ``name`` (``POST /api/pull``), yielding each progress line until ``success``; cancel by
        closing the generator (Ollama keeps the layers it has and goes on from there next time)."""
        http = await self.http_client()
        url = f"{self._base_url}/api/pull"
        try:
            async with http.stream("POST", url, json={"model": name, "stream": True},
                                   timeout=httpx.Timeout(self.network.connect_timeout_s, read=None)) as response:
                if response.status_code >= 400:
                    body = (await response.aread()).decode(errors="replace")
                    said = error_text_from_body(body) or f"HTTP {response.status_code}"
                    if response.status_code == 404:
                        raise _not_found(name, said)
                    raise _pull_failed(name, said)
                succeeded, failure = False, None
                async for line in response.aiter_lines():  # to the end
                    if not line.strip():
                        continue
                    try:
                        event = obj(json.loads(line))
                    except ValueError:
                        raise ProtocolError(f"Ollama at {self._base_url} answered the pull of {name!r} with "
                                            "something that is not its progress stream.",
                                            suggestions=["Check that the base URL is Ollama's."]) from None
                    if event.get("error"):  # Ollama ends the stream after it: read to the end
                        failure = failure or _pull_failed(name, str(event["error"]))
                        continue
                    progress = PullProgress(
                        status=str(event.get("status") or ""), digest=str(event.get("digest") or ""),
                        total=int(event.get("total") or 0), completed=int(event.get("completed") or 0))
                    succeeded = succeeded or progress.done
                    yield progress
                if failure is not None:
                    raise failure
                if succeeded:
                    return
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        raise ProtocolError(f"Ollama's pull of {name!r} ended before it said it succeeded.",
                            suggestions=["Try again: Ollama goes on where it stopped."])


# --- managing Ollama's models: list (GET /api/tags) and pull (POST /api/pull) -----------------------


@dataclass(frozen=True)
class OllamaModel:
    """A model Ollama has (``/api/tags``)."""

    name: str
    size: int  # bytes on disk
    parameter_size: str = ""  # "3.2B"
    quantization: str = ""  # "Q4_K_M"
    family: str = ""


@dataclass(frozen=True)
class PullProgress:
    """One line of ``/api/pull``'s stream: a status, and for a layer its digest and bytes."""

    status: str
    digest: str = ""
    total: int = 0
    completed: int = 0

    @property
    def done(self) -> bool:
        return self.status == "success"


def ollama_client(provider: ProviderConfig, api_key: str | None = None, network: NetworkSettings | None = None,
                  ) -> OllamaNativeClient:
    """A native-API client for an Ollama provider of either kind (``ollama`` speaks /v1, but the same
    server answers /api)."""
    native = provider.model_copy(update={"kind": ProviderKind.OLLAMA_NATIVE})
    return OllamaNativeClient(native, api_key, network)


def _not_found(name: str, said: str) -> ModelNotFoundError:
    return ModelNotFoundError(
        f"Ollama has no model called {name!r} to pull ({said}).",
        suggestions=["Check the name in Ollama's library (e.g. llama3.2:1b, qwen2.5:1.5b)."],
        detail=said,
    )


def _pull_failed(name: str, said: str) -> LLMError:
    if re.search(r"file does not exist|not found|manifest unknown", said, re.IGNORECASE):
        return _not_found(name, said)
    return ServerError(f"Ollama could not pull {name!r}: {said}.",
                       suggestions=["Try again: Ollama keeps what it downloaded and goes on from there.",
                                    "Check that Ollama can reach the internet and has disk space."],
                       detail=said)
