"""What MCP servers list, for the faces: their tools (``McpToolInfo``); resources (listed, read as a file
to attach, followed with ``subscribe``); resource templates (listed, their parameters filled with ``fill_template``,
then read like any resource), and prompts (listed, run with ``get_prompt``, their arguments completed by
the server with ``complete``).

``ServerOffers`` is the part of ``McpConnections`` (``core.mcp.adapter``) that asks for them; the records
(``McpToolInfo``, ``McpResourceInfo``, ``McpResourceTemplateInfo``, ``McpPromptInfo``) share ``McpOffer``'s fields.
"""

from __future__ import annotations

import abc
import base64
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jawad_desktop.core.mcp.problems import first_error
from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.tools.registry import ToolError

if TYPE_CHECKING:
    from jawad_desktop.core.tools.files.extract import ExtractedFile

log = logging.getLogger("jawad.mcp")

__all__ = [
    "McpOffer", "McpPromptArgument", "McpPromptInfo", "McpResourceInfo", "McpResourceTemplateInfo",
    "McpToolInfo", "ServerOffers", "fill_template", "template_parameters",
]


@dataclass(frozen=True)
class McpOffer:
    """What a server lists (a tool, a resource, a template, a prompt): whose it is, its name, how to show it."""

    server: str
    name: str
    title: str = ""
    description: str = ""

    @property
    def label(self) -> str:
        """How to show it: its title, else its name."""
        return self.title or self.name


@dataclass(frozen=True, kw_only=True)
class McpToolInfo(McpOffer):
    """One tool a server offers, as listed (for `jawad mcp list --tools` and Settings)."""

    input_schema: dict[str, Any]
    allowed: bool = True
    annotations: dict[str, Any] = field(default_factory=dict)  # the server's hints (readOnlyHint, ...)


@dataclass(frozen=True, kw_only=True)
class McpResourceInfo(McpOffer):
    """One resource a server offers (a file, a record, a page), as listed."""

    uri: str
    mime_type: str = ""


@dataclass(frozen=True, kw_only=True)
class McpResourceTemplateInfo(McpOffer):
    """A family of resources named by a URI template (RFC 6570), e.g. ``notes://{folder}/{name}``."""

    uri_template: str
    mime_type: str = ""

    @property
    def parameters(self) -> list[str]:
        """The names the template asks for, in order."""
        return template_parameters(self.uri_template)

    def uri(self, values: dict[str, str]) -> str:
        """The URI of the resource these ``values`` name (read it with ``read_resource``)."""
        return fill_template(self.uri_template, values)


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, kw_only=True)
class McpPromptInfo(McpOffer):
    """One prompt a server offers (run as a slash command: ``/<name> <arguments>``)."""

    arguments: tuple[McpPromptArgument, ...] = ()


# -- URI templates (RFC 6570, levels 1 to 3 and the explode-free forms of level 4) -------------------

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^}]*)\}")
# operator: (first, separator, named, allow reserved characters)
_OPERATORS = {"": ("", ",", False, False), "+": ("", ",", False, True), "#": ("#", ",", False, True),
              ".": (".", ".", False, False), "/": ("/", "/", False, False), ";": (";", ";", True, False),
              "?": ("?", "&", True, False), "&": ("&", "&", True, False)}


def _variables(spec: str) -> Iterator[str]:
    for variable in spec.split(","):
        name = variable.strip().rstrip("*").split(":", 1)[0]
        if name:
            yield name


def template_parameters(template: str) -> list[str]:
    """The variables of a URI template, in order, each once."""
    names: list[str] = []
    for match in _EXPRESSION.finditer(template):
        names.extend(n for n in _variables(match.group(2)) if n not in names)
    return names


def fill_template(template: str, values: dict[str, str]) -> str:
    """``template`` expanded with ``values`` (RFC 6570): reserved characters encoded unless the
    operator allows them (``{+path}``); a variable without a value is left out."""
    def expand(match: re.Match[str]) -> str:
        first, separator, named, reserved = _OPERATORS[match.group(1)]
        safe = ":/?#[]@!$&'()*+,;=" if reserved else ""
        pieces = []
        for name in _variables(match.group(2)):
            value = values.get(name)
            if value is None:
                continue
            encoded = quote(str(value), safe=safe)
            pieces.append(f"{name}={encoded}" if named and (encoded or match.group(1) != ";") else
                          (name if named else encoded))
        return first + separator.join(pieces) if pieces else ""

    return _EXPRESSION.sub(expand, template)


# -- asking the servers ------------------------------------------------------------------------------

