"""A policy model for WebGames (``benchmarks/webgames.py``): a loopback OpenAI-compatible server that
plays the suite's challenges from what a real model gets, and nothing else.

What it gets: the prompt (the same for every task: do the challenge on the open page, tell the
password), the tool results in the conversation (read_page's element list and text, what each action
reports, ``look``'s text and its screenshot, as a model that sees images gets them) and the tools the
request offers. It answers the app's image-input test (``jawad providers test --vision``) by the
picture's colour, so the agent offers it ``look`` and ``click_at``. It knows no task id, no password and no
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

import base64
import io
import itertools
import re
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
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
from tests.servers.webgames_glyphs import read_code
from tests.servers.webgames_riddles import note_numbers

MODEL = "webgames-policy"
PROMPT = ("The open page is a web challenge. Read its instructions, do what it asks, and tell me the password "
          "it reveals once the challenge is solved.")
STEP_CAP = 400  # tool calls before the policy gives up (the requests are the agent's limit)
ROUND_CAP = 48  # requests with tool calls before it gives up (the agent makes at most 50 requests)
Policy = Generator[Round, list[str], str]

# "The password is: X", "Password: X": a word of six characters or more with a capital, a digit or an
# underscore (a login form's "Password:" label followed by a short word is not it).
_PASSWORD = re.compile(r"(?:password|secret code|secret)\s*(?:is|:)\s*[:\s]*[\"'“]?"
                       r"((?=[A-Za-z0-9_!@#$%^&*.\-]*[A-Z0-9_])[A-Za-z0-9_!@#$%^&*.\-]{6,})", re.I)


@dataclass(frozen=True)
class _Spec:
    """What the oracle's ``Desk`` wants of a task: no slots, no data (the page says what to do)."""

    id: str = "webgames"
    data: dict[str, Any] = field(default_factory=dict)


class GameDesk(Desk):
    """The oracle's desk, with what every tool returned kept (the password is looked for there)."""

    def __init__(self, tools: dict[str, dict[str, Any]], pictures: list[bytes | None] | None = None) -> None:
        super().__init__(_Spec(), {}, tools)  # type: ignore[arg-type]
        self.seen: list[str] = []
        self.pictures = list(pictures or [])  # the screenshot of each look call, in order (None: left out)
        self.looks = 0
        self.rounds = 0
        self.instruction = ""  # the user's message (the files it names may be uploaded)

    def run(self, *calls: Call) -> Generator[Round, list[str], list[str]]:
        """The oracle's ``run`` with this policy's caps (the oracle's is 30 calls)."""
        for c in calls:
            self.need(c.name, f"use {c.name}")
        self.calls += len(calls)
        self.rounds += 1
        if self.calls > STEP_CAP or self.rounds > ROUND_CAP:
            raise GiveUp("step cap", f"I stopped after {self.calls} tool calls in {self.rounds} requests without "
                                     "the password showing.")
        results = yield list(calls)
        results = list(results) + [""] * (len(calls) - len(results))
        for c, result in zip(calls, results, strict=False):
            if result.startswith("Permission denied"):
                raise GiveUp("denied", f"I could not {c.name}: {result}")
        self.seen.extend(results)
        return results

    def click_and_read(self, element: Element) -> Generator[Round, list[str], str]:
        """Click ``element`` and read the page in one request (the agent's 50 requests go further)."""
        clicked, read = yield from self.run(Call("click_element", {"index": element.index}), Call("read_page", {}))
        if not read.startswith("Error"):
            self.before, self.listing = self.listing, Listing.of(read)
        return clicked

    def look(self, question: str = "", *, boxes: bool = True,
             past_ok: bool = False) -> Generator[Round, list[str], Any]:
        """A screenshot of the page (``look``), as an RGB picture; ``boxes=False``: without the marks.
        ``past_ok``: None for a look whose picture the conversation no longer holds (the app keeps the
        latest pictures only), for a plan that replays its past rounds without it."""
        self.need("look", "see the page")
        yield from self.call("look", **({"question": question} if question else {}),
                             **({} if boxes else {"boxes": False}))
        png = self.pictures[self.looks] if self.looks < len(self.pictures) else None
        self.looks += 1
        if png is None and past_ok and self.looks < len(self.pictures):
            return None
        if png is None:
            raise GiveUp("not seen", "look gave me no screenshot to see.")
        return _rgb(png)

    def then_look(self, call: Call, question: str) -> Generator[Round, list[str], Any]:
        """``call`` and a look without marks in one request (the picture shows what the call did):
        the picture, or None for a past round whose picture the conversation no longer holds."""
        self.need("look", "see the page")
        yield from self.run(call, Call("look", {"question": question, "boxes": False}))
        png = self.pictures[self.looks] if self.looks < len(self.pictures) else None
        self.looks += 1
        if png is None and self.looks >= len(self.pictures):
            raise GiveUp("not seen", "look gave me no screenshot to see.")
        return _rgb(png) if png is not None else None

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
    # The page's heading first; a title the reading put elsewhere ("Also visible on the page") next;
    # the first element label (a card the page made clickable as a whole carries its heading there)
    # before the text, all the labels last.
    labels = [element.label for element in d.listing.elements]
    for place in (title, *labels[:1], d.listing.content, " | ".join(labels)):
        for pattern, fn in GAMES:
            if pattern.search(place):
                return (yield from fn(d))
    return (yield from _explore(d, f"the challenge {title[:60]!r}", most=12))


_IMAGES_NOTE = re.compile(r"^The images? returned by (\S+) \(call ([^)]+)\):")


def _picture(part: dict[str, Any]) -> bytes | None:
    url = str((part.get("image_url") or {}).get("url", ""))
    return base64.b64decode(url.split(",", 1)[1]) if url.startswith("data:image/") and "," in url else None


def _pictures(body: dict[str, Any]) -> tuple[dict[str, Any], list[bytes | None]]:
    """``body`` without the user messages that carry tool results' images (the Chat Completions API
    sends them after the tool results), and the screenshot of each ``look`` call in order."""
    by_call: dict[str, bytes | None] = {}
    kept = []
    for m in body.get("messages") or []:
        parts = m.get("content") if m.get("role") == "user" else None
        if isinstance(parts, list) and parts and _IMAGES_NOTE.match(str(parts[0].get("text", ""))):
            call = ""
            for part in parts:
                note = _IMAGES_NOTE.match(str(part.get("text", ""))) if part.get("type") == "text" else None
                if note:
                    call = note.group(2)
                elif part.get("type") == "image_url":
                    by_call[call] = _picture(part)
            continue
        kept.append(m)
    looks = [tc.get("id") for m in kept if m.get("role") == "assistant" for tc in m.get("tool_calls") or []
             if (tc.get("function") or {}).get("name") == "look"]
    return {**body, "messages": kept}, [by_call.get(str(i)) for i in looks]


def _rgb(png: bytes) -> Any:
    """The picture as an RGB image (Pillow)."""
    from PIL import Image as PILImage
    return PILImage.open(io.BytesIO(png)).convert("RGB")


def _without_pictures(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[bytes]]:
    """The messages with each image part left out, and the images (counted apart: a model counts a
    picture by its size, not by the length of its base64 text)."""
    pictures: list[bytes] = []
    kept = []
    for m in messages:
        parts = m.get("content")
        if isinstance(parts, list):
            pictures += [png for p in parts if p.get("type") == "image_url" and (png := _picture(p))]
            m = {**m, "content": [p for p in parts if p.get("type") != "image_url"]}
        kept.append(m)
    return kept, pictures


def picture_tokens(png: bytes) -> int:
    """What a picture costs a model that sees, by OpenAI's published rule for detailed images: fitted
    into 2048 x 2048, its short side scaled to 768, then 170 tokens a 512-pixel tile and 85 more."""
    width, height = _rgb(png).size
    fit = min(1.0, 2048 / max(width, height))
    width, height = width * fit, height * fit
    short = min(1.0, 768 / min(width, height))
    width, height = width * short, height * short
    return 85 + 170 * -(-int(width) // 512) * -(-int(height) // 512)


def colour_word(png: bytes) -> str:
    """The one word for a picture's colour, as a person would say it (the image-input test)."""
    r, g, b = (sum(c) / len(c) for c in zip(*_rgb(png).getdata(), strict=True))
    if max(r, g, b) - min(r, g, b) < 30:
        return "white" if r > 200 else "black" if r < 60 else "grey"
    return max((r, "red"), (g, "green"), (b, "blue"))[1]


def decide(body: dict[str, Any]) -> tuple[Reply, RunRecord]:
    body, pictures = _pictures(body)
    conversation = read_conversation(body)
    record = RunRecord()
    desk = GameDesk(conversation.tools, pictures)
    desk.instruction = conversation.instruction
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


def _trace(key: str, messages: list[dict[str, Any]], reply: Reply, pictures: list[bytes]) -> None:
    """With ``JAWAD_WEBGAMES_TRACE=<folder>``: the run's conversation so far and the reply, as text, into
    ``<folder>/<key>.txt`` (rewritten on each request), and its pictures as ``<key>-<n>.png``, to read
    why a run went as it did."""
    import json
    import os
    from pathlib import Path
    folder = os.environ.get("JAWAD_WEBGAMES_TRACE")
    if not folder:
        return
    lines = []
    for m in messages:
        text = m.get("content")
        if isinstance(text, list):
            text = " ".join(str(p.get("text", "")) for p in text)
        calls = [f"{(c.get('function') or {}).get('name')}({(c.get('function') or {}).get('arguments')})"
                 for c in m.get("tool_calls") or []]
        lines.append(f"== {m.get('role')}: {' '.join(calls)}\n{text or ''}")
    lines.append(f"== reply: {reply.content} {json.dumps(reply.tool_calls, ensure_ascii=False)}")
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / f"{key}.txt").write_text("\n".join(lines), encoding="utf-8")
    for n, png in enumerate(pictures, 1):
        (Path(folder) / f"{key}-{n}.png").write_bytes(png)


