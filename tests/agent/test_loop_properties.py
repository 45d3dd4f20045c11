"""Hypothesis drives whole agent turns over HTTP: whatever the model sends, one final
response per turn, and the history keeps every tool call with its results."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jawad_desktop.core import events
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.messages import Message
from tests.servers.scripted_model import Reply, call, calls, text

_replies = st.sampled_from([
    call("calculate", {"expression": "1+1"}),
    call("calculate", {"nope": 1}),
    call("missing_tool", {}),
    calls(("get_time", {}), ("calculate", {"expression": "2*2"})),
    text('<calculate expression="3+3" />'),
    text('{"type": "tool_call", "name": "get_time", "arguments": {}}'),
    text("An answer."),
    text(""),
    Reply(raw_tool_calls=[{"id": "", "function": {"name": "functions.calc", "arguments": "{'expression': '5'}"}}]),
])


def _invariants(history: list[Message]) -> None:
    answered = {m.tool_call_id for m in history if m.role == "tool"}
    issued = {c.id for m in history for c in m.tool_calls}
    assert answered == issued
    assert all(m.role != "system" for m in history)
    for index, message in enumerate(history):
        if message.role == "tool":
            assert any(c.id == message.tool_call_id for m in history[:index] for c in m.tool_calls)


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.lists(_replies, min_size=1, max_size=4), min_size=1, max_size=3))
def test_any_model_behaviour_keeps_the_loop_sound(make_agent: Any, arun: Any, turns: list[list[Reply]]) -> None:
    config = Settings()
    config.agent.max_iterations = 4
    config.agent.history_max_messages = 12
    h = make_agent(settings=config)
    for script in turns:
        h.model.script(*script, text("Final."), text("Final."), text("Final."), text("Final."))
        before = len(h.recorder.of(events.ChatResponse))
        response = arun(h.session.run("go"))
        finals = h.recorder.of(events.ChatResponse)
        assert len(finals) == before + 1 and finals[-1] == response
        assert len(h.model.requests) <= 4
        _invariants(h.session.history.messages)
        assert len(h.session.history) <= 12
        assert "<calculate" not in response.content and '"tool_call"' not in response.content
