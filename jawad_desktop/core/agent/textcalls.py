"""Tool calls written in text, for models without native function calling, and the sanitiser.

Two formats are understood, whatever the prompt asked for, because small models mix them:

- spec 000's XML: ``<search_web query="shoes" />`` (self-closing, attributes) and
  ``<draft_email to="a@b.c">Body</draft_email>`` (with a body, which may hold child tags
  ``<query>shoes</query>`` or JSON). Only tags named after a known tool (or alias) count, so
  HTML in an answer is never mistaken for a call. Also ``<tool_call>{json}</tool_call>``.
- spec 004's JSON contract: ``{"type": "tool_call", "name": ..., "arguments": {...}}`` and
  ``{"type": "final", "content": ...}``, plus the shapes models drift to (``parameters``,
  OpenAI's ``{"function": {...}}``, lists of calls).

Parsing survives markdown fences, prose around calls, several calls in one reply, unknown
tags and unbalanced quotes, and never raises (fuzzed with hypothesis). ``clean_response``
makes what the user reads free of tool XML, hallucinated calls and fences around calls;
``StreamSanitizer`` does the same while the text streams, holding back only what might
turn out to be a call.
"""

from __future__ import annotations

import ast
import bisect
import functools
import json
import re
import warnings
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["xml", "json", "native"]