class WebGamesPolicy(ScriptedModel):
    """The policy's server (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: dict[str, RunRecord] = {}
        self._runs_lock = threading.Lock()

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
        if not body.get("tools"):  # the app's connection or image-input test, before the run: not counted
            return Reply(content=self._test_answer(body))
        reply, record = decide(body)
        messages, pictures = _without_pictures(body.get("messages") or [])
        prompt = (_tokens(json.dumps(messages, ensure_ascii=False)) + _tokens(json.dumps(body.get("tools")))
                  + sum(picture_tokens(png) for png in pictures))
        completion = _tokens(reply.content) + _tokens(json.dumps(reply.tool_calls, ensure_ascii=False))
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        _trace(key, messages, reply, pictures)
        with self._runs_lock:
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

    @staticmethod
    def _test_answer(body: dict[str, Any]) -> str:
        """The app's tests: "OK" to a plain message, the colour's word to a picture."""
        for m in reversed(body.get("messages") or []):
            parts = m.get("content")
            if m.get("role") == "user" and isinstance(parts, list):
                png = next((_picture(p) for p in parts if p.get("type") == "image_url"), None)
                if png:
                    return colour_word(png)
        return "OK"

    def record(self, key: str) -> RunRecord:
        with self._runs_lock:
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


def _find(listing: Listing, words: str, roles: tuple[str, ...] = ()) -> Element | None:
    return listing.find(words, roles=roles)


def _need(element: Element | None, what: str) -> Element:
    if element is None:
        raise GiveUp("listing gap", f"I could not find {what} among the page's elements.")
    return element


def _wait(d: GameDesk, seconds: float) -> Policy:
    """Let time pass: wait for words that will not come (the only clock the tools offer)."""
    left = seconds
    while left > 0:
        chunk = min(60.0, max(0.5, left))
        yield from d.call("wait_for", text="(a moment passes)", timeout_s=chunk)
        left -= chunk
    return ""


def page_url(listing: Listing) -> str:
    """The address read_page gave (its ``URL:`` line)."""
    m = re.search(r"^URL: (\S+)", listing.text, re.M)
    return m.group(1) if m else ""


def _instructions(d: GameDesk) -> str:
    return " ".join(d.listing.text.split())


def _date_of(d: GameDesk) -> Generator[Round, list[str], date]:
    """Today's date, from the get_time tool (the model knows no date by itself)."""
    d.need("get_time", "know today's date")
    said = yield from d.call("get_time", timezone="UTC")
    m = re.search(r"(\d{1,2}) (\w+) (\d{4})", said)
    if not m:
        raise GiveUp("action failed", f"get_time said no date I could read: {said[:80]}")
    from datetime import datetime
    return datetime.strptime(" ".join(m.groups()), "%d %B %Y").date()


@game(r"date task")
def _date(d: GameDesk) -> Policy:
    text = _instructions(d)
    field_ = _need(next(iter(_fields(d.listing)), None), "the date field")
    day = yield from _date_of(d)
    if m := re.search(r"(\d+) days? ago", text):
        day -= timedelta(days=int(m.group(1)))
    elif "yesterday" in text.lower():
        day -= timedelta(days=1)
    yield from d.fill(field_, day.isoformat())
    yield from _click(d, _need(d.listing.find("Check", roles=BUTTONS), "the Check button"))
    yield from _read(d)
    raise GiveUp("page said no", "I entered the date and pressed Check; no password showed.")


@game(r"button megastar")
def _buttons_everywhere(d: GameDesk) -> Policy:
    """Words on the page that point at the one element first (click_text: they may not be listed), then
    everything the list has, one after another, reading what each click changed."""
    pointer = re.search(r"\bthis is the one\b", d.listing.text, re.I)
    if pointer and d.has("click_text"):
        yield from d.call("click_text", text=pointer.group(0))
        _check(d)
        yield from _read(d)
    tried: set[tuple[str, str, str]] = set()
    for _round in range(4):
        fresh = [e for e in d.listing.elements if e.key() not in tried]
        if not fresh:
            yield from d.call("scroll_page", direction="down")
            yield from _read(d)
            fresh = [e for e in d.listing.elements if e.key() not in tried]
            if not fresh:
                break
        for element in fresh:
            tried.add(element.key())
            if element.role.startswith("input[range]") or element.role in ("select", "textbox", "textarea"):
                continue
            result = yield from d.click(element)
            _check(d)
            if "did not visibly change" not in result:
                yield from _read(d)
                break
        else:
            yield from _read(d)
    raise GiveUp("no password", "I clicked every element the list had; no password showed.")


@game(r"click³|click3|click cubed")
def _click_cubed(d: GameDesk) -> Policy:
    first = _need(d.listing.find("Click First", roles=BUTTONS), "the first button")
    yield from _click(d, first)
    for _ in range(2):
        yield from _read(d)
        new = [e for e in d.new() if e.role in BUTTONS]
        button = _need(new[0] if new else None, "the next button")
        yield from _click(d, button)
    yield from _read(d)
    raise GiveUp("no password", "I clicked the three buttons in turn; no password showed.")


@game(r"patience")
def _patience(d: GameDesk) -> Policy:
    text = _instructions(d)
    m = re.search(r"after (\d+) seconds", text) or re.search(r"(\d+) seconds", text)
    if not m:
        raise GiveUp("no plan", "The page did not say how long to wait.")
    yield from _wait(d, int(m.group(1)) + 1.5)
    if "refresh" in text.lower() or "reload" in text.lower():
        yield from d.call("reload")
    yield from _read(d)
    raise GiveUp("no password", "I waited as the page said; no password showed.")


@game(r"human verification|i accept|terms")
def _accept(d: GameDesk) -> Policy:
    for _ in range(8):
        boxes = [e for e in d.listing.elements if e.role in ("checkbox", "switch") and "checked" not in e.states]
        for box in boxes:
            yield from d.act("set_checked", box, checked=True)
            _check(d)
        for field_ in _fields(d.listing):  # a field that asks for a phrase gets that phrase
            phrase = re.search(r"type the (?:phrase|words|text):?\s*\\?[\"“']([^\"”'\\]+)\\?[\"”']", field_.label,
                               re.I)
            if phrase and (field_.value or "") != phrase.group(1):
                yield from d.fill(field_, phrase.group(1))
        yield from _read(d)
        go = [e for e in d.listing.elements if e.role in BUTTONS and "disabled" not in e.states]
        if not go:
            break
        yield from _click(d, go[-1])
        yield from _read(d)
    raise GiveUp("no password", "I ticked every box and pressed the buttons; no password showed.")


@game(r"\bwolf\b.*\bgoat\b|river crossing")
def _river(d: GameDesk) -> Policy:
    """The classic crossing; the names on the buttons say what to load."""
    animals = [w for w in ("wolf", "goat", "cabbage", "fox") if d.listing.find(f"Load {w}", roles=BUTTONS)]
    if "fox" in animals:
        return (yield from _crossing(d, animals))
    if animals == ["wolf", "goat"]:
        plan = ["Load goat", "Move boat right", "Unload", "Move boat left", "Load wolf", "Move boat right", "Unload"]
    else:
        plan = ["Load goat", "Move boat right", "Unload", "Move boat left", "Load wolf", "Move boat right", "Unload",
                "Load goat", "Move boat left", "Unload", "Load cabbage", "Move boat right", "Unload",
                "Move boat left", "Load goat", "Move boat right", "Unload"]
    for step in plan:
        button = _need(d.listing.find(step, roles=BUTTONS), f"the button {step!r}")
        yield from _click(d, button)
        yield from _read(d)
    raise GiveUp("no password", "I made the crossing; no password showed.")


def crossing_plan(animals: list[str], eats: set[tuple[str, str]], room: int) -> list[str]:
    """The shortest run of the page's buttons (Load X, Unload X, Move boat left/right) that takes every
    animal across, never leaving behind on a bank two that eat one another (those in the boat are safe)."""
    from collections import deque
    start = (tuple("L" * len(animals)), "L")

    def danger(bank: list[str]) -> bool:
        return any((a, b) in eats for a in bank for b in bank)

    def steps(state: tuple[tuple[str, ...], str]) -> Generator[tuple[str, tuple[tuple[str, ...], str]], None, None]:
        where, side = state
        aboard = sum(1 for w in where if w == "B")
        for i, animal in enumerate(animals):
            if where[i] == side and aboard < room:
                yield f"Load {animal}", ((*where[:i], "B", *where[i + 1:]), side)
            if where[i] == "B":
                yield f"Unload {animal}", ((*where[:i], side, *where[i + 1:]), side)
        if not danger([a for a, w in zip(animals, where, strict=True) if w == side]):
            yield f"Move boat {'right' if side == 'L' else 'left'}", (where, "R" if side == "L" else "L")

    came: dict[tuple[tuple[str, ...], str], tuple[tuple[tuple[str, ...], str], str] | None] = {start: None}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        if all(w == "R" for w in state[0]):
            plan = []
            while (back := came[state]) is not None:
                state, button = back
                plan.append(button)
            return plan[::-1]
        for button, nxt in steps(state):
            if nxt not in came:
                came[nxt] = (state, button)
                todo.append(nxt)
    return []


_ROOM = {"one": 1, "two": 2, "three": 3}


def _unload_button(listing: Listing, animal: str, animals: list[str]) -> Element | None:
    """The Unload button in the row of ``animal``'s emoji (named as Unicode names it; a cabbage's leafy
    green is the one no other animal's name matches)."""
    import unicodedata
    unloads = [e for e in listing.elements if e.role in BUTTONS and e.words == "unload"]

    def named(e: Element) -> str:
        return " ".join(unicodedata.name(c, "") for c in e.context).lower()
    hit = next((e for e in unloads if animal in named(e)), None)
    if hit is None:
        others = [e for e in unloads if not any(a in named(e) for a in animals)]
        hit = others[0] if len(others) == 1 else None
    return hit


def _crossing(d: GameDesk, animals: list[str]) -> Policy:
    """A crossing with rules of its own: who eats whom and the boat's room, as the page states them."""
    text = d.listing.content
    eats = {(a.lower(), b.lower()) for a, b in re.findall(r"the (\w+) will eat the (\w+)", text, re.I)}
    m = re.search(r"carry up to (\w+) items?", text, re.I)
    room = int(_ROOM.get(m.group(1).lower(), m.group(1))) if m and (m.group(1).isdigit() or m.group(1).lower() in
                                                                    _ROOM) else 1
    plan = crossing_plan(animals, eats, room)
    if not plan:
        raise GiveUp("no plan", "The rules as the page states them leave no safe way across.")
    for step in plan:
        button = d.listing.find(step, roles=BUTTONS)
        if button is None and step.startswith("Unload "):  # an Unload button's row shows the animal's emoji
            button = _unload_button(d.listing, step.split(" ", 1)[1], animals)
        yield from d.click_and_read(_need(button, f"the button {step!r}"))
        _check(d)
    raise GiveUp("no password", "I made the crossing the rules allow; no password showed.")


@game(r"towers? of hanoi")
def _hanoi(d: GameDesk) -> Policy:
    """The disks' count from the page's words, else from a screenshot (the disks are only drawn);
    then the shortest solution, several moves a request, a read after each batch."""
    text = _instructions(d)
    m = re.search(r"(\d+) disks", text, re.I)
    pegs = [e for e in d.listing.elements if e.role in BUTTONS and e.words == "select"]
    if len(pegs) != 3:
        raise GiveUp("listing gap", f"I expected three pegs to select; the list has {len(pegs)}.")
    if m:
        disks = int(m.group(1))
    else:
        disks = drawn_bars(picture=(yield from d.look("how many disks are on the pegs")))
        if not 1 <= disks <= 8:
            raise GiveUp("not seen", f"I counted {disks} disks in the screenshot, which I do not trust.")
    moves: list[tuple[int, int]] = []

    def solve(n: int, a: int, b: int, c: int) -> None:
        if n:
            solve(n - 1, a, c, b)
            moves.append((a, c))
            solve(n - 1, b, a, c)
    solve(disks, 0, 1, 2)
    batch = 8
    for start in range(0, len(moves), batch):
        calls = [Call("click_element", {"index": pegs[peg].index}) for a, c in moves[start:start + batch]
                 for peg in (a, c)]
        results = yield from d.run(*calls, Call("read_page", {}))
        _check(d)
        if any(r.startswith("Error") for r in results):
            raise GiveUp("action failed", next(r for r in results if r.startswith("Error")))
        d.before, d.listing = d.listing, Listing.of(results[-1])
    raise GiveUp("no password", f"I made the {len(moves)} moves for {disks} disks; no password showed.")


