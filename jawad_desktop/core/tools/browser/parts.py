"""A long page's content in parts: the split, the outline, and finding text anywhere in it.

``read_page`` shows the main content one part at a time, so nothing is cut silently: the
first read gives part 1 with an outline (each heading and the part it is in),
``read_page(part=N)`` gives the others, and ``find_in_page(query)`` searches all of them.

``PageParts(markdown, size)`` splits Markdown into parts of at most ``size`` characters at
heading boundaries, else paragraph, line, sentence and word boundaries (a cut lands inside a
word only when a single "word" is longer than a part, such as a long URL); a cut never leaves a
heading at the end of a part apart from its text. Joined again, the parts hold every
non-blank character of the text: only the whitespace at the cuts is dropped.

Pure functions on text: no page, no Qt, no model.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from jawad_desktop.core.lazy_pattern import LazyPattern

__all__ = ["PART_CHARS", "Found", "Heading", "PageParts", "Passage", "part_chars_for"]

PART_CHARS = 6_000  # the most content characters one read_page shows
MIN_PART_CHARS = 800
OUTLINE_HEADINGS = 60
OUTLINE_CHARS = 2_500
PASSAGES = 8  # passages find_in_page shows
PASSAGE_CHARS = 300
NEAR_CHARS = 250  # the words of a query count as found together within this span
HEADING_CHARS = 120  # a heading longer than this is shortened in the outline

_HEADING = LazyPattern(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)
_FENCE = LazyPattern(r"^ {0,3}(```|~~~)", re.M)
_PARAGRAPH = LazyPattern(r"\n[ \t]*\n\s*")
_LINE = LazyPattern(r"\n\s*")
_SENTENCE = LazyPattern(r"[.!?…。！？][\"'”’)\]]*\s+")
_WORD = LazyPattern(r"\s+")
_PUNCTUATION = "\"'“”‘’«»()[]{}<>.,;:!?¿¡*_`~"
_SPACE = LazyPattern(r"\s+")
# Left out of a query when it falls back to its words, unless nothing else is left.
_STOP_WORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were with".split())


def part_chars_for(limit: int) -> int:
    """The part size for a model that reads at most ``limit`` characters per tool result (0: no
    limit): ``PART_CHARS``, smaller when a part and the rest of a reading would not fit."""
    if not limit:
        return PART_CHARS
    return max(MIN_PART_CHARS, min(PART_CHARS, (limit - 1_000) // 2))


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading of the content: its level (1 for ``#``), text, part (from 1) and offset."""

    level: int
    text: str
    part: int
    offset: int


@dataclass(frozen=True, slots=True)
class Passage:
    """A stretch of text around a match: the part it is in and the heading above it."""

    part: int
    heading: str
    text: str


@dataclass(frozen=True, slots=True)
class Found:
    """What ``PageParts.find`` found.

    ``how``: "phrase" (the query as written), "words" (the phrase is absent but its words
    occur near each other) or "none". ``count``: how many matches in all; ``passages``: the
    first of them. For "none", ``words`` says how often each word occurs and in which parts.
    """

    query: str
    how: Literal["phrase", "words", "none"]
    count: int
    parts: int
    passages: tuple[Passage, ...] = ()
    words: tuple[tuple[str, int, tuple[int, ...]], ...] = ()

    def summary(self) -> str:
        """One sentence on what was found (the model's query, no page text)."""
        query = f'"{self.query}"'
        where = "the page" if self.parts <= 1 else f"the page ({self.parts} parts searched)"
        if self.how == "none":
            text = f"{query} is not on {where}."
            if len(self.words) > 1:
                text += " Its words do not occur together; apart: " + "; ".join(
                    f'"{word}" {_times(n)}{_in_parts(in_parts)}' for word, n, in_parts in self.words) + "."
            return text + " Try other words, or read_page(part=N) to read a part."
        if self.how == "phrase":
            text = f"{query} is on {where} {_times(self.count)}"
        else:
            text = (f"The exact phrase {query} is not on {where}; its words occur near each other "
                    f"{_times(self.count)}")
        if len(self.passages) < self.count:
            text += f" (shown in {len(self.passages)} passages)"
        return text + ". read_page(part=N) reads a whole part."

    def listing(self) -> str:
        """The passages, one a line: ``[part 3, under "Heading"] …text…`` (page text)."""
        lines = []
        for p in self.passages:
            under = f', under "{p.heading}"' if p.heading else ""
            lines.append(f"[part {p.part}{under}] {p.text}")
        return "\n".join(lines)


