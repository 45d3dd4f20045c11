"""The tool registry: typed Python functions become tools the model can call.

A tool is a plain function (sync or async) with type hints and a docstring, registered
with ``@registry.tool(...)``. Its JSON schema comes from its signature through pydantic
(required fields, enums from ``Literal``/``Enum``, defaults, no extra properties); its
arguments are validated before it runs and a validation failure is returned as feedback the
model can act on, never raised at the agent. Spec 001 (tool registry, permission levels)
and spec 004 (decorator registry, schemas from signatures, aliases, output formats).

Writing a tool::

    registry = ToolRegistry()

    @registry.tool(level=PermissionLevel.INTERACT, aliases=("click",),
                   format_log=lambda r: f"clicked {r['label']}")
    async def click_element(
        ctx: ToolContext,
        index: Annotated[int, Field(description="The element's [n] in read_page")],
    ) -> dict[str, str]:
        \"\"\"Click an element of the current page.\"\"\"
        ...

- The first parameter, when annotated ``ToolContext``, receives the run's context (page,
  settings, bus, secrets); it is not part of the schema. Every other parameter is.
- Parameter descriptions come from ``Field(description=...)`` (as default or in
  ``Annotated``) or from a Google-style ``Args:`` section of the docstring; the tool's
  description is the docstring's text before ``Args:``.
- ``level`` is the permission level shown in the tool table; ``level_for(args)`` may raise
  it for one call (``fill_form`` with ``submit=True`` is a submit). ``site(ctx, args)``
  says which site a call acts on (``navigate`` acts on its URL's site); by default the
  current page's site.
- Return a ``ToolResult`` to choose exactly what the model and the action log see, or any
  value: ``format_model``/``format_log`` turn it into text (default: strings as they are,
  everything else as JSON). Raise ``ToolError("what went wrong, what to try")`` for a
  failure the model should read; any other exception is logged and reported to the model
  as a failed call.
- Sync functions run in a worker thread so they never block the window.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Audio, Image
from jawad_desktop.core.tools.tool_context import ToolContext

log = logging.getLogger("jawad.tools")


@dataclass(slots=True)
class ToolResult:
    """What a call produced: text for the model, text for the action log, and success.

    ``data`` keeps the raw value for callers that want it (the UI's tool card, tests);
    ``changed_page`` and ``observed_page`` tell the agent whether the page must be looked at again
    before a final answer (``core.agent.confirm``).
    """

    for_model: str
    for_log: str = ""
    ok: bool = True
    data: Any = None
    # For the agent's check before its final answer: the call acted on the page (a click, a fill), or
    # it showed the model the page as it is now (read_page, wait_for).
    changed_page: bool = False
    observed_page: bool = False
    # Pictures for a model that sees images (``look``'s screenshot): the agent puts them in the message
    # that answers the call, each provider as its API documents (``core.llm.vision``).
    images: list[Image] = field(default_factory=list)
    audio: list[Audio] = field(default_factory=list)  # sounds (an MCP tool's), for a model that hears them

    def __post_init__(self) -> None:
        if not self.for_log:
            self.for_log = _shorten(self.for_model, 300)


class ToolError(Exception):
    """Raised by a tool for a failure the model should read (and may work around)."""


class ToolArgumentsError(Exception):
    """The arguments of a call do not match the tool's schema; ``problems`` says how."""

    def __init__(self, tool: str, problems: list[str]) -> None:
        super().__init__(f"{tool}: " + "; ".join(problems))
        self.tool = tool
        self.problems = problems


Formatter = Callable[[Any], str]
SiteResolver = Callable[[ToolContext, Any], str]
LevelResolver = Callable[[Any], PermissionLevel]

_NAME_CLEAN = re.compile(r"[^0-9a-zA-Z_]+")
# Prefixes models put before a tool's name: "functions.read_page", "tool:read_page", ...
_NAME_PREFIX = re.compile(r"^(?:functions?|tools?|default_api|api|call)[.:/]", re.IGNORECASE)


def normalize_tool_name(name: str) -> str:
    """The key a name is looked up by: prefix dropped, lower case, ``-``/spaces as ``_``."""
    cleaned = name.strip().strip("`'\"<>/ ")
    while True:
        stripped = _NAME_PREFIX.sub("", cleaned, count=1)
        if stripped == cleaned:
            break
        cleaned = stripped
    return _NAME_CLEAN.sub("_", cleaned).strip("_").lower()


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _default_format(value: Any) -> str:
    if value is None:
        return "Done."
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _docstring_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """The description (text before ``Args:``) and per-parameter descriptions."""
    text = inspect.cleandoc(doc or "")
    match = re.search(r"^\s*(?:Args|Arguments|Parameters):\s*$", text, re.MULTILINE)
    if not match:
        return text.strip(), {}
    description = text[: match.start()].strip()
    params: dict[str, str] = {}
    current = ""
    for line in text[match.end() :].splitlines():
        if not line.strip():
            continue
        if re.match(r"^\S", line):  # a new section (Returns:, Raises:) ends Args
            break
        item = re.match(r"^\s+(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line)
        if item and (not current or len(line) - len(line.lstrip()) <= 4):
            current = item.group(1)
            params[current] = item.group(2).strip()
        elif current:
            params[current] = (params[current] + " " + line.strip()).strip()
    return description, params


def _inline_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic's schema made plain for models: ``$ref`` inlined, ``title`` dropped."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            if "$ref" in node and isinstance(node["$ref"], str):
                target = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
                merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged)
            out: dict[str, Any] = {}
            for key, value in node.items():
                if key == "$defs" or (key == "title" and not in_properties):
                    continue
                out[key] = walk(value, in_properties=key == "properties")
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result = walk(schema)
    assert isinstance(result, dict)
    return result


@dataclass(slots=True, eq=False)
class Tool:
    """One registered tool. Build them with ``ToolRegistry.tool``; read, don't mutate."""

    name: str
    description: str
    fn: Callable[..., Any]
    arguments_model: type[BaseModel]
    level: PermissionLevel = PermissionLevel.READ_ONLY
    aliases: tuple[str, ...] = ()
    takes_context: bool = False
    level_for: LevelResolver | None = None
    site: SiteResolver | None = None
    format_model: Formatter | None = None
    format_log: Formatter | None = None
    schema: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.schema = _inline_schema(self.arguments_model.model_json_schema())
        self.schema.setdefault("properties", {})
        self.schema["additionalProperties"] = False

    @property
    def parameter_names(self) -> list[str]:
        return list(self.arguments_model.model_fields)

    @property
    def required(self) -> list[str]:
        return [n for n, f in self.arguments_model.model_fields.items() if f.is_required()]

    def openai_spec(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry: ``{"type": "function", "function": {...}}``."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.schema},
        }

    def validate(self, arguments: dict[str, Any]) -> BaseModel:
        """Validated arguments, or ``ToolArgumentsError`` naming each problem for the model."""
        try:
            return self.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolArgumentsError(self.name, _describe_errors(exc, self)) from None

    def permission_level(self, args: BaseModel) -> PermissionLevel:
        """The level of this call: the declared one, raised by ``level_for`` when given."""
        if self.level_for is None:
            return self.level
        chosen = self.level_for(args)
        return chosen if chosen.rank > self.level.rank else self.level

    def site_for(self, ctx: ToolContext, args: BaseModel) -> str:
        return self.site(ctx, args) if self.site is not None else ctx.site

    async def run(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        """Call the tool; failures come back as ``ToolResult(ok=False)``, never raised.

        ``asyncio.CancelledError`` is the one exception that passes: Stop must stop.
        """
        kwargs = {name: getattr(args, name) for name in self.arguments_model.model_fields}
        call_args: tuple[Any, ...] = (ctx,) if self.takes_context else ()
        try:
            if inspect.iscoroutinefunction(self.fn):
                value = await self.fn(*call_args, **kwargs)
            else:
                value = await asyncio.to_thread(self.fn, *call_args, **kwargs)
                if inspect.isawaitable(value):
                    value = await value
        except ToolError as exc:
            message = str(exc) or f"{self.name} failed"
            return ToolResult(for_model=f"Error: {message}", for_log=message, ok=False)
        except Exception as exc:
            log.exception("tool %s failed", self.name)
            message = f"the tool {self.name} failed unexpectedly ({type(exc).__name__}: {exc})"
            return ToolResult(for_model=f"Error: {message}", for_log=message, ok=False)
        return self._to_result(value)

    def _to_result(self, value: Any) -> ToolResult:
        if isinstance(value, ToolResult):
            return value
        try:
            for_model = (self.format_model or _default_format)(value)
            for_log = self.format_log(value) if self.format_log else ""
        except Exception as exc:  # a formatter bug must not lose the result
            log.exception("formatting the result of %s failed", self.name)
            for_model, for_log = _default_format(value), f"(result shown raw: {exc})"
        return ToolResult(for_model=for_model, for_log=for_log, ok=True, data=value)


def _describe_errors(exc: ValidationError, tool: Tool) -> list[str]:
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
        kind = error.get("type", "")
        if kind == "missing":
            problems.append(f"the required argument '{where}' is missing")
        elif kind == "extra_forbidden":
            allowed = ", ".join(tool.parameter_names) or "none"
            problems.append(f"'{where}' is not an argument of {tool.name} (its arguments: {allowed})")
        else:
            given = error.get("input")
            shown = _shorten(json.dumps(given, ensure_ascii=False, default=str), 60)
            problems.append(f"'{where}' is invalid: {error.get('msg', 'bad value')} (got {shown})")
    return problems or ["the arguments do not match the schema"]


def _build_arguments_model(
    name: str, fn: Callable[..., Any], param_docs: dict[str, str]
) -> tuple[type[BaseModel], bool]:
    """A pydantic model of ``fn``'s parameters (without the context), and whether it takes one."""
    signature = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError) as exc:
        raise TypeError(f"tool {name}: cannot resolve its type hints ({exc})") from exc
    params = list(signature.parameters.values())
    takes_context = bool(params) and hints.get(params[0].name) is ToolContext
    if takes_context:
        params = params[1:]
    fields: dict[str, Any] = {}
    for param in params:
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"tool {name}: *args and **kwargs cannot be described to a model")
        if param.name not in hints:
            raise TypeError(f"tool {name}: parameter '{param.name}' needs a type hint")
        annotation = hints[param.name]
        doc = None if _annotated_description(annotation) else param_docs.get(param.name)
        default = param.default
        if isinstance(default, FieldInfo):
            if default.description is None and doc:
                default.description = doc
            fields[param.name] = (annotation, default)
        elif default is inspect.Parameter.empty:
            fields[param.name] = (annotation, Field(description=doc) if doc else ...)
        else:
            fields[param.name] = (annotation, Field(default=default, description=doc) if doc else default)
    model = create_model(
        f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    return typing.cast(type[BaseModel], model), takes_context


def _annotated_description(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in typing.get_args(annotation)[1:])
    return False


class ToolRegistry:
    """The tools one agent can use, by name and alias (case and prefixes forgiven)."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._lookup: dict[str, str] = {}  # normalised name or alias -> canonical name

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        aliases: Sequence[str] = (),
        level: PermissionLevel = PermissionLevel.READ_ONLY,
        description: str | None = None,
        level_for: LevelResolver | None = None,
        site: SiteResolver | None = None,
        format_model: Formatter | None = None,
        format_log: Formatter | None = None,
    ) -> Any:
        """Register a function as a tool; usable as ``@registry.tool`` or ``@registry.tool(...)``.

        Returns the function unchanged, so it stays callable and testable directly.
        """

        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name or func.__name__
            doc_description, param_docs = _docstring_parts(func.__doc__)
            model, takes_context = _build_arguments_model(tool_name, func, param_docs)
            self.add(
                Tool(
                    name=tool_name,
                    description=(description or doc_description or tool_name).strip(),
                    fn=func,
                    arguments_model=model,
                    level=PermissionLevel(level),
                    aliases=tuple(aliases),
                    takes_context=takes_context,
                    level_for=level_for,
                    site=site,
                    format_model=format_model,
                    format_log=format_log,
                )
            )
            return func

        if fn is not None:
            return register(fn)
        return register

    def add(self, tool: Tool) -> None:
        """Register a built ``Tool``; a name or alias already taken is an error."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", tool.name):
            raise ValueError(f"tool name {tool.name!r}: use letters, digits and _ (max 64)")
        keys = [normalize_tool_name(tool.name), *(normalize_tool_name(a) for a in tool.aliases)]
        for key in keys:
            owner = self._lookup.get(key)
            if owner is not None and owner != tool.name:
                raise ValueError(f"tool {tool.name}: the name {key!r} is already used by {owner}")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name} is already registered")
        self._tools[tool.name] = tool
        for key in keys:
            self._lookup[key] = tool.name

    def remove(self, name: str) -> None:
        tool = self._tools.pop(name)
        for key in [k for k, v in self._lookup.items() if v == tool.name]:
            del self._lookup[key]

    def get(self, name: str) -> Tool | None:
        """The tool called ``name`` or with that alias; ``functions.X``, case and ``-`` forgiven."""
        exact = self._tools.get(name)
        if exact is not None:
            return exact
        canonical = self._lookup.get(normalize_tool_name(name))
        return self._tools.get(canonical) if canonical else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def all_names(self) -> set[str]:
        """Every name and alias, as written and normalised (for parsers and the sanitiser)."""
        found = set(self._tools)
        for tool in self._tools.values():
            found.update(tool.aliases)
        found.update(self._lookup)
        return found

    def openai_tools(self) -> list[dict[str, Any]]:
        """All tools as OpenAI ``tools`` entries, in registration order."""
        return [tool.openai_spec() for tool in self._tools.values()]

    def describe_json(self) -> list[dict[str, Any]]:
        """Tools for a text prompt (spec 004's registry JSON): name, description, parameters, aliases."""
        described = []
        for tool in self._tools.values():
            entry: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.schema,
                "permission": tool.level.value,
            }
            if tool.aliases:
                entry["aliases"] = list(tool.aliases)
            described.append(entry)
        return described

    def merged(self, other: ToolRegistry) -> ToolRegistry:
        """A new registry with this one's tools then ``other``'s (the browser adds its own)."""
        combined = ToolRegistry()
        for tool in [*self, *other]:
            combined.add(tool)
        return combined
