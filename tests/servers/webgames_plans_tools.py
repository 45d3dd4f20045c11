"""WebGames plans for the challenges the browser tools of issue 35 opened (``wgtools``): files a page
gives to download and use (``read_download``), calendars laid out by CSS (read as tables), lists in
read-only fields (given whole). Each plan acts only on what the tools return, as the policy's other
plans do (``tests/servers/webgames_policy.py``); they are put ahead of the policy's own plans for the
same headings, and fall back to those where the page is the variant those plans read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.servers.oracle_model import BUTTONS, Call, Element, GiveUp, Listing
from tests.servers.webgames_policy import (
    GAMES,
    GameDesk,
    Policy,
    _click,
    _credential,
    _credentials,
    _fields,
    _mirror,
    _need,
    _read,
    game,
)


def first(pattern: str) -> Callable[[Callable[[GameDesk], Policy]], Callable[[GameDesk], Policy]]:
    """``@game(pattern)``, put ahead of the plans registered before it."""
    def register(fn: Callable[[GameDesk], Policy]) -> Callable[[GameDesk], Policy]:
        game(pattern)(fn)
        GAMES.insert(0, GAMES.pop())
        return fn
    return register


# -- a week's calendar, read as a table ---------------------------------------------------------------

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class Event:
    title: str
    day: str
    start: int  # minutes from midnight
    end: int

    @property
    def minutes(self) -> int:
        return self.end - self.start


def _minutes(clock: str) -> int:
    h, m = clock.split(":")
    return int(h) * 60 + int(m)


def week_events(content: str) -> list[Event]:
    """The events of the Markdown table whose header names days: each cell's "Title; HH:MM - HH:MM"."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in content.splitlines() if line.strip().startswith("|") and "---" not in line]
    header = next((r for r in rows if sum(c in DAYS for c in r) >= 3), None)
    if header is None:
        return []
    events: list[Event] = []
    for row in rows[rows.index(header) + 1:]:
        for column, cell in enumerate(row):
            if column >= len(header) or header[column] not in DAYS:
                continue
            for m in re.finditer(r"([^;]+?);\s*(\d{1,2}:\d\d)\s*-\s*(\d{1,2}:\d\d)", cell):
                events.append(Event(m.group(1).strip(), header[column], _minutes(m.group(2)), _minutes(m.group(3))))
    return events


def _clock(minutes: int, *, twelve: bool = False) -> str:
    h, m = divmod(minutes, 60)
    if not twelve:
        return f"{h:02d}:{m:02d}"
    return f"{(h - 1) % 12 + 1}:{m:02d} {'AM' if h < 12 else 'PM'}"


def _hours(minutes: int) -> str:
    return f"{minutes / 60:g}"


def _hour_of(text: str) -> int:
    """Minutes from midnight of "9am", "6pm", "9:00 AM", "17:00"."""
    m = re.match(r"(\d{1,2})(?::(\d\d))?\s*([ap])?\.?m?", text.strip(), re.I)
    if not m:
        raise ValueError(text)
    h = int(m.group(1)) % 12 if m.group(3) else int(m.group(1))
    if m.group(3) and m.group(3).lower() == "p":
        h += 12
    return h * 60 + int(m.group(2) or 0)


def _busy(events: list[Event], start: int, end: int) -> list[tuple[int, int]]:
    """The day's busy spans within [start, end], merged."""
    spans = sorted((max(e.start, start), min(e.end, end)) for e in events if e.end > start and e.start < end)
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _free(events: list[Event], start: int, end: int) -> list[tuple[int, int]]:
    gaps, at = [], start
    for a, b in _busy(events, start, end):
        if a > at:
            gaps.append((at, a))
        at = max(at, b)
    if at < end:
        gaps.append((at, end))
    return gaps


def _named(events: list[Event], words: str) -> Event | None:
    """The event whose title holds ``words`` (all of them), else the one holding the most."""
    want = [w for w in re.findall(r"\w+", words.lower()) if w not in {"the", "a", "meeting", "event"}]
    scored = [(sum(w in e.title.lower() for w in want), e) for e in events]
    best = max(scored, key=lambda s: s[0], default=(0, None))
    return best[1] if best[0] else None