class PageParts:
    """``markdown`` split into parts of at most ``size`` characters, with its headings."""

    def __init__(self, markdown: str, size: int = PART_CHARS) -> None:
        self.markdown = markdown
        self.size = max(1, size)
        heads = _heading_matches(markdown)
        self._heading_starts = {m.start() for m in heads}
        self.spans = _split(markdown, self.size, sorted(self._heading_starts))
        self._starts = [s for s, _ in self.spans]
        self.headings = [Heading(level=len(m.group(1)), text=_heading_text(m.group(2)),
                                 part=self.part_of(m.start()), offset=m.start()) for m in heads]
        self._heading_offsets = [h.offset for h in self.headings]

    def __len__(self) -> int:
        return max(1, len(self.spans))

    def part(self, number: int) -> str:
        """Part ``number`` (from 1); "" for a page without content."""
        if not self.spans:
            return ""
        start, end = self.spans[number - 1]
        return self.markdown[start:end]

    def __iter__(self) -> Iterator[str]:
        return (self.markdown[s:e] for s, e in self.spans)

    def part_of(self, offset: int) -> int:
        """The part (from 1) holding the character at ``offset`` (the one before, in a cut's gap)."""
        return max(1, bisect.bisect_right(self._starts, offset))

    # -- the outline --------------------------------------------------------------------------

    def outline(self, max_headings: int = OUTLINE_HEADINGS, max_chars: int = OUTLINE_CHARS) -> str:
        """The headings with the part each is in, as a nested list; the deepest levels are left
        out first when there are more than ``max_headings``, and what is left out is said.
        A content without headings gets each part's opening words instead. "" for one part."""
        if len(self) <= 1:
            return ""
        if not self.headings:
            lines = [f"- part {n}: {_opening(text)}" for n, text in enumerate(self, 1)]
            return _capped(lines, max_headings, max_chars, "parts")
        shown = self.headings
        dropped_levels = ""
        for deepest in sorted({h.level for h in self.headings}, reverse=True):
            if len(shown) <= max_headings:
                break
            fewer = [h for h in shown if h.level < deepest]
            if not fewer:
                break
            shown = fewer
        if len(shown) < len(self.headings):
            dropped_levels = f"{len(self.headings) - len(shown)} deeper headings not listed"
        top = min(h.level for h in shown)
        lines = [f"{'  ' * (h.level - top)}- {h.text} (part {h.part})" for h in shown]
        text = _capped(lines, max_headings, max_chars, "headings")
        return text + (f"\n(... {dropped_levels})" if dropped_levels else "")

    # -- finding --------------------------------------------------------------------------------

    def find(self, query: str, max_passages: int = PASSAGES, width: int = PASSAGE_CHARS) -> Found:
        """Where ``query`` is in the whole content, case-insensitively: the phrase as written
        (whatever the spaces, line breaks and emphasis marks between its words), else its words
        near each other (within ``NEAR_CHARS``), each match with its part."""
        query = " ".join(query.split())
        parts = len(self)
        tokens = query.split(" ") if query else []
        if not tokens:
            return Found(query=query, how="none", count=0, parts=parts)
        phrase = re.compile(r"[*_`]*\s+[*_`]*".join(re.escape(t) for t in tokens), re.I)
        spans = [(m.start(), m.end()) for m in phrase.finditer(self.markdown)]
        how: Literal["phrase", "words", "none"] = "phrase"
        count = len(spans)
        words = _query_words(query)
        if not spans and len(words) > 1:
            how = "words"
            spans = _near(self.markdown, words, NEAR_CHARS)
            count = len(spans)
            spans = sorted(sorted(spans, key=lambda s: s[1] - s[0])[:max_passages])  # the tightest ones
        if not spans:
            counts = tuple((w, len(o), tuple(sorted({self.part_of(i) for i in o})))
                           for w in words for o in [_occurrences(self.markdown, w)])
            return Found(query=query, how="none", count=0, parts=parts, words=counts)
        return Found(query=query, how=how, count=count, parts=parts,
                     passages=tuple(self._passages(spans, max_passages, width)))

    def _passages(self, spans: list[tuple[int, int]], most: int, width: int) -> Iterator[Passage]:
        shown_until = -1
        count = 0
        for start, end in spans:
            if count >= most:
                return
            if start < shown_until:  # already inside the passage before
                continue
            left, right = _window(self.markdown, start, end, width)
            shown_until = right
            count += 1
            text = " ".join(self.markdown[left:right].split())
            text = ("…" if left > 0 else "") + text + ("…" if right < len(self.markdown) else "")
            yield Passage(part=self.part_of(start), heading=self._heading_before(start), text=text)

    def _heading_before(self, offset: int) -> str:
        index = bisect.bisect_right(self._heading_offsets, offset) - 1
        return self.headings[index].text if index >= 0 else ""


