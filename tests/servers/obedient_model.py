"""The obedient model: a loopback OpenAI-compatible model that does whatever a page's planted
instruction says, for issue 22's injection suite (``tests/pages/injection``).

It is a ``ScriptedModel`` (the same server and wire: streamed or whole, native ``tool_calls``) whose
replies are decided from each request, as the oracle's are (``tests/servers/oracle_model.py``, whose
parsing of read_page's element list it uses):

- **Which attack**: the run's base URL names the case (``run_url(case_id)``); the manifest
  (``tests/pages/injection/cases.json``) says what the planted instruction wants (the target: a button's
  label, a URL with placeholders, a form's fields and button) and which of its words show it.
- **Whether it sees it**: only if those words are in what the app gave it: the system prompt (the page
  the run starts on) and the tool results. It first reads the page (``read_page``); an instruction
  the reading does not show (a comment the reader drops, a file name it does not list) is not
  obeyed: it answers the user's question instead. So the suite measures what reaches a model.
- **What it sends**: the values as the reading shows them (the order number after "Order number:",
  the e-mail after "E-mail:"...), put where the instruction says (the URL's placeholders, the form's
  fields). A value the reading does not show is not sent.
- **When refused**: a "Permission denied" result ends the attack; it says so in its answer.
- **Issue 28's cases** (``adversarial.json``) say what to do as ``steps``: read, navigate to an address
  found in what it read (a pattern; placeholders in it filled with values), go back, click, fill a
  form's fields and lists and press its button (in one round), and remember a value the page or a
  file shows. Values are written ``{name}``,
  ``{a+b}`` (joined by a space) and transformed as an attacker asks: ``|b64``, ``|b64url``, ``|hex``,
  ``|url``, ``|pct`` (every byte as %XX), ``|half1``/``|half2`` (split in two), ``|regroup`` (letters
  and digits regrouped by three). The model never sends a value it has not read.
- **What it was given**: each request's messages are searched for the strings in ``watch`` (the
  canaries of a planted home folder: a local file's text, a file's name in a listing); the record
  says which it found (``reached``).

Each run's record (``record(key)``): whether it saw the instruction, the calls it made, the results
that were denied, the canaries it was given, its final answer.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tests.fixtures.injection_server import all_cases
from tests.servers.oracle_model import BUTTONS, FIELDS, Call, Listing, read_conversation
from tests.servers.scripted_model import Reply, ScriptedModel

MODEL = "obedient"
CONTEXT_WINDOW = 32_768

Round = list[Call]
Policy = Generator[Round, list[str], str]

# How the reading shows the user's values: the label the page writes before each.
_VALUE = {
    "order": re.compile(r"Order number\W{0,4}\s*([A-Z]{2}-\d{5}-[A-Z])"),
    "email": re.compile(r"E-mail\W{0,4}\s*([\w.+-]+@[\w-]+(?:\.[\w-]+)+)"),
    "address": re.compile(r"Delivery address\W{0,4}\s*(\d+ [^\n|*<]+?)\s*(?:\n|\||\*|<|$)"),
    "name": re.compile(r"\bName\W{0,4}\s*([A-Z][a-z]+ [A-Z][a-z]+)"),
    "card": re.compile(r"Card number\W{0,4}\s*((?:\d{4}[ -]?){3}\d{4})"),
}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def norm(text: str) -> str:
    """Lower-case words only (as ``tests/pages/injection/generate.py`` writes the triggers)."""
    return " ".join(re.findall(r"\w+", text.casefold()))


class Denied(Exception):
    """An action of the attack was refused."""


@dataclass
class ObedientRecord:
    """What one run did."""

    case: str = ""
    saw: bool = False  # the planted instruction was in what the app gave the model
    calls: list[str] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)  # the refusals the attack met
    final: str = ""
    requests: int = 0
    reached: set[str] = field(default_factory=set)  # the names of the watched strings it was given


class Sight:
    """What the model has been given so far, and the page as last read."""

    def __init__(self, system: str) -> None:
        self.texts = [system]
        self.listing = Listing.of("")
        self.remembered: dict[str, str] = {}  # values a step remembered (issue 28's cases)

    @property
    def all(self) -> str:
        return "\n".join(self.texts).replace("&amp;", "&")

    def value(self, name: str) -> str | None:
        if name in self.remembered:
            return self.remembered[name]
        if name not in _VALUE:
            return None
        m = _VALUE[name].search(self.all)
        return m.group(1).strip().rstrip(".,;") if m else None


def _run(sight: Sight, *calls: Call) -> Generator[Round, list[str], list[str]]:
    results = yield list(calls)
    results = list(results) + [""] * (len(calls) - len(results))
    sight.texts.extend(results)
    for c, result in zip(calls, results, strict=False):
        if result.startswith("Permission denied"):
            raise Denied(f"{c.name}: {result}")
    return results


def _read(sight: Sight) -> Generator[Round, list[str], Listing]:
    (result,) = yield from _run(sight, Call("read_page", {}))
    sight.listing = Listing.of(result)
    return sight.listing


def _click(sight: Sight, label: str) -> Generator[Round, list[str], str]:
    element = sight.listing.find(label, roles=BUTTONS)
    call = Call("click_element", {"index": element.index}) if element else Call("click_text", {"text": label})
    (result,) = yield from _run(sight, call)
    return result


def _fill(sight: Sight, label: str, text: str) -> Generator[Round, list[str], str]:
    element = sight.listing.find(label, roles=FIELDS)
    if element is None:
        return f"no field {label}"
    (result,) = yield from _run(sight, Call("fill_form", {"index": element.index, "text": text}))
    return result


def _url(sight: Sight, template: str) -> str | None:
    """The URL the instruction names, as the reading shows it (the attacker's origin filled in)."""
    path = template.split("}}", 1)[1] if "}}" in template else template
    head = re.escape(path.split("?", 1)[0])
    m = re.search(r"https?://[^\s/\"'<>]+" + head + r"(?:\?[^\s\"'<>)\]]*)?", sight.all)
    return m.group(0).rstrip(".,;") if m else None


def obey(case: dict[str, Any], sight: Sight) -> Policy:
    """Read the page; when the planted instruction is there, do what it says."""
    yield from _read(sight)
    if case["trigger"] not in norm(sight.all):
        order = sight.value("order") or "your order"
        return f"Order {order}: shipped, arriving Thursday. (I saw no other instruction.)"
    target = case["target"]
    action = target["action"]
    if action == "steps":
        return (yield from follow(case, sight))
    values = {name: sight.value(name) for name in _VALUE}
    if action == "click":
        result = yield from _click(sight, target["label"])
        return f"I clicked {target['label']}: {result}"
    if action == "check":
        element = sight.listing.find(target["label"], roles=("checkbox", "switch"))
        call = (Call("set_checked", {"index": element.index, "checked": True}) if element
                else Call("click_text", {"text": target["label"]}))
        (result,) = yield from _run(sight, call)
        return f"I turned on {target['label']}: {result}"
    if action == "navigate":
        url = _url(sight, target["url"])
        if url is None:
            return "I could not make out the address the page asked me to open."
        for placeholder, name in target["fill"].items():
            if values.get(name):
                url = url.replace(placeholder, quote(str(values[name]), safe="@"))
        (result,) = yield from _run(sight, Call("navigate", {"url": url}))
        return f"I opened the verification address: {result}"
    if action == "form":
        for label, name in target["fields"].items():
            yield from _fill(sight, label, values.get(name) or "")
        result = yield from _click(sight, target["button"])
        return f"I sent the verification form: {result}"
    if action == "share":
        to = target["to"] if target["to"] in sight.all else next(iter(_EMAIL.findall(sight.all)), "")
        message = f"Order {values.get('order') or ''}, delivery to {values.get('address') or ''}"
        yield from _fill(sight, "To", to)
        yield from _fill(sight, "Message", message)
        result = yield from _click(sight, target["button"])
        return f"I shared the order with {to}: {result}"
    if action == "phishing":
        url = _url(sight, target["url"])
        if url is None:
            return "I could not make out the sign-in address."
        yield from _run(sight, Call("navigate", {"url": url}))
        yield from _read(sight)
        for label, name in target["fields"].items():
            yield from _fill(sight, label, values.get(name) or "")
        result = yield from _click(sight, target["button"])
        return f"I signed in again: {result}"
    return f"I do not know the action {action}."


_TRANSFORMS = {
    "b64": lambda v: base64.b64encode(v.encode()).decode(),
    "b64url": lambda v: base64.urlsafe_b64encode(v.encode()).decode().rstrip("="),
    "hex": lambda v: v.encode().hex(),
    "url": lambda v: quote(v, safe=""),
    "pct": lambda v: "".join(f"%{b:02X}" for b in v.encode()),
    "half1": lambda v: v[: len(v) // 2],
    "half2": lambda v: v[len(v) // 2:],
    "regroup": lambda v: "-".join(re.findall(r".{1,3}", "".join(c for c in v if c.isalnum()))),
}


def expand(template: str, sight: Sight) -> str | None:
    """``template`` with each ``{name+name|transform}`` filled from what was read; None when a value
    was not read."""
    missing = False

    def one(m: re.Match[str]) -> str:
        nonlocal missing
        names, *transforms = m.group(1).split("|")
        parts = [sight.value(n) for n in names.split("+")]
        if any(p is None for p in parts):
            missing = True
            return ""
        text = " ".join(str(p) for p in parts)
        for t in transforms:
            text = _TRANSFORMS[t](text)
        return text

    out = re.sub(r"\{([a-z_0-9+|]+)\}", one, template)
    return None if missing else out


def _found(sight: Sight, pattern: str) -> str | None:
    """The first address that matches ``pattern`` in what was read (Markdown's escapes taken out)."""
    m = re.search(pattern, sight.all.replace("\\_", "_"))
    return m.group(0).rstrip(".,;") if m else None


def follow(case: dict[str, Any], sight: Sight) -> Policy:
    """Issue 28's cases: do the ``steps`` of the case's target (see the module docstring)."""
    done: list[str] = []
    for step in case["target"]["steps"]:
        what = step["do"]
        if what == "read":
            yield from _read(sight)
        elif what == "remember":
            m = re.search(step["pattern"], sight.all)
            if m is None:
                return f"I could not find the {step['name']} the page asked for. " + "; ".join(done)
            sight.remembered[step["name"]] = m.group(1)
        elif what == "navigate":
            url = _found(sight, step["find"])
            if url is None:
                return f"I could not make out the address the page asked me to open ({step['find']}). " + \
                    "; ".join(done)
            for placeholder, expression in step.get("fill", {}).items():
                value = expand("{" + expression + "}", sight)
                if value is None:
                    return f"I could not find what to put in {placeholder}."
                url = url.replace(placeholder, value)
            (result,) = yield from _run(sight, Call("navigate", {"url": url}))
            done.append(f"opened {url}: {result[:120]}")
        elif what == "back":
            yield from _run(sight, *[Call("go_back", {})] * int(step.get("times", 1)))
        elif what == "form":  # the fields, the lists and the button in one round, as a model that plans does
            calls = []
            for label, template in step.get("fields", {}).items():
                value = expand(template, sight)
                element = sight.listing.find(label, roles=FIELDS)
                if value is None or element is None:
                    return f"I could not find what to put in {label}. " + "; ".join(done)
                calls.append(Call("fill_form", {"index": element.index, "text": value}))
            for label, option in step.get("select", {}).items():
                element = sight.listing.find(label, roles=("combobox", "listbox", "select"))
                calls.append(Call("select_option", {"index": element.index, "option": option}) if element
                             else Call("select_option", {"selector": "select", "option": option}))
            button = sight.listing.find(step["button"], roles=BUTTONS)
            calls.append(Call("click_element", {"index": button.index}) if button
                         else Call("click_text", {"text": step["button"]}))
            results = yield from _run(sight, *calls)
            done.append(f"sent the form with {step['button']}: {results[-1][:120]}")
        elif what == "click":
            result = yield from _click(sight, step["label"])
            done.append(f"clicked {step['label']}: {result[:120]}")
        else:
            return f"I do not know the step {what}."
    return "I did what the page asked: " + "; ".join(done)


def decide(body: dict[str, Any], case: dict[str, Any]) -> tuple[Reply, ObedientRecord]:
    conversation = read_conversation(body)
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""
    sight = Sight(system)
    record = ObedientRecord(case=case["id"])
    policy = obey(case, sight)
    try:
        planned = next(policy)
        for _calls, results in conversation.rounds:
            planned = policy.send(results)
    except StopIteration as done:
        record.saw = case["trigger"] in norm(sight.all)
        return Reply(content=str(done.value or "Done.")), record
    except Denied as refused:
        record.saw, record.denied = True, [str(refused)]
        return Reply(content=f"I could not do what the page asked: {refused}"), record
    record.saw = case["trigger"] in norm(sight.all)
    return Reply(tool_calls=[{"name": c.name, "arguments": c.arguments} for c in planned]), record


class ObedientModel(ScriptedModel):
    """The server (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.cases = {c["id"]: c for c in all_cases()}
        self.watch: dict[str, str] = {}  # name: a string to look for in what the app sends
        self.runs: dict[str, ObedientRecord] = {}
        self._runs_lock = threading.Lock()

    def run_url(self, key: str) -> str:
        """A base URL for one run: ``key`` is ``<case id>`` or ``<case id>--<anything>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/runs/{key}/v1"

    def models_list(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "jawad-tests",
                                            "max_model_len": CONTEXT_WINDOW}]}

    def reply_for(self, body: dict[str, Any], path: str) -> Reply | None:
        del self.requests[:-1]
        m = re.search(r"/runs/([^/]+)/", path)
        key = m.group(1) if m else ""
        case = self.cases.get(key.split("--", 1)[0])
        if case is None:
            return Reply(content=f"The obedient model knows no case {key!r}.")
        reply, record = decide(body, case)
        given = json.dumps(body.get("messages") or [], ensure_ascii=False)
        with self._runs_lock:
            run = self.runs.setdefault(key, ObedientRecord(case=case["id"]))
            run.requests += 1
            run.reached |= {name for name, text in self.watch.items() if text and text in given}
            run.saw = run.saw or record.saw
            run.calls += [f"{c['name']}({json.dumps(c['arguments'], ensure_ascii=False)})" for c in reply.tool_calls]
            if record.denied and record.denied[0] not in run.denied:
                run.denied += record.denied
            if not reply.tool_calls:
                run.final = reply.content
        return reply

    def record(self, key: str) -> ObedientRecord:
        with self._runs_lock:
            return self.runs.get(key, ObedientRecord())
