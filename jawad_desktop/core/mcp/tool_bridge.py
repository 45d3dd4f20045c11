"""The tools of MCP servers as tools of the agent's registry: each allowed tool a ``Tool`` with the
server's own schema (``registry_tool``), named so that no name is taken twice (``unique_name``, the
renames in ``McpRegistry.renamed``), at a Harbor level from the server's permission and the tool's
hints (``tool_level``), acting on the site ``mcp.<server>`` (``mcp_site``), its result fenced as data
with its pictures passed on (``result_text``, ``result_images``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, create_model

from jawad_desktop.core.config.mcp import McpServerConfig
from jawad_desktop.core.events import ToolProgress
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Audio, Image
from jawad_desktop.core.sites import mcp_site
from jawad_desktop.core.tools.registry import Tool, ToolError, ToolResult, normalize_tool_name
from jawad_desktop.core.tools.tool_context import ToolContext
from jawad_desktop.core.tools.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.offers import McpToolInfo

log = logging.getLogger("jawad.mcp")


class McpConnections(Protocol):
    """What the tools need of the servers' connections (``core.mcp.adapter.McpConnections``)."""

    @property
    def problems(self) -> dict[str, str]: ...

    def connected(self) -> list[tuple[McpServerConfig, list[McpToolInfo]]]: ...

    async def call(self, server_name: str, tool: str, arguments: dict[str, Any],
                   progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None) -> Any: ...

    async def aclose(self) -> None: ...

__all__ = [
    "McpConnections", "McpRenamedTool", "mcp_site", "permission_level", "registry_tool", "result_audio",
    "result_images", "result_text", "tool_level", "tool_name", "unique_name",
]

_UNSET: Any = object()  # an optional argument the model left out: not sent to the server
_NAME_CLEAN = re.compile(r"[^A-Za-z0-9_]+")


def _unset() -> Any:
    return _UNSET


def permission_level(permission: str) -> PermissionLevel:
    """The tool level of a server's ``permission``: "ask" is the highest, asked every time."""
    return PermissionLevel.SUBMIT if permission == "ask" else PermissionLevel(permission)


def tool_level(permission: str, annotations: dict[str, Any]) -> PermissionLevel:
    """The level of one tool: the server's ``permission``, raised to SUBMIT (asked for, like a
    purchase) when the tool says it is destructive. A hint never lowers the level the user chose:
    a server's "read-only" is its own claim."""
    level = permission_level(permission)
    destructive = annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True
    return PermissionLevel.SUBMIT if destructive and level.rank < PermissionLevel.SUBMIT.rank else level


@dataclass(frozen=True)
class McpRenamedTool:
    """A server's tool registered under another name because its own was already taken."""

    server: str
    tool: str  # the name the server gave it (and is called with)
    name: str  # the name the model sees
    taken_by: str  # "a built-in tool" or "the MCP server 'X'"

    @property
    def message(self) -> str:
        return (f"The MCP server {self.server!r} offers a tool named {self.tool!r}, which {self.taken_by} "
                f"already uses; it is available as {self.name!r}.")


def tool_name(text: str) -> str:
    """``text`` as a valid registry name: letters, digits and ``_``, not starting with a digit, 64 at most."""
    name = _NAME_CLEAN.sub("_", text).strip("_")[:64] or "tool"
    if not re.match(r"[A-Za-z_]", name):
        name = f"t_{name}"[:64]
    return name


def unique_name(wanted: str, taken: Collection[str]) -> str:
    """A valid name from ``wanted`` whose normalised form is not in ``taken`` (``_2``, ``_3``... added)."""
    base = tool_name(wanted)
    name, n = base, 1
    while normalize_tool_name(name) in taken:
        n += 1
        suffix = f"_{n}"
        name = base[: 64 - len(suffix)] + suffix
    return name


