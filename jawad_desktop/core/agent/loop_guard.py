"""The loop guard: the same call with the same result three times in one turn stops the run.

A model that clicks a button that does nothing, or types a value the page refuses, tends to try
again, and again, until it runs out of steps. ``RepeatGuard`` counts each call by its tool, its
arguments and the result it got; when one comes back the same for the ``REPEATS``-th time the agent
stops with ``Repeated.message()``: what was repeated, what it gave, and what the user can do.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

REPEATS = 3  # the same call with the same result this many times in a turn stops it
_SHOWN_RESULT = 200  # characters of the result quoted in the message


@dataclass(frozen=True, slots=True)
class Repeated:
    """A call the model kept making with the same result."""

    tool: str
    arguments: dict[str, Any]
    result: str
    times: int

    def message(self) -> str:
        """What the user is told when the run stops."""
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.arguments.items())
        result = " ".join(self.result.split())
        if len(result) > _SHOWN_RESULT:
            result = result[: _SHOWN_RESULT - 1] + "…"
        return (
            f"I stopped because I was going in circles: I ran {self.tool}({args}) {self.times} times and got the "
            f'same result each time ("{result}"), so doing it again would not help. On a web page, it may need '
            "something else first (a required field, a dialog to close, a sign-in), or this control may not "
            "work for me: you can do this step yourself in the browser and ask me to continue. Or tell me "
            "another way to go about it."
        )


class RepeatGuard:
    """Counts the calls of one turn; ``note`` says when one repeats with the same result too often."""

    def __init__(self, limit: int = REPEATS) -> None:
        self.limit = limit
        self._seen: Counter[tuple[str, str, str]] = Counter()

    def note(self, tool: str, arguments: dict[str, Any], result: str) -> Repeated | None:
        """Record a call and its result; a ``Repeated`` when this is its ``limit``-th time."""
        key = (tool, json.dumps(arguments, sort_keys=True, default=str), result)
        self._seen[key] += 1
        if self._seen[key] >= self.limit:
            return Repeated(tool=tool, arguments=dict(arguments), result=result, times=self._seen[key])
        return None
