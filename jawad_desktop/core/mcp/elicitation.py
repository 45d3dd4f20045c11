"""Elicitation: an MCP server asks the user for input in the middle of a call.

``Elicitations.request`` (the session's ``elicitation/create`` handler, ``core.mcp.adapter``) turns a
server's question into an ``ElicitationRequested`` event and waits for a face to answer it with
``respond``: the window's form, or the terminal (``cli.terminal.TerminalQuestions``). The answer is
checked against the requested schema (``check_answer``: types, lengths, ranges, formats, choices,
required fields; the schema's defaults fill what was left empty); an answer that does not fit is
refused with what is wrong, and the question stays open. A face that answers says so
(``answered_here()``); without a person (``ask`` False), or with no face that answers, the question is
declined at once, with a notice. The model never answers these: they go to the user.

In URL mode the server names a page (a payment, a sign-in of its own); accepting means the face
opened it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Literal

from jawad_desktop.core.events import ElicitationRequested, ElicitationSettled, EventBus, Notice, new_id

log = logging.getLogger("jawad.mcp.elicitation")

__all__ = ["Elicitations", "check_answer", "choices", "fields"]

Answer = tuple[Literal["accept", "decline", "cancel"], dict[str, Any] | None]  # action, content
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def fields(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """The form's fields in order: (name, its schema, required)."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    return [(name, spec if isinstance(spec, dict) else {}, name in required) for name, spec in properties.items()]


