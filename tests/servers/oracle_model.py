"""The oracle: a loopback OpenAI-compatible model that does issue 18's web tasks by reading what the
tools return, as a careful person at the keyboard would, so the task suite measures the tools and the
agent, not a model's wits.

It is a ``ScriptedModel`` (the same HTTP server, the same OpenAI chat-completions wire: streamed or
whole, native ``tool_calls``, ``usage``) whose replies are not prepared but decided from each request:

- **What it knows**: the user's instruction (the last user message), matched against the task
  manifest's instruction templates (``tests/pages/tasks/tasks.json``) to know the kind of task and its
  slots, as a person knows what they asked for; the manifest's ``data`` entry, which says what a user
  would know besides (the name of the Submit button...). Nothing else of the page: no selector, no
  DOM, no seed.
- **What it sees**: the tool results in the conversation: read_page's element list
  (``[n] role "label" = "value" (state) (row: "...")`` lines under their group headings) and content,
  and each action's outcome. It acts by index from the latest listing.
- **What it may use**: only the tools named in the request's ``tools`` (a task that needs a tool the
  app does not offer ends with an answer saying so, and fails honestly).
- **When the listing lacks what it needs**: the documented ways to find more, in order: a folded
  section (``read_page(section=...)``), scrolling down and reading again, and ``click_text`` when it is
  offered; then it gives up with a final answer that says what it could not find. It also gives up
  after ``STEP_CAP`` tool calls, and at once when an action is denied.

It keeps no state between requests: each reply replays the task's policy (a generator of rounds of
tool calls) over the calls and results the conversation already holds, so whatever the agent sends
(a check of the page before the answer, a repeated request) gets a consistent reply. The policy of each
task kind is at the end of this module.

Each run can have a base URL of its own (``run_url(key)``): requests under it are counted apart
(``runs[key]``: requests, tool calls, tokens, the final answer and why it gave up), so a benchmark
knows what each task cost. Tokens are counted as the app estimates them (4 characters a token) and
sent back as the reply's ``usage``. ``GET /models`` answers as vLLM does, with ``max_model_len``, so
the agent sizes its budget for a 32k window.
"""

from __future__ import annotations

import json
import re
import string
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

from tests.fixtures.task_suite import TaskSpec, load_manifest
from tests.servers.scripted_model import Reply, ScriptedModel

MODEL = "oracle"
CONTEXT_WINDOW = 32_768
STEP_CAP = 30  # tool calls in one task before the oracle gives up
SCROLLS = 6  # times it scrolls down looking for something before it gives up
CONFIRM_HEADER = "[Jawad checked the page"  # core.agent.confirm: the page read before the answer

# -- what the tools return, parsed --------------------------------------------------------------

_LINE = re.compile(r'^\[(\d+)\] (\S+) "((?:[^"\\]|\\.)*)"(.*)$')
_VALUE = re.compile(r'^ = "((?:[^"\\]|\\.)*)"')
_CONTEXT = re.compile(r'^ \(([a-z][a-z ]*): "((?:[^"\\]|\\.)*)"\)')
_STATES = re.compile(r'^ \(([^():"]*)\)')
_GROUPS = {"Open dialog or menu:": "dialog", "Main content:": "main", "Elsewhere on the page:": "other",
           "Site navigation:": "navigation"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]


def _unquote(text: str) -> str:
    """A quoted text of the element list as it was: ``\\n`` a line break, ``\\"`` a quote."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def norm(text: str) -> str:
    """Words only, lower case: how the oracle compares what it wants with what a label says."""
    return " ".join(re.findall(r"[\w@.:/+'-]+", str(text).casefold().replace("…", " ")))


@dataclass(frozen=True)
class Element:
    """One line of read_page's element list."""

    index: int
    role: str
    label: str
    value: str | None = None
    states: frozenset[str] = frozenset()
    context: str = ""
    context_kind: str = ""
    options: tuple[str, ...] = ()
    group: str = ""

    @property
    def words(self) -> str:
        return norm(self.label)

    def key(self) -> tuple[str, str, str]:
        """What the element is, whatever its number: to tell the new elements of a read from the old."""
        return (self.role, self.label, self.context)


def parse_elements(text: str) -> list[Element]:
    """The element lines of a read_page result (or of a folded section) in order."""
    found: list[Element] = []
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line in _GROUPS:
            group = _GROUPS[line]
            continue
        m = _LINE.match(line)
        if not m:
            continue
        rest = m.group(4)
        value = None
        if v := _VALUE.match(rest):
            value, rest = _unquote(v.group(1)), rest[v.end():]
        states: set[str] = set()
        context = kind = ""
        options: tuple[str, ...] = ()
        while rest:
            if c := _CONTEXT.match(rest):
                kind, context, rest = c.group(1), _unquote(c.group(2)), rest[c.end():]
            elif s := _STATES.match(rest):
                states.update(w.strip() for w in s.group(1).split(",") if w.strip())
                rest = rest[s.end():]
            elif rest.startswith("; options: "):
                options = tuple(o.strip() for o in rest[len("; options: "):].split(", "))
                rest = ""
            else:
                break
        found.append(Element(index=int(m.group(1)), role=m.group(2), label=_unquote(m.group(3)), value=value,
                             states=frozenset(states), context=context, context_kind=kind, options=options,
                             group=group))
    return found