@dataclass(slots=True)
class ParsedCall:
    """A call found in text: the name as written, arguments, and where it was."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    body: str = ""  # XML element text, mapped onto a parameter by the repair step
    id: str = ""
    source: Source = "xml"
    span: tuple[int, int] = (0, 0)


@dataclass(slots=True)
class TextReply:
    """What a text reply holds: calls, a contract ``final`` answer, and the spans to hide."""

    calls: list[ParsedCall] = field(default_factory=list)
    final: str | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)


_WRAPPER_TAGS = ("tool_call", "tool_calls", "function_call", "function_calls", "tool_use", "invoke")
_MAX_JSON_ATTEMPTS = 2_000  # decode attempts per reply: bounds the work on brace-heavy text


@functools.lru_cache(maxsize=64)
def _open_tag_re(names: frozenset[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(n) for n in names if n), key=len, reverse=True))
    if not alternatives:
        alternatives = r"(?!x)x"  # matches nothing
    return re.compile(rf"<\s*({alternatives})(?=[\s/>]|$)", re.IGNORECASE)


_TAG_NAME = re.compile(r"[A-Za-z_][\w.:-]{0,80}")


def _tag_names(names: Iterable[str]) -> frozenset[str]:
    if isinstance(names, frozenset):
        return _tag_names_cached(names)
    return frozenset(n for n in names if _TAG_NAME.fullmatch(n))


@functools.lru_cache(maxsize=64)
def _tag_names_cached(names: frozenset[str]) -> frozenset[str]:
    return frozenset(n for n in names if _TAG_NAME.fullmatch(n))


_ATTR_NAME = re.compile(r"[A-Za-z_][\w.:-]*")


def _scan_attributes(text: str, pos: int) -> tuple[dict[str, str], int, bool]:
    """Attributes from ``pos`` to the tag's end: (attributes, index after the tag, self-closing).

    An unbalanced quote takes the value up to the tag's end, so ``<t q="abc />`` still gives
    ``q = "abc "``. Text that ends inside the tag ends the tag there.
    """
    attrs: dict[str, str] = {}
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch.isspace() or ch == ",":
            pos += 1
            continue
        if text.startswith("/>", pos):
            return attrs, pos + 2, True
        if ch == ">":
            return attrs, pos + 1, False
        match = _ATTR_NAME.match(text, pos)
        if not match:
            pos += 1  # stray character inside the tag: skip it
            continue
        key = match.group(0)
        pos = match.end()
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n or text[pos] not in "=:":
            attrs.setdefault(key, "true")
            continue
        pos += 1
        while pos < n and text[pos].isspace():
            pos += 1
        if pos < n and text[pos] in "\"'“”‘’":
            quote = text[pos]
            closing = {"“": "”", "‘": "’"}.get(quote, quote)
            end = text.find(closing, pos + 1)
            stop = _tag_end(text, pos + 1)
            if end == -1 or (stop != -1 and "\n" in text[pos + 1 : end] and end > stop):
                # Unbalanced: the value runs to the tag's end.
                end_at = stop if stop != -1 else n
                value = text[pos + 1 : end_at]
                attrs.setdefault(key, value.rstrip("/").rstrip())
                pos = end_at
                continue
            attrs.setdefault(key, text[pos + 1 : end])
            pos = end + 1
        else:
            start = pos
            while pos < n and not text[pos].isspace() and text[pos] != ">" and not text.startswith("/>", pos):
                pos += 1
            attrs.setdefault(key, text[start:pos])
    return attrs, n, True


def _tag_end(text: str, pos: int) -> int:
    """Index of the first ``/>`` or ``>`` at or after ``pos``, or -1."""
    gt = text.find(">", pos)
    if gt == -1:
        return -1
    return gt - 1 if gt > pos and text[gt - 1] == "/" else gt


def parse_xml_calls(text: str, names: Collection[str]) -> list[ParsedCall]:
    """Every XML call to a tool in ``names`` (names and aliases, case-insensitive), in order."""
    calls: list[ParsedCall] = []
    tags = _tag_names(names)
    pattern = _open_tag_re(tags)
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            break
        name = match.group(1)
        attrs, after, self_closing = _scan_attributes(text, match.end())
        end = after
        body = ""
        if not self_closing:
            close = re.compile(rf"<\s*/\s*{re.escape(name)}\s*>", re.IGNORECASE).search(text, after)
            if close is not None:
                body = text[after : close.start()].strip()
                end = close.end()
        calls.append(ParsedCall(name=name, arguments=dict(attrs), body=body, source="xml", span=(match.start(), end)))
        pos = max(end, match.end())
    return calls


_WRAPPER_RE = re.compile(
    r"<\s*(" + "|".join(_WRAPPER_TAGS) + r")\b[^>]*>(.*?)(?:<\s*/\s*\1\s*>|$)", re.IGNORECASE | re.DOTALL
)
# Where a JSON call can start: an object opening on a key, or a list of objects. Trying
# raw_decode at every brace is slow (each failure counts lines up to its position).
_CALL_KEYS = (
    "type|name|function|tool|tool_name|tool_call|tool_calls|function_call|tool_use|id|arguments|parameters"
)
_START_RE = re.compile(rf"\{{\s*\"(?:{_CALL_KEYS})\"|\[\s*\{{\s*\"(?:{_CALL_KEYS})\"")
_FENCE_RE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_decoder = json.JSONDecoder()
_INTERESTING_KEYS = frozenset(
    {"type", "name", "tool", "tool_name", "function", "tool_call", "tool_calls", "function_call", "tool_use"}
)


def loads_lenient(text: str) -> Any:
    """JSON as models write it: strict first, then without trailing commas, then Python literals
    (single quotes, True/None). Raises ``ValueError`` when none of them parse."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```[\w+-]*\s*|\s*```$", "", stripped)
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(_TRAILING_COMMA.sub(r"\1", stripped))
    except (ValueError, RecursionError):
        pass
    if len(stripped) <= 20_000:
        try:
            # A model's '\d' in a Python-style literal would print a warning on the terminal.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=(SyntaxWarning, DeprecationWarning))
                return ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    raise ValueError("not JSON")


