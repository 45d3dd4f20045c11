"""The tool-call pipeline: normalise and repair every call, then validate it (spec 002).

Whatever shape a call arrives in (a native ``ToolCall``, a ``ParsedCall`` from text, a
wire dict nested or flat, a JSON string), ``repair_call`` makes it ``{id, name,
arguments: object}``: it fills a missing id and type, lifts flat calls into the nested
shape, parses arguments given as a JSON string (leniently), defaults missing arguments to
``{}``, and records each repair. It never raises. ``check_call`` then finds the tool
(prefixes such as ``functions.``, case and aliases forgiven), maps an XML body onto a
parameter, and validates the arguments with the tool's pydantic model. What is still wrong
becomes feedback the model reads before it retries.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from jawad_desktop.core.agent.textcalls import ParsedCall, loads_lenient
from jawad_desktop.core.messages import ToolCall
from jawad_desktop.core.tools.registry import Tool, ToolArgumentsError, ToolRegistry

log = logging.getLogger("jawad.agent.toolcalls")

_repair_ids = itertools.count(1)


@dataclass(slots=True)
class RepairedCall:
    """A call in the one canonical shape, with what was repaired and what is still wrong."""

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    body: str = ""
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_tool_call(self) -> ToolCall:
        return ToolCall(id=self.id, name=self.name or "unknown", arguments=dict(self.arguments))


@dataclass(slots=True)
class CheckedCall:
    """A repaired call checked against the registry: ready to run, or feedback for the model."""

    call: RepairedCall
    tool: Tool | None = None
    args: BaseModel | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.tool is not None and self.args is not None and not self.problems

    @property
    def display_name(self) -> str:
        return self.tool.name if self.tool is not None else (self.call.name or "(no name)")

    def feedback(self) -> str:
        """What the model reads about this call when it could not run."""
        listed = "; ".join(self.problems)
        return (
            f"Error: the call to {self.display_name} was not run because {listed}. "
            "Fix it and call the tool again, or answer without it."
        )


def _new_id(index: int) -> str:
    return f"call_repaired_{next(_repair_ids)}_{index}"


def _as_dict(raw: Any, repairs: list[str]) -> dict[str, Any] | None:
    if isinstance(raw, ToolCall):
        return {"id": raw.id, "type": raw.type, "function": {"name": raw.name, "arguments": raw.arguments}}
    if isinstance(raw, ParsedCall):
        return {"id": raw.id, "name": raw.name, "arguments": raw.arguments, "body": raw.body}
    if isinstance(raw, str):
        try:
            decoded = loads_lenient(raw)
        except (ValueError, RecursionError):
            return None
        repairs.append("parsed the call from text")
        return decoded if isinstance(decoded, dict) else None
    if isinstance(raw, dict):
        return raw
    return None


def repair_call(raw: Any, index: int = 0) -> RepairedCall:
    """Normalise one call into ``RepairedCall``; problems are recorded, never raised."""
    repairs: list[str] = []
    try:
        data = _as_dict(raw, repairs)
    except Exception:  # an exotic object: never let the pipeline crash on it
        log.exception("cannot read tool call %r", type(raw).__name__)
        data = None
    if data is None:
        return RepairedCall(
            index=index,
            id=_new_id(index),
            name="",
            arguments={},
            problems=["it is not a tool call object (expected {id, type, function: {name, arguments}})"],
        )
    call_id = data.get("id")
    if not isinstance(call_id, str) or not call_id.strip():
        call_id = _new_id(index)
        repairs.append("added a missing id")
    if data.get("type") not in (None, "function") or "type" not in data:
        repairs.append("set type to function")
    function = data.get("function")
    if isinstance(function, dict):
        name_value: Any = function.get("name")
        arguments: Any = function.get("arguments", function.get("parameters"))
    else:
        if "function" in data and isinstance(function, str):
            name_value = function
        else:
            name_value = next((data[k] for k in ("name", "tool", "tool_name") if k in data), None)
        arguments = next((data[k] for k in ("arguments", "parameters", "args", "input") if k in data), None)
        if name_value is not None:
            repairs.append("converted a flat call to the nested shape")
    problems: list[str] = []
    name = name_value.strip() if isinstance(name_value, str) else ""
    if not name:
        problems.append("the function name is missing")
    parsed_args = _repair_arguments(arguments, repairs, problems)
    body = data.get("body", "")
    return RepairedCall(
        index=index,
        id=call_id.strip(),
        name=name,
        arguments=parsed_args,
        body=body if isinstance(body, str) else "",
        repairs=repairs,
        problems=problems,
    )


def _repair_arguments(arguments: Any, repairs: list[str], problems: list[str]) -> dict[str, Any]:
    if arguments is None:
        repairs.append("defaulted missing arguments to {}")
        return {}
    if isinstance(arguments, dict):
        return {str(k): v for k, v in arguments.items()}
    if isinstance(arguments, str):
        text = arguments.strip()
        if not text or text in ("null", "None", "{}"):
            return {}
        try:
            value: Any = loads_lenient(text)
            if isinstance(value, str) and value.strip().startswith("{"):  # JSON encoded twice
                value = loads_lenient(value)
                repairs.append("decoded arguments encoded twice")
        except (ValueError, RecursionError):
            snippet = text if len(text) <= 80 else text[:77] + "..."
            problems.append(f"the arguments are not valid JSON ({snippet!r})")
            return {}
        repairs.append("parsed arguments given as a JSON string")
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
        if value is None:
            return {}
        problems.append("the arguments must be a JSON object of named values")
        return {}
    problems.append(f"the arguments must be a JSON object, not {type(arguments).__name__}")
    return {}


_CHILD_TAG = re.compile(r"<\s*([A-Za-z_][\w-]*)\s*>(.*?)<\s*/\s*\1\s*>", re.DOTALL)


def _map_arguments(tool: Tool, call: RepairedCall) -> dict[str, Any]:
    """Arguments with keys matched to the tool's parameters and an XML body placed."""
    params = tool.parameter_names
    by_key = {p.lower(): p for p in params}
    mapped: dict[str, Any] = {}
    for key, value in call.arguments.items():
        target = key if key in params else by_key.get(key.lower().replace("-", "_"), key)
        if target != key:
            call.repairs.append(f"renamed argument {key!r} to {target!r}")
        mapped.setdefault(target, value)
    body = call.body.strip()
    if not body:
        return mapped
    children = {m.group(1): m.group(2).strip() for m in _CHILD_TAG.finditer(body)}
    placed = False
    for tag, value in children.items():
        param = by_key.get(tag.lower())
        if param and param not in mapped:
            mapped[param] = value
            placed = True
    if placed:
        return mapped
    if body.startswith("{"):
        try:
            decoded = loads_lenient(body)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict):
            for key, value in decoded.items():
                mapped.setdefault(by_key.get(str(key).lower(), str(key)), value)
            return mapped
    missing = [p for p in tool.required if p not in mapped]
    fields = tool.arguments_model.model_fields
    text_params: list[str] = [p for p in missing if fields[p].annotation is str]
    for candidate in [*text_params, "body", "content", "text", "message", "query"]:
        if candidate in params and candidate not in mapped:
            mapped[candidate] = body
            call.repairs.append(f"used the element's text as {candidate!r}")
            break
    return mapped


