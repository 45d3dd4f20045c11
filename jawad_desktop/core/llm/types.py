"""The wire-neutral shapes of the LLM layer: stream deltas, usage, responses.

Every provider client turns its wire format into these; the agent only sees these. The
messages themselves are the ground floor's (``core.messages``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.messages import Message, ToolCall


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
    ``metadata`` holds spec 003's keys: provider, model, latency_ms, time_to_first_token_ms,
    input_tokens, output_tokens, total_tokens, api_calls, retries, response_id, finish_reason.
    """

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    metadata: dict[str, Any] = field(default_factory=dict)
    interrupted: bool = False

    def to_message(self) -> Message:
        return Message(role="assistant", content=self.content, tool_calls=list(self.tool_calls))