def _call_from_object(obj: Any, names: Collection[str] | None, span: tuple[int, int]) -> list[ParsedCall]:
    """The calls a decoded JSON value stands for (possibly none)."""
    if isinstance(obj, list):
        found: list[ParsedCall] = []
        for item in obj[:50]:
            found.extend(_call_from_object(item, names, span))
        return found
    if not isinstance(obj, dict):
        return []
    for key in ("tool_call", "function_call", "tool_use"):
        inner = obj.get(key)
        if isinstance(inner, dict):
            return _call_from_object({"type": "tool_call", **inner}, names, span)
    if isinstance(obj.get("tool_calls"), list):
        return _call_from_object([{"type": "tool_call", **c} for c in obj["tool_calls"] if isinstance(c, dict)],
                                 names, span)
    function = obj.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str) and function["name"].strip():
        arguments = function.get("arguments", function.get("parameters", {}))
        call_id = str(obj.get("id") or "")
        return [ParsedCall(name=function["name"], arguments=_arguments(arguments), id=call_id,
                           source="json", span=span)]
    name = obj.get("name", obj.get("tool", obj.get("tool_name")))
    if not isinstance(name, str) or not name.strip():
        return []
    typed = str(obj.get("type", "")).lower() in ("tool_call", "function", "tool_use", "function_call", "tool")
    has_args = any(k in obj for k in ("arguments", "parameters", "args", "input"))
    if not typed and not (has_args and (names is None or _known(name, names))):
        return []
    arguments = next((obj[k] for k in ("arguments", "parameters", "args", "input") if k in obj), {})
    call_id = str(obj.get("id") or "")
    return [ParsedCall(name=name, arguments=_arguments(arguments), id=call_id, source="json", span=span)]


def _arguments(value: Any) -> dict[str, Any] | str:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return value
    if value is None:
        return {}
    return json.dumps(value, ensure_ascii=False, default=str)


def _known(name: str, names: Collection[str]) -> bool:
    from jawad_desktop.core.tools.registry import normalize_tool_name

    key = normalize_tool_name(name)
    return any(normalize_tool_name(n) == key for n in names)


def _final_from_object(obj: Any) -> str | None:
    if isinstance(obj, dict) and str(obj.get("type", "")).lower() in ("final", "answer", "response"):
        for key in ("content", "answer", "text", "message"):
            if isinstance(obj.get(key), str):
                return str(obj[key])
    return None


def parse_json_reply(text: str, names: Collection[str] | None = None) -> TextReply:
    """Calls and the contract's final answer found in ``text`` (spec 004).

    Objects without ``"type": "tool_call"`` count as calls only when they name a tool in
    ``names`` and carry arguments, so a product's ``{"name": ...}`` in an answer is not one.
    """
    reply = TextReply()
    pos = 0
    attempts = 0
    while attempts < _MAX_JSON_ATTEMPTS:
        match = _START_RE.search(text, pos)
        if match is None:
            break
        start = match.start()
        attempts += 1
        try:
            obj, end = _decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            continue
        if isinstance(obj, dict) and not _INTERESTING_KEYS.intersection(obj):
            pos = start + 1  # plain data (code, product JSON): look inside it too
            continue
        span = (start, end)
        final = _final_from_object(obj)
        calls = _call_from_object(obj, names, span)
        if final is not None and reply.final is None:
            reply.final = final
            reply.spans.append(span)
        elif calls:
            reply.calls.extend(calls)
            reply.spans.append(span)
        pos = end if (final is not None or calls) else start + 1
    if not reply.calls and reply.final is None:
        _lenient_fenced(text, names, reply)
    return reply


def _lenient_fenced(text: str, names: Collection[str] | None, reply: TextReply) -> None:
    """Fenced blocks in not-quite-JSON (single quotes, trailing commas) that hold a call."""
    for fence in _FENCE_RE.finditer(text):
        body = fence.group(2)
        if "name" not in body and "type" not in body:
            continue
        try:
            obj = loads_lenient(body)
        except ValueError:
            continue
        span = (fence.start(), fence.end())
        final = _final_from_object(obj)
        if final is not None and reply.final is None:
            reply.final = final
            reply.spans.append(span)
            continue
        calls = _call_from_object(obj, names, span)
        if calls:
            reply.calls.extend(calls)
            reply.spans.append(span)


