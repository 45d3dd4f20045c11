"""What outgoing text could carry once its disguises are taken off: the data-flow check's eyes.

A value read on one site may leave for another written differently from where it was read: in
other case or spacing, with its separators dropped or changed, URL-encoded (twice), in base64
(standard or URL-safe, padded or not, of the value or of a JSON or query string holding it), in
hex, split over a URL's parameters or path segments or over a form's fields, digits regrouped.
``Outgoing`` takes what a call sends apart into *candidates*: every string, each decoding of it
(URL escapes, HTML entities, base64 from each of the four character offsets, so a value inside a
longer encoded text is found wherever it falls; hex from both offsets; JSON), each part of a URL
(userinfo, host labels, path segments, query keys and values, fragment) and the parts joined, in
order and in any order. Layers are decoded again, within a budget (``MAX_DEPTH`` encodings one
inside another, ``MAX_CANDIDATES`` strings, ``MAX_CHARS`` characters, ``MAX_TEXT`` a string); what
the budget leaves unread is said (``Outgoing.unchecked``) and the data-flow check asks for it.

``canonical`` is the form values are compared in: letters and digits only, case-folded (``A-10442``,
``a 10442``, ``a_10442`` are all ``a10442``; ``1234-5678`` and ``12 345 678`` are ``12345678``).
``Outgoing.find`` looks canonical values up in every candidate at once and refuses a match that
starts or ends inside a run of digits (``10442`` is not in the port ``410442``), or, for a value
of letters only, inside a word.

``url_pieces`` is what an address carries beside its site: the user name and password,
sub-domain labels, path segments, query keys and values, the fragment (``dataflow``'s rule for
addresses the assistant composes).
"""

from __future__ import annotations

import base64
import binascii
import html
import itertools
import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit

__all__ = ["MAX_CANDIDATES", "MAX_DEPTH", "Candidate", "Outgoing", "canonical", "index_values", "url_pieces"]

MAX_DEPTH = 4  # encodings (base64, hex) taken off one inside another
MAX_CANDIDATES = 2_000  # strings looked at for one call
MAX_TEXT = 1_000_000  # characters of one string looked at (a longer one is not checked: it asks)
MAX_CHARS = 4_000_000  # characters of all candidates of one call
_MAX_JOINED = 4  # parts joined in every order up to this many (24 orders); more only in order and reversed
_MAX_PART = 300  # longer strings are not joined (a split value's parts are short)
_KEY = 5  # characters of a canonical value its index is keyed on

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{10,}")
_WORDS = re.compile(r"[^\W_]+")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]{3,}")
_WORDISH = re.compile(r"[^\W_]{3,}")
_URL = re.compile(r"(?:https?|ftp|wss?)://[^\s\"'<>]+")


def canonical(text: str) -> str:
    """Letters and digits only, case-folded: the form values are compared in."""
    return "".join(_WORDS.findall(text.casefold()))


@dataclass(frozen=True, slots=True)
class Candidate:
    """One string the call may carry, and how it was found (``""``: as sent, or as a server reads it)."""

    text: str
    how: str = ""


def url_pieces(url: str) -> list[str]:
    """What ``url`` carries beside its site, decoded: user name and password, sub-domain labels (not
    ``www``), path segments, query keys and values, and the fragment (its own keys and values when
    it is written as a query). Empty for an address that is only a site."""
    return [piece for group in _url_groups(url) for piece in group]


def _url_groups(url: str) -> list[list[str]]:
    """``url_pieces`` by where they are: userinfo, sub-domain labels, path segments, keys, values."""
    try:
        parts = urlsplit(url if "://" in url else "https://" + url.lstrip("/"))
        host = parts.hostname or ""
        user, password = parts.username, parts.password
    except ValueError:
        return [[url]]
    labels = host.split(".")
    subdomains: list[str] = []
    if not re.fullmatch(r"[\d.]+|\[?[0-9a-f:]+\]?", host):  # an IP address has no labels of its own
        keep = 3 if len(labels) >= 3 and len(labels[-2]) <= 3 and len(labels[-1]) == 2 else 2  # shop.co.uk
        subdomains = [label for label in labels[:-keep] if label not in ("www", "m")]
    keys: list[str] = []
    values: list[str] = []
    for query in (parts.query, parts.fragment):
        if not query:
            continue
        pairs = parse_qsl(query, keep_blank_values=True)
        if pairs and ("=" in query or "&" in query):
            keys += [key for key, _ in pairs if key]
            values += [value for _, value in pairs if value]
        else:
            values.append(unquote_plus(query))
    return [[unquote(p) for p in (user, password) if p], subdomains,
            [unquote(segment) for segment in parts.path.split("/") if segment], keys, values]