def _saturated_runs(row: Any) -> int:
    """The longest run of strongly coloured pixels in a row of a picture (numpy, RGB)."""
    import numpy as np
    coloured = (row.max(axis=1).astype(int) - row.min(axis=1).astype(int)) > 60
    best = run = 0
    for on in np.asarray(coloured).tolist():
        run = run + 1 if on else 0
        best = max(best, run)
    return best


def drawn_bars(picture: Any) -> int:
    """How many coloured bars (disks) are stacked in a screenshot: bands of rows 12 to 30 pixels
    high in which a run of at least 25 strongly coloured pixels lies (the element marks' numbered
    tags are narrower, their outlines thinner)."""
    import numpy as np
    pixels = np.asarray(picture)
    rows = [_saturated_runs(pixels[y]) >= 25 for y in range(pixels.shape[0])]
    bands, height = 0, 0
    for on in [*rows, False]:
        if on:
            height += 1
            continue
        if 12 <= height <= 30:
            bands += 1
        height = 0
    return bands


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10}


@game(r"button hold|hold the button")
def _hold(d: GameDesk) -> Policy:
    """Press and hold the page's button as long as its instruction says, a little longer to be sure."""
    text = _instructions(d).lower()
    m = re.search(r"for (\d+(?:\.\d+)?|" + "|".join(_NUMBER_WORDS) + r") seconds?", text)
    if not m:
        raise GiveUp("no plan", "The page does not say for how long to hold the button.")
    seconds = float(_NUMBER_WORDS.get(m.group(1), 0) or m.group(1))
    buttons = _buttons(d.listing)
    button = _need(next((b for b in buttons if "hold" in b.label.lower()), None) or next(iter(buttons), None),
                   "the button to hold")
    yield from d.call("click_element", index=button.index, hold_seconds=seconds + 0.6)
    _check(d)
    yield from _read(d)
    raise GiveUp("page said no", f"I held the button for {seconds + 0.6:g} s; no password showed.")


def coloured_spots(picture: Any, *, most: int = 48) -> list[tuple[int, int, int, int]]:
    """The small coloured blobs of a picture (left, top, width, height), the largest first: groups
    of touching strongly coloured pixels at most ``most`` pixels across (a dot, a badge, a spot)."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    mask = (pixels.max(axis=2) - pixels.min(axis=2)) > 40
    if int(mask.sum()) > 200_000:
        return []
    spots = [(x, y, w, h) for x, y, w, h, n in _blobs(mask)
             if 4 <= w <= most and 4 <= h <= most and n >= w * h // 2]
    return sorted(spots, key=lambda b: -b[2] * b[3])


@game(r"right.?click")
def _right_click(d: GameDesk) -> Policy:
    """Right-click what the instruction names: an element that asks for it by its name, else the area's
    own heading (read_page lists no area that only answers a right-click); a small hidden spot among
    decoys is looked for in a screenshot and right-clicked where it is drawn."""
    if re.search(r"small.{0,20}(spot|area)|hidden spot", _instructions(d), re.I) and d.has("look"):
        picture = yield from d.look("the small spot to right-click")
        spots = coloured_spots(picture)
        if not spots:
            raise GiveUp("not seen", "I saw no small spot in the screenshot to right-click.")
        left, top, width, height = spots[0]
        yield from d.call("click_at", x=left + width // 2, y=top + height // 2, button="right")
        _check(d)
        yield from _read(d)
        raise GiveUp("page said no", "I right-clicked the small spot I saw; no password showed.")
    asks = next((e for e in d.listing.elements if re.search(r"right.?click", e.label, re.I) and len(e.label) < 40),
                None)  # "Right click me!", not a whole section that holds the instruction
    if asks is not None:
        yield from d.call("click_element", index=asks.index, button="right")
    else:
        title = heading(d.listing)
        also = d.listing.text.split("Also visible on the page", 1)[1] if "Also visible on the page" in d.listing.text \
            else ""
        shown = [line.lstrip("#").strip() for line in d.content.splitlines() if line.strip()]
        shown += [line.strip() for line in also.splitlines()[1:] if line.strip() and not line.startswith("<")]
        areas = [line for line in shown if line != title and len(line) < 40 and "challenge" not in line.lower()]
        if not areas:
            raise GiveUp("listing gap", "I found no area to right-click: nothing on the page names one.")
        yield from d.call("click_text", text=areas[0], button="right")
    _check(d)
    yield from _read(d)
    raise GiveUp("page said no", "I right-clicked the area the page names; no password showed.")


@game(r"text mirror")
def _mirror(d: GameDesk) -> Policy:
    """Copy the text the page shows into its text area: read_page's code block when it keeps the text
    as typed, else the content's paragraphs after the instruction, with their lines and blank lines."""
    content = d.listing.content.split("\nAlso visible on the page", 1)[0]
    fenced = re.search(r"^```[^\n]*\n(.*?)(?:\n```|\Z)", content, re.S | re.M)
    if fenced:
        original = fenced.group(1).rstrip("\n")
    else:
        labels = {e.label.strip() for e in d.listing.elements}
        paragraphs = [p.strip("\n") for p in re.split(r"\n[ \t]*\n", content)
                      if p.strip() and not p.startswith("#") and not re.search(r"copy the text", p, re.I)
                      and p.strip() not in labels and p.strip() != "Original Text:"]
        original = "\n\n".join(paragraphs)
    if not original.strip():
        raise GiveUp("listing gap", "I could not tell the text to copy from the page's content.")
    area = _need(next(iter(_fields(d.listing)), None), "the text area")
    yield from d.fill(area, original)
    yield from _click(d, _need(d.listing.find("Submit", roles=BUTTONS), "the Submit button"))
    yield from _read(d)
    raise GiveUp("no password", "I copied the text as read_page shows it and submitted it; no password showed.")


# What a colour's name covers, on arrays of a picture's red, green and blue (numpy).
_COLOURS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "orange": lambda r, g, b: (r > 230) & (g > 120) & (g < 235) & (r - b > 50),
    "black": lambda r, g, b: (r < 50) & (g < 50) & (b < 50),
    "red": lambda r, g, b: (r > 150) & (g < 90) & (b < 90),
    "blue": lambda r, g, b: (b > 170) & (r < 130) & (b - g > 60),
    "green": lambda r, g, b: (g > 140) & (r < 120) & (b < 140)}


def coloured_square(picture: Any, colour: str, size: int) -> tuple[int, int] | None:
    """The top-left pixel of a filled ``size``x``size`` square of ``colour`` in the picture, alone
    on its background (no other pixel of that colour touches it), or None."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    match = _COLOURS[colour](pixels[..., 0], pixels[..., 1], pixels[..., 2])
    height, width = match.shape
    for y, x in zip(*np.nonzero(match), strict=True):
        if y + size > height or x + size > width or (y and match[y - 1, x]) or (x and match[y, x - 1]):
            continue
        if not match[y:y + size, x:x + size].all():
            continue
        ring = match[max(0, y - 1):y + size + 1, max(0, x - 1):x + size + 1]
        if int(ring.sum()) == size * size:
            return int(x), int(y)
    return None


@game(r"pixel perfect|pixel challenge|click the .{0,20}pixel")
def _click_pixel(d: GameDesk) -> Policy:
    """Find the square the instruction describes (its size and colour) in a screenshot and click it."""
    m = re.search(r"(\d+)x\d+ (black|red|blue|green)", _instructions(d), re.I)
    if not m:
        raise GiveUp("no plan", "The page does not say what the target looks like.")
    size, colour = int(m.group(1)), m.group(2).lower()
    picture = yield from d.look(f"the {size}x{size} {colour} target")
    spot = coloured_square(picture, colour, size)
    if spot is None:
        raise GiveUp("not seen", f"I could not see a {size}x{size} {colour} square in the screenshot.")
    middle = (size - 1) // 2
    yield from d.call("click_at", x=spot[0] + middle, y=spot[1] + middle)
    _check(d)
    yield from _read(d)
    raise GiveUp("page said no", f"I clicked the {colour} square I saw; no password showed.")


def swatches(picture: Any, *, least: int = 2500) -> list[tuple[tuple[int, int, int], float]]:
    """The large patches of one colour in a picture that are not its background or white: (colour,
    mean x), left to right."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    flat = pixels[:-8, :-8]
    same = (flat == pixels[8:, :-8]).all(axis=2) & (flat == pixels[:-8, 8:]).all(axis=2)
    ys, xs = np.nonzero(same)
    colours = flat[ys, xs]
    codes = colours[:, 0] * 65536 + colours[:, 1] * 256 + colours[:, 2]
    found, counts = np.unique(codes, return_counts=True)
    background = int(found[counts.argmax()])
    out = []
    for code, count in zip(found.tolist(), counts.tolist(), strict=True):
        if count < least or code in (background, 0xFFFFFF):
            continue
        out.append(((code >> 16, (code >> 8) & 255, code & 255), float(xs[codes == code].mean())))
    return sorted(out, key=lambda c: c[1])