def parse_text_reply(text: str, names: Collection[str]) -> TextReply:
    """Both formats at once: XML calls, wrapper tags holding JSON, and JSON contract objects.

    Calls are returned in the order they appear; overlapping finds are kept once.
    """
    reply = TextReply()
    for wrapper in _WRAPPER_RE.finditer(text):
        inner = parse_json_reply(wrapper.group(2), names=None)
        for call in inner.calls:
            call.span = (wrapper.start(), wrapper.end())
        if inner.calls:
            reply.calls.extend(inner.calls)
            reply.spans.append((wrapper.start(), wrapper.end()))
        elif "<" in wrapper.group(2):
            continue  # the XML scan below finds calls nested in the wrapper
        else:
            reply.spans.append((wrapper.start(), wrapper.end()))
    for call in parse_xml_calls(text, names):
        if not _inside(call.span, reply.spans):
            reply.calls.append(call)
            reply.spans.append(call.span)
    json_reply = parse_json_reply(text, names)
    for call in json_reply.calls:
        if not _inside(call.span, reply.spans):
            reply.calls.append(call)
    for span in json_reply.spans:
        if not _inside(span, reply.spans):
            reply.spans.append(span)
    reply.final = json_reply.final
    reply.calls.sort(key=lambda c: c.span[0])
    return reply


