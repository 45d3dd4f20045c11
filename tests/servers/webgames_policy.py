"""A policy model for WebGames (``benchmarks/webgames.py``): a loopback OpenAI-compatible server that
plays the suite's challenges from what a real model gets, and nothing else.

What it gets: the prompt (the same for every task: do the challenge on the open page, tell the
password), the tool results in the conversation (read_page's element list and text, what each action
reports, ``look``'s text) and the tools the request offers. It knows no task id, no password and no
selector: it tells the challenge from the page's own heading and instructions, as a person would, and
acts by the ``[n]`` of the latest listing (the oracle's ``Desk``, ``tests/servers/oracle_model.py``).
A challenge it has no plan for, or one it cannot finish, ends with an answer saying why.

Its score checks that our tools are sufficient for these pages: a task counts as solved when the
task's password appears in what the tools returned to the model. It is never a model's task success.

Like the oracle it keeps no state between requests: each reply replays the policy over the calls and
results the conversation holds. Runs are counted apart by base URL (``run_url(key)``): requests, tool
calls, tokens (4 characters a token, as the app estimates), the final answer, and every tool result's
text (``seen``), which the benchmark searches for the password.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from tests.servers.oracle_model import (
    BUTTONS,
    CONTEXT_WINDOW,
    FIELDS,
    Call,
    Desk,
    Element,
    GiveUp,
    Listing,
    Round,
    _shown,
    _tokens,
    norm,
    read_conversation,
)
from tests.servers.scripted_model import Reply, ScriptedModel

MODEL = "webgames-policy"
PROMPT = ("The open page is a web challenge. Read its instructions, do what it asks, and tell me the password "
          "it reveals once the challenge is solved.")
STEP_CAP = 45  # tool calls before the policy gives up
Policy = Generator[Round, list[str], str]

_PASSWORD = re.compile(r"(?:password|secret code|secret)\s*(?:is|:)\s*[:\s]*[\"'“]?([A-Za-z0-9_!@#$%^&*.\-]{4,})",
                       re.I)


@dataclass(frozen=True)
class _Spec:
    """What the oracle's ``Desk`` wants of a task: no slots, no data (the page says what to do)."""

    id: str = "webgames"
    data: dict[str, Any] = field(default_factory=dict)


class GameDesk(Desk):
    """The oracle's desk, with what every tool returned kept (the password is looked for there)."""

    def __init__(self, tools: dict[str, dict[str, Any]]) -> None:
        super().__init__(_Spec(), {}, tools)  # type: ignore[arg-type]
        self.seen: list[str] = []

    def run(self, *calls: Call) -> Generator[Round, list[str], list[str]]:
        if self.calls + len(calls) > STEP_CAP:
            raise GiveUp("step cap", f"I stopped after {STEP_CAP} tool calls without the password showing.")
        self.calls -= len(calls)  # the oracle's own cap (30) is not this policy's
        results = yield from super().run(*calls)
        self.calls += len(calls)
        self.seen.extend(results)
        return results

    def password(self) -> str | None:
        """The password the page revealed, from the latest tool result that names one."""
        for text in reversed(self.seen):
            found = _PASSWORD.findall(text)
            if found:
                return str(found[-1])
        return None

    @property
    def content(self) -> str:
        return self.listing.content


class Solved(Exception):
    def __init__(self, password: str) -> None:
        super().__init__(password)
        self.password = password


def _check(d: GameDesk) -> None:
    found = d.password()
    if found:
        raise Solved(found)


# -- the challenges, told by their heading --------------------------------------------------------

GAMES: list[tuple[re.Pattern[str], Callable[[GameDesk], Policy]]] = []


def game(pattern: str) -> Callable[[Callable[[GameDesk], Policy]], Callable[[GameDesk], Policy]]:
    def register(fn: Callable[[GameDesk], Policy]) -> Callable[[GameDesk], Policy]:
        GAMES.append((re.compile(pattern, re.I), fn))
        return fn
    return register


