"""The data-flow check: values the agent read on one site must not leave for another without a yes.

``DataFlow`` is the taint record of a session: every text the agent read (page readings, tool
results, MCP results) is recorded with the site it came from, as data-like *values* (e-mail
addresses, phone numbers, order/account/tracking numbers, codes with digits, street addresses,
names after a label, tokens) and as four-word *phrases*. A value shown inside a link on a page
also counts as known to that link's site (following a search result is not a leak). What the
user typed is theirs: a value or phrase the user said is never taint.

``DataFlow.leaks(outgoing, destination)`` finds the recorded values and phrases in what a call
would send (its arguments, the URL it opens, a form's values and action) that were read on a
site other than ``destination``; an e-mail address the user did not give is a destination too
(``recipients``): a same-site form that mails what was read to it sends it to the address's site.
``HarborGate`` puts every call that leaves through it: such a
call always asks, shows the values and where they would go, and is never approved by a level,
a grant or "allow for this site" (a yes is for that one call); without a person it is denied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from jawad_desktop.core.sites import site_of

__all__ = ["DataFlow", "Leak", "describe_leaks", "extract_values", "outgoing_strings"]

MAX_VALUES = 20_000  # values kept per session (the oldest go first)
MAX_PHRASES = 200_000
_SHOWN = 4  # values named in a question

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{6,}\d(?!\w)")
_DIGITS = re.compile(r"(?<![\w])\d{5,}(?![\w])")
_CODE = re.compile(r"(?<![\w-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w-])")
_STREET = re.compile(
    r"\b\d{1,5}[a-zA-Z]?,?\s+(?:[A-Z][\w'.-]*\s+){0,3}(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Lane|Ln|Dr|"
    r"Drive|Way|Court|Ct|Place|Pl|Square|Sq|Terrace|Close|Crescent|Highway|Hwy|Parkway|Pkwy)\b\.?"
    r"|\b(?:Rue|Avenue|Boulevard|Calle|Via|Rua)\s+(?:[\w'-]+\s+){0,3}\d{1,5}\b"
    r"|\b[A-Z][\w-]*(?:straße|strasse|weg|gasse|platz|laan|straat)\s+\d{1,5}[a-z]?\b",
)
_NAME = re.compile(r"\b(?:name|full name|customer|recipient|ship to|deliver to|billing name|account holder|"
                   r"cardholder)\s*:\s*([A-Z][\w'-]+(?:[ \t]+[A-Z][\w'-]+){0,3})", re.IGNORECASE)
_TOKEN = re.compile(r"(?<![\w/+=-])(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_-]{24,}={0,2}"
                    r"|(?<![\w])[0-9a-fA-F]{16,}(?![\w])")
_DATE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}")
_URL = re.compile(r"https?://[^\s\"'<>)\]]+")
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset("a an and are as at be by for from has have i in is it its me my of on or our the this to us "
                  "was we with you your".split())


@dataclass(frozen=True, slots=True)
class Leak:
    """A value that would leave: what it is (as read), its kind, and the site it was read on."""

    value: str
    kind: str
    source: str


@dataclass(slots=True)
class _Seen:
    shown: str
    kind: str
    sites: set[str] = field(default_factory=set)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def extract_values(text: str) -> list[tuple[str, str]]:
    """The data-like values in ``text``: (value as written, kind). A value inside one found
    before (the digits of an order code, of an e-mail address) is not found again."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    spans: list[tuple[int, int]] = []

    def add(match: re.Match[str], kind: str, group: int = 0) -> None:
        start, end = match.span(group)
        if any(a <= start and end <= b for a, b in spans):
            return
        spans.append((start, end))
        value = match.group(group).strip(" .,;:()")
        key = _norm(value)
        if key and key not in seen:
            seen.add(key)
            found.append((value, kind))

    for match in _EMAIL.finditer(text):
        add(match, "e-mail address")
    for match in _STREET.finditer(text):
        add(match, "address")
    for match in _NAME.finditer(text):
        add(match, "name", 1)
    for match in _TOKEN.finditer(text):
        add(match, "token")
    for match in _PHONE.finditer(text):
        if sum(ch.isdigit() for ch in match.group()) >= 7 and not _DATE.fullmatch(match.group()):
            add(match, "phone number")
    for match in _CODE.finditer(text):
        code = match.group()
        if sum(ch.isdigit() for ch in code) >= 2 and len(code.replace("-", "")) >= 5:
            add(match, "number")
    for match in _DIGITS.finditer(text):
        add(match, "number")
    return found


def _phrases(text: str) -> list[str]:
    """Every four words in a row with at least two that carry meaning."""
    words = _WORD.findall(text.casefold())
    out = []
    for i in range(len(words) - 3):
        window = words[i:i + 4]
        if sum(1 for w in window if w not in _STOP and len(w) >= 3) >= 2:
            out.append(" ".join(window))
    return out


def _readable(text: str) -> str:
    """``text`` as a server would read it: URL escapes decoded (``12+Elm%20St`` is ``12 Elm St``)."""
    try:
        return unquote_plus(text)
    except (TypeError, ValueError):
        return text


def outgoing_strings(arguments: Mapping[str, Any] | Iterable[Any] | Any) -> list[str]:
    """Every string in a call's arguments (nested lists and objects included)."""
    out: list[str] = []
    stack: list[Any] = [arguments]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set)):
            stack.extend(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool) and abs(item) >= 10_000:
            out.append(str(item))  # an order number given as a number is still the number
    return out


