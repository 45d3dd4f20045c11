"""Streaming answers made speakable: Markdown in, one spoken sentence at a time out.

``SentenceChunker.feed(delta)`` takes the answer's text as it streams (``ChatDelta``) and
returns the sentences completed by it, each already said the way a person would read it: a
fenced code block becomes "A code block." once, a link its text, a bare address "a link",
headings and list items their words, emphasis and table bars dropped. The very first piece
may be a clause ("Sure, ") so speech starts before the first sentence is complete;
``flush()`` returns what is left when the answer ends. ``announcement(step)`` words a tool
the agent starts ("Reading the page.") for an optional spoken note. Pure text, no audio.
"""

from __future__ import annotations

import re

from jawad_desktop.core.events import AgentStep

__all__ = ["CODE_BLOCK", "SentenceChunker", "announcement", "speakable_sentence"]

CODE_BLOCK = "A code block."

_FENCES = ("```", "~~~")
# A list marker, a heading's hashes or a quote's ">" at the start of a line.
_LINE_MARKER = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)]|#{1,6}|>+)\s+")
# The end of a sentence: its punctuation (and closing quotes or brackets) before a space.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_CLAUSE_END = re.compile(r"[,;:—–](?=\s)")
_FIRST_CLAUSE_MIN = 12  # characters: a shorter first clause ("So,") is not worth its own synthesis
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "mr.", "mrs.", "ms.", "dr.", "st.", "no.")

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_URL = re.compile(r"<?https?://[^\s>)]+>?")
_INLINE_CODE = re.compile(r"`+([^`]*)`+")
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_STRAY_MARKS = re.compile(r"[*_#|~`>]+")


def speakable_sentence(raw: str) -> str:
    """One line or sentence of Markdown as it is said aloud ("" when nothing is worth saying)."""
    text = raw.strip()
    if not text or _RULE.match(text) or _TABLE_SEPARATOR.match(text):
        return ""
    if text.startswith("|"):  # a table row: its cells, in order
        text = ", ".join(cell.strip() for cell in text.strip("|").split("|") if cell.strip())
    marker = _LINE_MARKER.match(text)
    if marker:
        text = text[marker.end():]
    text = _IMAGE.sub(lambda m: m.group(1) or "an image", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _URL.sub("a link", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _HTML_TAG.sub(" ", text)
    text = _STRAY_MARKS.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    if not any(ch.isalnum() for ch in text):
        return ""
    if marker and text[-1] not in ".!?…:;,":
        text += "."  # a heading or a list item ends with a pause
    return text


class SentenceChunker:
    """Cuts a streaming Markdown answer into speakable sentences as soon as each is complete."""

    def __init__(self, *, early_clause: bool = True) -> None:
        self._buffer = ""
        self._early = early_clause
        self.emitted = 0  # speakable pieces returned so far

    def feed(self, delta: str) -> list[str]:
        """Add streamed text; returns the sentences it completed (maybe none)."""
        self._buffer += delta
        return self._drain(final=False)

    def flush(self) -> list[str]:
        """The answer ended: what is left, spoken too (an unclosed code block is still "a code block")."""
        return self._drain(final=True)

    def _drain(self, *, final: bool) -> list[str]:
        out: list[str] = []
        while True:
            unit = self._next_unit(final=final)
            if unit is None:
                break
            raw, consumed = unit
            self._buffer = self._buffer[consumed:]
            spoken = CODE_BLOCK if raw is CODE_BLOCK else speakable_sentence(raw)
            if spoken:
                out.append(spoken)
                self.emitted += 1
            if not self._buffer:
                break
        return out

    def _next_unit(self, *, final: bool) -> tuple[str, int] | None:
        buffer = self._buffer
        body = buffer.lstrip()
        lead = len(buffer) - len(body)
        if not body:
            if buffer and final:
                return "", len(buffer)
            return None
        if body.startswith(_FENCES):
            return self._code_block(body, lead, final=final)
        if not final and len(body) < 3 and ("```".startswith(body) or "~~~".startswith(body)):
            return None  # maybe the start of a fence
        newline = body.find("\n")
        line = body if newline < 0 else body[:newline]
        marker = _LINE_MARKER.match(line)
        start = marker.end() if marker else 0
        for match in _SENTENCE_END.finditer(line if newline >= 0 or not final else line + " ", start):
            end = match.end()
            if self._is_abbreviation(line[:end]):
                continue
            if end >= len(line):
                break  # the line's own end: taken whole below
            return line[:end], lead + end
        if newline >= 0:
            return line, lead + newline + 1
        if final:
            return line, len(buffer)
        if self._early and self.emitted == 0:
            clause = _CLAUSE_END.search(line, start + _FIRST_CLAUSE_MIN)
            if clause is not None:
                return line[: clause.end()], lead + clause.end()
        return None

    @staticmethod
    def _is_abbreviation(text: str) -> bool:
        tail = text.rsplit(None, 1)[-1].casefold() if text.strip() else ""
        return tail in _ABBREVIATIONS

    @staticmethod
    def _code_block(body: str, lead: int, *, final: bool) -> tuple[str, int] | None:
        fence = body[:3]
        close = body.find("\n" + fence, 3)
        if close < 0:
            return (CODE_BLOCK, lead + len(body)) if final else None
        after = body.find("\n", close + 1 + len(fence))
        if after < 0:
            if not final and body[close + 1 + len(fence):].strip("`~ \t"):
                return None
            return (CODE_BLOCK, lead + len(body)) if final or body.endswith(fence) else None
        return CODE_BLOCK, lead + after + 1


def announcement(step: AgentStep) -> str:
    """A tool the agent starts, said briefly ("Reading the page."); "" for anything else."""
    if step.state != "tool" or not step.doing:
        return ""
    words = step.doing.strip()
    if words.startswith("using "):
        return ""  # a tool without words of its own says nothing worth hearing
    words = _URL.sub("a page", words)
    return words[:1].upper() + words[1:] + "."
