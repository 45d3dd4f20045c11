"""The repair and validation pipeline (spec 002)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field

from jawad_desktop.core.agent.textcalls import ParsedCall, parse_text_reply
from jawad_desktop.core.agent.toolcalls import check_calls, repair_call
from jawad_desktop.core.messages import ToolCall
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.registry import ToolRegistry


def _registry() -> ToolRegistry:
    registry = basic_registry()

    @registry.tool(aliases=("search",))
    def search_web(
        query: Annotated[str, Field(description="What to search for")],
        limit: int = 5,
        engine: Literal["ddg", "google"] = "ddg",
    ) -> str:
        """Search the web."""
        return query

    @registry.tool
    def draft_email(to: str, subject: str, body: str) -> str:
        """Draft an email."""
        return to

    return registry


REGISTRY = _registry()


@pytest.mark.parametrize(
    ("raw", "name", "arguments", "repair"),
    [
        (ToolCall(id="", name="functions.search_web", arguments='{"query": "x"}'), "search_web", {"query": "x"},
         "added a missing id"),
        ({"name": "search_web", "arguments": {"query": "x"}}, "search_web", {"query": "x"},
         "converted a flat call to the nested shape"),
        ({"id": "a", "function": {"name": "search_web", "arguments": "{\"query\": \"x\"}"}}, "search_web",
         {"query": "x"}, "set type to function"),
        ({"id": "a", "type": "function", "function": {"name": "get_time"}}, "get_time", {},
         "defaulted missing arguments to {}"),
        ({"id": "a", "type": "function", "function": {"name": "tool.Search", "arguments": "{'query': 'q',}"}},
         "search_web", {"query": "q"}, "resolved the name 'tool.Search' to 'search_web'"),
        ({"id": "a", "type": "function", "function": {"name": "search_web", "arguments": '"{\\"query\\": \\"q\\"}"'}},
         "search_web", {"query": "q"}, "decoded arguments encoded twice"),
        ({"id": "a", "type": "function", "function": {"name": "SEARCH-WEB", "arguments": {"Query": "q"}}},
         "search_web", {"query": "q"}, "renamed argument 'Query' to 'query'"),
        ('{"name": "get_time", "arguments": {}}', "get_time", {}, "parsed the call from text"),
    ],
)
def test_repairs(raw: Any, name: str, arguments: dict[str, Any], repair: str) -> None:
    (checked,) = check_calls([raw], REGISTRY)
    assert checked.ok, checked.problems
    assert checked.call.name == name and checked.call.arguments == arguments
    assert repair in checked.call.repairs
    assert checked.call.id


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"id": "a", "function": {"arguments": "{}"}}, "the function name is missing"),
        ({"id": "a", "function": {"name": "search_web", "arguments": "{not json"}}, "not valid JSON"),
        ({"id": "a", "function": {"name": "search_web", "arguments": "[1, 2]"}}, "must be a JSON object"),
        ({"id": "a", "function": {"name": "search_web", "arguments": 5}}, "must be a JSON object, not int"),
        ({"id": "a", "function": {"name": "fly", "arguments": {}}}, "there is no tool named 'fly'"),
        ({"id": "a", "function": {"name": "search_web", "arguments": {}}}, "required argument 'query' is missing"),
        ({"id": "a", "function": {"name": "search_web", "arguments": {"query": "x", "engine": "bing"}}},
         "'engine' is invalid: Input should be 'ddg' or 'google'"),
        ({"id": "a", "function": {"name": "search_web", "arguments": {"query": "x", "limit": "many"}}},
         "'limit' is invalid"),
        (42, "it is not a tool call object"),
    ],
)
def test_problems_become_feedback(raw: Any, problem: str) -> None:
    (checked,) = check_calls([raw], REGISTRY)
    assert not checked.ok
    assert any(problem in p for p in checked.problems), checked.problems
    assert problem in checked.feedback() and checked.feedback().startswith("Error:")


def test_duplicate_ids_are_made_unique() -> None:
    raws = [ToolCall(id="same", name="get_time", arguments={}), ToolCall(id="same", name="get_time", arguments={})]
    first, second = check_calls(raws, REGISTRY)
    assert first.call.id != second.call.id


def test_xml_body_and_children_map_to_parameters() -> None:
    names = REGISTRY.all_names()
    text = ('<draft_email to="a@b.c" subject="Hi">Dear Bob</draft_email>'
            '<search_web><query>shoes</query><limit>3</limit></search_web>'
            '<search_web>{"query": "hats"}</search_web>')
    results = check_calls(parse_text_reply(text, names).calls, REGISTRY)
    assert [c.ok for c in results] == [True, True, True]
    assert results[0].args.model_dump() == {"to": "a@b.c", "subject": "Hi", "body": "Dear Bob"}  # type: ignore[union-attr]
    assert results[1].args.model_dump() == {"query": "shoes", "limit": 3, "engine": "ddg"}  # type: ignore[union-attr]
    assert results[2].call.arguments == {"query": "hats"}


_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=12),
                  st.sampled_from(["search_web", "functions.get_time", "calc", "{", '{"query": 1}', "[]", ""]))
_values = st.recursive(
    _leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["id", "type", "function", "name", "arguments", "parameters", "args",
                                         "input", "tool", "body", "query"]), children, max_size=5),
    ),
    max_leaves=6,
)
_raw_calls = st.one_of(
    _values,
    st.builds(ToolCall, id=st.text(max_size=5), name=st.text(max_size=15),
              arguments=st.one_of(st.text(max_size=30), st.dictionaries(st.text(max_size=5), _leaf, max_size=3))),
    st.builds(ParsedCall, name=st.text(max_size=15), arguments=st.dictionaries(st.text(max_size=5),
              st.text(max_size=5), max_size=3), body=st.text(max_size=30)),
)


@pytest.mark.slow
@settings(max_examples=2_000, deadline=None, database=None,  # 10,000: 16 s more CPU a run (issue 29)
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_raw_calls, max_size=3))
def test_fuzz_repair_and_check_never_raise(raws: list[Any]) -> None:
    checked = check_calls(raws, REGISTRY)
    assert len(checked) == len(raws)
    assert len({c.call.id for c in checked}) == len(checked)
    for item in checked:
        assert isinstance(item.call.arguments, dict)
        assert item.ok or item.problems
        item.feedback()
    for index, raw in enumerate(raws):
        repair_call(raw, index)
