"""What the assistant does with its MCP servers' prompts and resources (``core.mcp``): a prompt
runs as a slash command (``/<prompt> arguments``) and becomes the user's message, ``/prompts``
lists them, and a resource is read as a file to attach to a message, or saved as one."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.mcp.prompt_line import find_prompt, prompt_arguments
from jawad_desktop.core.tools.files.extract import ExtractedFile, file_kind
from jawad_desktop.core.tools.registry import ToolError

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.adapter import McpRegistry

log = logging.getLogger("jawad.assistant")


async def mcp_prompt(mcp: McpRegistry, name: str, argument_text: str) -> str | None:
    """The text of the MCP prompt ``name`` (a slash command) with its arguments, or None when no
    server offers a prompt of that name. Arguments are ``key=value`` words, or given in order."""
    connections = mcp.connections
    found = find_prompt(await connections.prompts(), name)
    if found is None:
        return None
    arguments = prompt_arguments(found, argument_text)
    missing = [a.name for a in found.arguments if a.required and a.name not in arguments]
    if missing:
        # The server's completions of what is missing (given what was typed) say what to type.
        offered = []
        for name in missing:
            values = await connections.complete(found.server, found.name, name, "", arguments)
            if values:
                offered.append(f"{name}: {', '.join(values[:10])}")
        raise JawadError(
            f"The prompt /{found.name} of the MCP server {found.server!r} needs {', '.join(missing)}. "
            "Your message was not sent.",
            suggestions=[f"Type /{found.name} " + " ".join(f"{a.name}=..." for a in found.arguments),
                         *([f"The server offers {'; '.join(offered)}."] if offered else [])])
    try:
        messages = await connections.get_prompt(found.server, found.name, arguments)
    except ToolError as exc:
        raise JawadError(f"{exc} Your message was not sent.") from None
    log.info("MCP prompt %s of %s: %d message(s)", found.name, found.server, len(messages))
    texts = [m.content for m in messages if m.content]
    if len({m.role for m in messages}) > 1:
        texts = [f"{m.role}: {m.content}" for m in messages if m.content]
    return "\n\n".join(texts)


async def mcp_prompts_text(mcp: McpRegistry | None) -> str:
    """``/prompts``: the MCP servers' prompts, as the slash commands that run them."""
    prompts = await mcp.connections.prompts() if mcp is not None else []
    if not prompts:
        return "No MCP server offers prompts. Add servers in Settings → MCP servers."
    lines = ["Prompts of your MCP servers (type one as a message):"]
    for prompt in prompts:
        wanted = " ".join(f"{a.name}=…" if a.required else f"[{a.name}=…]" for a in prompt.arguments)
        about = f" — {prompt.description}" if prompt.description else ""
        lines.append(f"- `/{prompt.name}{' ' + wanted if wanted else ''}` ({prompt.server}){about}")
    return "\n".join(lines)


async def read_mcp_resource(mcp: McpRegistry | None, server: str, uri: str) -> ExtractedFile:
    """An MCP server's resource as a file to attach to a message (``send``'s ``attachments``)."""
    if mcp is None:
        raise JawadError("No MCP server is connected.", suggestions=["Add one in Settings → MCP servers."])
    try:
        return await mcp.connections.read_resource(server, uri)
    except ToolError as exc:
        raise JawadError(str(exc)) from None


async def save_mcp_resource(mcp: McpRegistry | None, folder: Path, server: str, uri: str) -> Path:
    """An MCP server's resource written to a file in the profile's cache, to attach like any file
    (the window's composer holds files) in ``folder``: its text as ``.md`` or ``.txt``, or its picture."""
    found = await read_mcp_resource(mcp, server, uri)
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", found.name.split(": ", 1)[-1]).strip("._") or "resource"
    if found.image is not None and not found.parts:
        suffix = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}.get(found.image.media_type)
        if suffix is None:
            raise JawadError(f"{uri} is a picture of a kind Jawad does not send ({found.image.media_type}).")
        path = folder / (Path(name).stem + suffix)
        path.write_bytes(found.image.data)
        return path
    if not found.parts:
        raise JawadError(f"{uri} holds nothing Jawad can read: {'; '.join(found.notes) or 'no text'}.")
    path = folder / (name if file_kind(Path(name)) == "text" else f"{name}.txt")
    path.write_text("\n\n".join(part.text for part in found.parts), encoding="utf-8")
    return path