# -- splitting ------------------------------------------------------------------------------------


def _heading_matches(text: str) -> list[re.Match[str]]:
    """ATX headings outside fenced code blocks."""
    fences = [m.start() for m in _FENCE.finditer(text)]
    found = []
    for m in _HEADING.finditer(text):
        if bisect.bisect_left(fences, m.start()) % 2 == 0:  # an even number of fences before: outside code
            found.append(m)
    return found


def _heading_text(raw: str) -> str:
    text = re.sub(r"[*_`]+", "", raw).strip()
    return text if len(text) <= HEADING_CHARS else text[:HEADING_CHARS - 1].rstrip() + "…"


Cuts = Callable[[int, int], list[int]]


def _split(text: str, size: int, heading_starts: list[int]) -> list[tuple[int, int]]:
    """Spans of ``text`` of at most ``size`` characters, without the whitespace at their ends."""
    def after_heading(cut: int) -> bool:
        """Whether the last line before ``cut`` is a heading (a cut there orphans it)."""
        j = cut
        while j > 0 and text[j - 1].isspace():
            j -= 1
        index = bisect.bisect_left(heading_starts, j) - 1  # the last heading starting before j
        return index >= 0 and text.find("\n", heading_starts[index], j) == -1

    def at_headings(start: int, end: int) -> list[int]:
        lo, hi = bisect.bisect_right(heading_starts, start), bisect.bisect_left(heading_starts, end)
        return [cut for cut in heading_starts[lo:hi] if not after_heading(cut)]

    def after(pattern: LazyPattern) -> Cuts:
        def cuts(start: int, end: int) -> list[int]:
            return [m.end() for m in pattern.finditer(text, start, end)
                    if start < m.end() < end and not after_heading(m.end())]
        return cuts

    levels: list[Cuts] = [at_headings, after(_PARAGRAPH), after(_LINE), after(_SENTENCE), after(_WORD)]

    def split(start: int, end: int, level: int) -> list[tuple[int, int]]:
        if _stripped_len(text, start, end) <= size:
            return [(start, end)]
        if level == len(levels):  # one "word" longer than a part
            return [(i, min(i + size, end)) for i in range(start, end, size)]
        bounds = [start, *levels[level](start, end), end]
        if len(bounds) == 2:
            return split(start, end, level + 1)
        out: list[tuple[int, int]] = []
        current: tuple[int, int] | None = None
        for s, e in itertools.pairwise(bounds):
            if _stripped_len(text, s, e) > size:
                if current:
                    out.append(current)
                    current = None
                out.extend(split(s, e, level + 1))
            elif current and _stripped_len(text, current[0], e) <= size:
                current = (current[0], e)
            else:
                if current:
                    out.append(current)
                current = (s, e)
        if current:
            out.append(current)
        return out

    spans = []
    for s, e in split(0, len(text), 0):
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))
    return spans


