"""Pieces every provider with its own wire format shares: reading the OpenAI-shaped tool
definitions the registry produces, naming tool results, the turns of the APIs that want
user and assistant turns to alternate, a request's optional settings, and the accumulator
of the APIs that stream typed events.

Pure functions and one accumulator base, no I/O.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.llm.wire import StreamAccumulator
from jawad_desktop.core.messages import Message, ToolCall

__all__ = [
    "EventAccumulator",
    "FunctionSpec",
    "alternating_turns",
    "arguments_object",
    "forced_tool",
    "functions_of",
    "given",
    "json_text",
    "obj",
    "tool_names_by_call_id",
]


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """One tool as every wire format needs it: name, description, JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


def functions_of(tools: list[dict[str, Any]] | None) -> list[FunctionSpec]:
    """The functions in OpenAI-shaped tool definitions (``{"type": "function", "function": {...}}``)."""
    specs: list[FunctionSpec] = []
    for tool in tools or []:
        function = obj(tool.get("function")) or tool
        name = str(function.get("name") or "")
        if not name:
            continue
        parameters = function.get("parameters")
        specs.append(FunctionSpec(
            name=name,
            description=str(function.get("description") or ""),
            parameters=parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}},
        ))
    return specs


def tool_names_by_call_id(messages: list[Message]) -> dict[str, str]:
    """Which tool each call id named (wire formats that answer a call by tool name need it)."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.tool_calls:
            names[call.id] = call.name
    return names


def forced_tool(choice: str | dict[str, Any] | None) -> str:
    """The tool an OpenAI-shaped ``tool_choice`` forces (``{"function": {"name": ...}}``), else ""."""
    return str(obj(obj(choice).get("function")).get("name") or "")


def arguments_object(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as the JSON object these formats require; arguments that were
    not an object (the model's raw text) go back under ``input``, as they came."""
    return call.arguments if isinstance(call.arguments, dict) else {"input": call.arguments}


def alternating_turns(
    messages: list[Message],
    turn_of: Callable[[Message], tuple[str, list[dict[str, Any]]]],
    *,
    key: str = "content",
) -> tuple[list[str], list[dict[str, Any]]]:
    """The system texts apart, and the other messages as ``{"role": ..., key: blocks}`` turns.

    ``turn_of`` gives a message's role and blocks on the wire. Consecutive messages of one
    role share a turn: these APIs want user and assistant turns to alternate, and every
    tool result in the one user turn after the calls. A message with no blocks is left out.
    """
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            if message.content:
                system.append(message.content)
            continue
        role, blocks = turn_of(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1][key].extend(blocks)
        else:
            turns.append({"role": role, key: blocks})
    return system, turns


def given(**values: Any) -> dict[str, Any]:
    """The values that are set (not None), in the order given: a request's optional
    settings, which these APIs want left out rather than null."""
    return {name: value for name, value in values.items() if value is not None}


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (answers are read defensively)."""
    return value if isinstance(value, dict) else {}


class EventAccumulator(StreamAccumulator, abc.ABC):
    """Folds a stream of typed events (``{"type": ..., ...}``: the Messages API, Converse,
    the Responses API) into deltas; the answer's metadata says how many input tokens came
    from the provider's cache. Each provider's accumulator says what its events mean
    (``add_event``)."""

    def __init__(self) -> None:
        super().__init__()
        self.cached_input_tokens: int | None = None

    def add(self, data: Any) -> StreamDelta | None:
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            self.skipped += 1
            return None
        self.chunks += 1
        return self.add_event(data["type"], data)

    @abc.abstractmethod
    def add_event(self, kind: str, data: dict[str, Any]) -> StreamDelta | None:
        """Fold in one event of type ``kind`` (``add`` has checked its shape and counted it)."""

    def response(self) -> ChatResponse:
        result = super().response()
        result.metadata["cached_input_tokens"] = self.cached_input_tokens
        return result