def answer_about_week(question: str, events: list[Event]) -> str | None:
    """The answer to one question about the week, as the question asks it, or None."""
    q = " ".join(question.split())
    day = next((d for d in DAYS if d in q), "")
    on = [e for e in events if e.day == day] if day else events
    quoted = re.search(r"'([^']+)'", q)
    if m := re.search(r"how many minutes do i have free between (.+?) and (.+?) on", q, re.I):
        a, b = _named(on, m.group(1)), _named(on, m.group(2))
        return str(sum(y - x for x, y in _free(on, a.end, b.start))) if a and b else None
    if m := re.search(r"unscheduled (?:minutes )?(?:on \w+ )?between (\S+) and (\S+?)(?: on|,|\?)", q, re.I):
        start, end = _hour_of(m.group(1)), _hour_of(m.group(2))
        free = sum(y - x for x, y in _free(on, start, end))
        if cut := re.search(r"excluding the (\S+?)-(\S+)", q, re.I):
            a, b = _hour_of(cut.group(1)), _hour_of(cut.group(2))
            free -= sum(y - x for x, y in _free(on, a, b))
        return str(free)
    if (m := re.search(r"\b(earliest|latest)\b", q, re.I)) and (n := re.search(r"(\d+)[ -]minute", q, re.I)):
        after = re.search(r"after (?:the )?(.+?)(?: that| I |,| what)", q, re.I)
        event = _named(on, after.group(1)) if after else None
        length = int(n.group(1))
        until = _hour_of(b.group(1)) if (b := re.search(r"before (\S+?)\?", q)) else 18 * 60
        gaps = [(x, y) for x, y in _free(on, event.end if event else 0, until) if y - x >= length]
        if not gaps:
            return None
        return _clock(gaps[0][0]) if m.group(1).lower() == "earliest" else _clock(gaps[-1][1] - length)
    if re.search(r"most scheduled event time", q, re.I):
        total = {d: sum(e.minutes for e in events if e.day == d) for d in DAYS}
        best = max(total, key=lambda d: total[d])
        return f"{best}, {_hours(total[best])} hours"
    if m := re.search(r"considering only (\w+) and (\w+).*?not '([^']+)'", q, re.I):
        days = {m.group(1), m.group(2)}
        return str(sum(e.minutes for e in events if e.day in days and m.group(3).lower() not in e.title.lower()))
    if re.search(r"longest single event", q, re.I):
        return max(events, key=lambda e: e.minutes).day if events else None
    if m := re.search(r"how many events start at (\S+(?: [AP]M)?)", q, re.I):
        return str(sum(e.start == _hour_of(m.group(1)) for e in events))
    if m := re.search(r"how many (\d+)-minute events", q, re.I):
        return str(sum(e.minutes == int(m.group(1)) for e in events))
    if re.search(r"how many (?:total )?events are scheduled for", q, re.I):
        return str(len(on))
    if m := re.search(r"duration of the (.+?) event \(in hours\)", q, re.I):
        e = _named(events, m.group(1))
        return _hours(e.minutes) if e else None
    if quoted and re.search(r"how many minutes long", q, re.I):
        e = _named(on, quoted.group(1))
        return str(e.minutes) if e else None
    if re.search(r"total number of hours scheduled", q, re.I):
        return _hours(sum(e.minutes for e in on))
    if re.search(r"which event .*ends the latest", q, re.I) and on:
        last = max(on, key=lambda e: e.end)
        return f"{last.title}, {_clock(last.end, twelve=True)}"
    if m := re.search(r"how many events are exactly (\d+(?:\.\d+)?) hours? long", q, re.I):
        return str(sum(e.minutes == round(float(m.group(1)) * 60) for e in events))
    if re.search(r"start time of the earliest event", q, re.I) and on:
        return _clock(min(e.start for e in on), twelve=True)
    if quoted and re.search(r"how many days have an event called", q, re.I):
        return str(len({e.day for e in events if quoted.group(1).lower() in e.title.lower()}))
    if re.search(r"which day has the most individual events", q, re.I):
        return max(DAYS, key=lambda d: sum(e.day == d for e in events))
    if re.search(r"list all events that occur on", q, re.I):
        return ", ".join(e.title for e in sorted(on, key=lambda e: e.start))
    if quoted and re.search(r"^is there", q, re.I):
        return "Yes" if any(quoted.group(1).lower() in e.title.lower() for e in on) else "No"
    return None