@dataclass
class Listing:
    """What one read_page call showed: its elements and its text."""

    text: str
    elements: list[Element]

    @classmethod
    def of(cls, text: str) -> Listing:
        return cls(text=text, elements=parse_elements(text))

    @property
    def content(self) -> str:
        """The page's content (after the element list)."""
        for marker in ("Content (Markdown):", "\nContent:"):
            if marker in self.text:
                return self.text.split(marker, 1)[1].split("</untrusted_page_content id=", 1)[0]
        return self.text

    @property
    def folded(self) -> list[str]:
        """The sections read_page says it folded out of the list (``read_page(section='...')``)."""
        return list(dict.fromkeys(re.findall(r"read_page\(section='([^']+)'\)", self.text)))

    def find(self, want: str, *, roles: tuple[str, ...] = (), context: str = "", among: list[Element] | None = None,
             loose: bool = True) -> Element | None:
        """The element whose label says ``want``: the same words first, then a label that starts with
        them, then one that has them (``loose``); among several, the one whose row or column has
        ``context``; ``roles`` limits the kinds."""
        pool = [e for e in (self.elements if among is None else among)
                if not roles or e.role in roles or any(e.role.startswith(r) for r in roles if r.endswith("["))]
        target = norm(want)
        if not target:
            return None
        tiers = [[e for e in pool if e.words == target]]
        if loose:
            tiers.append([e for e in pool if e.words.startswith(target + " ") or e.words.endswith(" " + target)])
            tiers.append([e for e in pool if f" {target} " in f" {e.words} "])
        for tier in tiers:
            if not tier:
                continue
            if context:
                placed = [e for e in tier if norm(context) in norm(e.context) or norm(context) in e.words]
                if placed:
                    return placed[0]
                continue  # the words are there, not in the right place: look further
            return tier[0]
        return None

    def with_context(self, context: str, *, roles: tuple[str, ...] = ()) -> list[Element]:
        """Elements whose row (or own label) names ``context``."""
        c = norm(context)
        return [e for e in self.elements if (not roles or e.role in roles)
                and (c in norm(e.context) or f" {c} " in f" {e.words} ")]


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]


Round = list[Call]
Policy = Generator[Round, list[str], str]