def tracks(picture: Any, colour: tuple[int, int, int], *, least: int = 150) -> list[tuple[int, int, int]]:
    """Horizontal bars of ``colour`` at least ``least`` pixels long (sliders' tracks), top to bottom:
    (left, right, middle row)."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    match = (np.abs(pixels - np.array(colour)).sum(axis=2) <= 6)
    bars: list[list[int]] = []  # left, right, first row, last row
    for y in range(match.shape[0]):
        xs = np.nonzero(match[y])[0]
        if len(xs) < least or xs[-1] - xs[0] + 1 > len(xs) + 40:  # one long bar (a few pixels of a thumb aside)
            continue
        left, right = int(xs[0]), int(xs[-1])
        if bars and abs(bars[-1][0] - left) <= 6 and y - bars[-1][3] <= 2:
            bars[-1] = [min(bars[-1][0], left), max(bars[-1][1], right), bars[-1][2], y]
            continue
        bars.append([left, right, y, y])
    return [(left, right, (first + last) // 2) for left, right, first, last in bars]


@game(r"color harmony|colou?r harmony")
def _colour_harmony(d: GameDesk) -> Policy:
    """Start, see the target colour in a screenshot (the right-hand patch, "Target Color"), and set each
    slider by clicking its track where that value lies (the page checks the colour when the mouse is let
    go on a slider)."""
    start = d.listing.find("Start Game", roles=BUTTONS)
    if start is not None:
        yield from _click(d, start)
        yield from _read(d)
    sliders = [e for e in d.listing.elements if e.role.startswith("input[range]")]
    picture = yield from d.look("the target colour and the sliders")
    patches = swatches(picture)
    if len(patches) < 1:
        raise GiveUp("not seen", "I could not see the target colour in the screenshot.")
    target = patches[-1][0]
    bars = tracks(picture, (229, 231, 235))
    if len(bars) < len(sliders) or len(bars) < 2:
        raise GiveUp("not seen", f"I saw {len(bars)} slider tracks in the screenshot for {len(sliders)} sliders.")
    bars = bars[:len(sliders)]  # the sliders' tracks, top to bottom (a card's shadow may follow them)
    calls = []
    for (left, right, row), value, slider in zip(bars, target, sliders, strict=False):
        if "disabled" in slider.states:
            continue
        x = left + 8 + (right - left - 16) * value / 255  # the thumb's middle runs 8 pixels in from the ends
        calls.append(Call("click_at", {"x": round(x), "y": row}))
    results = yield from d.run(*calls, calls[-1], Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", f"I set the sliders to the target colour {target} I saw; no password showed.")


def _blobs(mask: Any) -> list[tuple[int, int, int, int, int]]:
    """The groups of touching true pixels of a mask (numpy): (left, top, width, height, count)."""
    import numpy as np
    todo = {(int(y), int(x)) for y, x in zip(*np.nonzero(mask), strict=True)}
    out = []
    while todo:
        stack = [todo.pop()]
        ys, xs = [], []
        while stack:
            y, x = stack.pop()
            ys.append(y)
            xs.append(x)
            for near in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if near in todo:
                    todo.discard(near)
                    stack.append(near)
        out.append((min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1, len(xs)))
    return out


def boxes_and_outlines(picture: Any) -> list[tuple[int, int]]:
    """Filled boxes and the dashed outlines they are to be moved onto, column by column from the left:
    (the box's top, the outline's top) in pixels. A box is a filled square of a strong colour; its
    outline the paler dashed square (the colour over the background) in the same column."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    strong = (pixels.max(axis=2) - pixels.min(axis=2)) > 100
    boxes = sorted((x, y, w, h) for x, y, w, h, n in _blobs(strong) if 30 <= w <= 50 and 30 <= h <= 50
                   and n > w * h * 0.7)
    found = []
    for x, y, w, h in boxes:
        colour = pixels[y + h // 2, x + w // 2]
        band = pixels[:, x + 2:x + w - 2]
        background = np.median(band[~strong[:, x + 2:x + w - 2]], axis=0)
        faint = 0.6 * colour + 0.4 * background
        pale = np.abs(band - faint).sum(axis=2) <= 45
        rows = {int(row) for row in np.nonzero(pale.sum(axis=1) >= 8)[0] if not y <= row < y + h}
        # An outline is a top edge with its bottom edge a box's height below (other pale things, such as
        # a heading's letters, are not); where the box hides one edge, the other one next to the box.
        pairs = [top for top in sorted(rows) if any(b in rows for b in range(top + h - 5, top + h + 3))]
        above = [row for row in rows if y - h < row < y]
        below = [row for row in rows if y + h <= row < y + 2 * h]
        top = pairs[0] if pairs else min(above) if above else max(below) - h + 1 if below else y
        found.append((y, top))
    return found


@game(r"slider symphony")
def _slider_symphony(d: GameDesk) -> Policy:
    """Move the first slider to one end, see the boxes and their outlines (look): the first box against
    another still at its start shows how far a box moves for a slider's step; then set every slider so
    its box lies on its outline. (One screenshot: the agent keeps only the latest picture.)"""
    sliders = [e for e in d.listing.elements if e.role.startswith("input[range]") or e.role == "slider"]
    if len(sliders) < 2:
        raise GiveUp("listing gap", f"I found {len(sliders)} sliders in the list; I need two to learn the scale.")
    values = [float(e.value or 50) for e in sliders]
    probe = 0.0 if values[0] >= 50 else 100.0
    yield from d.fill(sliders[0], f"{probe:g}")
    seen = boxes_and_outlines((yield from d.look("the boxes and their dashed outlines")))
    if len(seen) != len(sliders):
        raise GiveUp("not seen", f"I saw {len(seen)} boxes for {len(sliders)} sliders.")
    per_step = (seen[0][0] - seen[1][0]) / (probe - values[1])
    if abs(per_step) < 0.1:
        raise GiveUp("not seen", "The first box did not move when I moved its slider.")
    now = [probe, *values[1:]]
    wanted = [min(100.0, max(0.0, v + (outline - box) / per_step)) for v, (box, outline) in zip(now, seen, strict=True)]
    results = yield from d.run(*(Call("fill_form", {"index": e.index, "text": f"{round(w)}"})
                                 for e, w in zip(sliders, wanted, strict=True)), Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", "I moved every box onto its outline as the screenshot showed; no password showed.")


def grids(picture: Any) -> list[dict[tuple[int, int], tuple[int, int, bool]]]:
    """The grids of square cells in a picture, left to right: each maps (row, column) to the cell's
    middle and whether it is filled dark. Cells are the white or black squares inside their borders."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    light, dark = (pixels.min(axis=2) > 245), (pixels.max(axis=2) < 40)
    cells = []
    for mask, filled in ((light, False), (dark, True)):
        if int(mask.sum()) > 600_000:
            continue
        cells += [(x + w / 2, y + h / 2, w, filled) for x, y, w, h, n in _blobs(mask)
                  if 8 <= w <= 70 and abs(w - h) <= 2 and n >= 0.85 * w * h]
    if not cells:
        return []
    sizes = sorted(c[2] for c in cells)
    size = sizes[len(sizes) // 2]
    cells = [c for c in cells if abs(c[2] - size) <= 2]
    cells.sort()
    out: list[list[tuple[float, float, int, bool]]] = [[cells[0]]]
    for cell in cells[1:]:  # a grid ends where the next cell is far to the right
        if cell[0] - out[-1][-1][0] <= 2 * size:
            out[-1].append(cell)
        else:
            out.append([cell])
    result = []
    for group in out:
        xs = sorted({round(c[0]) for c in group})
        ys = sorted({round(c[1]) for c in group})
        columns = _clusters(xs, size / 2)
        rows = _clusters(ys, size / 2)
        result.append({(_nearest(rows, c[1]), _nearest(columns, c[0])): (round(c[0]), round(c[1]), c[3])
                       for c in group})
    return result


def _clusters(values: list[int], gap: float) -> list[float]:
    groups: list[list[int]] = []
    for v in values:
        if groups and v - groups[-1][-1] <= gap:
            groups[-1].append(v)
        else:
            groups.append([v])
    return [sum(g) / len(g) for g in groups]


def _nearest(centres: list[float], value: float) -> int:
    return min(range(len(centres)), key=lambda i: abs(centres[i] - value))


@game(r"pixel copy")
def _pixel_copy(d: GameDesk) -> Policy:
    """See both grids (look without the boxes, which would hide the cells), and toggle each cell of the
    right-hand grid that differs from the target on the left, by clicking it where it is drawn."""
    found = grids((yield from d.look("the target pattern and my grid", boxes=False)))
    if len(found) != 2 or len(found[0]) != len(found[1]):
        raise GiveUp("not seen", f"I saw {len(found)} grids of {[len(g) for g in found]} cells; I expected two "
                                 "alike.")
    target, mine = found
    clicks = [Call("click_at", {"x": mine[rc][0], "y": mine[rc][1]}) for rc in sorted(mine)
              if rc in target and target[rc][2] != mine[rc][2]]
    if not clicks:
        raise GiveUp("not seen", "The two grids look the same to me already.")
    results = yield from d.run(*clicks, Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", f"I toggled the {len(clicks)} cells that differed from the target; no password "
                                 "showed.")


def line_peak(picture: Any) -> tuple[int, int] | None:
    """The highest point of a chart's line: strongly coloured pixels with white a few pixels above and
    below them (a thin stroke on a white chart, not the edge of a coloured area)."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    coloured = (pixels.max(axis=2) - pixels.min(axis=2)) > 60
    white = pixels.min(axis=2) > 235
    stroke = coloured[5:-5] & white[:-10] & white[10:]
    ys, xs = np.nonzero(stroke)
    if not len(ys):
        return None
    top = int(ys.min())
    at = xs[ys <= top + 1]
    return int(at.mean()), top + 5


@game(r"chart read")
def _chart_read(d: GameDesk) -> Policy:
    """See the line's highest point (look without boxes), point at it (click_at) so the chart's tooltip
    says its time and price, then answer with those."""
    peak = line_peak((yield from d.look("the highest point of the line", boxes=False)))
    if peak is None:
        raise GiveUp("not seen", "I could not see the chart's line in the screenshot.")
    pointed = yield from d.call("click_at", x=peak[0], y=peak[1] + 1)
    listing = yield from _read(d)
    said = " ".join(f"{pointed}\n{listing.text}".split())
    value = re.search(r"price\s*:\s*\$?([\d.,]+)", said, re.I)
    # The tooltip's label (the time) stands before its price; the reading may put it with the content.
    label = (re.search(r"(\d{1,2}:\d{2})\s*price\s*:", said, re.I)
             or next(iter(reversed(list(re.finditer(r"^\s*(\d{1,2}:\d{2})\s*$", listing.content.split(
                 "Also visible on the page")[0], re.M)))), None))
    if not value or not label:
        raise GiveUp("not seen", "Pointing at the highest point showed no tooltip with its time and price.")
    when, price = label.group(1), value.group(1).replace(",", "")
    price_field = _need(next((e for e in _fields(d.listing) if "price" in e.words), None), "the price field")
    time_field = _need(next((e for e in d.listing.elements if e.role in ("select", "combobox")), None),
                       "the time list")
    yield from d.fill(price_field, price)
    yield from d.act("select_option", time_field, option=when)
    _check(d)
    yield from _click(d, _need(next((e for e in _buttons(d.listing) if "submit" in e.words or "check" in e.words),
                                    None), "the Submit button"))
    yield from _read(d)
    raise GiveUp("page said no", f"I answered {price} at {when}, as the tooltip said; no password showed.")


def bar_groups(picture: Any) -> list[tuple[int, int]]:
    """The groups of bars of a bar chart, left to right, each as a point inside it (x, y). A bar is a
    block of one strong colour whose top has the chart's white just above it and beside it; bars that
    (nearly) touch are one group (one category's series); all stand on one axis."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    height, width = pixels.shape[:2]
    strong = (pixels.max(axis=2) - pixels.min(axis=2)) > 60
    white = pixels.min(axis=2) > 200
    same = np.zeros_like(strong)
    same[:-16] = strong[:-16] & (pixels[:-16] == pixels[16:]).all(axis=2) & (pixels[:-16] == pixels[8:-8]).all(axis=2)
    tops = same.copy()
    tops[3:] &= white[1:-2]
    bars = []
    for y in sorted(set(np.nonzero(tops)[0].tolist())):
        xs = np.nonzero(tops[y])[0].tolist()
        segments: list[list[int]] = []
        for x in xs:
            if segments and x - segments[-1][1] <= 1:
                segments[-1][1] = x
            else:
                segments.append([x, x])
        for left, right in segments:
            if right - left < 3:
                continue
            row = min(height - 1, y + 8)
            if not (white[row, max(0, left - 3)] or white[row, min(width - 1, right + 3)]):
                continue
            column = same[y:, (left + right) // 2]
            bottom = y + int(np.argmin(column)) + 16 if not column.all() else height
            bars.append((left, right, y, bottom))
    if not bars:
        return []
    bottoms = sorted(b[3] for b in bars)
    base = bottoms[len(bottoms) // 2]  # the bars stand on one axis
    bars = sorted(b for b in bars if abs(b[3] - base) <= 3)
    groups: list[list[tuple[int, int, int, int]]] = []
    for bar in bars:
        if groups and bar[0] - groups[-1][-1][1] <= 8:
            groups[-1].append(bar)
        else:
            groups.append([bar])
    return [((g[0][0] + g[-1][1]) // 2, (max(b[2] for b in g) + base) // 2) for g in groups]


@game(r"chart transcribe")
def _chart_transcribe(d: GameDesk) -> Policy:
    """See the bars (look without boxes), point at each group (click_at) so the tooltip says its time and
    values, and write the lines the page asks for: time,primary,secondary."""
    groups = bar_groups((yield from d.look("the bars of the chart", boxes=False)))
    if not groups:
        raise GiveUp("not seen", "I could not see the chart's bars in the screenshot.")
    # The categories' names under the axis, in order, as the element list and the text give them.
    named = list(dict.fromkeys(re.findall(r"\b\d{2}:\d{2}\b", " ".join(e.label for e in d.listing.elements)
                                          + " " + d.listing.text)))
    axis = sorted(named)
    if len(axis) >= 2 and len(axis) < len(groups):  # every other label shown: the rest follow the step
        first, second = (int(t[:2]) * 60 + int(t[3:]) for t in axis[:2])
        axis = [f"{(first + i * (second - first)) // 60:02d}:{(first + i * (second - first)) % 60:02d}"
                for i in range(len(groups))]
    lines = []
    for i, (x, y) in enumerate(groups):
        pointed, read = yield from d.run(Call("click_at", {"x": x, "y": y}), Call("read_page", {}))
        _check(d)
        listing = Listing.of(read)
        said = " ".join(f"{pointed}\n{read}".split())
        values = [re.search(rf"{name}\s*:\s*(-?\d+(?:\.\d+)?)", said, re.I) for name in ("primary", "secondary")]
        label = (re.search(r"(\d{1,2}:\d{2})\s*primary\s*:", said, re.I)
                 or next(iter(reversed(list(re.finditer(r"^\s*(\d{1,2}:\d{2})\s*$", listing.content.split(
                     "Also visible on the page")[0], re.M)))), None))
        when = label.group(1) if label else axis[i] if len(axis) == len(groups) else ""
        if not all(values) or not when:
            raise GiveUp("not seen", f"Pointing at the bars at ({x}, {y}) showed no tooltip with a time and values.")
        lines.append(f"{when},{values[0].group(1)},{values[1].group(1)}")  # type: ignore[union-attr]
    d.listing = Listing.of(read)
    area = _need(next(iter(_fields(d.listing)), None), "the text area")
    yield from d.fill(area, "\n".join(lines))
    yield from _click(d, _need(next((e for e in _buttons(d.listing) if "submit" in e.words), None),
                               "the Submit button"))
    yield from _read(d)
    raise GiveUp("page said no", f"I entered {len(lines)} lines as the tooltips said; no password showed.")


def centre_of(picture: Any, colour: str) -> tuple[int, int] | None:
    """The middle of the largest patch of ``colour`` in a picture (its pixels' bounding box)."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    mask = _COLOURS[colour](pixels[..., 0], pixels[..., 1], pixels[..., 2])
    if int(mask.sum()) > 200_000 or not mask.any():
        return None
    x, y, w, h, _n = max(_blobs(mask), key=lambda b: b[4])
    return x + w // 2, y + h // 2


@game(r"canvas catch")
def _canvas_catch(d: GameDesk) -> Policy:
    """Drag the drawn thing the instruction names onto the drawn place it names ("the blue circle into the
    orange box"), where look shows them, with click_at's drag."""
    m = re.search(r"drag the (\w+) \w+ (?:into|onto|to) the (\w+)", _instructions(d), re.I)
    if not m or m.group(1).lower() not in _COLOURS or m.group(2).lower() not in _COLOURS:
        raise GiveUp("no plan", "The page does not say by colour what to drag where.")
    picture = yield from d.look("what to drag and where", boxes=False)
    start, end = centre_of(picture, m.group(1).lower()), centre_of(picture, m.group(2).lower())
    if start is None or end is None:
        raise GiveUp("not seen", f"I could not see the {m.group(1)} thing or the {m.group(2)} place.")
    yield from d.call("click_at", x=start[0], y=start[1], drag_to_x=end[0], drag_to_y=end[1])
    _check(d)
    yield from _read(d)
    raise GiveUp("page said no", "I dragged it where the screenshot showed the place; no password showed.")


@game(r"map panner|pan around the map")
def _map_panner(d: GameDesk) -> Policy:
    """Pan the map (drag it with click_at) until the middle of the screen lies on the area the page's hint
    names. The map starts with its corner "0,0" at the screen's top-left (the grid's labels say so), so
    the screen's middle is at half the screenshot's size."""
    m = re.search(r"\((\d+)\s*-\s*(\d+),\s*(\d+)\s*-\s*(\d+)\)", _instructions(d))
    quadrant = re.search(r"\b(north|south)(east|west) quadrant", _instructions(d), re.I)
    if not m and quadrant:
        return (yield from _sweep_quadrant(d, quadrant.group(1).lower(), quadrant.group(2).lower()))
    if not m:
        raise GiveUp("no plan", "The page gives no area of the map to look in.")
    goal_x, goal_y = (int(m.group(1)) + int(m.group(2))) / 2, (int(m.group(3)) + int(m.group(4))) / 2
    picture = yield from d.look("the map's grid", boxes=False)
    width, height = picture.size
    left_x, left_y = goal_x - width / 2, goal_y - height / 2  # how far the map must move up and left
    parts = max(1, int(max(abs(left_x) / (width * 0.6), abs(left_y) / (height * 0.6))) + 1)
    start_x, start_y = (width * 0.85 if left_x > 0 else width * 0.15), (height * 0.85 if left_y > 0 else height * 0.15)
    drags = [Call("click_at", {"x": round(start_x), "y": round(start_y), "drag_to_x": round(start_x - left_x / parts),
                               "drag_to_y": round(start_y - left_y / parts)}) for _ in range(parts)]
    # Then a small square around the spot, in case a drag fell short (a page that pans on its own clock).
    for step_x, step_y in ((-100, -100), (200, 0), (0, 200), (-200, 0), (0, -200)):
        drags.append(_across_middle(width, height, step_x, step_y))
    results = yield from d.run(*drags, Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", f"I moved the map so the screen's middle is at ({goal_x:g}, {goal_y:g}); no "
                                 "password showed.")


def _across_middle(width: float, height: float, step_x: float, step_y: float) -> Call:
    """A drag (click_at) by minus the step, across the screen's middle: the map moves by the step."""
    return Call("click_at", {"x": round(width / 2 + step_x / 2), "y": round(height / 2 + step_y / 2),
                             "drag_to_x": round(width / 2 - step_x / 2), "drag_to_y": round(height / 2 - step_y / 2)})


def _sweep_quadrant(d: GameDesk, north_south: str, east_west: str) -> Policy:
    """Sweep a quarter of the map with the screen's middle, row by row 150 map pixels apart: the map's
    size from its grid's labels ("x,y"), the drags (click_at) at most 600 pixels each, all in one request."""
    labels = [(int(x), int(y)) for x, y in re.findall(r"^\s*(\d+),(\d+)\s*$", d.listing.content, re.M)]
    if not labels:
        raise GiveUp("no plan", "The map's grid names no coordinates, so I cannot tell its size.")
    size_x, size_y = max(x for x, _ in labels) + 200, max(y for _, y in labels) + 200
    picture = yield from d.look("the map's grid", boxes=False)
    width, height = picture.size
    left = size_x / 2 if east_west == "east" else 0
    top = size_y / 2 if north_south == "south" else 0
    path = [(width / 2, height / 2)]  # the screen's middle, in the map's pixels
    for row, y in enumerate(range(int(top) + 75, int(top + size_y / 2), 150)):
        ends = (left + 50, left + size_x / 2 - 50)
        path += [(ends[row % 2], y), (ends[1 - row % 2], y)]
    drags = []
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        parts = int(max(abs(x1 - x0), abs(y1 - y0)) // 600) + 1
        step_x, step_y = (x1 - x0) / parts, (y1 - y0) / parts
        for _ in range(parts):  # the map moves against the middle: drag by minus the step, across the middle
            drags.append(_across_middle(width, height, step_x, step_y))
    results = yield from d.run(*drags, Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", f"I swept the {north_south}{east_west} quarter of the map; no password showed.")


def _longest(flags: Any) -> tuple[int, int]:
    """The first and last index of the longest run of true values."""
    best, start = (0, -1), None
    for i, on in enumerate([*flags.tolist(), False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            if i - start > best[1] - best[0] + 1:
                best = (start, i - 1)
            start = None
    return best


def board(picture: Any, floor: tuple[int, int, int], wall: tuple[int, int, int]) -> tuple[
        int, int, float, int, set[tuple[int, int]]] | None:
    """A drawn board of square cells: its cells' left, top, size, count a side, and the wall cells (row,
    column). The board is the largest patch of its floor and wall colours; its cells are where lines of
    the wall colour cross it evenly."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    is_wall = np.abs(pixels - np.array(wall)).sum(axis=2) <= 8
    top, bottom = _longest(is_wall.sum(axis=1) >= 8)  # the lines between cells cross every row of the board
    left, right = _longest(is_wall[top:bottom + 1].sum(axis=0) >= 8)
    del floor
    inner = is_wall[top:bottom + 1, left:right + 1]
    side = min(inner.shape)
    fits = []
    for count in range(4, 30):  # the lines between cells, for each possible count a side
        for pad in range(0, 13):
            size = (side - 2 * pad) / count
            if size < 12:
                continue
            xs = [round(pad + k * size) for k in range(1, count)]
            score = float(np.mean([inner[pad:side - pad, max(0, x - 1):x + 1].mean() for x in xs]))
            fits.append((score, count, pad, size))
    if not fits or max(f[0] for f in fits) < 0.6:
        return None
    # Lines every cell also stand every other cell: the most cells among the fits nearly as good as the best.
    good = max(f[0] for f in fits)
    _score, count, pad, size = max((f for f in fits if f[0] >= 0.9 * good), key=lambda f: (f[1], f[0]))
    x0, y0 = left + pad, top + pad
    walls = {(r, c) for r in range(count) for c in range(count)
             if is_wall[round(y0 + r * size + size * 0.25), round(x0 + c * size + size * 0.25)]}
    return x0, y0, size, count, walls


_ARROWS = {(-1, 0): "⬆️", (1, 0): "⬇️", (0, -1): "⬅️", (0, 1): "➡️"}


@game(r"ladybird")
def _ladybird(d: GameDesk) -> Policy:
    """See the board (look without boxes): its walls by colour; where the ladybird and the flower are by
    pointing at each open cell (click_at names what lies there); then the shortest path in arrows."""
    from collections import deque
    found = board((yield from d.look("the board", boxes=False)), floor=(31, 41, 55), wall=(55, 65, 81))
    if found is None:
        raise GiveUp("not seen", "I could not make out the board's cells in the screenshot.")
    x0, y0, size, count, walls = found
    cells = [(r, c) for r in range(count) for c in range(count) if (r, c) not in walls]
    said = yield from d.run(*(Call("click_at", {"x": round(x0 + (c + 0.5) * size), "y": round(y0 + (r + 0.5) * size)})
                              for r, c in cells))
    start = next((cell for cell, text in zip(cells, said, strict=False) if "🐞" in text), None)
    goal = next((cell for cell, text in zip(cells, said, strict=False) if "🌸" in text), None)
    if start is None or goal is None:
        raise GiveUp("not seen", "Pointing at the cells did not show me where the ladybird and the flower are.")
    came: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    todo = deque([start])
    while todo:
        at = todo.popleft()
        for (dr, dc), arrow in _ARROWS.items():
            nxt = (at[0] + dr, at[1] + dc)
            if 0 <= nxt[0] < count and 0 <= nxt[1] < count and nxt not in walls and nxt not in came:
                came[nxt] = (at, arrow)
                todo.append(nxt)
    if goal not in came:
        raise GiveUp("no plan", "I see no open way from the ladybird to the flower.")
    arrows, at = [], goal
    while (back := came[at]) is not None:
        at, arrow = back
        arrows.append(arrow)
    buttons = {e.label: e for e in d.listing.elements if e.role in BUTTONS}
    missing = [a for a in _ARROWS.values() if a in arrows and a not in buttons]
    if missing:
        raise GiveUp("listing gap", f"I could not find the arrow buttons {missing}.")
    submit = _need(next((e for e in _buttons(d.listing) if "submit" in e.words), None), "the Submit button")
    results = yield from d.run(*(Call("click_element", {"index": buttons[a].index}) for a in reversed(arrows)),
                               Call("click_element", {"index": submit.index}), Call("read_page", {}))
    _check(d)
    del results
    raise GiveUp("page said no", f"I entered the {len(arrows)} moves of the shortest path; no password showed.")


@game(r"upload challenge|by uploading")
def _upload(d: GameDesk) -> Policy:
    """Give the page a file the user named in the message: the MP3 one when the page asks for MP3."""
    named = re.findall(r"(/\S+?\.(?:mp3|txt))\b", d.instruction)
    wants_mp3 = "mp3" in _instructions(d).lower()
    path = next((p for p in named if p.endswith(".mp3") == wants_mp3), None)
    if path is None:
        raise GiveUp("no plan", "The challenge needs a file, and the message names none that fits.")
    field_ = next((e for e in d.listing.elements if "file" in e.role), None)
    where = {"index": field_.index} if field_ else {"selector": "input[type=file]"}  # a hidden file input
    result = yield from d.call("upload_file", path=path, **where)
    _check(d)
    if result.startswith("Error"):
        raise GiveUp("action failed", f"The upload failed: {result}")
    listing = yield from _read(d)
    go = next((e for e in _buttons(listing) if re.search(r"upload|submit", e.label, re.I)), None)
    if go is not None:
        yield from _click(d, go)
        yield from _read(d)
    raise GiveUp("page said no", f"I gave the page {path}; no password showed.")


_KEY_NAMES = {"control": "Control", "ctrl": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt",
              "meta": "Meta", "cmd": "Meta", "command": "Meta", "enter": "Enter", "space": "Space"}


@game(r"key combo")
def _key_combo(d: GameDesk) -> Policy:
    text = d.listing.content
    m = re.search(r"combination:?\s*\n?\s*([A-Za-z0-9 +]+?)\s*(?:\n|Currently|$)", text)
    if not m:
        raise GiveUp("no plan", "I could not read the key combination from the page.")
    keys = [k.strip() for k in m.group(1).split("+") if k.strip()]
    combo = "+".join(_KEY_NAMES.get(k.lower(), k.upper() if len(k) == 1 else k) for k in keys)
    yield from d.call("press_key", key=combo)
    _check(d)
    yield from _read(d)
    raise GiveUp("no password", f"I pressed {combo}; no password showed.")


@game(r"scroll|context breaker|keep scrolling")
def _scroll(d: GameDesk) -> Policy:
    text = _instructions(d).lower()
    ways = ["bottom"]
    if "horizontal" in text or "right" in text:
        ways = ["rightmost"]
    if "diagonal" in text or "bottom-right" in text:
        ways = ["bottom", "rightmost"]
    for way in ways:
        result = yield from d.call("scroll_page", direction=way)
        _check(d)
        if result.startswith("Error"):
            raise GiveUp("missing tool", f"I could not scroll {way}: {result}")
    yield from _read(d)
    if d.has("find_in_page"):  # a long page's end may be in a later part of its content
        yield from d.call("find_in_page", query="password")
        _check(d)
    raise GiveUp("no password", "I scrolled to the end; no password showed.")


AWAY = re.compile(r"\b(return to safety|go back|cancel|decline|no thanks|reset|start over|home)\b", re.I)


def _type_asked_phrase(d: GameDesk) -> Policy:
    """A page that asks to type a phrase exactly ("type the following phrase EXACTLY as shown into the
    box below: I UNDERSTAND THE RISK"): the phrase typed into its empty field."""
    m = re.search(r"\btype (?:the following|this|the) (?:phrase|text|words)\b[^:\n]*:\s*\n*\s*[\"“]?([^\n\"”]{3,80})",
                  d.listing.content, re.I)
    empty = [e for e in _fields(d.listing) if not e.value]
    if m and empty:
        yield from d.fill(empty[0], m.group(1).strip())
    return ""


def _explore(d: GameDesk, what: str, *, avoid: re.Pattern[str] = AWAY, first: tuple[str, ...] = (),
             most: int = 40, to_the_end: bool = False) -> Policy:
    """Click what is new first, then what is left, one at a time, reading after each change, until a
    password shows: a person trying a page's controls. ``first``: words of controls to try first;
    ``to_the_end``: a password on the way may be a decoy, go on while there is something to click."""
    tried: set[tuple[str, str, str]] = set()
    for _ in range(most):
        pool = [e for e in d.listing.elements if e.key() not in tried and (e.role in BUTTONS or e.role == "draggable")
                and "disabled" not in e.states and not avoid.search(e.label)]
        if not pool:
            break
        new = {e.key() for e in d.new()}
        pool.sort(key=lambda e: (not any(norm(w) in e.words for w in first), e.key() not in new,
                                 e.role == "draggable"))
        element = pool[0]
        tried.add(element.key())
        yield from _type_asked_phrase(d)
        result = yield from d.click(element)
        if not to_the_end:
            _check(d)
        if "did not visibly change" not in result:
            yield from d.read()
            if not to_the_end:
                _check(d)
    _check(d)
    raise GiveUp("no password", f"I tried the controls of {what} the list gave me; no password showed.")


def _tab_number(listed: str, words: str) -> int | None:
    """The number list_tabs gives the tab whose title or address has ``words``."""
    for line in listed.splitlines():
        m = re.match(r"Tab (\d+)\b.*", line)
        if m and words.lower() in line.lower():
            return int(m.group(1))
    return None


def _colour_sequence(text: str) -> list[str]:
    """"Required sequence: Red → Blue → Yellow → Green": the colours in order."""
    m = re.search(r"sequence:?\s*\**([A-Za-z]+(?:\s*(?:→|->|,|then)\s*[A-Za-z]+)+)", text)
    return re.findall(r"[A-Za-z]+", m.group(1).replace("then", " ")) if m else []


@game(r"tab sync|sender tab|receiver tab")
def _tab_sync(d: GameDesk) -> Policy:
    """The page that listens first (the receiver) in its own tab, then the sender's tab; send the
    sequence the sender asks for, and read the receiver's tab."""
    main = d.listing
    listen = _need(main.find("Open Receiver", roles=("link", *BUTTONS)), "the link that opens the receiver")
    send = _need(main.find("Open Sender", roles=("link", *BUTTONS)), "the link that opens the sender")
    yield from _click(d, listen)
    yield from d.call("switch_tab", tab=1)
    yield from _read(d)
    yield from _click(d, _need(d.listing.find(send.label, roles=("link", *BUTTONS)), "the sender's link"))
    yield from _read(d)
    colours = _colour_sequence(d.listing.content)
    if not colours:
        raise GiveUp("no plan", "The sender's page names no sequence of colours to send.")
    for colour in colours:
        yield from _click(d, _need(d.listing.find(f"Send {colour}", roles=BUTTONS), f"the Send {colour} button"))
    listed = yield from d.call("list_tabs")
    tab = _need_number(_tab_number(listed, "receiver"), "the receiver's tab")
    yield from d.call("switch_tab", tab=tab)
    yield from _read(d)
    raise GiveUp("no password", f"I sent {' → '.join(colours)} and read the receiver's tab; no password showed.")


def _need_number(number: int | None, what: str) -> int:
    if number is None:
        raise GiveUp("listing gap", f"I could not find {what}.")
    return number


def _downloaded_name(result: str) -> str | None:
    """The file an action started to download ("It started a download: grampa's old note.txt (the user
    is asked ...")."""
    m = re.search(r"started a download: (.+?)(?: \(|\.?$)", result, re.M)
    return m.group(1).strip() if m else None


@game(r"combination lock|grampa|riddles? to unlock|decipher the .*riddles")
def _combination_lock(d: GameDesk) -> Policy:
    """Download the note, read it (read_download), answer its clues from general knowledge
    (``webgames_riddles``), and set the lock's lists to the numbers, two digits each."""
    button = _need(next((e for e in d.listing.elements if e.role in BUTTONS and "note" in e.words), None),
                   "the button that downloads the note")
    started = yield from _click(d, button)
    name = _downloaded_name(started)
    if name is None:
        raise GiveUp("action failed", f"Pressing {button.label!r} started no download: {started[:120]}")
    if not d.has("read_download"):
        raise GiveUp("missing tool", f"The page gave me {name} to read, and no tool reads a downloaded file.")
    (note,) = yield from d.run(Call("read_download", {"name": name}))
    if note.startswith("Error"):
        raise GiveUp("action failed", f"I could not read {name}: {note[:160]}")
    numbers = note_numbers(note.split("\n", 1)[-1])
    if not numbers or None in numbers:
        raise GiveUp("no plan", f"I could not work out every clue of the note: {numbers}.")
    locks = [e for e in d.listing.elements if e.role == "select"]
    if len(locks) != len(numbers):
        raise GiveUp("listing gap", f"The note has {len(numbers)} clues and the lock {len(locks)} lists.")
    for lock, number in zip(locks, numbers, strict=True):
        yield from d.act("select_option", lock, option=f"{number:02d}")
        _check(d)
    yield from _read(d)
    raise GiveUp("no password", f"I set the lock to {', '.join(f'{n:02d}' for n in numbers)}; no password showed.")


def _corners(radii: Any, least: float) -> int:
    """The peaks of a closed curve (values around a circle) that rise ``least`` above the lowest point
    on each side before a higher peak: an outline's corners, a pixel's noise not counted."""
    n = len(radii)
    count = 0
    for i in range(n):
        here = radii[i]
        if not (here >= radii[i - 1] and here > radii[(i + 1) % n]):
            continue
        rises = []
        for step in (1, -1):
            lowest, j = here, i
            for _ in range(n // 2):
                j = (j + step) % n
                if radii[j] > here:
                    break
                lowest = min(lowest, radii[j])
            rises.append(here - lowest)
        if min(rises) >= least:
            count += 1
    return count


SHAPES = {3: "triangle", 4: "square", 5: "pentagon", 6: "hexagon", 8: "octagon"}


def drawn_shape(picture: Any) -> str | None:
    """The name of the one shape drawn on a black canvas in a picture: its corners are the peaks of its
    outline's distance from its centre around the circle (3 a triangle, 4 a square...); five deep
    ones (the inner corners far in) a star; none a circle."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    black = pixels.max(axis=2) < 12
    height, width = black.shape
    rows = np.nonzero(black.sum(axis=1) > 0.2 * width)[0]  # the canvas: wide runs of black
    cols = np.nonzero(black.sum(axis=0) > 0.2 * height)[0]
    if len(rows) < 40 or len(cols) < 40:
        return None
    top, bottom, left, right = rows.min(), rows.max(), cols.min(), cols.max()
    lit = pixels[top:bottom + 1, left:right + 1].max(axis=2) > 40
    ys, xs = np.nonzero(lit)
    if len(xs) < 200:
        return None
    cy, cx = ys.mean(), xs.mean()
    reach = []
    for angle in np.linspace(0, 2 * np.pi, 360, endpoint=False):
        r = 0.0
        while True:
            y, x = round(cy + (r + 1) * np.sin(angle)), round(cx + (r + 1) * np.cos(angle))
            if not (0 <= y < lit.shape[0] and 0 <= x < lit.shape[1]) or not lit[y, x]:
                break
            r += 1
        reach.append(r)
    radii = np.convolve(np.r_[reach[-4:], reach, reach[:4]], np.ones(9) / 9, mode="valid")
    high, low = radii.max(), radii.min()
    if low > 0.9 * high:
        return "circle"
    peaks = _corners(radii, 0.04 * high)
    if peaks == 5 and low < 0.6 * high:
        return "star"
    return SHAPES.get(peaks)


@game(r"webgl|rotating shape|spinning")
def _webgl_shape(d: GameDesk) -> Policy:
    """Look at the drawing, name its shape, type the name."""
    picture = yield from d.look("the rotating shape", boxes=False)
    shape = drawn_shape(picture)
    if shape is None:
        raise GiveUp("not seen", "I could not make out one shape on the canvas.")
    field_ = _need(next(iter(_fields(d.listing)), None), "the answer field")
    yield from d.fill(field_, shape)
    _check(d)
    yield from _read(d)
    raise GiveUp("no password", f"I typed {shape!r}; no password showed.")


@game(r"verification code|security token|verify")
def _verify_code(d: GameDesk) -> Policy:
    """Read the drawn code off a look at the page (``webgames_glyphs.read_code``) and enter it."""
    picture = yield from d.look("the verification code", boxes=False)
    want = re.search(r"(\d+)-(?:digit|character)", _instructions(d))
    code = read_code(picture, int(want.group(1)) if want else None)
    if not code:
        raise GiveUp("not seen", "I could not read the drawn code well enough to type it.")
    field_ = _need(next((e for e in _fields(d.listing) if "disabled" not in e.states and not e.value), None),
                   "the code field")
    yield from d.fill(field_, code)
    go = _need(next((e for e in _buttons(d.listing) if "disabled" not in e.states), None), "the Verify button")
    yield from _click(d, go)
    yield from _read(d)
    raise GiveUp("no password", f"I entered the code I read, {code}; the page did not take it.")


@game(r"bullseye|moving target")
def _bullseye(d: GameDesk) -> Policy:
    """Click the moving target by its [n] (the tool clicks it where it is at that instant) and read,
    as long as the page shows a target."""
    for _ in range(40):
        target = next((e for e in d.listing.elements if e.role in BUTTONS and "disabled" not in e.states), None)
        if target is None:
            break
        yield from d.click_and_read(target)
        _check(d)
    raise GiveUp("no password", "I clicked the target as long as the page showed one; no password showed.")


def field_and_pen(picture: Any) -> tuple[tuple[int, int, int, int], list[tuple[int, int]]] | None:
    """A herding picture read: the pen (the one large pale yellow box: left, top, right, bottom) and the
    animals (the dark figures below the field's top edge: their centres)."""
    import numpy as np
    pixels = np.asarray(picture).astype(int)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    yellow = (r > 235) & (g > 235) & (b > 150) & (b < 215)
    pens = [bl for bl in _blobs(yellow) if bl[2] > 40 and bl[3] > 40]
    if not pens:
        return None
    x, y, w, h, _n = max(pens, key=lambda bl: bl[4])
    border = (abs(r - 22) < 30) & (abs(g - 101) < 30) & (abs(b - 52) < 30)
    edge_rows = np.nonzero(border.sum(axis=1) > 0.3 * border.shape[1])[0]
    top = int(edge_rows.min()) + 4 if len(edge_rows) else 0
    dark = pixels.max(axis=2) < 80
    dark[:top] = False
    animals = [(bx + bw // 2, by + bh // 2) for bx, by, bw, bh, _ in _blobs(dark)  # one, or a few that touch
               if 15 <= bh <= 200 and 8 <= bw <= 200]
    return (x, y, x + w, y + h), animals


@game(r"herd|sheep")
def _herding(d: GameDesk) -> Policy:
    """Look, and push the first animal outside the pen towards it: the pointer put (click_at) a little
    behind it on the line from the pen, so it runs away from the pointer into the pen; look again."""
    import math
    picture = yield from d.look("the sheep and the pen", boxes=False, past_ok=True)
    for turn in range(44):
        seen = field_and_pen(picture) if picture is not None else ((0, 0, 1, 1), [(0, 0)])  # a past round
        if seen is None:
            raise GiveUp("not seen", "I could not make out the pen in the picture.")
        (left, top, right, bottom), animals = seen
        inside = 0.2 * min(right - left, bottom - top)  # well inside, not on the pen's edge
        out = [(x, y) for x, y in animals
               if not (left + inside < x < right - inside and top + inside < y < bottom - inside)]
        if not out:
            yield from _read(d)
            raise GiveUp("no password", "Every animal I see is in the pen; no password showed.")
        x, y = out[0]
        gx, gy = (left + right) / 2, (top + bottom) / 2
        far = math.hypot(gx - x, gy - y) or 1.0
        behind = (30 if far > 150 else 70) + 6 * (turn % 3)  # close to the pen: a gentler push
        px, py = x - (gx - x) / far * behind, y - (gy - y) / far * behind
        push = Call("click_at", {"x": max(0, round(px)), "y": max(0, round(py))})
        picture = yield from d.then_look(push, "the sheep and the pen")
        _check(d)
    raise GiveUp("no password", "I pushed the animals towards the pen as long as I could; no password showed.")


@game(r"menu navigator")
def _menus(d: GameDesk) -> Policy:
    return (yield from _explore(d, "the menus", first=("secret",)))


@game(r"popup chaos")
def _popups(d: GameDesk) -> Policy:
    for _ in range(12):
        closers = [e for e in d.listing.elements if e.role in BUTTONS and (e.label.strip() in ("✕", "×", "x", "X")
                                                                          or e.words.startswith("close"))]
        if not closers:
            break
        result = yield from d.click(closers[0])
        _check(d)
        yield from _read(d)
        del result
    raise GiveUp("no password", "I closed every popup the list showed; no password showed.")


@game(r"warning|restricted|illegal")
def _warnings(d: GameDesk) -> Policy:
    return (yield from _explore(d, "the warnings", first=("proceed", "continue", "i understand", "accept", "agree"),
                                to_the_end=True))


@game(r"otp")
def _otp(d: GameDesk) -> Policy:
    m = re.search(r"code:?\s*(\d{4,8})", d.listing.content)
    if not m:
        raise GiveUp("no plan", "The page shows no code I could read to enter.")
    boxes = _fields(d.listing)
    first = _need(boxes[0] if boxes else None, "the code's boxes")
    yield from d.act("type_text", first, text=m.group(1))
    _check(d)
    yield from _read(d)
    go = [e for e in d.listing.elements if e.role in BUTTONS and "disabled" not in e.states]
    if go:
        yield from _click(d, go[-1])
        yield from _read(d)
    raise GiveUp("no password", f"I typed the code {m.group(1)}; no password showed.")


def _credential(text: str, name: str) -> str | None:
    m = re.search(rf"{name}:?\s*\n?\s*(\S+)", text, re.I)
    return m.group(1) if m else None


@game(r"file credentials")
def _credentials(d: GameDesk) -> Policy:
    text = d.listing.content
    user, secret = _credential(text, "Username"), _credential(text, "Password")
    if not user or not secret or user.lower() == "password":
        raise GiveUp("no plan", "The credentials are not on the page (they are in a file to download and open).")
    fields = _fields(d.listing)
    if len(fields) < 2:
        raise GiveUp("listing gap", "I could not find the username and password fields.")
    yield from d.fill(fields[0], user)
    yield from d.fill(fields[1], secret)
    yield from _click(d, _need(d.listing.find("Login", roles=BUTTONS), "the Login button"))
    yield from _read(d)
    raise GiveUp("no password", "I logged in with the credentials shown; no password showed.")


_TICKER = re.compile(r"\bticker\b(?:[^.:]{0,90}?\bis\b|\s*(?:is)?\s*:)\W{0,4}([A-Z]{2,5})\b")


def recommended_ticker(text: str) -> str | None:
    """The ticker a report ends up recommending: the last one it names as "the ticker" ("Apple (ticker:
    AAPL) ... However, Google ... Stock ticker: GOOG"; "Their ticker ... is GOOG")."""
    found = _TICKER.findall(text.replace("*", "").replace("`", ""))
    return found[-1] if found else None


@game(r"stock market|top tech pick|best tech stock")
def _stock(d: GameDesk) -> Policy:
    """Read the whole report (its parts through find_in_page), take the ticker it recommends last."""
    text = d.listing.content
    if d.has("find_in_page"):
        text += "\n" + (yield from d.call("find_in_page", query="ticker"))
    else:
        for _ in range(8):
            result = yield from d.call("scroll_page", direction="down")
            yield from _read(d)
            text += "\n" + d.listing.content
            if "nothing more" in result.lower() or "already at the bottom" in result.lower():
                break
    ticker = recommended_ticker(text)
    if not ticker:
        raise GiveUp("no plan", "I found no ticker the report recommends.")
    field_ = _need(next(iter(_fields(d.listing)), None), "the ticker field")
    go = d.listing.find("Submit", roles=BUTTONS) or d.listing.find("Check", roles=BUTTONS)
    if go is None:
        yield from d.fill(field_, ticker, submit=True)
    else:
        yield from d.fill(field_, ticker)
        yield from _click(d, go)
    _check(d)
    yield from _read(d)
    raise GiveUp("no password", f"I entered {ticker}; no password showed.")


def price_task(text: str) -> tuple[str, str] | None:
    """The product and the new price a shop task asks for: a price said outright ("update the price
    of the watermelon to $6.85"), or one to work out ("The Coffee Grinder is currently priced at $25.50
    ... a 15% discount", rounded to the nearest cent)."""
    text = text.replace("*", "")
    if m := re.search(r"price of (?:the )?(.+?)\s*(?:\(currently \$[\d.]+\)\s*)?to \$([\d.]+\d)", text, re.I):
        return m.group(1).strip(), m.group(2)
    m = re.search(r"\b[Tt]he ((?:[A-Z][\w'-]* ?){1,5}?) is currently priced at \$\s*([\d.]+\d)", text)
    off = re.search(r"(\d+(?:\.\d+)?)\s*% discount", text)
    if m and off:
        cents = Decimal(m.group(2)) * (100 - Decimal(off.group(1)))
        return m.group(1).strip(), str((cents / 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return None


def _row_button(listing: Listing, word: str, product: str) -> Element | None:
    """The ``word`` button (Edit, Delete) of the table row that names ``product``."""
    return listing.find(word, roles=BUTTONS, context=product)


@game(r"shop admin")
def _shop_admin(d: GameDesk) -> Policy:
    task = price_task(" ".join(d.listing.content.split()))
    if task is None:
        raise GiveUp("no plan", "I could not tell which product's price to set, or to what.")
    product, price = task
    edit = _row_button(d.listing, "Edit", product)
    if edit is None:  # not on this page of the table: search for it
        search = _need(next((e for e in _fields(d.listing) if "search" in e.words), None), "the search field")
        yield from d.fill(search, product)
        yield from _read(d)
        edits = [e for e in d.listing.elements if e.role in BUTTONS and e.words == "edit"]
        edit = _row_button(d.listing, "Edit", product) or (edits[0] if len(edits) == 1 else None)
    yield from _click(d, _need(edit, f"the Edit button of {product}"))
    yield from _read(d)
    field_ = _need(next((e for e in _fields(d.listing) if "price" in e.words), None)
                   or next(iter(_fields(d.listing)), None), "the price field")
    yield from d.fill(field_, price)
    _check(d)
    yield from _click(d, _need(d.listing.find("Save", roles=BUTTONS), "the Save button"))
    yield from _read(d)
    raise GiveUp("no password", f"I set {product} to ${price}; no password showed.")


@game(r"nested frames|iframes|find and click the button")
def _frames(d: GameDesk) -> Policy:
    return (yield from _explore(d, "the frames", first=("click me", "complete")))


@game(r"prompt defender|attention|deception")
def _defender(d: GameDesk) -> Policy:
    return (yield from _explore(d, "the screens", first=("continue", "next", "proceed"), to_the_end=True))


def _progress(text: str) -> tuple[int, int] | None:
    m = re.search(r"Progress:\s*(\d+)\s*/\s*(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


@game(r"emoji remember")
def _emoji(d: GameDesk) -> Policy:
    """Learn the sequence by trying: a right emoji moves the progress on, a wrong one starts over. The
    right one is always among those shown at its step, so a step's candidates are the emojis shown at
    every visit of it; after a start over, the known part is replayed by its words (click_text) and
    the next candidate tried in the same request."""
    d.need("click_text", "click an emoji by its picture")
    known: list[str] = []
    wrong: dict[int, set[str]] = {}
    shown: dict[int, set[str]] = {}
    while True:
        at = _progress(d.listing.content)
        if at is None:
            raise GiveUp("no plan", "The page shows no progress to learn the sequence from.")
        step, goal = at[0] - 1, len(known)
        if step == goal:  # the choices of the step to learn are on the screen
            emojis = {e.label for e in d.listing.elements if e.role in BUTTONS}
            shown[goal] = shown[goal] & emojis if goal in shown else emojis
        candidates = sorted(shown.get(goal, set()) - wrong.get(goal, set()))
        replay = known[step:]
        trial = candidates[:1]
        if not trial and step == goal:
            raise GiveUp("no plan", "No emoji left to try at this step.")
        calls = [Call("click_text", {"text": e}) for e in [*replay, *trial]]
        results = yield from d.run(*calls, Call("read_page", {}))
        _check(d)
        if not results[-1].startswith("Error"):
            d.before, d.listing = d.listing, Listing.of(results[-1])
        if not trial:
            continue
        now = _progress(d.listing.content)
        if not results[-2].startswith("Error") and now is not None and now[0] - 1 == goal + 1:
            known.append(trial[0])
        else:  # not shown at its step, or the page started over
            wrong.setdefault(goal, set()).add(trial[0])


@game(r"the maze|door")
def _maze(d: GameDesk) -> Policy:
    """Depth first: a door, and back (the browser's Back) from a dead end to the next door."""
    return (yield from _doors(d, 0))


def _doors(d: GameDesk, depth: int) -> Policy:
    doors = [e for e in d.listing.elements if e.role in BUTTONS and "door" in e.words]
    for door in doors:
        yield from d.click(door)
        yield from _read(d)
        if "dead end" not in d.listing.content.lower() and depth < 8:
            try:
                return (yield from _doors(d, depth + 1))
            except GiveUp as stuck:
                if stuck.kind != "dead end":
                    raise
        yield from d.call("go_back")
        yield from _read(d)
    raise GiveUp("dead end", "Every door I tried led to a dead end.")


@game(r"webs, assemble|webassembly")
def _wasm(d: GameDesk) -> Policy:
    text = d.listing.content.replace("\\_", "_")
    labels = {e.label for e in d.listing.elements}
    m = next((c for c in re.finditer(r"\b([A-Z0-9]{2,}_[A-Z0-9]{2,}_[A-Z0-9]{2,})\b", text)
              if c.group(1) not in labels and not re.fullmatch(r"[X_]+", c.group(1))), None)
    if not m:
        raise GiveUp("no plan", "The page shows no code to copy.")
    field_ = _need(next(iter(_fields(d.listing)), None), "the code field")
    yield from d.fill(field_, m.group(1))
    yield from _click(d, _need(next((e for e in d.listing.elements if e.role in BUTTONS), None), "the Submit button"))
    yield from _read(d)
    raise GiveUp("no password", f"I entered {m.group(1)}; no password showed.")


GRAMS = {"g": 1.0, "gram": 1.0, "grams": 1.0, "kg": 1000.0, "kilogram": 1000.0, "kilograms": 1000.0,
         "lb": 453.59237, "lbs": 453.59237, "pound": 453.59237, "pounds": 453.59237, "oz": 28.349523125,
         "ounce": 28.349523125, "ounces": 28.349523125}


def recipe_task(text: str) -> tuple[str, str, int] | None:
    """The recipe, the ingredient and the servings a scaling task names ("Find the Spaghetti Carbonara
    recipe ... how many grams of pancetta they'll need for 8 servings")."""
    text = text.replace("*", "")
    name = (re.search(r"(?:for|Find) the [\"“]?([A-Z][\w' -]+?)[\"”]? recipe", text)
            or re.search(r"make [\"“]([^\"”]+)[\"”]", text))
    what = re.search(r"grams of ([a-z][\w -]+?) (?:you'll|they'll|you|they|are|is|for)\b", text)
    serves = re.search(r"for (\d+) servings", text) or re.search(r"for (\d+) people", text)
    if not (name and what and serves):
        return None
    return name.group(1).strip(), what.group(1).strip(), int(serves.group(1))


def ingredient_grams(text: str, ingredient: str) -> float | None:
    """The amount of ``ingredient`` in a recipe's text, in grams ("200g pancetta", "1.5 kg beef chuck",
    "pancetta: 200 g")."""
    units = "|".join(sorted(GRAMS, key=len, reverse=True))
    item = re.escape(ingredient)
    for pattern in (rf"(\d+(?:\.\d+)?)\s*({units})\b\.?\s*(?:of\s+)?{item}\b",
                    rf"{item}\W{{0,3}}(\d+(?:\.\d+)?)\s*({units})\b"):
        if m := re.search(pattern, text, re.I):
            return float(m.group(1)) * GRAMS[m.group(2).lower()]
    return None


@game(r"recipe calculator")
def _recipe(d: GameDesk) -> Policy:
    """Find the recipe in the collection the task links to, read its servings and the ingredient's
    amount, scale it, come back and give the answer."""
    task = recipe_task(" ".join(d.listing.content.split()))
    if task is None:
        raise GiveUp("no plan", "I could not tell which recipe, ingredient and servings the task means.")
    name, ingredient, servings = task
    start = page_url(d.listing)
    yield from _click(d, _need(d.listing.find("recipe collection", roles=("link",)), "the recipe collection link"))
    yield from _read(d)
    go = _need(d.listing.find("Search", roles=BUTTONS, loose=False), "the Search button")
    search = _need(max((e for e in _fields(d.listing) if "search" in e.words and e.index < go.index),
                       key=lambda e: e.index, default=None), "the recipe search field next to its Search button")
    yield from d.fill(search, name)
    yield from _click(d, go)
    yield from _read(d)
    card = next((e for e in d.listing.elements if norm(name) in e.words and "sponsored" not in e.words), None)
    if card is None:
        raise GiveUp("not found", f"The recipe collection has no recipe called {name!r}: I searched for it.")
    yield from _click(d, card)
    yield from _read(d)
    text = d.listing.content
    per = re.search(r"(?:Serves|Servings)\W{0,3}(\d+)", text, re.I) or re.search(r"(\d+) servings", text, re.I)
    amount = ingredient_grams(text, ingredient)
    if per is None or amount is None:
        raise GiveUp("not found", f"The {name} recipe shows no servings or no amount of {ingredient} I could read.")
    grams = amount * servings / int(per.group(1))
    yield from d.call("navigate", url=start)
    yield from _read(d)
    field_ = _need(next(iter(_fields(d.listing)), None), "the amount field")
    yield from d.fill(field_, f"{round(grams, 2):g}")
    yield from _click(d, _need(d.listing.find("Check Answer", roles=BUTTONS), "the Check Answer button"))
    yield from _read(d)
    raise GiveUp("no password", f"I entered {round(grams, 2):g} g of {ingredient}; no password showed.")


def today() -> date:
    return date.today()


__all__ = ["GAMES", "PROMPT", "WebGamesPolicy", "decide", "timedelta", "today"]
from tests.servers import webgames_plans_tools  # noqa: E402,F401  (the wgtools plans; registers them)