def _question_lines(text: str) -> list[str]:
    """The page's questions in order (its content and what is visible beside it): lines that ask one or
    are numbered, without their numbers; not the element list's lines nor a table's."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("|", "#", "[", "<", "(End")):
            continue
        numbered = re.match(r"\d+\\?\.\s+", line)
        if "?" in line or numbered:
            out.append(line[numbered.end():] if numbered else line)
    return list(dict.fromkeys(out))


def questions_of_fields(listing: Listing, fields: list[Element]) -> list[str]:
    """Each answer field's question: its label when that asks one, else the page's question its row
    starts with, else the page's next question."""
    lines = _question_lines(listing.content)
    out: list[str] = []
    for field in fields:
        start = re.sub(r"^\d+\.\s*", "", field.context.rstrip("…").strip())
        if "?" in field.label:
            out.append(re.sub(r"^\d+\.\s*", "", field.label))
        elif start and (line := next((q for q in lines if q.startswith(start)), None)):
            out.append(line)
        else:
            out.append(next((q for q in lines if q not in out), ""))
    return out


@first(r"calendar comprehension")
def _calendar(d: GameDesk) -> Policy:
    """Read the week from the calendar's table, answer each question in its field, check."""
    events = week_events(d.listing.content)
    if not events:
        raise GiveUp("listing gap", "The calendar's days and events are not laid out where I can read them.")
    fields = _fields(d.listing)
    questions = questions_of_fields(d.listing, fields)
    if not fields:
        raise GiveUp("listing gap", "I found no field to answer in.")
    for question, field in zip(questions, fields, strict=True):
        said = answer_about_week(question, events) if question else None
        if said is None:
            raise GiveUp("no plan", f"I cannot work out from the calendar the answer to: {question[:120]!r}")
        yield from d.fill(field, said)
    yield from _click(d, _need(d.listing.find("Check Answers", roles=BUTTONS), "the Check Answers button"))
    yield from _read(d)
    raise GiveUp("no password", "I answered every question from the calendar's table; no password showed.")


@first(r"text mirror")
def _mirror_to_the_last_line_break(d: GameDesk) -> Policy:
    """The policy's copy of the text; where the page refuses it, the same text with the line break a
    code's last line ends with (a Markdown code block does not show whether the text has one)."""
    try:
        return (yield from _mirror(d))
    except GiveUp as gave_up:
        fenced = re.search(r"^```[^\n]*\n(.*?)\n```", d.listing.content, re.S | re.M)
        if gave_up.kind != "no password" or not fenced:
            raise
    area = _need(next(iter(_fields(d.listing)), None), "the text area")
    yield from d.fill(area, fenced.group(1) + "\n")
    yield from _click(d, _need(d.listing.find("Submit", roles=BUTTONS), "the Submit button"))
    yield from _read(d)
    raise GiveUp("no password", "I copied the code as read_page shows it, with and without its last line break; "
                 "no password showed.")


# -- files to download and read -------------------------------------------------------------------------

def _downloaded(d: GameDesk, name: str) -> Policy:
    """Wait for the download called ``name`` to be done (list_downloads), then read it (read_download)."""
    d.need("read_download", "read the downloaded file")
    for _ in range(10):
        listed = yield from d.call("list_downloads")
        line = next((ln for ln in listed.splitlines() if name in ln), "")
        if " — done" in line:
            (read,) = yield from d.run(Call("read_download", {"name": name}))
            return read
        if re.search(r" — (denied|cancelled|failed)", line):
            raise GiveUp("denied", f"The download of {name} did not go through: {line}")
        yield from d.call("wait_for", text="(a moment passes)", timeout_s=1)
    raise GiveUp("action failed", f"The download of {name} never finished.")


def _download_name(said: str) -> str:
    m = re.search(r"started a download: ([^\s(]+)", said)
    if not m:
        raise GiveUp("action failed", f"Clicking the download button started no download: {said[:160]}")
    return m.group(1)


@first(r"file credentials")
def _file_credentials(d: GameDesk) -> Policy:
    """The credentials in a file to download: download it, read it, log in with what it says. Where
    the page shows them itself, the policy's own plan."""
    download = next((e for e in d.listing.elements if e.role in BUTTONS and "download" in e.label.lower()), None)
    if download is None:  # the credentials are on the page
        return (yield from _credentials(d))
    name = _download_name((yield from d.click(download)))
    read = yield from _downloaded(d, name)  # its "password: ..." is the login's, not the challenge's
    if read.startswith("The picture "):
        raise GiveUp("no plan", f"The credentials are in the picture {name}, which read_download showed me; "
                     "this policy cannot read words in a picture.")
    user, secret = _credential(read, "Username"), _credential(read, "Password")
    if not user or not secret:
        raise GiveUp("no plan", f"The file {name} names no username and password I can read.")
    fields = _fields(d.listing)
    if len(fields) < 2:
        raise GiveUp("listing gap", "I could not find the username and password fields.")
    yield from d.fill(fields[0], user)
    yield from d.fill(fields[1], secret)
    yield from d.click(_need(d.listing.find("Login", roles=BUTTONS), "the Login button"))
    yield from _read(d)
    raise GiveUp("no password", "I logged in with the credentials of the downloaded file; no password showed.")