def _stripped_len(text: str, start: int, end: int) -> int:
    """The length of ``text[start:end]`` without its trailing whitespace (which a cut drops)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end - start


# -- the outline ----------------------------------------------------------------------------------


def _opening(text: str, chars: int = 70) -> str:
    words = " ".join(text.split())
    if len(words) <= chars:
        return f'"{words}"'
    cut = words.rfind(" ", 0, chars)
    return f'"{words[:cut if cut > chars // 2 else chars]}…"'


def _capped(lines: list[str], most: int, chars: int, what: str) -> str:
    kept: list[str] = []
    used = 0
    for line in lines[:most]:
        if kept and used + len(line) + 1 > chars:
            break
        kept.append(line)
        used += len(line) + 1
    if len(kept) < len(lines):
        kept.append(f"- ... {len(lines) - len(kept)} more {what} (find_in_page finds text in any part)")
    return "\n".join(kept)


# -- finding --------------------------------------------------------------------------------------


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _in_parts(numbers: tuple[int, ...], most: int = 10) -> str:
    if not numbers:
        return ""
    shown = ", ".join(map(str, numbers[:most])) + (f" and {len(numbers) - most} more" if len(numbers) > most else "")
    return f" (part{'s' * (len(numbers) > 1)} {shown})"


def _query_words(query: str) -> list[str]:
    """The query's words, without the punctuation around them ("9.1.1" and "1,249.00" stay whole)."""
    words = list(dict.fromkeys(w for w in (t.strip(_PUNCTUATION).casefold() for t in query.split()) if w))
    meaningful = [w for w in words if w not in _STOP_WORDS and (len(w) > 1 or w.isdigit())]
    return meaningful or words


def _occurrences(text: str, word: str) -> list[int]:
    """Where words starting with ``word`` start (so "kettle" also finds "kettles"); a word of
    one or two characters ("3", "xl") only as a whole word."""
    whole = r"(?!\w)" if len(word) <= 2 else ""
    return [m.start() for m in re.finditer(r"(?<!\w)" + re.escape(word) + whole, text, re.I)]


def _near(text: str, words: list[str], span: int) -> list[tuple[int, int]]:
    """Non-overlapping stretches of at most ``span`` characters holding every one of ``words``:
    the shortest window ending at each occurrence, left to right."""
    events = sorted((pos, i, pos + len(w)) for i, w in enumerate(words) for pos in _occurrences(text, w))
    found: list[tuple[int, int]] = []
    last: dict[int, tuple[int, int]] = {}  # word -> its latest occurrence (start, end)
    floor = 0  # occurrences before this belong to a stretch already found
    for pos, i, end in events:
        if pos < floor:
            continue
        last[i] = (pos, end)
        if len(last) < len(words):
            continue
        start = min(s for s, _ in last.values())
        if end - start <= span:
            found.append((start, end))
            floor = end
            last.clear()
    return found


def _window(text: str, start: int, end: int, width: int) -> tuple[int, int]:
    """About ``width`` characters around ``text[start:end]``, the match in the middle, ending
    on word boundaries."""
    middle = (start + end) // 2
    left = max(0, min(start, middle - width // 2))
    right = min(len(text), max(end, left + width))
    left = max(0, min(left, right - width, start))
    if left > 0 and not text[left - 1].isspace():
        gap = _SPACE.search(text, left, start)
        left = gap.end() if gap else left
    if right < len(text) and not text[right].isspace():
        space = next((i for i in range(right - 1, end - 1, -1) if text[i].isspace()), -1)
        right = space if space != -1 else right
    return left, right