def check_call(call: RepairedCall, registry: ToolRegistry) -> CheckedCall:
    """Find the tool and validate the arguments; everything wrong goes into ``problems``."""
    if call.problems:
        return CheckedCall(call=call, problems=list(call.problems))
    tool = registry.get(call.name)
    if tool is None:
        known = ", ".join(registry.names()) or "none"
        return CheckedCall(call=call, problems=[f"there is no tool named {call.name!r} (tools: {known})"])
    if tool.name != call.name:
        call.repairs.append(f"resolved the name {call.name!r} to {tool.name!r}")
        call.name = tool.name
    arguments = _map_arguments(tool, call)
    call.arguments = arguments
    try:
        args = tool.validate(arguments)
    except ToolArgumentsError as exc:
        return CheckedCall(call=call, tool=tool, problems=exc.problems)
    return CheckedCall(call=call, tool=tool, args=args)


def check_calls(raws: Sequence[Any], registry: ToolRegistry) -> list[CheckedCall]:
    """Repair and check each call; ids made unique so every result answers one call."""
    checked: list[CheckedCall] = []
    seen: set[str] = set()
    for index, raw in enumerate(raws):
        call = repair_call(raw, index)
        if call.id in seen:
            call.id = _new_id(index)
            call.repairs.append("replaced a duplicate id")
        seen.add(call.id)
        checked.append(check_call(call, registry))
        if call.repairs:
            log.debug("repaired call %d (%s): %s", index, call.name, ", ".join(call.repairs))
    return checked


def arguments_for_display(call: RepairedCall) -> dict[str, Any]:
    """The call's arguments as JSON-safe values for the action log and permission prompt."""
    try:
        result = json.loads(json.dumps(call.arguments, default=str))
    except (TypeError, ValueError):
        return {"arguments": str(call.arguments)}
    return result if isinstance(result, dict) else {"arguments": result}