def resume_facts(text: str) -> dict[str, str]:
    """What a résumé's text says, by its sections (as a reader finds them): name, e-mail, phone, the
    university and its degree, the latest job's employer and title, the first skills, the first project."""
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.strip().startswith(("<", "(End of untrusted", "[file ", "[This is the end"))]
    text = "\n".join(lines)
    facts: dict[str, str] = {}
    if lines:
        facts["name"] = lines[0]
    if m := re.search(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text):
        facts["email"] = m.group(0)
    if m := re.search(r"\(\d{3}\) \d{3}-\d{4}|\+?\d[\d ().-]{7,}\d", text):
        facts["phone"] = m.group(0)

    def section(title: str) -> list[str]:
        at = next((i for i, ln in enumerate(lines) if ln.lower() == title.lower()), None)
        if at is None:
            return []
        heads = {"education", "work experience", "key projects", "professional skills", "professional summary",
                 "skills", "projects", "experience"}
        end = next((j for j in range(at + 1, len(lines)) if lines[j].lower() in heads), len(lines))
        return lines[at + 1:end]

    education = section("Education")
    for i, ln in enumerate(education):
        if re.search(r"university|college", ln, re.I):
            facts["education"] = ln
            if i + 1 < len(education):
                facts["degree"] = education[i + 1]
            break
    work = section("Work Experience")
    if len(work) >= 2:
        facts["employer"] = work[0]
        facts["title"] = re.sub(r"\s*\d{4}\s*-\s*(\d{4}|Present)$", "", work[1]).strip()
    projects = section("Key Projects")
    if projects:
        facts["project"] = projects[0]
    for line in section("Professional Skills") or section("Skills"):
        if m := re.match(r"([A-Z][\w ]+?):\s*(.+)", line):  # "Technology: Digital Forensics, ..."
            facts[f"{m.group(1).lower()} skill"] = m.group(2).split(",")[0].strip()
    return facts


_RESUME_FIELDS = (("full name", "name"), ("email", "email"), ("phone", "phone"), ("university", "education"),
                  ("college", "education"), ("education", "education"), ("degree", "degree"),
                  ("employer", "employer"), ("company", "employer"), ("title", "title"), ("project", "project"))


def resume_answer(label: str, facts: dict[str, str]) -> str | None:
    """What the résumé says for a form's field, by its label ("Technology Skill": that line's first)."""
    label = label.lower()
    if m := re.match(r"(\w+) skill", label):
        return facts.get(f"{m.group(1)} skill")
    key = next((k for words, k in _RESUME_FIELDS if words in label), None)
    return facts.get(key) if key else None


@first(r"resume detective|mock resume")
def _resume(d: GameDesk) -> Policy:
    """Download the résumé, read it (read_download), fill the form from it, submit."""
    button = _need(d.listing.find("Download Resume", roles=BUTTONS), "the download button")
    name = _download_name((yield from d.click(button)))
    facts = resume_facts((yield from _downloaded(d, name)))
    yield from _read(d)
    for field in _fields(d.listing):
        said = resume_answer(field.label, facts)
        if said is None:
            raise GiveUp("no plan", f"I do not know what to put in the field {field.label!r} from the résumé.")
        yield from d.fill(field, said)
    submit = next((e for e in d.listing.elements if e.role in BUTTONS and e.label.lower().startswith("submit")), None)
    yield from d.click(_need(submit, "the Submit button"))
    yield from d.call("wait_for", text="(a moment passes)", timeout_s=2)
    listing = yield from _read(d)
    raise GiveUp("no password", "I filled the form from the résumé and submitted it; no password showed: "
                 + " ".join(listing.content.split())[:200])


# -- a shopping list in a read-only field ----------------------------------------------------------------

_UNITS = re.compile(r"^(?:bunch(?:es)?|heads?|blocks?|packs?|bags?|bottles?|boxes|box|pieces?)\s+of\s+", re.I)
_PACK_WORDS = {"single": 1, "dozen": 12, "six": 6, "twelve": 12, "pair": 2}


