"""The loop guard: the same call with the same result three times in one turn, with nothing new in
between, stops the run.

A model that clicks a button that does nothing, or types a value the page refuses, tends to try
again, and again, until it runs out of steps. ``RepeatGuard`` counts each call by its tool, its
arguments and the result it got; when one comes back the same for the ``REPEATS``-th time the agent
stops with ``Repeated.message()``: what was repeated, what it gave, and what the user can do.

A call whose result was the same is no loop when the turn got somewhere since its last time: a call
in between brought a result never seen before in the turn (a game replays the moves it knows, the
same click from the same start bringing the same result, then tries a new one). Only a circle of
calls that brings nothing new is counted. The random marker of untrusted content (``untrusted``) is
not part of a result: the same page read twice is the same result.
"""

from __future__ import annotations

import json
import re
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
    """Counts the calls of one turn; ``note`` says when one repeats with the same result too often,
    nothing new having come in between."""

    def __init__(self, limit: int = REPEATS) -> None:
        self.limit = limit
        self._seen: Counter[tuple[str, str, str]] = Counter()
        self._moved_on: set[tuple[str, str, str]] = set()  # calls since whose last time something new came

    def note(self, tool: str, arguments: dict[str, Any], result: str) -> Repeated | None:
        """Record a call and its result; a ``Repeated`` when this is its ``limit``-th time in a row
        of times with nothing new in between."""
        key = (tool, json.dumps(arguments, sort_keys=True, default=str), _MARKER.sub("", result))
        if key not in self._seen:
            self._moved_on = set(self._seen)  # a result never seen: every earlier call starts again
        elif key in self._moved_on:
            self._seen[key] = 0
        self._moved_on.discard(key)
        self._seen[key] += 1
        if self._seen[key] >= self.limit:
            return Repeated(tool=tool, arguments=dict(arguments), result=result, times=self._seen[key])
        return None


# The random marker around untrusted content (``core.tools.untrusted``), new at every read.
_MARKER = re.compile(r'(?<=id=")[0-9a-f]{10}(?=")|(?<=untrusted content )[0-9a-f]{10}\b')