def heading(listing: Listing) -> str:
    """The page's first heading (read_page's Markdown), else its first line of text."""
    for line in listing.content.splitlines():
        line = line.strip()
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return next((line.strip() for line in listing.content.splitlines() if line.strip()), "")


def play(d: GameDesk) -> Policy:
    """Read the page, tell the challenge from its heading, play it."""
    yield from d.read()
    _check(d)
    title = heading(d.listing)
    for pattern, fn in GAMES:
        if pattern.search(title):
            return (yield from fn(d))
    raise GiveUp("no plan", f"I do not know how to play the challenge {title[:80]!r} from what the page says.")


def decide(body: dict[str, Any]) -> tuple[Reply, RunRecord]:
    conversation = read_conversation(body)
    record = RunRecord()
    desk = GameDesk(conversation.tools)
    generator = play(desk)
    try:
        planned = next(generator)
        for _calls, results in conversation.rounds:
            planned = generator.send(results)
    except StopIteration as done:
        record.seen = desk.seen
        return Reply(content=str(done.value or "Done.")), record
    except Solved as solved:
        record.seen = desk.seen
        return Reply(content=f"The password is {solved.password}"), record
    except GiveUp as stop:
        record.seen, record.gave_up = desk.seen, f"{stop.kind}: {stop.message}"
        return Reply(content=f"I could not finish the challenge ({stop.kind}): {stop.message}"), record
    except Exception as exc:  # the policy's own bug: said, so a run never hangs on it
        record.seen, record.gave_up = desk.seen, f"policy error: {type(exc).__name__}: {exc}"
        return Reply(content=f"The policy failed: {type(exc).__name__}: {exc}"), record
    record.seen = desk.seen
    return Reply(tool_calls=[{"name": c.name, "arguments": c.arguments} for c in planned]), record


@dataclass
class RunRecord:
    """What one run cost, how it ended, and what the tools showed."""

    requests: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final: str = ""
    gave_up: str = ""
    calls: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class WebGamesPolicy(ScriptedModel):
    """The policy's server (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: dict[str, RunRecord] = {}
        self._lock = threading.Lock()

    def run_url(self, key: str) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/runs/{key}/v1"

    def models_list(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "jawad-tests",
                                            "max_model_len": CONTEXT_WINDOW}]}

    def reply_for(self, body: dict[str, Any], path: str) -> Reply | None:
        import json
        del self.requests[:-1]
        m = re.search(r"/runs/([^/]+)/", path)
        key = m.group(1) if m else ""
        reply, record = decide(body)
        prompt = _tokens(json.dumps(body.get("messages"), ensure_ascii=False)) + _tokens(json.dumps(body.get("tools")))
        completion = _tokens(reply.content) + _tokens(json.dumps(reply.tool_calls, ensure_ascii=False))
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        with self._lock:
            run = self.runs.setdefault(key, RunRecord())
            run.requests += 1
            run.prompt_tokens += prompt
            run.completion_tokens += completion
            run.tool_calls += len(reply.tool_calls)
            run.calls += [f"{c['name']}({_shown(c['arguments'])})" for c in reply.tool_calls]
            run.seen = record.seen
            if not reply.tool_calls:
                run.final, run.gave_up = reply.content, record.gave_up
        return reply

    def record(self, key: str) -> RunRecord:
        with self._lock:
            return self.runs.get(key, RunRecord())


# -- small hands ----------------------------------------------------------------------------------

def _buttons(listing: Listing) -> list[Element]:
    return [e for e in listing.elements if e.role in BUTTONS or e.role.startswith("input[")]


def _fields(listing: Listing) -> list[Element]:
    return [e for e in listing.elements if e.role in FIELDS or any(e.role.startswith(r) for r in FIELDS)]


def _click(d: GameDesk, element: Element) -> Policy:
    result = yield from d.click(element)
    _check(d)
    return result


def _read(d: GameDesk) -> Generator[Round, list[str], Listing]:
    listing = yield from d.read()
    _check(d)
    return listing


def today() -> date:
    return date.today()


__all__ = ["PROMPT", "GAMES", "WebGamesPolicy", "decide", "today", "timedelta"]
