"""Slash commands typed in the chat input: /tools, /clear, /summarize, /help, /research.

``parse_slash`` tells a command from a message that merely starts with a slash (a path such
as ``/etc/hosts`` is a message). The agent session carries the commands out; this module
only knows their names, their help and the prompt ``/summarize`` sends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jawad_desktop.core.tools.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    help: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("tools", "list the tools Jawad can use and their permission levels"),
    SlashCommand("clear", "start a new conversation (this one stays in the history)"),
    SlashCommand("summarize", "summarise the current page (text after it says what to focus on)"),
    SlashCommand("help", "show these commands"),
)

# Commands the window (and the CLI) carry out before the agent sees the text.
FRONTEND_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("research", "plan a multi-step browser research, review the plan, then run it"),
    SlashCommand("prompts", "list the prompts of your MCP servers; each runs as /NAME with its arguments"),
)

CLEARED = "Started a new conversation: Jawad no longer sees the earlier messages (they stay in the history)."

SUMMARIZE_PROMPT = (
    "Summarize the current page: its main point, the key facts, and, if it is a product, "
    "the price and anything notable. Be concise."
)

_SLASH = re.compile(r"^\s*/([A-Za-z][\w-]*)(?:\s+(.*))?\s*$", re.DOTALL)


def parse_slash(text: str) -> tuple[str, str] | None:
    """``("summarize", "focus on price")`` for a command, ``None`` for a normal message."""
    match = _SLASH.match(text)
    if match is None:
        return None
    return match.group(1).lower(), (match.group(2) or "").strip()


def known(name: str) -> bool:
    return any(c.name == name for c in COMMANDS) or name == "summarise"


def answered_locally(text: str) -> bool:
    """Whether ``text`` is a command the session answers without the model (/help, /tools,
    /clear): nothing of it is a conversation to keep."""
    command = parse_slash(text)
    return command is not None and known(command[0]) and command[0] not in ("summarize", "summarise")


def shown_text(text: str) -> str:
    """How the user's message reads in the chat and the history: /summarize as the request it
    stands for ("Summarize this page", with its focus), anything else as typed."""
    command = parse_slash(text)
    if command is None or command[0] not in ("summarize", "summarise"):
        return text
    return "Summarize this page" + (f", focusing on: {command[1]}" if command[1] else "")


def research_intent(text: str) -> str | None:
    """The intent of ``/research INTENT`` ("" when none was given), ``None`` for any other text."""
    command = parse_slash(text)
    if command is None or command[0] != "research":
        return None
    return command[1]


def help_text() -> str:
    return "Commands:\n" + "\n".join(f"- `/{c.name}`: {c.help}" for c in (*COMMANDS, *FRONTEND_COMMANDS))


def tools_text(registry: ToolRegistry) -> str:
    """The /tools listing: each tool, its permission level and what it does."""
    if not len(registry):
        return "No tools are available."
    lines = ["| tool | permission | what it does |", "|---|---|---|"]
    for tool in registry:
        summary = tool.description.split("\n", 1)[0].replace("|", "/")
        aliases = f" (also: {', '.join(tool.aliases)})" if tool.aliases else ""
        lines.append(f"| `{tool.name}`{aliases} | {tool.level.value} | {summary} |")
    return "\n".join(lines)
