"""Pieces every provider with its own wire format shares: reading the OpenAI-shaped tool
definitions the registry produces, naming tool results, and the stream-error statuses.

Pure functions, no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.llm.types import Message

__all__ = ["FunctionSpec", "functions_of", "json_text", "obj", "tool_names_by_call_id"]


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


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (answers are read defensively)."""
    return value if isinstance(value, dict) else {}