class GiveUp(Exception):
    """The oracle stops and says why (``kind``: missing tool, listing gap, action failed, denied, step cap)."""

    def __init__(self, kind: str, message: str, *, on_page: bool | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.on_page = on_page  # a listing gap: whether find_in_page found the words in the page's text


# -- the oracle's hands: reading and acting ------------------------------------------------------

class Desk:
    """What a policy works with: the task's slots, the tools offered, and the page as last read.

    Its methods are generators a policy runs with ``yield from``: each yields a round of tool calls
    and gets their results back.
    """

    def __init__(self, spec: TaskSpec, slots: dict[str, str], tools: dict[str, dict[str, Any]]) -> None:
        self.spec = spec
        self.slots = slots
        self.tools = tools
        self.data = spec.data
        self.listing = Listing.of("")
        self.before = Listing.of("")  # the read before the last: what is new since
        self.calls = 0

    # -- calls ---------------------------------------------------------------------------------
    def has(self, tool: str) -> bool:
        return tool in self.tools

    def need(self, tool: str, why: str) -> None:
        if not self.has(tool):
            raise GiveUp("missing tool", f"I cannot {why}: this app offers no {tool} tool.")

    def run(self, *calls: Call) -> Generator[Round, list[str], list[str]]:
        for c in calls:
            self.need(c.name, f"use {c.name}")
        self.calls += len(calls)
        if self.calls > STEP_CAP:
            raise GiveUp("step cap", f"I stopped after {STEP_CAP} tool calls without finishing the task.")
        results = yield list(calls)
        results = list(results) + [""] * (len(calls) - len(results))
        for c, result in zip(calls, results, strict=False):
            if result.startswith("Permission denied"):
                raise GiveUp("denied", f"I could not {c.name}: {result}")
        return results

    def call(self, name: str, **arguments: Any) -> Generator[Round, list[str], str]:
        (result,) = yield from self.run(Call(name, arguments))
        return result

    # -- reading -------------------------------------------------------------------------------
    def read(self, section: str | None = None) -> Generator[Round, list[str], Listing]:
        result = yield from self.call("read_page", **({"section": section} if section else {}))
        if result.startswith("Error"):
            raise GiveUp("action failed", f"I could not read the page: {result}")
        listing = Listing.of(result)
        if section is None:
            self.before, self.listing = self.listing, listing
        return listing

    def new(self) -> list[Element]:
        """The elements of the last read that the read before did not have."""
        old = {e.key() for e in self.before.elements}
        return [e for e in self.listing.elements if e.key() not in old]

    def locate(self, want: str, *, roles: tuple[str, ...] = (), context: str = "", fresh: bool = True,
               prefer_new: bool = False, what: str = "") -> Generator[Round, list[str], Element]:
        """Read the page and find the element; when the listing lacks it: the folded sections, then
        scrolling down and reading again; then give up saying what was missing."""
        if fresh:
            yield from self.read()
        found = self._find(want, roles, context, prefer_new)
        if found:
            return found
        for section in self.listing.folded:
            listing = yield from self.read(section)
            hit = listing.find(want, roles=roles, context=context)
            if hit is not None:  # its number is one of the last read's
                return hit
        last = self.listing.text
        for _ in range(SCROLLS):
            result = yield from self.call("scroll_page", direction="down")
            yield from self.read()
            found = self._find(want, roles, context, prefer_new)
            if found:
                return found
            if self.listing.text == last or ("bottom" in result.lower() and "already" in result.lower()):
                break
            last = self.listing.text
        where = f' in the row of "{context}"' if context else ""
        missing = f"I could not find {what or repr(want)}{where} among the page's elements"
        if not self.has("find_in_page"):
            raise GiveUp("listing gap", missing + ".")
        # Is it on the page at all? The words without an element is a gap in the list; no words, no thing.
        searched = yield from self.call("find_in_page", query=want)
        on_page = bool(re.search(r'" is on |occur near each other', searched))
        raise GiveUp("listing gap", missing + (": its words are in the page's text, but no element for them is "
                                               "in the list." if on_page else ": the words are nowhere on the page."),
                     on_page=on_page)

    def _find(self, want: str, roles: tuple[str, ...], context: str, prefer_new: bool) -> Element | None:
        if prefer_new:
            hit = self.listing.find(want, roles=roles, context=context, among=self.new())
            if hit:
                return hit
        return self.listing.find(want, roles=roles, context=context)

    # -- acting --------------------------------------------------------------------------------
    def act(self, name: str, element: Element, **arguments: Any) -> Generator[Round, list[str], str]:
        """An action on ``element``; an error gets one more try on the same element read afresh."""
        result = yield from self.call(name, index=element.index, **arguments)
        if not result.startswith("Error"):
            return result
        yield from self.read()
        again = self.listing.find(element.label, roles=(element.role,), context=element.context, loose=False)
        if again is None:
            raise GiveUp("action failed", f'{name} on "{element.label}" failed: {result}')
        result = yield from self.call(name, index=again.index, **arguments)
        if result.startswith("Error"):
            raise GiveUp("action failed", f'{name} on "{element.label}" failed twice: {result}')
        return result

    def click(self, element: Element) -> Generator[Round, list[str], str]:
        return (yield from self.act("click_element", element))

    def click_on(self, want: str, *, roles: tuple[str, ...] = (), context: str = "", fresh: bool = True,
                 prefer_new: bool = False, what: str = "") -> Generator[Round, list[str], str]:
        """Find and click; when the listing has no such element, ``click_text`` if it is offered."""
        try:
            element = yield from self.locate(want, roles=roles, context=context, fresh=fresh,
                                             prefer_new=prefer_new, what=what)
        except GiveUp as missing:
            # click_text clicks the first element with the words: only for words that name one thing.
            if missing.kind != "listing gap" or not missing.on_page or context or not self.has("click_text"):
                raise
            result = yield from self.call("click_text", **self.arguments("click_text", text=want))
            if result.startswith("Error"):
                raise GiveUp("listing gap", f"{missing.message} click_text did not find it either: {result}") from None
            return result
        return (yield from self.click(element))

    def fill(self, element: Element, text: str, *, submit: bool = False) -> Generator[Round, list[str], str]:
        return (yield from self.act("fill_form", element, text=text, **({"submit": True} if submit else {})))

    def arguments(self, tool: str, **wanted: Any) -> dict[str, Any]:
        """``wanted`` named as the tool's schema names them (the first string argument for ``text``)."""
        schema = self.tools.get(tool, {})
        props = dict(schema.get("properties", {}))
        out: dict[str, Any] = {}
        for name, value in wanted.items():
            if name in props or not props:
                out[name] = value
                continue
            strings = [p for p, s in props.items() if s.get("type") == "string" or "string" in json.dumps(s)]
            if strings:
                out[strings[0]] = value
        return out


# -- the conversation as the oracle sees it ------------------------------------------------------

@dataclass
class Conversation:
    instruction: str
    rounds: list[tuple[Round, list[str]]]
    tools: dict[str, dict[str, Any]]


def read_conversation(body: dict[str, Any]) -> Conversation:
    messages = list(body.get("messages") or [])
    start = 0
    for i, m in enumerate(messages):
        if m.get("role") == "user" and not _text(m.get("content")).startswith(CONFIRM_HEADER):
            start = i
    instruction = _text(messages[start].get("content")) if messages else ""
    results = {m.get("tool_call_id"): _text(m.get("content")) for m in messages[start:] if m.get("role") == "tool"}
    rounds: list[tuple[Round, list[str]]] = []
    for m in messages[start + 1:]:
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        calls = []
        for tc in m["tool_calls"]:
            fn = tc.get("function") or {}
            try:
                arguments = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                arguments = {}
            calls.append((Call(str(fn.get("name")), arguments), results.get(tc.get("id"), "")))
        rounds.append(([c for c, _ in calls], [r for _, r in calls]))
    tools = {}
    for t in body.get("tools") or []:
        fn = t.get("function") or {}
        tools[str(fn.get("name"))] = dict(fn.get("parameters") or {})
    return Conversation(instruction=instruction, rounds=rounds, tools=tools)


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _template_pattern(template: str) -> re.Pattern[str]:
    pattern = ""
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        pattern += re.escape(literal)
        if name is not None:
            pattern += f"(?P<{name}>.+?)"
    return re.compile(f"^{pattern}$", re.S)


def match_task(instruction: str, specs: tuple[TaskSpec, ...]) -> tuple[TaskSpec, dict[str, str], str] | None:
    """The task an instruction asks for, its slots and its template: the template that fits with the
    most literal words (the most specific)."""
    best: tuple[int, TaskSpec, dict[str, str], str] | None = None
    text = instruction.strip()
    for spec in specs:
        for template in spec.instructions:
            m = _template_pattern(template).match(text)
            if m:
                weight = len(re.sub(r"\{[^}]*\}", "", template))
                if best is None or weight > best[0]:
                    best = (weight, spec, {k: v.strip() for k, v in m.groupdict().items()}, template)
    return None if best is None else (best[1], best[2], best[3])


# -- the server --------------------------------------------------------------------------------

@dataclass
class RunRecord:
    """What one run (one base URL) cost and how it ended."""

    requests: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final: str = ""
    gave_up: str = ""  # the kind, when the oracle gave up
    task: str = ""
    calls: list[str] = field(default_factory=list)  # "click_element(index=3)" in order

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class OracleModel(ScriptedModel):
    """The oracle's server (see the module docstring)."""

    def __init__(self, specs: tuple[TaskSpec, ...] | None = None) -> None:
        super().__init__()
        self.specs = specs if specs is not None else load_manifest()
        self.runs: dict[str, RunRecord] = {}
        self._runs_lock = threading.Lock()

    def run_url(self, key: str) -> str:
        """A base URL whose requests are counted as run ``key``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/runs/{key}/v1"

    def models_list(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "jawad-tests",
                                            "max_model_len": CONTEXT_WINDOW}]}

    def reply_for(self, body: dict[str, Any], path: str) -> Reply | None:
        del self.requests[:-1]  # the last one is kept; a benchmark sends thousands
        m = re.search(r"/runs/([^/]+)/", path)
        key = m.group(1) if m else ""
        reply, record = decide(body, self.specs)
        prompt = _tokens(json.dumps(body.get("messages"), ensure_ascii=False)) + _tokens(json.dumps(body.get("tools")))
        completion = _tokens(reply.content) + _tokens(json.dumps(reply.tool_calls, ensure_ascii=False))
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        with self._runs_lock:
            run = self.runs.setdefault(key, RunRecord())
            run.requests += 1
            run.prompt_tokens += prompt
            run.completion_tokens += completion
            run.tool_calls += len(reply.tool_calls)
            run.calls += [f"{c['name']}({_shown(c['arguments'])})" for c in reply.tool_calls]
            run.task = record.task or run.task
            if not reply.tool_calls:
                run.final, run.gave_up = reply.content, record.gave_up
        return reply

    def record(self, key: str) -> RunRecord:
        with self._runs_lock:
            return self.runs.get(key, RunRecord())


def _shown(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


def _tokens(text: str) -> int:
    return (len(text or "") + 3) // 4  # as the app estimates (core.agent.history)


def decide(body: dict[str, Any], specs: tuple[TaskSpec, ...]) -> tuple[Reply, RunRecord]:
    """The oracle's reply to one chat request, and what it knows of the run so far."""
    conversation = read_conversation(body)
    record = RunRecord()
    matched = match_task(conversation.instruction, specs)
    if matched is None:
        record.gave_up = "unknown task"
        return Reply(content="I do not know how to do that: it is not one of the tasks I know."), record
    spec, slots, template = matched
    record.task = spec.id
    desk = Desk(spec, {**slots, "_template": template}, conversation.tools)
    policy = POLICIES.get(spec.id)
    if policy is None:
        record.gave_up = "unknown task"
        return Reply(content=f"I have no way to do the task {spec.id}."), record
    generator = policy(desk)
    try:
        planned = next(generator)
        for _calls, results in conversation.rounds:
            planned = generator.send(results)
    except StopIteration as done:
        return Reply(content=str(done.value or "Done.")), record
    except GiveUp as stop:
        record.gave_up = stop.kind
        return Reply(content=f"I could not finish the task ({stop.kind}): {stop.message}"), record
    except Exception as exc:  # a bug of the oracle's own: said, so a run never hangs on it
        record.gave_up = "oracle error"
        return Reply(content=f"The oracle failed: {type(exc).__name__}: {exc}"), record
    return Reply(tool_calls=[{"name": c.name, "arguments": c.arguments} for c in planned]), record


# -- the policies, one per kind of task -------------------------------------------------------------

POLICIES: dict[str, Callable[[Desk], Policy]] = {}
BUTTONS = ("button", "link", "clickable", "tab", "menuitem", "option", "input[submit]", "input[button]")
FIELDS = ("textbox", "searchbox", "combobox", "textarea", "input[")


def policy(task_id: str) -> Callable[[Callable[[Desk], Policy]], Callable[[Desk], Policy]]:
    def register(fn: Callable[[Desk], Policy]) -> Callable[[Desk], Policy]:
        POLICIES[task_id] = fn
        return fn
    return register


def _submit(d: Desk, label: str | None = None, *, fresh: bool = True) -> Policy:
    label = label or str(d.data.get("submit", "Submit"))
    yield from d.click_on(label, roles=BUTTONS, fresh=fresh)
    return f"Done: I pressed {label}."


def _names(text: str) -> list[str]:
    """'A, B and C' as a list."""
    return [p.strip() for p in re.split(r",\s*|\s+and\s+", text) if p.strip()]


def iso_date(text: str) -> str | None:
    for fmt in ("%m/%d/%Y", "%B %d, %Y", "%d %B %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(text.strip(), fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _refused(result: str) -> bool:
    low = result.lower()
    return any(w in low for w in ("refused", "rejected", "did not accept", "not accepted", "is empty now",
                                  "stayed empty", "invalid"))


def _fill_date(d: Desk, element: Element, text: str) -> Policy:
    """Type the date as the user gave it; when the field refuses it, as the browser's own yyyy-mm-dd."""
    result = yield from d.fill(element, text)
    if _refused(result) or result.startswith("Error"):
        iso = iso_date(text)
        if iso is None or iso == text:
            raise GiveUp("action failed", f"The date field refused {text}: {result}")
        result = yield from d.fill(element, iso)
        if _refused(result):
            raise GiveUp("action failed", f"The date field refused {text} and {iso}: {result}")
    return result


@policy("click_button")
def _click_button(d: Desk) -> Policy:
    yield from d.click_on(d.slots["label"], roles=BUTTONS)
    return f"Done: I clicked {d.slots['label']}."


@policy("button_sequence")
def _button_sequence(d: Desk) -> Policy:
    yield from d.click_on(d.slots["first"], roles=BUTTONS)
    yield from d.click_on(d.slots["second"], roles=BUTTONS)
    return f"Done: I clicked {d.slots['first']}, then {d.slots['second']}."


@policy("click_link")
def _click_link(d: Desk) -> Policy:
    yield from d.click_on(d.slots["link"], roles=("link", "clickable"))
    return f"Done: I opened the link {d.slots['link']}."


@policy("checkbox_set")
def _checkbox_set(d: Desk) -> Policy:
    wanted = {norm(n) for n in _names(d.slots["wanted_text"])}
    yield from d.read()
    boxes = [e for e in d.listing.elements if e.role in ("checkbox", "switch")]
    missing = wanted - {e.words for e in boxes}
    if missing:
        raise GiveUp("listing gap", f"I could not find the checkboxes {', '.join(sorted(missing))}.")
    changes = [Call("set_checked", {"index": e.index, "checked": e.words in wanted}) for e in boxes
               if ("checked" in e.states) != (e.words in wanted)]
    if changes:
        results = yield from d.run(*changes)
        failed = [r for r in results if r.startswith("Error")]
        if failed:
            raise GiveUp("action failed", failed[0])
    yield from d.read()
    wrong = [e.label for e in d.listing.elements if e.role in ("checkbox", "switch")
             and ("checked" in e.states) != (e.words in wanted)]
    if wrong:
        raise GiveUp("action failed", f"The page does not show the boxes as I set them: {', '.join(wrong)}.")
    return (yield from _submit(d, fresh=False))


@policy("radio")
def _radio(d: Desk) -> Policy:
    choice = yield from d.locate(d.slots["choice"], roles=("radio", "clickable"),
                                 what=f"the option {d.slots['choice']}")
    yield from d.act("set_checked", choice, checked=True)
    return (yield from _submit(d))


@policy("tabs")
def _tabs(d: Desk) -> Policy:
    yield from d.click_on(d.slots["tab"], roles=("tab", "button", "link", "clickable"))
    yield from d.click_on(d.slots["button"], roles=BUTTONS)
    return f"Done: I opened {d.slots['tab']} and pressed {d.slots['button']}."


@policy("collapsible")
def _collapsible(d: Desk) -> Policy:
    yield from d.click_on(d.slots["section"], roles=BUTTONS)
    # The same link is in every section: the one that has just appeared, or the one in its row.
    yield from d.click_on(d.slots["link"], roles=("link", "button", "clickable"), prefer_new=True)
    return f"Done: I opened {d.slots['section']} and clicked {d.slots['link']}."


@policy("confirm_dialog")
def _confirm_dialog(d: Desk) -> Policy:
    yield from d.click_on("Delete", roles=BUTTONS, context=d.slots["file"],
                          what=f"the Delete button of {d.slots['file']}")
    yield from d.read()
    dialog = [e for e in d.listing.elements if e.group == "dialog"] or d.new()
    confirm = next((e for e in dialog if e.role in BUTTONS and norm(e.label).startswith("delete")), None)
    if confirm is None:
        raise GiveUp("listing gap", "No dialog asking to confirm the deletion appeared in the element list.")
    yield from d.click(confirm)
    return f"Done: I deleted {d.slots['file']}."


@policy("enter_text")
def _enter_text(d: Desk) -> Policy:
    field_ = yield from d.locate(d.slots["field"], roles=FIELDS, what=f"the {d.slots['field']} field")
    yield from d.fill(field_, d.slots["value"])
    return (yield from _submit(d))


@policy("login_form")
def _login_form(d: Desk) -> Policy:
    yield from _sign_in(d, d.slots["username"], d.slots["password"])
    return (yield from _submit(d))


def _sign_in(d: Desk, username: str, password: str, *, fresh: bool = True) -> Policy:
    if fresh:
        yield from d.read()
    user = d.listing.find("Username", roles=FIELDS) or d.listing.find("Email", roles=FIELDS)
    secret = next((e for e in d.listing.elements if e.role == "input[password]"), None) \
        or d.listing.find("Password", roles=FIELDS)
    if user is None or secret is None:
        raise GiveUp("listing gap", "I could not find the username and password fields.")
    results = yield from d.run(Call("fill_form", {"index": user.index, "text": username}),
                               Call("fill_form", {"index": secret.index, "text": password}))
    if any(r.startswith("Error") for r in results):
        raise GiveUp("action failed", next(r for r in results if r.startswith("Error")))
    return ""


@policy("enter_date")
def _enter_date(d: Desk) -> Policy:
    field_ = yield from d.locate(d.slots["label"], roles=FIELDS, what=f"the {d.slots['label']} field")
    yield from _fill_date(d, field_, d.slots["date"])
    return (yield from _submit(d))


def _month_shown(content: str) -> tuple[int, int] | None:
    m = re.search(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{4})\b", content, re.I)
    return None if m is None else (int(m.group(2)), _MONTHS.index(m.group(1).lower()) + 1)


@policy("date_picker")
def _date_picker(d: Desk) -> Policy:
    want = datetime.strptime(d.slots["date"], "%B %d, %Y").date()
    yield from d.read()
    for _ in range(24):
        shown = _month_shown(d.listing.content)
        if shown is None:
            raise GiveUp("listing gap", "I could not see which month the calendar shows.")
        delta = (want.year - shown[0]) * 12 + want.month - shown[1]
        if delta == 0:
            break
        button = d.listing.find("Next" if delta > 0 else "Prev", roles=BUTTONS) or \
            d.listing.find("Next month" if delta > 0 else "Previous month", roles=BUTTONS)
        if button is None:
            raise GiveUp("listing gap", "The calendar has no Next or Prev control in the element list.")
        yield from d.click(button)
        yield from d.read()
    else:
        raise GiveUp("action failed", "The calendar never showed the month I wanted.")
    day = d.listing.find(str(want.day), roles=BUTTONS, loose=False)
    if day is None:
        raise GiveUp("listing gap", f"Day {want.day} is not in the element list.")
    yield from d.click(day)
    return (yield from _submit(d))


@policy("autocomplete")
def _autocomplete(d: Desk) -> Policy:
    country = d.slots["country"]
    box = yield from d.locate("Country", roles=FIELDS, what="the Country field")
    yield from d.fill(box, country)
    yield from d.read()
    options = [e for e in d.listing.elements if e.role in ("option", "clickable", "menuitem", "listitem")]
    pick = d.listing.find(country, among=options, loose=False)
    if pick is None:
        raise GiveUp("listing gap", f"The suggestions for {country} are not in the element list.")
    yield from d.click(pick)
    return (yield from _submit(d))


@policy("native_select")
def _native_select(d: Desk) -> Policy:
    box = yield from d.locate(d.slots["label"], roles=("select", "combobox", "listbox"),
                              what=f"the {d.slots['label']} list")
    yield from d.act("select_option", box, option=d.slots["option"])
    return (yield from _submit(d))


@policy("custom_dropdown")
def _custom_dropdown(d: Desk) -> Policy:
    label, option = d.slots["label"], d.slots["option"]
    yield from d.read()
    opener = d.listing.find(label, roles=(*BUTTONS, "combobox"))
    if opener is None:  # the control shows its placeholder, the label is text beside it
        placeholders = [e for e in d.listing.elements if e.role in (*BUTTONS, "combobox")
                        and re.match(r"^(select|choose|pick)\b", e.words)]
        if len(placeholders) != 1:
            raise GiveUp("listing gap", f"I could not tell which control sets {label}.")
        opener = placeholders[0]
    yield from d.click(opener)
    yield from d.click_on(option, roles=(*BUTTONS, "listitem"), prefer_new=True)
    return (yield from _submit(d))


@policy("number_spinner")
def _number_spinner(d: Desk) -> Policy:
    yield from d.read()
    box = d.listing.find("Quantity", roles=(*FIELDS, "spinbutton"), context=d.slots["item"]) \
        or d.listing.find(d.slots["item"], roles=(*FIELDS, "spinbutton")) \
        or d.listing.find("Quantity", roles=(*FIELDS, "spinbutton"))
    if box is None:
        raise GiveUp("listing gap", f"I could not find the quantity field of {d.slots['item']}.")
    yield from d.fill(box, d.slots["quantity"])
    return (yield from _submit(d))


def _count_shown(content: str, what: str) -> int | None:
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if norm(what) in norm(line) or norm(what).rstrip("s") in norm(line):
            for later in lines[i:i + 5]:
                m = re.search(r"(?<![\w.])(\d+)(?![\w.])", later)
                if m:
                    return int(m.group(1))
    return None


@policy("custom_spinner")
def _custom_spinner(d: Desk) -> Policy:
    what, target = d.slots["what"], int(d.slots["count"])
    yield from d.read()
    for _ in range(12):
        count = _count_shown(d.listing.content, what)
        if count is None:
            raise GiveUp("listing gap", f"I could not see the number of {what} on the page.")
        if count == target:
            return (yield from _submit(d))
        step = (d.listing.find("More", roles=BUTTONS) or d.listing.find("+", roles=BUTTONS)) if count < target \
            else (d.listing.find("Fewer", roles=BUTTONS) or d.listing.find("−", roles=BUTTONS))
        if step is None:
            raise GiveUp("listing gap", "The − and + controls are not in the element list.")
        yield from d.click(step)
        yield from d.read()
    raise GiveUp("action failed", f"The number of {what} did not reach {target}.")


@policy("slider")
def _slider(d: Desk) -> Policy:
    label, value = d.slots["label"], d.slots["value"]
    slider = yield from d.locate(label, roles=(*FIELDS, "slider"), what=f"the {label} slider")
    result = yield from d.fill(slider, value)
    if _refused(result) or result.startswith("Error"):
        if not d.has("press_key"):
            raise GiveUp("action failed", f"The slider refused {value}, and there is no press_key tool: {result}")
        yield from _slide_with_keys(d, slider, int(value))
    yield from d.read()
    now = d.listing.find(label, roles=(*FIELDS, "slider"))
    if now is not None and now.value is not None and now.value != value:
        if not d.has("press_key"):
            raise GiveUp("action failed", f"The slider shows {now.value}, not {value}.")
        yield from _slide_with_keys(d, now, int(value))
    return (yield from _submit(d))


def _slide_with_keys(d: Desk, slider: Element, value: int) -> Policy:
    step = int(d.data.get("step", 1))
    current = int(float(slider.value or 0))
    key = "ArrowRight" if value > current else "ArrowLeft"
    for _ in range(abs(value - current) // max(step, 1)):
        yield from d.call("press_key", **d.arguments("press_key", key=key), index=slider.index)
    return ""


@policy("popup_login")
def _popup_login(d: Desk) -> Policy:
    result = yield from d.click_on("Sign in with Acme ID", roles=BUTTONS)
    if "tab" not in result.lower() and "window" not in result.lower():
        raise GiveUp("listing gap", "Clicking the button opened no sign-in window that I can see.")
    if "now shown" not in result.lower():
        d.need("switch_tab", "reach the sign-in window")
        yield from d.call("switch_tab", **d.arguments("switch_tab", tab=2))
    yield from _sign_in(d, d.slots["username"], d.slots["password"])
    yield from d.click_on("Sign in", roles=BUTTONS, fresh=False)
    return "Done: I signed in with Acme ID."


@policy("search_pagination")
def _search_pagination(d: Desk) -> Policy:
    term, title = d.slots["term"], d.slots["title"]
    yield from d.read()
    box = d.listing.find("Search", roles=("searchbox", "textbox", "combobox"))
    if box is None:
        raise GiveUp("listing gap", "I could not find the search box.")
    yield from d.fill(box, term, submit=True)
    yield from d.read()
    for _ in range(8):
        hit = d.listing.find(title, roles=("link", "clickable"), loose=False)
        if hit is not None:
            yield from d.click(hit)
            return f'Done: I opened "{title}".'
        following = d.listing.find("Next", roles=("link", "button", "clickable"))
        if following is None:
            raise GiveUp("listing gap", f'"{title}" is not among the results, and there is no next page.')
        yield from d.click(following)
        yield from d.read()
    raise GiveUp("listing gap", f'"{title}" is not in the first pages of results.')


@policy("email_inbox")
def _email_inbox(d: Desk) -> Policy:
    sender, template = d.slots["sender"], d.slots["_template"]
    yield from d.read()
    if template.startswith(("Star", "Delete")):
        action = "Star" if template.startswith("Star") else "Delete"
        yield from d.click_on(action, roles=BUTTONS, context=sender, fresh=False, what=f"{action} for {sender}'s email")
        return f"Done: {action.lower()} on the email from {sender}."
    row = d.listing.find(sender, roles=BUTTONS)
    if row is None:
        raise GiveUp("listing gap", f"I could not find the email from {sender}.")
    yield from d.click(row)
    replying = template.startswith("Reply")
    yield from d.click_on("Reply" if replying else "Forward", roles=BUTTONS)
    yield from d.read()
    if replying:
        box = d.listing.find("Message", roles=FIELDS) or d.listing.find("Body", roles=FIELDS)
        text = d.slots["text"]
    else:
        box = d.listing.find("To", roles=FIELDS, loose=False)
        text = d.slots["address"]
    if box is None:
        raise GiveUp("listing gap", "I could not find where to write.")
    yield from d.fill(box, text)
    yield from d.click_on("Send", roles=BUTTONS, fresh=False)
    return f"Done: I {'replied to' if replying else 'forwarded'} the email from {sender}."


@policy("social_feed")
def _social_feed(d: Desk) -> Policy:
    user, template = "@" + d.slots["user"], d.slots["_template"]
    yield from d.read()
    if template.startswith("Like"):
        yield from d.click_on("Like", roles=BUTTONS, context=user, fresh=False, what=f"Like on {user}'s post")
    elif template.startswith("Follow"):
        yield from d.click_on("Follow", roles=BUTTONS, context=user, fresh=False, what=f"Follow for {user}")
    elif template.startswith("Comment"):
        yield from d.click_on("Comment", roles=BUTTONS, context=user, fresh=False, what=f"Comment on {user}'s post")
        yield from d.read()
        box = d.listing.find("Comment", roles=FIELDS, among=d.new()) or d.listing.find("Comment", roles=FIELDS,
                                                                                      context=user)
        if box is None:
            raise GiveUp("listing gap", "No comment field appeared.")
        yield from d.fill(box, d.slots["text"])
        yield from d.click_on("Post", roles=BUTTONS, context=user, prefer_new=True)
    else:
        yield from d.click_on("More options", roles=BUTTONS, context=user, fresh=False,
                              what=f"the menu of {user}'s post")
        yield from d.click_on("Hide post", roles=(*BUTTONS, "listitem"), prefer_new=True)
    return f"Done, for the post by {user}."


@policy("flight_booking")
def _flight_booking(d: Desk) -> Policy:
    s = d.slots
    yield from d.read()
    origin, to = d.listing.find("From", roles=FIELDS, loose=False), d.listing.find("To", roles=FIELDS, loose=False)
    when = d.listing.find("Depart", roles=FIELDS) or d.listing.find("Date", roles=FIELDS)
    people = d.listing.find("Passengers", roles=("select", "combobox"))
    if not (origin and to and when and people):
        raise GiveUp("listing gap", "I could not find the search form's fields.")
    results = yield from d.run(Call("fill_form", {"index": origin.index, "text": s["from"]}),
                               Call("fill_form", {"index": to.index, "text": s["to"]}))
    if any(r.startswith("Error") for r in results):
        raise GiveUp("action failed", next(r for r in results if r.startswith("Error")))
    yield from _fill_date(d, when, s["date"])
    count = int(s["passengers"])
    option = next((o for o in people.options if re.match(rf"^{count}\b", o)), str(count))
    yield from d.act("select_option", people, option=option)
    yield from d.click_on("Search flights", roles=BUTTONS, fresh=False)
    yield from d.read()
    offers = [(e, _price(e.context)) for e in d.listing.elements if e.words.startswith("book") and e.role in BUTTONS]
    priced = [(e, p) for e, p in offers if p is not None]
    if not priced:
        raise GiveUp("listing gap", "The flights' prices are not beside their Book buttons in the element list.")
    cheapest = min(priced, key=lambda ep: ep[1])[0]
    yield from d.click(cheapest)
    return "Done: I booked the cheapest flight."


def _price(text: str) -> float | None:
    m = re.search(r"[$€£]\s?(\d+(?:[.,]\d+)?)|(\d+(?:[.,]\d+)?)\s?(?:USD|EUR|€)", text)
    if not m:
        return None
    return float((m.group(1) or m.group(2)).replace(",", "."))


@policy("tree_navigation")
def _tree_navigation(d: Desk) -> Policy:
    parts = d.slots["path"].split("/")
    yield from d.read()
    for n, part in enumerate(parts):
        node = None
        if n:  # a name that several folders have: the one that has just appeared
            node = d.listing.find(part, roles=(*BUTTONS, "treeitem"), among=d.new(), loose=False)
        node = node or d.listing.find(part, roles=(*BUTTONS, "treeitem"), loose=False)
        if node is None:
            raise GiveUp("listing gap", f"{'/'.join(parts[:n + 1])} is not in the element list.")
        yield from d.click(node)
        if n < len(parts) - 1:
            yield from d.read()
    return f"Done: I opened {d.slots['path']}."


def _table_cell(content: str, name: str, column: str) -> str | None:
    """The cell of a Markdown table in the row that names ``name``, under ``column``."""
    header: list[str] | None = None
    for line in content.splitlines():
        if not line.strip().startswith("|"):
            header = None if not line.strip() else header
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        if header is None:
            header = cells
            continue
        if any(norm(c) == norm(name) for c in cells) and column in header and len(cells) == len(header):
            return cells[header.index(column)]
    return None


@policy("read_table")
def _read_table(d: Desk) -> Policy:
    yield from d.read()
    answer = _table_cell(d.listing.content, d.slots["name"], d.slots["column"])
    if answer is None:
        result = yield from d.call("find_in_page", query=d.slots["name"])
        answer = _table_cell(result, d.slots["name"], d.slots["column"])
    if answer is None:
        raise GiveUp("listing gap", f"I could not read the {d.slots['column']} of {d.slots['name']} in the table.")
    box = d.listing.find(str(d.data.get("answer_field", "Answer")), roles=FIELDS)
    if box is None:
        raise GiveUp("listing gap", "I could not find the Answer box.")
    yield from d.fill(box, answer)
    return (yield from _submit(d))


@policy("wizard")
def _wizard(d: Desk) -> Policy:
    s = d.slots
    yield from d.read()
    name, email = d.listing.find("Full name", roles=FIELDS) or d.listing.find("Name", roles=FIELDS), \
        d.listing.find("Email", roles=FIELDS)
    if name is None or email is None:
        raise GiveUp("listing gap", "I could not find the name and email fields.")
    yield from d.run(Call("fill_form", {"index": name.index, "text": s["name"]}),
                     Call("fill_form", {"index": email.index, "text": s["email"]}))
    yield from d.click_on("Next", roles=BUTTONS, fresh=False)
    plan = yield from d.locate(s["plan"], roles=("radio", "clickable"), what=f"the {s['plan']} plan")
    yield from d.act("set_checked", plan, checked=True)
    billing = d.listing.find("Billing", roles=("select", "combobox"))
    if billing is None:
        raise GiveUp("listing gap", "I could not find the billing choice.")
    option = next((o for o in billing.options if norm(o) == norm(s["billing"])), s["billing"])
    yield from d.act("select_option", billing, option=option)
    yield from d.click_on("Next", roles=BUTTONS, fresh=False)
    terms = yield from d.locate("terms", roles=("checkbox", "clickable"), what="the terms checkbox")
    yield from d.act("set_checked", terms, checked=True)
    return (yield from _submit(d, fresh=False))


@policy("infinite_scroll")
def _infinite_scroll(d: Desk) -> Policy:
    title = d.slots["title"]
    yield from d.read()
    for _ in range(14):
        save = d.listing.find("Save", roles=BUTTONS, context=title)
        if save is not None and norm(title) in norm(save.context):
            yield from d.click(save)
            return f'Done: I saved "{title}".'
        # Down a screen at a time, reading as it goes: the feed loads more as its end comes into view.
        yield from d.call("scroll_page", direction="down")
        yield from d.read()
    raise GiveUp("listing gap", f'"{title}" did not appear in the feed.')


@policy("iframe_form")
def _iframe_form(d: Desk) -> Policy:
    yield from d.read()
    name, email = d.listing.find("Name", roles=FIELDS), d.listing.find("Email", roles=FIELDS)
    if name is None or email is None:
        raise GiveUp("listing gap", "The embedded form's fields are not in the element list.")
    yield from d.run(Call("fill_form", {"index": name.index, "text": d.slots["name"]}),
                     Call("fill_form", {"index": email.index, "text": d.slots["email"]}))
    return (yield from _submit(d, fresh=False))


@policy("shadow_widgets")
def _shadow_widgets(d: Desk) -> Policy:
    code = yield from d.locate("Coupon code", roles=FIELDS, what="the coupon field")
    yield from d.fill(code, d.slots["code"])
    yield from d.click_on("Apply", roles=BUTTONS, fresh=False)
    return (yield from _submit(d))


@policy("terminal")
def _terminal(d: Desk) -> Policy:
    d.need("type_text", "type into the terminal")
    d.need("press_key", "press Enter in the terminal")
    term = yield from d.locate("Terminal", what="the terminal")
    yield from d.click(term)
    yield from d.call("type_text", **d.arguments("type_text", text=d.slots["command"]))
    yield from d.call("press_key", **d.arguments("press_key", key="Enter"))
    return f"Done: I ran {d.slots['command']}."


@policy("hover_menu")
def _hover_menu(d: Desk) -> Policy:
    d.need("hover", "open a menu that opens on hover")
    menu = yield from d.locate(d.slots["menu"], what=f"the {d.slots['menu']} menu")
    yield from d.act("hover", menu)
    yield from d.click_on(d.slots["item"], roles=(*BUTTONS, "listitem"), prefer_new=True)
    return f"Done: I chose {d.slots['menu']} > {d.slots['item']}."


@policy("calendar_slots")
def _calendar_slots(d: Desk) -> Policy:
    day, time = d.slots["day"], d.slots["time"]
    yield from d.read()
    slots = [e for e in d.listing.elements if e.words == norm(time)]
    pick = next((e for e in slots if norm(day) in norm(e.context)), None)
    if pick is None and len(slots) == 1 and not slots[0].context:
        pick = slots[0]  # the only free slot at that time
    if pick is None:
        raise GiveUp("listing gap", f"I could not tell which {time} slot is {day}'s.")
    yield from d.click(pick)
    return f"Done: I booked {day} {time}."


@policy("drag_drop")
def _drag_drop(d: Desk) -> Policy:
    d.need("drag_and_drop", "drag a card")
    card = yield from d.locate(d.slots["card"], what=f"the card {d.slots['card']}")
    target = d.listing.find(d.slots["bin"])
    props = d.tools["drag_and_drop"].get("properties", {})
    source_key = next((p for p in props if "index" in p and ("from" in p or "source" in p)), "from_index")
    if target is not None:
        target_key = next((p for p in props if "index" in p and ("to" in p or "target" in p)), "to_index")
        yield from d.call("drag_and_drop", **{source_key: card.index, target_key: target.index})
    else:  # a drop zone is no control: the tool may take the words shown on it
        text_key = next((p for p in props if "text" in p and ("to" in p or "target" in p)), None)
        if text_key is None:
            raise GiveUp("listing gap", f"The {d.slots['bin']} box is not in the element list.")
        yield from d.call("drag_and_drop", **{source_key: card.index, text_key: d.slots["bin"]})
    return f"Done: I moved {d.slots['card']} to {d.slots['bin']}."


@policy("place_order")
def _place_order(d: Desk) -> Policy:
    shipping = yield from d.locate(d.slots["shipping"], roles=("radio", "clickable"),
                                   what=f"the {d.slots['shipping']} shipping option")
    yield from d.act("set_checked", shipping, checked=True)
    return (yield from _submit(d, str(d.data.get("critical", "Place order"))))


@policy("rich_text")
def _rich_text(d: Desk) -> Policy:
    box = yield from d.locate("Message", roles=(*FIELDS, "clickable"), what="the message box")
    yield from d.fill(box, d.slots["text"])
    return (yield from _submit(d, fresh=False))


# -- fixtures ------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def oracle_model() -> Iterator[OracleModel]:
    """The oracle's server for the session (each run gets its own ``run_url``)."""
    server = OracleModel()
    server.start()
    try:
        yield server
    finally:
        server.stop()