def _inside(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(s <= span[0] and span[1] <= e for s, e in spans)


# --- the sanitiser -------------------------------------------------------------------------

# A hallucinated self-closing call: <some_name attr="..." ... />
_HALLUCINATED = re.compile(r"<\s*[A-Za-z_][\w.-]*(?:\s+[\w.:-]+\s*=\s*(?:\"[^\"\n]*\"|'[^'\n]*'))+\s*/>")
_ORPHAN_WRAPPER = re.compile(r"<\s*/?\s*(?:" + "|".join(_WRAPPER_TAGS) + r")\b[^>\n]*>")
_BLANK_LINES = re.compile(r"\n{3,}")


def clean_response(text: str, names: Collection[str], reply: TextReply | None = None) -> str:
    """The reply as the user should read it (spec 000 cleanLLMResponse).

    Removes calls to known tools (XML, wrapper tags, JSON contract objects), fences whose
    content was only a call, hallucinated ``<name attr="..."/>`` calls outside code, and
    orphaned closing tags of tools. A contract ``final`` object gives its content. Code
    blocks that hold no call are left alone.
    """
    if not text:
        return ""
    found = reply if reply is not None else parse_text_reply(text, names)
    if found.final is not None and not found.calls:
        outside = _remove_spans(text, found.spans).strip()
        outside = _drop_empty_fences(outside)
        return (outside + "\n\n" + found.final).strip() if outside else found.final.strip()
    result = _remove_spans(text, found.spans)
    result = _drop_empty_fences(result)
    result = _strip_leftovers(result, _tag_names(names))
    return _BLANK_LINES.sub("\n\n", result).strip()


def _remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        pieces.append(text[pos : max(start, pos)])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


_EMPTY_FENCE = re.compile(r"```[ \t]*[\w+-]*[ \t]*\n?\s*```")


def _drop_empty_fences(text: str) -> str:
    return _EMPTY_FENCE.sub("", text)


@functools.lru_cache(maxsize=64)
def _leftovers_re(tags: frozenset[str]) -> re.Pattern[str]:
    """Leftovers to remove: hallucinated ``<name attr="..."/>`` calls, wrapper tags such as
    ``<tool_call>``, closing tags of known tools. One pattern opening on the literal ``<``
    so the regex engine skips ahead to each ``<`` instead of trying every position."""
    rests = [
        _HALLUCINATED.pattern.removeprefix("<"),
        "(?i:" + _ORPHAN_WRAPPER.pattern.removeprefix("<") + ")",
    ]
    if tags:
        names = "|".join(re.escape(n) for n in sorted(tags, key=len, reverse=True))
        rests.append(rf"(?i:\s*/\s*(?:{names})\s*>)")
    return re.compile("<(?:" + "|".join(rests) + ")")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks: from a ``` to the next one (or the end of the text)."""
    spans: list[tuple[int, int]] = []
    pos = text.find("```")
    while pos != -1:
        close = text.find("```", pos + 3)
        end = len(text) if close == -1 else close + 3
        spans.append((pos, end))
        pos = text.find("```", end) if close != -1 else -1
    return spans


def _strip_leftovers(text: str, tags: frozenset[str]) -> str:
    """The text with leftovers removed, except inside fenced code blocks."""
    if "<" not in text:
        return text
    spans = _code_spans(text)
    starts = [start for start, _ in spans]

    def replace(match: re.Match[str]) -> str:
        i = bisect.bisect_right(starts, match.start()) - 1
        inside = i >= 0 and match.start() < spans[i][1]
        return match.group(0) if inside else ""

    return _leftovers_re(tags).sub(replace, text)


class StreamSanitizer:
    """Sanitises streamed text: emits what is surely prose, holds back what may be a call.

    ``feed(chunk)`` returns text safe to show now; ``finish(clean)`` takes the final cleaned
    reply and returns what is left to show (empty when what was shown already diverged, in
    which case the final response event carries the authoritative text).
    """

    def __init__(self, names: Collection[str]) -> None:
        self._tags = [n.lower() for n in _tag_names(names)] + list(_WRAPPER_TAGS)
        self._raw: list[str] = []
        self._held = ""
        self._shown: list[str] = []

    @property
    def shown(self) -> str:
        return "".join(self._shown)

    def feed(self, chunk: str) -> str:
        self._raw.append(chunk)
        if self._held and self._held_is_call():
            self._held += chunk
            return ""
        text = self._held + chunk
        out: list[str] = []
        while text:
            i = _first_marker(text)
            if i == -1:
                out.append(text)
                text = ""
                break
            # Whitespace right before a call is held with it: the cleaned reply drops it.
            keep = len(text[:i].rstrip())
            out.append(text[:keep])
            verdict = self._judge(text[i:])
            if verdict == "prose":
                out.append(text[keep : i + 1])
                text = text[i + 1 :]
                continue
            text = text[keep:]
            break
        emitted = "".join(out)
        if not text:
            # Hold trailing whitespace and what may begin a marker ("`", "``", "{") until
            # the next chunk says what it is.
            tail = _TAIL.search(emitted)
            if tail is not None and tail.start() < len(emitted):
                text = emitted[tail.start() :]
                emitted = emitted[: tail.start()]
        self._held = text
        if emitted:
            self._shown.append(emitted)
        return emitted

    def _held_is_call(self) -> bool:
        return self._judge(self._held.lstrip()) == "call"

    def _judge(self, text: str) -> Literal["prose", "call", "unsure"]:
        """Whether text starting at a marker is prose, a (possible) call, or undecided yet."""
        if text.startswith("<"):
            match = re.match(r"<\s*/?\s*([\w.:-]*)", text)
            word = match.group(1).lower() if match else ""
            ended = match is not None and match.end() < len(text)
            if any(tag == word for tag in self._tags) and ended:
                return "call"
            if not ended and (not word or any(tag.startswith(word) for tag in self._tags)):
                return "unsure"
            return "prose"
        if text.startswith("```"):
            newline = text.find("\n")
            if newline == -1:
                return "unsure"
            rest = text[newline + 1 :].lstrip()
            if not rest:
                return "unsure"
            return self._judge(rest) if rest[0] in "<{[" else "prose"
        if text.startswith(("{", "[")):
            match = re.match(r"[\[{]\s*(?:\{\s*)?(\"?)(\w*)(\"?)", text)
            if match is None or match.end() >= len(text):
                return "unsure"
            key = match.group(2)
            if key in ("type", "name", "tool_call", "tool_calls", "function", "tool", "function_call"):
                return "call"
            return "prose"
        return "prose"

    def finish(self, clean: str) -> str:
        """What is left to show once the whole reply is known and cleaned."""
        shown = self.shown
        self._held = ""
        if clean.startswith(shown):
            rest = clean[len(shown) :]
        elif clean.startswith(shown.rstrip()):
            rest = clean[len(shown.rstrip()) :]
        else:
            rest = ""
        if rest:
            self._shown.append(rest)
        return rest


_TAIL = re.compile(r"\s*(?:`{1,2}|[{\[][\s\"]*)?$")
_MARKERS = re.compile(r"<|```|(?:^|(?<=\n))\s*[{\[]|[{\[]\s*[\"{]")


def _first_marker(text: str) -> int:
    match = _MARKERS.search(text)
    if match is None:
        return -1
    start = match.start()
    # Skip leading whitespace matched by the line-start alternative.
    while start < len(text) and text[start] not in "<`{[":
        start += 1
    return start