def registry_tool(connections: McpConnections, info: McpToolInfo, config: McpServerConfig, *, name: str) -> Tool:
    """A registry ``Tool`` named ``name`` calling ``info`` on its server, with the server's own schema."""
    raw_properties = info.input_schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    required = set(info.input_schema.get("required") or [])
    fields: dict[str, Any] = {}
    originals: dict[str, str] = {}
    for index, (prop, spec) in enumerate(properties.items()):
        field_name = f"a{index}"
        originals[field_name] = prop
        description = spec.get("description") if isinstance(spec, dict) else None
        fields[field_name] = (Any, (Field(alias=prop, description=description) if prop in required
                            else Field(default_factory=_unset, alias=prop, description=description)))
    model = create_model(f"mcp_{name}_arguments", __config__=ConfigDict(extra="forbid", populate_by_name=False),
                         **fields)

    async def call(ctx: ToolContext, **kwargs: Any) -> ToolResult:
        arguments = {originals[k]: v for k, v in kwargs.items() if v is not _UNSET}

        async def progress(done: float, total: float | None, message: str | None) -> None:
            ctx.bus.emit(ToolProgress(run_id=ctx.run_id, call_id=ctx.call_id, tool_name=name, progress=done,
                                      total=total or 0.0, message=message or ""))

        result = await connections.call(config.name, info.name, arguments, progress)
        text = result_text(result)
        # What a server returns is data, like a page: fenced with a fresh marker (core.tools.untrusted).
        source = f"MCP server {config.name}"
        if getattr(result, "isError", False):
            raise ToolError(wrap_untrusted(text, source) if text else f"{info.name} failed on the MCP server "
                                                                       f"{config.name!r}")
        wrapped = wrap_untrusted(text, source)
        # Pictures go to the model as pictures (to models that take them; core.llm.vision).
        # Sounds go as sounds to models that hear them (core.llm.audio_input), else the note in the text stays.
        return ToolResult(for_model=wrapped, data=result, images=result_images(result), audio=result_audio(result))

    tool = Tool(
        name=name,
        description=(info.description or info.name).strip() + f" (MCP server: {config.name})",
        fn=call,
        takes_context=True,
        arguments_model=_as_model(model),
        level=tool_level(config.permission, info.annotations),
        site=lambda ctx, args: mcp_site(config.name),
    )
    schema = dict(info.input_schema) or {"type": "object", "properties": {}}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    tool.schema = schema
    return tool


def _as_model(model: Any) -> type[BaseModel]:
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model


def result_text(result: Any) -> str:
    parts: list[str] = []
    for item in getattr(result, "content", None) or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(str(item.text))
        elif kind == "image":
            parts.append(f"[image {getattr(item, 'mimeType', '')}, {len(getattr(item, 'data', ''))} bytes base64]")
        elif kind == "resource":
            resource = getattr(item, "resource", None)
            parts.append(str(getattr(resource, "text", "") or getattr(resource, "uri", "")))
        elif kind == "resource_link":  # a resource the user may attach (the composer's MCP button)
            about = f": {item.description}" if getattr(item, "description", None) else ""
            parts.append(f"[resource {item.name} at {item.uri}{about}]")
        elif kind == "audio":  # said here, sent as sound to a model that hears it (result_audio, core.llm.audio_input)
            parts.append(f"[audio {getattr(item, 'mimeType', '')}, {len(getattr(item, 'data', ''))} bytes base64]")
        else:
            parts.append(f"[{kind or 'content'} left out]")
    structured = getattr(result, "structuredContent", None)
    if not parts and structured is not None:
        import json

        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts)


def result_images(result: Any) -> list[Image]:
    """The pictures of a tool's result (image content, base64 in the protocol)."""
    import base64
    import binascii

    images: list[Image] = []
    for item in getattr(result, "content", None) or []:
        media_type = str(getattr(item, "mimeType", "") or "")
        if getattr(item, "type", "") == "image" and media_type.startswith("image/"):
            try:
                images.append(Image(base64.b64decode(str(item.data), validate=True), media_type))
            except (binascii.Error, ValueError):
                log.warning("an MCP tool returned an image that is not base64; left out")
    return images


def result_audio(result: Any) -> list[Audio]:
    """The sounds of a tool's result (audio content, base64 in the protocol)."""
    import base64
    import binascii

    sounds: list[Audio] = []
    for item in getattr(result, "content", None) or []:
        media_type = str(getattr(item, "mimeType", "") or "")
        if getattr(item, "type", "") == "audio" and media_type.startswith("audio/"):
            try:
                sounds.append(Audio(base64.b64decode(str(item.data), validate=True), media_type))
            except (binascii.Error, ValueError):
                log.warning("an MCP tool returned audio that is not base64; left out")
    return sounds