def _singular(word: str) -> str:
    if word.endswith("oes"):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def shopping_items(listing: str) -> list[tuple[int, str]]:
    """The list's lines as (how many, what): "8 bananas (hint: ...)" is (8, "banana")."""
    out = []
    for line in listing.split("\n"):
        m = re.match(r"\s*(\d+)\s+(.+)", line)
        if not m:
            continue
        what = _UNITS.sub("", re.sub(r"\(.*?\)", "", m.group(2)).strip().lower())
        words = what.split()
        out.append((int(m.group(1)), " ".join([*words[:-1], _singular(words[-1])]) if words else what))
    return out


def pack_size(row: str) -> int:
    """How many units a product's row says it holds: "(12x)", "bunch of six", "Single", else 1."""
    if m := re.search(r"\((\d+)x\)|\b(?:of|pack of)\s+(\d+)\b", row, re.I):
        return int(m.group(1) or m.group(2))
    for word, size in _PACK_WORDS.items():
        if re.search(rf"\b(?:of|a|pack of a)\s+{word}\b", row, re.I) or (word == "single" and
                                                                          re.search(r"\bsingle\b", row, re.I)):
            return size
    return 1


def cheapest(quantity: int, offers: list[tuple[int, float]]) -> float | None:
    """The least that buys exactly ``quantity`` units from packs (size, price), else at least that many."""
    best: list[float | None] = [0.0] + [None] * (quantity + max(s for s, _ in offers))
    for n in range(1, len(best)):
        costs = [c + p for s, p in offers if s <= n and (c := best[n - s]) is not None]
        best[n] = min(costs) if costs else None
    if best[quantity] is not None:
        return best[quantity]
    above = [c for c in best[quantity:] if c is not None]
    return min(above) if above else None


def _offers(listing: Listing, what: str) -> list[tuple[int, float]]:
    """The (pack size, price) of each listed product whose row names ``what`` (its words whole)."""
    words = r"\s+".join(re.escape(w) for w in what.split())
    offers = []
    for element in listing.elements:
        row = element.context
        price = re.search(r"\$(\d+(?:\.\d\d)?)\s*$", row)
        if element.label.lower().startswith("add to cart") and price and re.search(rf"\b{words}(?:e?s)?\b", row, re.I):
            offers.append((pack_size(row), float(price.group(1))))
    if not offers and sum(e.label.lower().startswith("add to cart") for e in listing.elements) == 1:
        # One product found: its button has no row to tell it by; its words and price are the page's text.
        text = listing.content
        prices = list(re.finditer(r"\$(\d+(?:\.\d\d)?)", text))
        if len(prices) == 1 and re.search(rf"\b{words}(?:e?s)?\b", text, re.I):
            offers.append((pack_size(text[max(0, prices[0].start() - 150):prices[0].start()]),
                           float(prices[0].group(1))))
    return offers


@first(r"shopping challenge")
def _shopping(d: GameDesk) -> Policy:
    """Look each item of the list up with the shop's search, buy it the cheapest way (packs and
    singles), and give the total."""
    box = next((e for e in d.listing.elements if e.role == "textarea" and e.value), None)
    items = shopping_items(_need(box, "the shopping list").value or "")
    if not items:
        raise GiveUp("listing gap", "The shopping list names no items I can read.")
    total = 0.0
    for quantity, what in items:
        search = _need(next((e for e in d.listing.elements if e.role in ("textbox", "searchbox")
                             and "search" in e.label.lower()), None), "the search box")
        button = _need(next((e for e in d.listing.elements if e.role in BUTTONS and e.label == "Search"), None),
                       "the Search button")
        results = yield from d.run(Call("fill_form", {"index": search.index, "text": what}),
                                   Call("click_element", {"index": button.index}), Call("read_page", {}))
        d.before, d.listing = d.listing, Listing.of(results[-1])
        offers = _offers(d.listing, what)
        cost = cheapest(quantity, offers) if offers else None
        if cost is None:
            raise GiveUp("no plan", f"The shop's search for {what!r} showed no product I could buy it as.")
        total += cost
    field = _need(d.listing.find("Enter total price"), "the total price field")
    yield from d.fill(field, f"{total:.2f}")
    yield from _click(d, _need(d.listing.find("Check Price", roles=BUTTONS), "the Check Price button"))
    yield from _read(d)
    raise GiveUp("no password", f"I gave the cheapest total I worked out ({total:.2f}); no password showed.")