def choices(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """A choice field's options as (value, label); [] when the field is not a choice. Multi-select
    fields (type array) give their items' options."""
    items = spec.get("items")
    source: dict[str, Any] = items if spec.get("type") == "array" and isinstance(items, dict) else spec
    if "enum" in source:
        names = source.get("enumNames") or []
        return [(str(v), str(names[i]) if i < len(names) else str(v)) for i, v in enumerate(source["enum"])]
    options = source.get("oneOf") or source.get("anyOf") or []
    return [(str(o["const"]), str(o.get("title") or o["const"])) for o in options
            if isinstance(o, dict) and "const" in o]


def _coerce(name: str, spec: dict[str, Any], value: Any) -> tuple[Any, str]:
    """``value`` as the field's type (text typed on a terminal is converted), or a problem."""
    kind = spec.get("type", "string")
    label = spec.get("title") or name
    options = [value for value, _ in choices(spec)]
    if kind == "array":
        items = [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            return None, f"{label}: choose from {', '.join(options)}"
        wrong = [item for item in items if options and item not in options]
        if wrong:
            return None, f"{label}: {', '.join(wrong)} is not one of {', '.join(options)}"
        if len(items) < spec.get("minItems", 0) or len(items) > spec.get("maxItems", math.inf):
            return None, f"{label}: choose between {spec.get('minItems', 0)} and {spec.get('maxItems', 'any')}"
        return items, ""
    if kind == "boolean":
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("y", "yes", "true", "1", "on"):
                return True, ""
            if lowered in ("n", "no", "false", "0", "off"):
                return False, ""
            return None, f"{label}: answer yes or no"
        return (value, "") if isinstance(value, bool) else (None, f"{label}: answer yes or no")
    if kind in ("number", "integer"):
        number: Any = value
        if isinstance(value, str):
            try:
                number = int(value) if kind == "integer" else float(value)
            except ValueError:
                return None, f"{label}: give {'a whole number' if kind == 'integer' else 'a number'}"
        if isinstance(number, bool) or not isinstance(number, (int, float)) or (
                kind == "integer" and not float(number).is_integer()):
            return None, f"{label}: give {'a whole number' if kind == 'integer' else 'a number'}"
        number = int(number) if kind == "integer" else number
        if number < spec.get("minimum", -math.inf) or number > spec.get("maximum", math.inf):
            return None, f"{label}: give a number from {spec.get('minimum', '-∞')} to {spec.get('maximum', '∞')}"
        return number, ""
    if not isinstance(value, str):
        return None, f"{label}: give text"
    if options and value not in options:
        return None, f"{label}: {value!r} is not one of {', '.join(options)}"
    if len(value) < spec.get("minLength", 0) or len(value) > spec.get("maxLength", math.inf):
        return None, f"{label}: give between {spec.get('minLength', 0)} and {spec.get('maxLength', 'any')} characters"
    problem = _format_problem(spec.get("format", ""), value)
    return (None, f"{label}: {problem}") if problem else (value, "")


def _format_problem(form: str, value: str) -> str:
    if form == "email" and not _EMAIL.match(value):
        return "give an email address"
    if form == "uri" and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", value):
        return "give an address such as https://example.com"
    try:
        if form == "date":
            date.fromisoformat(value)
        elif form == "date-time":
            datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return "give a date as 2025-12-31" if form == "date" else "give a date and time as 2025-12-31T09:30:00Z"
    return ""


def check_answer(schema: dict[str, Any], values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``values`` checked against ``schema``: the content to send (defaults filled in where a value
    was left out or empty), and the problems (empty when it fits)."""
    content: dict[str, Any] = {}
    problems: list[str] = []
    for name, spec, required in fields(schema):
        value = values.get(name)
        if value is None or value == "":
            if "default" in spec:
                content[name] = spec["default"]
            elif required:
                problems.append(f"{spec.get('title') or name}: required")
            continue
        checked, problem = _coerce(name, spec, value)
        if problem:
            problems.append(problem)
        else:
            content[name] = checked
    unknown = sorted(set(values) - {name for name, _, _ in fields(schema)})
    if unknown:
        problems.append(f"not asked for: {', '.join(unknown)}")
    return content, problems


class Elicitations:
    """The round trip of a server's question to the user (see the module docstring)."""

    def __init__(self, bus: EventBus, *, ask: bool = True, timeout_s: float = 600.0) -> None:
        self.bus = bus
        self.ask_enabled = ask
        self.timeout_s = timeout_s
        self._pending: dict[str, tuple[asyncio.Future[Answer], dict[str, Any]]] = {}
        self._answerers = 0

    def answered_here(self) -> Callable[[], None]:
        """A face (the terminal, the window's form) answers the questions from now on; call the
        returned function when it no longer does."""
        self._answerers += 1
        done = False

        def detach() -> None:
            nonlocal done
            if not done:
                done = True
                self._answerers -= 1

        return detach

    async def request(self, server: str, params: Any) -> Any:
        """The user's answer to ``params`` (``ElicitRequestFormParams`` or ``...URLParams``) as an
        ``ElicitResult``: declined when nobody can answer, cancelled when unanswered in time."""
        from mcp import types

        url = str(getattr(params, "url", "") or "") if getattr(params, "mode", "form") == "url" else ""
        schema = dict(getattr(params, "requestedSchema", None) or {}) if not url else {}
        if not self.ask_enabled or self._answerers == 0:
            self.bus.emit(Notice(level="warning", text=(
                f"The MCP server {server!r} asked you something ({params.message}), but nobody can answer here: "
                "it was declined. Run the request from an interactive terminal.")))
            return types.ElicitResult(action="decline")
        request_id = new_id("elicit")
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (future, schema)
        self.bus.emit(ElicitationRequested(id=request_id, server=server, message=str(params.message), schema=schema,
                                           url=url))
        outcome = "stopped"
        try:
            async with asyncio.timeout(self.timeout_s):  # not wait_for: on 3.11 it swallows a Stop with the answer
                action, content = await future
            outcome = action
            return types.ElicitResult(action=action, content=content)
        except TimeoutError:
            outcome = "cancel"
            return types.ElicitResult(action="cancel")
        finally:
            self._pending.pop(request_id, None)
            log.info("elicitation %s from %s: %s", request_id, server, outcome)
            self.bus.emit(ElicitationSettled(id=request_id, outcome=outcome))  # type: ignore[arg-type]

    def respond(self, request_id: str, action: str, values: dict[str, Any] | None = None) -> list[str]:
        """Answer a waiting question: "accept" with ``values``, "decline" or "cancel". Returns the
        problems of values that do not fit the schema (the question then stays open); [] when
        settled, or when the question is unknown or over."""
        pending = self._pending.get(request_id)
        if pending is None or pending[0].done():
            return []
        future, schema = pending
        if action not in ("accept", "decline", "cancel"):
            raise ValueError(f"an elicitation is answered accept, decline or cancel, not {action!r}")
        if action == "decline":
            future.set_result(("decline", None))
            return []
        if action == "cancel":
            future.set_result(("cancel", None))
            return []
        content, problems = check_answer(schema, values or {})
        if problems:
            return problems
        future.set_result(("accept", content if schema else None))
        return []

    def pending(self, request_id: str) -> dict[str, Any] | None:
        """The schema of a question still waiting (None when it is over)."""
        pending = self._pending.get(request_id)
        return pending[1] if pending is not None and not pending[0].done() else None
