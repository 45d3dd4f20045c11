"""History: count and token limits, tool calls kept with their results, usage correction."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jawad_desktop.core.agent.history import ConversationHistory, estimate_tokens, units
from jawad_desktop.core.messages import Message, ToolCall

_ids = iter(range(10**9))


def _turn(kind: int, size: int, calls: int) -> list[Message]:
    """One turn: a user message, optional tool rounds, an answer."""
    messages = [Message(role="user", content="u" * size)]
    if kind == 1:
        tool_calls = [ToolCall(id=f"c{next(_ids)}", name="t", arguments={"a": 1}) for _ in range(calls)]
        messages.append(Message(role="assistant", content="", tool_calls=tool_calls))
        messages.extend(Message(role="tool", content="r" * size, tool_call_id=c.id, name="t") for c in tool_calls)
    messages.append(Message(role="assistant", content="a" * size))
    return messages


def _check_invariants(history: ConversationHistory) -> None:
    messages = history.messages
    answered: set[str] = set()
    for index, message in enumerate(messages):
        if message.role == "tool":
            owners = [m for m in messages[:index] if m.role == "assistant" and
                      any(c.id == message.tool_call_id for c in m.tool_calls)]
            assert owners, "a tool result lost its call"
            answered.add(message.tool_call_id)
    for message in messages:
        for call in message.tool_calls:
            assert call.id in answered, "a tool call lost its result"
    assert all(m.role != "system" for m in messages)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3000), st.integers(1, 4)), max_size=40),
    st.integers(2, 30),
    st.integers(512, 6000),
)
def test_history_invariants(turns: list[tuple[int, int, int]], max_messages: int, budget: int) -> None:
    history = ConversationHistory(max_messages=max_messages, token_budget=budget)
    last: list[Message] = []
    for kind, size, calls in turns:
        last = _turn(kind, size, calls)
        history.commit(last)
        _check_invariants(history)
        newest_unit_kept = history.messages[-1] is last[-1]
        assert newest_unit_kept
        if len(history.messages) > max_messages or history.tokens() > budget:
            # Over a limit only when the newest unit alone is over it.
            assert len(units(history.messages)) == 1
        assert history.messages[0].role != "tool"


def test_keeps_the_last_100_messages_by_default() -> None:
    history = ConversationHistory(token_budget=10**6)
    for i in range(80):
        history.commit([Message(role="user", content=f"q{i}"), Message(role="assistant", content=f"a{i}")])
    assert len(history) == 100
    assert history.messages[-1].content == "a79" and history.messages[0].content == "q30"


def test_trims_to_the_token_budget_and_never_splits_calls() -> None:
    history = ConversationHistory(max_messages=1000, token_budget=300)
    call = ToolCall(id="c1", name="t", arguments={})
    history.commit([
        Message(role="user", content="x" * 800),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", content="y" * 800, tool_call_id="c1"),
        Message(role="assistant", content="done"),
        Message(role="user", content="short"),
    ])
    roles = [m.role for m in history.messages]
    assert roles == ["assistant", "tool", "assistant", "user"]  # the call stays with its result
    assert history.tokens() <= 300
    history.token_budget = 100
    history.trim()
    assert [m.role for m in history.messages] == ["assistant", "user"]


def test_usage_corrects_the_estimate() -> None:
    history = ConversationHistory(token_budget=10_000)
    messages = [Message(role="user", content="x" * 4000)]
    estimated = history.tokens(messages)
    assert estimated == estimate_tokens(messages) > 1000
    history.record_usage(estimated, 2 * estimated)  # the provider counted twice as many
    assert history.correction == pytest.approx(1.5, abs=0.1)
    history.record_usage(history.tokens(messages), None)
    assert history.correction == pytest.approx(1.5, abs=0.1)


def test_clear_and_last_answer() -> None:
    history = ConversationHistory()
    history.commit([Message(role="user", content="q"), Message(role="assistant", content="the answer")])
    assert history.last_answer() == "the answer"
    history.clear()
    assert len(history) == 0 and history.last_answer() == ""