@dataclass
class Outgoing:
    """What one call sends, taken apart into candidates (see the module docstring)."""

    texts: list[str]
    candidates: list[Candidate] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)
    _canon: str = ""
    _starts: list[int] = field(default_factory=list)  # where each candidate's canonical form starts in _canon
    _runs: list[int] = field(default_factory=list)  # for each character of _canon, the run of the text it is in
    # Why part of what is sent could not be checked ("" when all of it was): the call is then treated
    # as carrying what was read (``DataFlow.leaks``), not waved through.
    unchecked: str = ""

    def __post_init__(self) -> None:
        too_long = [t for t in self.texts if len(t) > MAX_TEXT]
        if too_long:
            self.unchecked = f"a text of {len(too_long[0]):,} characters, too long to check"
        # (text, how it was found, encodings taken off to find it)
        queue: list[tuple[str, str, int]] = [(t[:MAX_TEXT], "", 0) for t in self.texts if t]
        strings = [t for t, _, _ in queue]
        for joined in _joined(strings):  # a value split over a form's fields or a call's arguments
            queue.append((joined, "split over several fields", 0))
        i = chars = 0
        while i < len(queue):
            text, how, layers = queue[i]
            i += 1
            if text in self._seen:
                continue
            if len(self.candidates) >= MAX_CANDIDATES or chars + len(text) > MAX_CHARS:
                if layers:
                    self.unchecked = "encoded text with more layers or parts than can be checked"
                continue
            self._seen.add(text)
            chars += len(text)
            self.candidates.append(Candidate(text, how))
            for child, child_how in _children(text):
                encoded = child_how in ("base64", "hex")
                if encoded and layers >= MAX_DEPTH:
                    if child not in self._seen:
                        self.unchecked = "encoded text with more layers or parts than can be checked"
                    continue
                queue.append((child, _how(how, child_how), layers + encoded))
        self._index()

    # -- the canonical index ---------------------------------------------------------------------

    def _index(self) -> None:
        chunks: list[str] = []
        runs: list[int] = []
        offset = run = 0
        for candidate in self.candidates:
            self._starts.append(offset)
            for match in _WORDS.finditer(candidate.text.casefold()):
                word = match.group()
                run += 1
                chunks.append(word)
                runs.extend([run] * len(word))
                offset += len(word)
            chunks.append("\n")  # never part of a value: candidates do not run into each other
            runs.append(-1)
            offset += 1
        self._canon = "".join(chunks)
        self._runs = runs

    def find(self, values: dict[str, list[str]]) -> dict[str, Candidate]:
        """The canonical values (``values``: each value's first ``_KEY`` characters -> the values) found
        in a candidate, each with the first candidate (the least disguised) it was found in."""
        found: dict[str, Candidate] = {}
        canon, runs = self._canon, self._runs
        for start in range(len(canon) - _KEY + 1):
            bucket = values.get(canon[start:start + _KEY])
            if not bucket:
                continue
            for value in bucket:
                if value in found or not canon.startswith(value, start):
                    continue
                end = start + len(value)
                if _inside_run(canon, runs, start, end, value):
                    continue
                found[value] = self.candidates[bisect_right(self._starts, start) - 1]
        return found

    def words(self) -> Iterator[tuple[list[str], Candidate]]:
        """The words of each candidate, for the check of read phrases."""
        for candidate in self.candidates:
            yield _WORDS.findall(candidate.text.casefold()), candidate


def _inside_run(canon: str, runs: list[int], start: int, end: int, value: str) -> bool:
    """Whether a match begins or ends inside a run of digits (or, for a value of letters only, of
    letters) of the text it was found in: ``10442`` in ``410442`` is another number."""
    letters_only = not any(ch.isdigit() for ch in value)

    def glued(a: int, b: int) -> bool:
        if a < 0 or b >= len(canon) or runs[a] != runs[b] or runs[a] < 0:
            return False
        x, y = canon[a], canon[b]
        return (x.isdigit() and y.isdigit()) or (letters_only and x.isalpha() and y.isalpha())

    return glued(start - 1, start) or glued(end - 1, end)


def _how(outer: str, inner: str) -> str:
    if not inner:
        return outer
    if not outer:
        return inner
    return f"{outer}, {inner}" if inner not in outer else outer