class DataFlow:
    """The values the agent read this session, each with the sites it was read on."""

    def __init__(self) -> None:
        self._values: dict[str, _Seen] = {}
        self._phrases: dict[str, set[str]] = {}
        self._user: list[str] = []  # the user's own words, normalised

    # -- recording --------------------------------------------------------------------------

    def record(self, text: str, site: str) -> None:
        """``text`` was read on ``site`` (a page reading, a tool or MCP result)."""
        site = site_of(site) or site.strip().lower()
        if not text or not site:
            return
        self._remember(text, site)
        # A link on the page to another site, with a value in it, makes that value that site's too.
        for match in _URL.finditer(text):
            host = site_of(match.group())
            if host and host != site:
                self._remember(_readable(match.group()), host)

    def note_user(self, text: str) -> None:
        """The user said ``text`` (their values are theirs to send)."""
        norm = _norm(_readable(text)) if "%" in text else _norm(text)
        if norm and norm not in self._user:
            self._user.append(norm)
            del self._user[:-50]

    def clear(self) -> None:
        self._values.clear()
        self._phrases.clear()

    def _remember(self, text: str, site: str) -> None:
        for value, kind in extract_values(text):
            seen = self._values.get(_norm(value))
            if seen is None:
                if len(self._values) >= MAX_VALUES:
                    self._values.pop(next(iter(self._values)))
                seen = self._values[_norm(value)] = _Seen(value, kind)
            seen.sites.add(site)
        for phrase in _phrases(text):
            sites = self._phrases.get(phrase)
            if sites is None:
                if len(self._phrases) >= MAX_PHRASES:
                    self._phrases.pop(next(iter(self._phrases)))
                sites = self._phrases[phrase] = set()
            sites.add(site)

    # -- checking ---------------------------------------------------------------------------

    def leaks(self, outgoing: Iterable[str], destination: str, user_texts: Iterable[str] = ()) -> list[Leak]:
        """The recorded values in ``outgoing`` read on a site other than ``destination``.

        Values and phrases the user said (here or in ``user_texts``) are the user's own: never a leak.
        """
        destination = site_of(destination) or destination.strip().lower()
        if not destination or (not self._values and not self._phrases):
            return []
        said = " \n ".join([*self._user, *(_norm(t) for t in user_texts if t)])
        texts = [_readable(t) for t in outgoing if t]
        sent = " \n ".join(_norm(t) for t in texts)
        if not sent:
            return []
        found: dict[str, Leak] = {}
        for value, _kind in extract_values("\n".join(texts)):
            seen = self._values.get(_norm(value))
            if seen is not None:
                self._flag(found, seen.shown, seen.kind, seen.sites, destination, said)
        # Values written differently in the call than where they were read (an address split by "+").
        for key, seen in self._values.items():
            if key in found or len(key) < 5 or key not in sent:
                continue
            self._flag(found, seen.shown, seen.kind, seen.sites, destination, said)
        covered = " \n ".join(" ".join(_WORD.findall(f.value.casefold())) for f in found.values())
        for text in texts:
            self._flag_phrases(found, _WORD.findall(text.casefold()), destination, said, covered)
        return list(found.values())

    def recipients(self, outgoing: Iterable[str], user_texts: Iterable[str] = ()) -> list[str]:
        """The e-mail addresses in ``outgoing`` the user did not give. What a form sends to one of them
        (a "share by e-mail" form, a message's To field) goes to that address's site, whichever site
        the form is on."""
        said = " \n ".join([*self._user, *(_norm(t) for t in user_texts if t)])
        found: list[str] = []
        for text in outgoing:
            for match in _EMAIL.finditer(_readable(text) if text else ""):
                address = match.group().strip(".").casefold()
                if address not in said and address not in found:
                    found.append(address)
        return found

    def _flag_phrases(self, found: dict[str, Leak], words: list[str], destination: str, said: str,
                      covered: str) -> None:
        """Runs of read four-word phrases in ``words``, shown as one stretch of text each."""
        hits: list[tuple[int, set[str]]] = []
        for i in range(len(words) - 3):
            phrase = " ".join(words[i:i + 4])
            seen = self._phrases.get(phrase)
            if seen is not None and destination not in seen and phrase not in said and phrase not in covered:
                hits.append((i, seen))
        # Hits whose words touch or overlap are one stretch of the page's text.
        groups: list[tuple[int, int, set[str]]] = []
        for i, seen in hits:
            if groups and i <= groups[-1][1]:
                first, _, sites = groups[-1]
                groups[-1] = (first, i + 4, sites | seen)
            else:
                groups.append((i, i + 4, set(seen)))
        for first, last, sites in groups:
            self._flag(found, " ".join(words[first:last]), "text", sites, destination, said)

    @staticmethod
    def _flag(found: dict[str, Leak], shown: str, kind: str, sites: set[str], destination: str, said: str) -> None:
        key = _norm(shown)
        if key in found or destination in sites or key in said:
            return
        if kind in ("number", "phone number") and _digits_only(key) and _digits_only(key) in _digits_only(said):
            return  # the user's own number, written with other spaces or dashes
        found[key] = Leak(value=shown, kind=kind, source=sorted(sites)[0])


def _digits_only(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit()) if any(ch.isdigit() for ch in text) else ""


def describe_leaks(leaks: list[Leak], destination: str) -> str:
    """The question's sentence: "It would send 'A-10442' and '12 Elm St' (read on shop.example) to evil.example"."""
    by_source: dict[str, list[str]] = {}
    for leak in leaks[:_SHOWN]:
        by_source.setdefault(leak.source, []).append(f"'{leak.value[:80]}'")
    parts = []
    for source, values in by_source.items():
        listed = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
        parts.append(f"{listed} (read on {source})")
    more = f" and {len(leaks) - _SHOWN} more" if len(leaks) > _SHOWN else ""
    return f"It would send {'; '.join(parts)}{more} to {destination or 'another site'}"
