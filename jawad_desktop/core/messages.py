"""The conversation's vocabulary: messages and the tool calls they carry.

The ground floor: the LLM clients send these, the agent builds them, the store saves them, and
events carry them. Messages are OpenAI-shaped dicts on the wire; here they are small
dataclasses with ``to_wire()`` so nobody builds JSON by hand.
"""

from __future__ import annotations

import base64
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


@dataclass(frozen=True, slots=True)
class Image:
    """A picture a message shows the model (a screenshot from ``look``): the file's bytes and
    its media type. Each provider client places it the way its API documents
    (``core.llm.vision`` and the clients)."""

    data: bytes
    media_type: str = "image/png"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


@dataclass(frozen=True, slots=True)
class Audio:
    """Sound a message carries for a model that hears it (an MCP tool's audio content): the file's
    bytes and its media type. Placed as each API documents, or left out with a note
    (``core.llm.audio_input``)."""

    data: bytes
    media_type: str = "audio/wav"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")


@dataclass(slots=True)
class Message:
    """One chat message. Assistant messages may carry tool calls; tool messages answer one.
    User and tool messages may carry ``images`` (only sent to models that accept them)."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str = ""
    name: str = ""
    images: list[Image] = field(default_factory=list)
    audio: list[Audio] = field(default_factory=list)  # only sent to models that hear it (core.llm.audio_input)

    def to_wire(self) -> dict[str, Any]:
        """The Chat Completions shape, images left out (``core.llm.vision.chat_messages`` places
        them: a tool message cannot hold one there)."""
        # Never send content: null (llama.cpp rejects it, see PLATFORM.md): "" instead.
        wire: dict[str, Any] = {"role": self.role, "content": self.content or ""}
        if self.tool_calls:
            wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        if self.role == "tool":
            wire["tool_call_id"] = self.tool_call_id
            if self.name:
                wire["name"] = self.name
        return wire
