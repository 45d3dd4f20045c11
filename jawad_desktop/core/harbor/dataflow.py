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

**In any disguise.** A value is found however the call writes it (``core.harbor.disguises``): in
other case or spacing, separators dropped or changed, digits regrouped (``1234-5678`` is
``12 345 678``), URL-encoded (twice), base64 (either alphabet, padded or not, of the value or of a
JSON or query string holding it, cut anywhere), hex, or split over an address's parameters, path
segments, sub-domain labels or a form's fields, in any order. Each value is kept in its canonical
form too (letters and digits, case-folded; a number's digits alone), and the call's strings are
decoded into candidates compared with it; what cannot be read through within the budget (more
than four encodings deep, a string over a million characters) counts as a leak, so it asks. This
holds in every channel that passes the gate: an address opened, a web search, a link followed, a
form's fields and action, typed text, an MCP tool's arguments, an e-mail address (the address
itself too: ``QS0xMDQ0Mg@evil.example``). An address's host and port are where a link goes, not
values read (the port of the page's own address is no order number).

**Addresses the assistant composes** (``DataFlow.composed``). An address the assistant opens on a
site other than the page's (``navigate``, a web search), once something was read on another site,
asks for what it carries of its own making: the pieces of the address (``disguises.url_pieces``:
user name, sub-domain labels, path segments, query keys and values, fragment) that are not in a link
or form read on a page for that site (``record_links``; an address in a page's text counts), not the
user's own words (the whole address, or words the user said), not the search engine's own address,
and not one of the few words addresses are built of (``search``, ``q``, ``wiki``...). Such a call
asks, names the pieces, and like a leak is approved by no level, grant or ``--allow`` and is
denied without a person. What this leaves without a question, by choice: an address that is only a
site (``https://example.com/``, no path, query, fragment or sub-domain: it carries nothing but the
choice of site, and the issue asks that what is carried be shown), an address made only of the
user's words or of a link read for that site, and any address before anything was read elsewhere
(there is nothing yet it could carry).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from jawad_desktop.core.harbor.disguises import Outgoing, canonical, index_values, url_pieces
from jawad_desktop.core.sites import site_of

__all__ = ["DataFlow", "Leak", "describe_composed", "describe_leaks", "extract_values", "outgoing_strings"]

MAX_VALUES = 20_000  # values kept per session (the oldest go first)
MAX_PHRASES = 200_000
MAX_LINK_PIECES = 100_000  # pieces of links read, over all sites
_SHOWN = 4  # values named in a question

# Each starts only where its run of letters starts: a long run without an "@" (a base64 blob) is
# scanned once, not once from each of its characters.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Where a message goes: every local part e-mail allows ("QS0xMDQ0Mg==@evil.example" is an address too).
_RECIPIENT = re.compile(r"(?<![\w.!#$%&'*+/=?^`{|}~-])[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+")
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
_AUTHORITY = re.compile(r"(?<=://)[^/\s\"'<>?#]+")  # an address's host and port: where it goes, not data read
_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset("a an and are as at be by for from has have i in is it its me my of on or our the this to us "
                  "was we with you your".split())
# The words addresses are built of: they carry nothing of what was read.
_ADDRESS_WORDS = frozenset("search q query s find results result wiki index html htm php aspx page pages home "
                           "en lang hl".split())
_MIN_CANON = 5  # a canonical value shorter than this is not looked for in disguise (too many false alarms)
_MIN_CANON_LETTERS = 6  # for a value of letters only


@dataclass(frozen=True, slots=True)
class Leak:
    """A value that would leave: what it is (as read), its kind, the site it was read on, and how
    it was disguised when it was not sent as read (``base64``, ``split over the address's parts``...)."""

    value: str
    kind: str
    source: str
    how: str = ""


@dataclass(slots=True)
class _Seen:
    shown: str
    kind: str
    sites: set[str] = field(default_factory=set)

    def forms(self) -> list[str]:
        """The canonical forms it is looked for in: letters and digits; a number's digits alone."""
        canon = canonical(self.shown)
        letters_only = not any(ch.isdigit() for ch in canon)
        forms = [canon] if len(canon) >= (_MIN_CANON_LETTERS if letters_only else _MIN_CANON) else []
        if self.kind in ("number", "phone number"):
            digits = "".join(ch for ch in canon if ch.isdigit())
            if len(digits) >= _MIN_CANON and digits not in forms:
                forms.append(digits)
        return forms


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
        self._links: dict[str, set[str]] = {}  # site -> canonical pieces of links and forms read for it
        self._sites: set[str] = set()  # sites something was read on
        self._canon: dict[str, list[str]] | None = None  # canonical form -> value keys (built when needed)

    # -- recording --------------------------------------------------------------------------

    def record(self, text: str, site: str) -> None:
        """``text`` was read on ``site`` (a page reading, a tool or MCP result)."""
        site = site_of(site) or site.strip().lower()
        if not text or not site:
            return
        self._sites.add(site)
        self._remember(text, site)
        # A link on the page to another site, with a value in it, makes that value that site's too.
        links = [match.group() for match in _URL.finditer(text)]
        for link in links:
            host = site_of(link)
            if host and host != site:
                self._remember(_readable(link), host)
        self.record_links(links)

    def record_links(self, urls: Iterable[str]) -> None:
        """Links and form actions read on a page (or in a tool's result): opening one is following the
        page, not an address the assistant composed. A link's own links (a search result's redirect
        carrying the address it leads to) count too."""
        for url in urls:
            self._add_link(url)
            for piece in url_pieces(url)[:20]:
                if piece.startswith(("http://", "https://")):
                    self._add_link(piece)

    def _add_link(self, url: str) -> None:
        site = site_of(url)
        if not site or not url.startswith(("http://", "https://")):
            return
        pieces = self._links.setdefault(site, set())
        pieces.update(p for p in map(canonical, url_pieces(url)) if p)
        if sum(len(p) for p in self._links.values()) > MAX_LINK_PIECES:
            self._links.pop(next(iter(self._links)))

    def note_user(self, text: str) -> None:
        """The user said ``text`` (their values are theirs to send)."""
        norm = _norm(_readable(text)) if "%" in text else _norm(text)
        if norm and norm not in self._user:
            self._user.append(norm)
            del self._user[:-50]

    def clear(self) -> None:
        self._values.clear()
        self._phrases.clear()
        self._links.clear()
        self._sites.clear()
        self._canon = None

    def _remember(self, text: str, site: str) -> None:
        text = _AUTHORITY.sub(" ", text) if "://" in text else text
        for value, kind in extract_values(text):
            seen = self._values.get(_norm(value))
            if seen is None:
                if len(self._values) >= MAX_VALUES:
                    self._values.pop(next(iter(self._values)))
                seen = self._values[_norm(value)] = _Seen(value, kind)
                self._canon = None
            seen.sites.add(site)
        for phrase in _phrases(text):
            sites = self._phrases.get(phrase)
            if sites is None:
                if len(self._phrases) >= MAX_PHRASES:
                    self._phrases.pop(next(iter(self._phrases)))
                sites = self._phrases[phrase] = set()
            sites.add(site)

    def _canonical(self) -> dict[str, list[str]]:
        """Canonical form -> the keys of the values that have it (rebuilt after new values)."""
        if self._canon is None:
            canon: dict[str, list[str]] = {}
            for key, seen in self._values.items():
                for form in seen.forms():
                    canon.setdefault(form, []).append(key)
            self._canon = canon
        return self._canon

    # -- checking ---------------------------------------------------------------------------

    def leaks(self, outgoing: Iterable[str], destination: str, user_texts: Iterable[str] = ()) -> list[Leak]:
        """The recorded values in ``outgoing`` read on a site other than ``destination``, in any
        disguise (``core.harbor.disguises``).

        Values and phrases the user said (here or in ``user_texts``) are the user's own: never a leak.
        """
        destination = site_of(destination) or destination.strip().lower()
        if not destination or (not self._values and not self._phrases):
            return []
        said = " \n ".join([*self._user, *(_norm(t) for t in user_texts if t)])
        sent_out = Outgoing([t for t in outgoing if t])
        plain = [c.text for c in sent_out.candidates if not c.how]
        sent = " \n ".join(_norm(t) for t in plain)
        if not sent:
            return []
        said_canon = canonical(said)
        found: dict[str, Leak] = {}
        if sent_out.unchecked:  # what cannot be read through is not waved through
            elsewhere = sorted({s for seen in self._values.values() for s in seen.sites} - {destination})
            if elsewhere:
                found[""] = Leak(value=sent_out.unchecked, kind="unchecked", source=elsewhere[0])
        for value, _kind in extract_values("\n".join(plain)):
            seen = self._values.get(_norm(value))
            if seen is not None:
                self._flag(found, seen, destination, said, said_canon)
        # Values written differently in the call than where they were read (an address split by "+").
        for key, seen in self._values.items():
            if key in found or len(key) < 5 or key not in sent:
                continue
            self._flag(found, seen, destination, said, said_canon)
        # In disguise: other case, spacing or separators, encoded, split (the least disguised first).
        canon = self._canonical()
        for form, candidate in sent_out.find(index_values(canon)).items():
            for key in canon.get(form, ()):
                self._flag(found, self._values[key], destination, said, said_canon, how=candidate.how)
        covered = " \n ".join(" ".join(_WORD.findall(f.value.casefold())) for f in found.values())
        for words, candidate in sent_out.words():
            self._flag_phrases(found, words, destination, said, covered, how=candidate.how)
        return list(found.values())

    def composed(self, url: str, *, current_site: str = "", user_texts: Iterable[str] = (),
                 fixed: str = "") -> list[str]:
        """What ``url``, an address the assistant chose to open, carries of its own making for a site
        other than ``current_site`` (see the module docstring); [] when it carries nothing so.

        ``fixed`` is the part that is not the assistant's (the search engine's own address)."""
        url = url.strip()
        target = url if "://" in url else "https://" + url.lstrip("/")
        site = site_of(target)
        if not site or site == site_of(current_site) or not (self._sites - {site}):
            return []
        users = [*self._user, *(_norm(t) for t in user_texts if t)]
        bare = _norm(target.split("://", 1)[1]).removeprefix("www.").rstrip("/")
        if any(bare in said for said in users):
            return []  # the user gave this address
        words = {w for said in users for w in _WORD.findall(said)}
        known = self._links.get(site, set()) | {canonical(p) for p in (url_pieces(fixed) if fixed else [])}
        return [piece for piece in url_pieces(target)
                if canonical(piece) not in known and not _in_words(piece, words)]

    def recipients(self, outgoing: Iterable[str], user_texts: Iterable[str] = ()) -> list[str]:
        """The e-mail addresses in ``outgoing`` the user did not give. What a form sends to one of them
        (a "share by e-mail" form, a message's To field) goes to that address's site, whichever site
        the form is on."""
        said = " \n ".join([*self._user, *(_norm(t) for t in user_texts if t)])
        found: list[str] = []
        for text in outgoing:
            for match in _RECIPIENT.finditer(_readable(text) if text else ""):
                local, _, domain = match.group().strip(".").casefold().rpartition("@")
                local = re.split(r"[/?&#]", local)[-1]  # an address in a URL's query: "?to=me@home.example"
                plain = local.rpartition("=")[2]  # "to=me" is "me"; "QS0xMDQ0Mg==" stays whole
                address = f"{plain or local}@{domain}"
                if address not in said and f"{local}@{domain}" not in said and address not in found:
                    found.append(address)
        return found

    def _flag_phrases(self, found: dict[str, Leak], words: list[str], destination: str, said: str,
                      covered: str, how: str = "") -> None:
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
            shown = " ".join(words[first:last])
            if any(shown in f.value for f in found.values() if f.kind == "text"):
                continue  # the same stretch, found again in a decoding of the call
            self._flag(found, _Seen(shown, "text", sites), destination, said, canonical(said), how=how)

    @staticmethod
    def _flag(found: dict[str, Leak], seen: _Seen, destination: str, said: str, said_canon: str,
              how: str = "") -> None:
        key = _norm(seen.shown)
        if key in found or destination in seen.sites or key in said:
            return
        if seen.kind in ("number", "phone number") and _digits_only(key) and _digits_only(key) in _digits_only(said):
            return  # the user's own number, written with other spaces or dashes
        forms = seen.forms()
        if forms and forms[0] in said_canon:
            return  # the user's own value, written otherwise
        found[key] = Leak(value=seen.shown, kind=seen.kind, source=sorted(seen.sites)[0], how=how)


def _in_words(piece: str, words: set[str]) -> bool:
    """Whether every word of ``piece`` is one the user said (or a word addresses are built of); a
    word the user said in another form (``shoe``, ``shoes``) counts."""
    for word in _WORD.findall(piece.casefold()):
        if word in words or word in _STOP or word in _ADDRESS_WORDS:
            continue
        if word.isalpha() and len(word) >= 4 and any(
                w[:4] == word[:4] and abs(len(w) - len(word)) <= 2 and (w.startswith(word) or word.startswith(w))
                for w in words):
            continue
        return False
    return True


def _digits_only(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit()) if any(ch.isdigit() for ch in text) else ""


def describe_leaks(leaks: list[Leak], destination: str) -> str:
    """The question's sentence: "It would send 'A-10442' and '12 Elm St' (read on shop.example) to evil.example";
    a disguised value says how: "'A-10442' (base64)"."""
    by_source: dict[str, list[str]] = {}
    for leak in leaks[:_SHOWN]:
        shown = leak.value if leak.kind == "unchecked" else f"'{leak.value[:80]}'"
        by_source.setdefault(leak.source, []).append(shown + (f" ({leak.how})" if leak.how else ""))
    parts = []
    for source, values in by_source.items():
        listed = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
        parts.append(f"{listed} (read on {source})")
    more = f" and {len(leaks) - _SHOWN} more" if len(leaks) > _SHOWN else ""
    return f"It would send {'; '.join(parts)}{more} to {destination or 'another site'}"


def describe_composed(pieces: list[str], destination: str) -> str:
    """The question's sentence for an address the assistant composed: what it carries, decoded where
    it is encoded: "It would send 'QS0xMDQ0Mg' (base64 of 'A-10442') to evil.example in an address ..."."""
    shown = []
    for piece in pieces[:_SHOWN + 2]:
        decoded = next((c for c in Outgoing([piece]).candidates if c.how in ("base64", "hex")), None)
        text = f"'{piece[:60]}'"
        if decoded is not None:
            text += f" ({decoded.how} of '{' '.join(decoded.text.split())[:60]}')"
        shown.append(text)
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    more = f" and {len(pieces) - len(shown)} more" if len(pieces) > len(shown) else ""
    return (f"It would send {listed}{more} to {destination or 'another site'} in an address the assistant "
            "composed itself (not a link read on a page, not your own words)")
