"""A real MCP server of notes, built with the SDK's FastMCP, for the tests of resources, resource templates,
subscriptions and completions.

Run ``python -m tests.servers.notes_mcp_server stdio`` or ``... http PORT`` (streamable HTTP at
``http://127.0.0.1:PORT/mcp``; several clients share its notes, as people share a real server).

- resources: ``notes://work/plan`` and ``notes://home/shopping`` (text), and the template
  ``notes://{folder}/{name}`` (any note by folder and name);
- completions: the template's ``folder`` and ``name`` (the names of that folder's notes, given the folder
  in the context), and the ``topic`` argument of the prompt ``summarize`` (from a fixed list);
- subscriptions: a client that subscribes to a note gets ``notifications/resources/updated`` when any
  client changes it with the tool ``write_note(folder, name, text)``.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp import types
from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyUrl

server = FastMCP("notes", transport_security=TransportSecuritySettings(
    allowed_hosts=["127.0.0.1:*", "localhost:*"], allowed_origins=[]))
NOTES: dict[str, dict[str, str]] = {"work": {"plan": "Ship the release on Friday."},
                                    "home": {"shopping": "Milk, bread, olives."}}
TOPICS = ["budget", "deadlines", "design", "hiring", "holidays"]
SUBSCRIBERS: dict[str, list[Any]] = {}  # uri -> the sessions that follow it


@server.resource("notes://work/plan", name="plan", title="The work plan", mime_type="text/plain")
def work_plan() -> str:
    return NOTES["work"]["plan"]


@server.resource("notes://home/shopping", name="shopping", mime_type="text/plain")
def shopping() -> str:
    return NOTES["home"]["shopping"]


@server.resource("notes://{folder}/{name}", name="note", title="A note by folder and name", mime_type="text/plain")
def note(folder: str, name: str) -> str:
    """Any note: its folder, then its name."""
    text = NOTES.get(folder, {}).get(name)
    if text is None:
        raise ValueError(f"no note {folder}/{name}")
    return text


@server.prompt(name="summarize", description="Summarize the notes about a topic")
def summarize(topic: str, style: str = "short") -> str:
    return f"Summarize my notes about {topic}, {style}."


@server.tool()
async def write_note(folder: str, name: str, text: str) -> str:
    """Change (or add) a note; whoever follows it is told."""
    NOTES.setdefault(folder, {})[name] = text
    uri = f"notes://{folder}/{name}"
    for session in list(SUBSCRIBERS.get(uri, [])):
        try:
            await session.send_resource_updated(AnyUrl(uri))
        except Exception:  # that client has gone
            SUBSCRIBERS[uri].remove(session)
    return f"saved {uri}"


@server._mcp_server.subscribe_resource()  # FastMCP has no decorator of its own for these
async def follow(uri: AnyUrl) -> None:
    SUBSCRIBERS.setdefault(str(uri), []).append(server._mcp_server.request_context.session)


@server._mcp_server.unsubscribe_resource()
async def unfollow(uri: AnyUrl) -> None:
    session = server._mcp_server.request_context.session
    SUBSCRIBERS[str(uri)] = [s for s in SUBSCRIBERS.get(str(uri), []) if s is not session]


@server.completion()
async def complete(ref: Any, argument: types.CompletionArgument,
                   context: types.CompletionContext | None) -> types.Completion | None:
    typed = argument.value.lower()
    if isinstance(ref, types.ResourceTemplateReference):
        if argument.name == "folder":
            values = list(NOTES)
        else:
            folder = (context.arguments or {}).get("folder", "") if context is not None else ""
            values = list(NOTES.get(folder, {})) if folder else [n for notes in NOTES.values() for n in notes]
    elif isinstance(ref, types.PromptReference) and argument.name == "topic":
        values = TOPICS
    else:
        return None
    return types.Completion(values=[v for v in values if v.lower().startswith(typed)], hasMore=False)


def main(argv: list[str]) -> None:
    if not argv or argv[0] == "stdio":
        server.run("stdio")
        return
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(argv[1]), log_level="warning",
                lifespan="on")


if __name__ == "__main__":
    main(sys.argv[1:])