def _joined(parts: list[str]) -> Iterator[str]:
    """The parts joined: in order and reversed, and in every order when there are few."""
    parts = [p for p in parts if p and len(p) <= _MAX_PART]
    if len(parts) < 2:
        return
    if len(parts) <= _MAX_JOINED:
        for order in itertools.permutations(parts):
            yield "".join(order)
    else:
        yield "".join(parts)
        yield "".join(reversed(parts))


def _children(text: str) -> Iterator[tuple[str, str]]:
    """The decodings and parts of one candidate, each with how it was found."""
    if "%" in text or "+" in text:
        plain = unquote_plus(text)
        if plain != text:
            yield plain, ""
    if "&" in text:
        unescaped = html.unescape(text)
        if unescaped != text:
            yield unescaped, ""
    stripped = text.strip()
    if "://" in stripped[:12] or stripped.startswith("//"):
        groups = _url_groups(stripped)
        yield from ((piece, "") for group in groups for piece in group)
        userinfo, subdomains, path, keys, values = groups
        # A value split over the parameters, the path, the sub-domain labels, or the path and parameters.
        for group in (values, path, subdomains, userinfo, keys, path + values, subdomains + path + values):
            for joined in _joined(group[:8]):
                yield joined, "split over the address's parts"
    elif "://" in text:  # addresses inside a longer text (a message, a JSON value)
        yield from ((m.group(), "") for m in _URL.finditer(text))
    elif "=" in text and ("&" in text or ";" in text) and " " not in text.strip():
        values = [v for _, v in parse_qsl(text, keep_blank_values=False)]
        yield from ((v, "") for v in values)
        for joined in _joined(values):
            yield joined, "split over parameters"
    if stripped[:1] in "{[" and stripped[-1:] in "}]":
        try:
            strings = list(_json_strings(json.loads(stripped)))
        except ValueError:
            strings = []
        yield from ((s, "") for s in strings)
        for joined in _joined(strings):
            yield joined, "split over fields"
    squeezed = "".join(text.split())
    if squeezed != text and len(text) <= 2 * _MAX_PART and (_B64_RUN.search(squeezed) or _HEX_RUN.search(squeezed)):
        yield squeezed, "split by spaces"  # an encoded value broken over lines or words
    for match in _B64_RUN.finditer(text):
        run = match.group()
        # Plain words are no base64 (an encoding mixes cases and digits): not decoded.
        if sum((any(c.islower() for c in run), any(c.isupper() for c in run), any(c.isdigit() for c in run))) >= 2:
            yield from ((decoded, "base64") for decoded in _base64(run))
    for match in _HEX_RUN.finditer(text):
        if any(c.isdigit() for c in match.group()):
            yield from ((decoded, "hex") for decoded in _hex(match.group()))


def _json_strings(data: Any) -> Iterator[str]:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            yield str(item)


def _readable(raw: bytes) -> str | None:
    """Bytes as text when they are text, but for the edge a cut leaves (up to two bytes at each end:
    a piece of the quantum or of a character before or after); else None (noise, another offset's)."""
    for head in range(3):
        for tail in range(3):
            chunk = raw[head:len(raw) - tail]
            if len(chunk) < 4:
                return None
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if all(ch.isprintable() or ch in "\n\r\t" for ch in text) and (
                    _ASCII_WORD.search(text) or (len(text) >= 8 and _WORDISH.search(text))):
                return text
    return None


def _base64(run: str) -> Iterator[str]:
    """``run`` decoded as base64 (either alphabet, padded or not) from each of its first four
    characters: a value inside a longer encoded text, or a piece cut from one, is whole at one of them."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    for offset in range(4):
        part = body[offset:]
        part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part + "=" * (-len(part) % 4)
        if len(part) < 8:
            continue
        try:
            raw = base64.b64decode(part, validate=True)
        except (binascii.Error, ValueError):
            continue
        text = _readable(raw)
        if text is not None:
            yield text


def _hex(run: str) -> Iterator[str]:
    for offset in (0, 1):
        part = run[offset:]
        part = part[: len(part) - len(part) % 2]
        try:
            raw = bytes.fromhex(part)
        except ValueError:
            continue
        text = _readable(raw)
        if text is not None:
            yield text


def index_values(values: Iterable[str]) -> dict[str, list[str]]:
    """Canonical values keyed for ``Outgoing.find``."""
    out: dict[str, list[str]] = {}
    for value in values:
        if len(value) >= _KEY:
            out.setdefault(value[:_KEY], []).append(value)
    return out
