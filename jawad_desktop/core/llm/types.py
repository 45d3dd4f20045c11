"""The wire-neutral shapes of the LLM layer: messages, tool calls, stream deltas, responses.

Every provider client turns its wire format into these; the agent only sees these.
Messages are OpenAI-shaped dicts on the wire; here they are small dataclasses with
``to_wire()`` so the agent and the store never build JSON by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(slots=True)
class ToolCall:
    """A call the model asked for. ``arguments`` is the parsed object (or the raw text if
    it is not valid JSON: the agent's repair step decides what to do with it)."""

    id: str
    name: str
    arguments: dict[str, Any] | str
    type: Literal["function"] = "function"

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json()},
        }


@dataclass(slots=True)
class Message:
    """One chat message. Assistant messages may carry tool calls; tool messages answer one."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str = ""
    name: str = ""

    def to_wire(self) -> dict[str, Any]:
        # Never send content: null (llama.cpp rejects it, see PLATFORM.md): "" instead.
        wire: dict[str, Any] = {"role": self.role, "content": self.content or ""}
        if self.tool_calls:
            wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        if self.role == "tool":
            wire["tool_call_id"] = self.tool_call_id
            if self.name:
                wire["name"] = self.name
        return wire


@dataclass(slots=True)
class ToolCallFragment:
    """A streamed piece of a tool call: index, and whichever of id/name/arguments came."""

    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass(slots=True)
class StreamDelta:
    """One streamed update: text and/or tool-call fragments."""

    text: str = ""
    tool_calls: list[ToolCallFragment] = field(default_factory=list)


@dataclass(slots=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


@dataclass(slots=True)
class ChatResponse:
    """The final, normalised result of one ``chat`` call.

    ``interrupted`` is set when the call was cancelled: ``content`` keeps the partial text.
    ``tools_unsupported`` is set when the provider rejected ``tools`` and the request was
    retried without them: the agent switches to its text (XML/JSON) tool format.
    ``metadata`` holds spec 003's keys: provider, model, latency_ms, time_to_first_token_ms,
    input_tokens, output_tokens, total_tokens, api_calls, retries, response_id, finish_reason.
    """

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    metadata: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False
    tools_unsupported: bool = False

    def to_message(self) -> Message:
        return Message(role="assistant", content=self.content, tool_calls=list(self.tool_calls))