class ServerOffers(abc.ABC):
    """Resources, templates and prompts of the connected servers (mixed into ``McpConnections``)."""

    @abc.abstractmethod
    def _session(self, server_name: str) -> Any:
        """The open session of the connected server ``server_name`` (``ToolError`` when there is none)."""

    @abc.abstractmethod
    def _offering(self, what: str) -> list[tuple[str, Any]]:
        """(server name, session) of each connected server whose capabilities include ``what``."""

    async def _list_all(self, what: str, method: str, field_name: str) -> list[tuple[str, Any]]:
        """Every item of ``method``'s listing (all pages) on each server offering ``what``."""
        from mcp import types

        found: list[tuple[str, Any]] = []
        for server_name, session in self._offering(what):
            cursor: str | None = None
            try:
                while True:
                    listed = await getattr(session, method)(params=types.PaginatedRequestParams(cursor=cursor))
                    found.extend((server_name, item) for item in getattr(listed, field_name))
                    cursor = listed.nextCursor
                    if not cursor:
                        break
            except Exception as exc:
                log.warning("MCP server %s: could not list its %s: %s", server_name, field_name, first_error(exc))
        return found

    async def resources(self) -> list[McpResourceInfo]:
        """The resources of every connected server that offers some (all pages of each list)."""
        return [McpResourceInfo(server, r.name, r.title or "", r.description or "", uri=str(r.uri),
                                mime_type=r.mimeType or "")
                for server, r in await self._list_all("resources", "list_resources", "resources")]

    async def resource_templates(self) -> list[McpResourceTemplateInfo]:
        """The resource templates of every connected server that offers resources."""
        return [McpResourceTemplateInfo(server, t.name, t.title or "", t.description or "",
                                        uri_template=t.uriTemplate, mime_type=t.mimeType or "")
                for server, t in await self._list_all("resources", "list_resource_templates", "resourceTemplates")]

    async def read_resource(self, server_name: str, uri: str) -> ExtractedFile:
        """A resource as a file to attach to a message (its text, or its picture), fenced as data
        when it reaches the model like any attached file."""
        from pydantic import AnyUrl

        from jawad_desktop.core.tools.files.extract import ExtractedFile, Part

        session = self._session(server_name)
        try:
            result = await session.read_resource(AnyUrl(uri))
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} could not give {uri}: {first_error(exc)}") from None
        parts: list[Part] = []
        image: Image | None = None
        notes: list[str] = []
        for item in result.contents:
            mime = str(getattr(item, "mimeType", "") or "")
            text = getattr(item, "text", None)
            if text is not None:
                parts.append(Part(len(parts) + 1, str(item.uri), str(text)))
            elif mime.startswith("image/") and image is None:
                image = Image(base64.b64decode(str(item.blob)), mime)
            else:
                notes.append(f"{item.uri} is {mime or 'binary data'}, which is left out")
        name = uri.rstrip("/").rsplit("/", 1)[-1] or uri
        return ExtractedFile(Path(f"{server_name}: {name}"), "image" if image is not None and not parts else "text",
                             tuple(parts), image, tuple(notes))

    async def subscribe(self, server_name: str, uri: str, *, on: bool = True) -> None:
        """Be told (``McpResourceUpdated``) when ``uri`` changes; ``on=False`` stops it."""
        from pydantic import AnyUrl

        session = self._session(server_name)
        try:
            if on:
                await session.subscribe_resource(AnyUrl(uri))
            else:
                await session.unsubscribe_resource(AnyUrl(uri))
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} does not let you follow {uri}: "
                            f"{first_error(exc)}") from None

    async def prompts(self) -> list[McpPromptInfo]:
        """The prompts of every connected server that offers some."""
        return [McpPromptInfo(server, p.name, p.title or "", p.description or "", arguments=tuple(
                    McpPromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or []))
                for server, p in await self._list_all("prompts", "list_prompts", "prompts")]

    async def get_prompt(self, server_name: str, name: str, arguments: dict[str, str]) -> list[Message]:
        """The messages of a prompt with its ``arguments`` (text, embedded resources' text, pictures)."""
        session = self._session(server_name)
        try:
            result = await session.get_prompt(name, arguments)
        except Exception as exc:
            raise ToolError(f"The MCP server {server_name!r} could not give the prompt {name!r}: "
                            f"{first_error(exc)}") from None
        return [_prompt_message(item.role, item.content) for item in result.messages]

    async def complete(self, server_name: str, prompt: str, argument: str, value: str,
                       context: dict[str, str] | None = None, *, template: str = "") -> list[str]:
        """The server's completions of ``value`` for a prompt's ``argument`` (or, with ``template``, for
        a parameter of that resource template); [] when it offers none."""
        from mcp import types

        session = dict(self._offering("completions")).get(server_name)
        if session is None:
            return []
        ref: Any = (types.ResourceTemplateReference(type="ref/resource", uri=template) if template
                    else types.PromptReference(type="ref/prompt", name=prompt))
        try:
            result = await session.complete(ref, {"name": argument, "value": value}, context or None)
        except Exception as exc:
            log.info("MCP server %s: no completion for %s.%s: %s", server_name, template or prompt, argument,
                     first_error(exc))
            return []
        return list(result.completion.values)


def _prompt_message(role: Any, content: Any) -> Message:
    """One message of a prompt: its text, an embedded resource's text, or its picture."""
    kind = getattr(content, "type", "")
    if kind == "text":
        return Message(role=role, content=str(content.text))
    if kind == "image":
        return Message(role=role, images=[Image(base64.b64decode(str(content.data)), str(content.mimeType))])
    if kind == "resource":
        resource = content.resource
        text = getattr(resource, "text", None)
        return Message(role=role, content=str(text) if text is not None
                       else f"[{resource.uri}: {resource.mimeType or 'binary data'}]")
    return Message(role=role, content=f"[{kind} left out]")
