"""Tool calls written in text (XML, JSON contract), the sanitiser and the stream sanitiser."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jawad_desktop.core.agent.textcalls import (
    StreamSanitizer,
    clean_response,
    parse_json_reply,
    parse_text_reply,
    parse_xml_calls,
)

NAMES = {"search_web", "draft_email", "get_time", "calculate", "calc", "click_element"}
# 2,000 examples each: 10,000 cost 23 s more CPU a run (CI in minutes, issue 29).
FUZZ = settings(max_examples=2_000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _calls(text: str) -> list[tuple[str, object, str]]:
    return [(c.name, c.arguments, c.body) for c in parse_text_reply(text, NAMES).calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<search_web query="best running shoes 2024" />', [("search_web", {"query": "best running shoes 2024"}, "")]),
        ('<draft_email to="user@example.com" subject="Meeting">\n  Body text here\n</draft_email>',
         [("draft_email", {"to": "user@example.com", "subject": "Meeting"}, "Body text here")]),
        ("Sure, searching now.\n```xml\n<search_web query='shoes'/>\n```\nOne moment.",
         [("search_web", {"query": "shoes"}, "")]),
        ('<search_web query="unbalanced />\nmore text', [("search_web", {"query": "unbalanced"}, "")]),
        ('<search_web query="a" /> then <calc expression="1+1"/> and <get_time/>',
         [("search_web", {"query": "a"}, ""), ("calc", {"expression": "1+1"}, ""), ("get_time", {}, "")]),
        ('<Search_Web query=shoes limit=5 />', [("Search_Web", {"query": "shoes", "limit": "5"}, "")]),
        ("<search_web><query>shoes</query></search_web>", [("search_web", {}, "<query>shoes</query>")]),
        ('<unknown_tool a="1"/> <b>bold</b> <div class="x">y</div>', []),
        ('<tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}</tool_call>',
         [("get_time", {"timezone": "UTC"}, "")]),
        ('{"type": "tool_call", "name": "calculate", "arguments": {"expression": "2*3"}}',
         [("calculate", {"expression": "2*3"}, "")]),
        ('Calling:\n```json\n{"name": "calc", "arguments": {"expression": "2"}}\n```',
         [("calc", {"expression": "2"}, "")]),
        ("```\n{'type': 'tool_call', 'name': 'calc', 'arguments': {'expression': '2',},}\n```",
         [("calc", {"expression": "2"}, "")]),
        ('[{"type": "tool_call", "name": "get_time", "arguments": {}}, '
         '{"type": "tool_call", "name": "calc", "arguments": {"expression": "1"}}]',
         [("get_time", {}, ""), ("calc", {"expression": "1"}, "")]),
        ('{"function": {"name": "get_time", "arguments": "{}"}}', [("get_time", "{}", "")]),
        ('The product is {"name": "Nike Air", "price": 50}.', []),
        ('{"name": "Nike Air", "arguments": {"x": 1}}', []),  # unknown name, no type: not a call
    ],
)
def test_parses_calls(text: str, expected: list[tuple[str, object, str]]) -> None:
    assert _calls(text) == expected


def test_json_final_answer() -> None:
    reply = parse_json_reply('{"type": "final", "content": "Nine."}', NAMES)
    assert reply.final == "Nine." and reply.calls == []
    assert clean_response('```json\n{"type": "final", "content": "Nine."}\n```', NAMES) == "Nine."


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ('Sure! <search_web query="x" />', "Sure!"),
        ("Here:\n```xml\n<search_web query=\"x\"/>\n```\nDone.", "Here:\n\nDone."),
        ('I will <made_up name="1" /> now.', "I will  now."),
        ("Result</search_web> ok", "Result ok"),
        ("<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>Done", "Done"),
        ('Code stays:\n```html\n<img src="a.png" />\n```', 'Code stays:\n```html\n<img src="a.png" />\n```'),
        ("Compare a < b and b > c.", "Compare a < b and b > c."),
        ('{"type": "tool_call", "name": "calc", "arguments": {"expression": "1"}}', ""),
    ],
)
def test_clean_response(text: str, clean: str) -> None:
    assert clean_response(text, NAMES) == clean


@pytest.mark.parametrize(
    "text",
    [
        'Checking prices now. <search_web query="cheap shoes" />',
        "Plain answer with a < b, {braces} and [links](http://x) and ```code```.",
        'Intro\n```json\n{"type": "tool_call", "name": "calc", "arguments": {"expression": "1"}}\n```',
        "Tags like <b>bold</b> stay.",
    ],
)
@pytest.mark.parametrize("size", [1, 3, 7, 100])
def test_stream_sanitizer_never_shows_calls(text: str, size: int) -> None:
    sanitizer = StreamSanitizer(NAMES)
    shown = "".join(sanitizer.feed(text[i:i + size]) for i in range(0, len(text), size))
    clean = clean_response(text, NAMES)
    shown += sanitizer.finish(clean)
    assert shown == clean
    assert "search_web" not in shown and "tool_call" not in shown


_xml_fragments = st.sampled_from([
    "<", ">", "/>", "</", "=", '"', "'", " ", "\n", "search_web", "calc", "get_time", "query", "draft_email",
    "```", "```xml\n", "{", "}", "[", "]", ":", ",", "tool_call", "<tool_call>", "</tool_call>", "“", "a", "é",
    '"type": "tool_call"', '"name"', '"arguments"', "null", "\\", "<!--", "-->",
])
_texts = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(_xml_fragments, st.text(max_size=5)), max_size=40).map("".join),
)


@pytest.mark.slow
@FUZZ
@given(_texts)
def test_fuzz_xml_parser_never_raises(text: str) -> None:
    for call in parse_xml_calls(text, NAMES):
        assert call.name.lower() in NAMES
        assert isinstance(call.arguments, dict)
        start, end = call.span
        assert 0 <= start < end <= len(text)


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10),
              st.sampled_from(["tool_call", "final", "calc", "get_time"])),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(["type", "name", "arguments", "content", "function", "tool_calls", "id",
                                         "parameters", "x"]), children, max_size=5),
    ),
    max_leaves=8,
)


@pytest.mark.slow
@FUZZ
@given(st.one_of(_texts, _json_values.map(json.dumps),
                 st.tuples(st.text(max_size=20), _json_values.map(json.dumps), st.text(max_size=20)).map("".join)))
def test_fuzz_json_parser_never_raises(text: str) -> None:
    reply = parse_json_reply(text, NAMES)
    for call in reply.calls:
        assert isinstance(call.name, str) and call.name
        assert isinstance(call.arguments, dict | str)
    assert reply.final is None or isinstance(reply.final, str)
    clean_response(text, NAMES)


@settings(max_examples=2_000, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts, st.integers(min_value=1, max_value=9))
def test_fuzz_stream_sanitizer_shows_no_known_call(text: str, size: int) -> None:
    sanitizer = StreamSanitizer(NAMES)
    shown = "".join(sanitizer.feed(text[i:i + size]) for i in range(0, len(text), size))
    clean = clean_response(text, NAMES)
    shown += sanitizer.finish(clean)
    for call in parse_xml_calls(shown, NAMES):
        assert call.span[0] < len(shown)
        # whatever was streamed holds no call the final text does not also hold
        assert shown[call.span[0]:call.span[1]] in clean


def test_a_python_style_literal_with_a_bad_escape_prints_no_warning() -> None:
    import warnings

    from jawad_desktop.core.agent.textcalls import loads_lenient

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert loads_lenient(r"{'pattern': '\d+'}") == {"pattern": "\\d+"}
