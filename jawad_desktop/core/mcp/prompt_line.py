"""An MCP prompt typed as a slash command: ``/<prompt> <arguments>``, the arguments as ``key=value`` words
or in the prompt's order (``prompt_arguments``), and the completion of what is being typed
(``complete_prompt_line``): the prompt's name among the servers' prompts, then the argument under the
cursor by the server's own ``completion/complete`` (given the arguments already typed). The window's
composer offers these while the user types; the assistant runs the finished line.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jawad_desktop.core.mcp.offers import McpPromptInfo, ServerOffers

__all__ = ["LineCompletion", "complete_prompt_line", "find_prompt", "prompt_arguments"]


@dataclass(frozen=True)
class LineCompletion:
    """What may replace ``line[start:]`` (the word being typed), and what it is (a prompt or an argument)."""

    start: int
    values: list[str] = field(default_factory=list)
    what: str = ""  # "prompt" or the argument's name


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # an open quote while typing
        return text.split()


def prompt_arguments(prompt: McpPromptInfo, text: str) -> dict[str, str]:
    """The arguments of ``prompt`` in ``text``: ``key=value`` words, the other words in the prompt's order."""
    names = [a.name for a in prompt.arguments]
    arguments: dict[str, str] = {}
    for word in _words(text):
        key, equals, value = word.partition("=")
        if equals and key in names:
            arguments[key] = value
        else:
            free = next((n for n in names if n not in arguments), None)
            if free is not None:
                arguments[free] = word
    return arguments


def find_prompt(prompts: list[McpPromptInfo], name: str) -> McpPromptInfo | None:
    """The prompt called ``name`` (case aside), or None."""
    return next((p for p in prompts if p.name.casefold() == name.casefold()), None)


async def complete_prompt_line(offers: ServerOffers, line: str) -> LineCompletion | None:
    """The completions of the word at the end of ``line`` when it is an MCP prompt's slash command; None
    when it is not one or nothing fits. A value with spaces is offered quoted, as the line needs it."""
    if not line.startswith("/") or "\n" in line:
        return None
    name, space, rest = line[1:].partition(" ")
    prompts = await offers.prompts()
    if not space:
        names = sorted({p.name for p in prompts if p.name.casefold().startswith(name.casefold())})
        return LineCompletion(1, names, "prompt") if names and names != [name] else None
    prompt = find_prompt(prompts, name)
    if prompt is None or not prompt.arguments:
        return None
    typed = rest.rsplit(" ", 1)
    current = typed[-1]
    before = typed[0] if len(typed) > 1 else ""
    done = prompt_arguments(prompt, before)
    key, equals, value = current.partition("=")
    if equals and key in {a.name for a in prompt.arguments}:
        argument = key
    else:
        argument, value = next((a.name for a in prompt.arguments if a.name not in done), ""), current
    if not argument:
        return None
    values = await offers.complete(prompt.server, prompt.name, argument, value, done)
    offered = [shlex.quote(v) for v in values if v != value]
    return LineCompletion(len(line) - len(value), offered, argument) if offered else None
