"""What a conversation used: the recorder saves each turn's usage on its last message, and the
store sums it in SQL (fast on a conversation of thousands of messages)."""

from __future__ import annotations

import json
import time

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.store.conversation_records import UsageTotals
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.recorder import ConversationRecorder, usage_of


def _usage(inp: int, out: int, cost: float | None) -> dict[str, object]:
    return {"input_tokens": inp, "output_tokens": out, "cost_usd": cost, "cost_known": cost is not None,
            "model": "gpt-4o"}


def test_totals_sum_the_answers_usage(store: ConversationStore) -> None:
    cid = store.create().id
    assert store.usage_totals(cid) == UsageTotals()
    store.append_message(cid, Message("user", "one"))
    store.append_message(cid, Message("assistant", "1"), metadata={"usage": _usage(1000, 200, 0.0045)})
    store.append_message(cid, Message("user", "two"))
    store.append_message(cid, Message("assistant", "2"), metadata={"interrupted": True,
                                                                   "usage": _usage(3000, 100, 0.0085)})
    totals = store.usage_totals(cid)
    assert (totals.turns, totals.input_tokens, totals.output_tokens) == (2, 4000, 300)
    assert totals.total_tokens == 4300 and totals.cost_usd == pytest.approx(0.013) and totals.cost_known
    # An answer from a model without a price: its tokens count, its cost is not made up.
    store.append_message(cid, Message("assistant", "3"), metadata={"usage": _usage(500, 50, None)})
    totals = store.usage_totals(cid)
    assert totals.total_tokens == 4850 and totals.cost_usd == pytest.approx(0.013)
    assert totals.unknown_cost_turns == 1 and not totals.cost_known
    # Regenerate/edit: what is truncated no longer counts.
    store.truncate(cid, 2)
    assert store.usage_totals(cid).total_tokens == 1200
    # Another conversation is not counted.
    other = store.create().id
    store.append_message(other, Message("assistant", "x"), metadata={"usage": _usage(7, 7, 0.0)})
    assert store.usage_totals(cid).total_tokens == 1200 and store.usage_totals(other).total_tokens == 14


def test_the_recorder_saves_a_turns_usage_on_its_last_message(store: ConversationStore) -> None:
    bus = ev.EventBus()
    recorder = ConversationRecorder(store, bus)
    bus.emit(ev.TurnStarted(run_id="r1", user_text="6*7?"))
    meta = {"input_tokens": 1200, "output_tokens": 80, "cached_input_tokens": 0, "reasoning_tokens": 0,
            "cost_usd": 0.0038, "cost_known": True, "model": "gpt-4o", "latency_ms": 900, "tool_calls": 1}
    response = ev.ChatResponse(run_id="r1", content="42", metadata=meta)
    messages = (Message("assistant", "", tool_calls=[ToolCall("c1", "calculate", {"expression": "6*7"})]),
                Message("tool", "42", tool_call_id="c1", name="calculate"), Message("assistant", "42"))
    bus.emit(ev.TurnFinished(run_id="r1", user_text="6*7?", messages=messages, response=response))
    assert recorder.conversation_id is not None
    saved = store.messages(recorder.conversation_id)
    assert [s.metadata for s in saved[:-1]] == [{}, {}, {}]
    assert saved[-1].metadata == {"usage": {"input_tokens": 1200, "output_tokens": 80, "cached_input_tokens": 0,
                                            "reasoning_tokens": 0, "cost_usd": 0.0038, "cost_known": True,
                                            "model": "gpt-4o"}}
    assert store.usage_totals(recorder.conversation_id).total_tokens == 1280
    recorder.close()


def test_no_usage_is_saved_for_a_turn_that_used_none() -> None:
    assert usage_of({"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "cost_known": True}) is None
    assert usage_of({"iterations": 0}) is None


def test_totals_stay_fast_on_a_long_conversation(store: ConversationStore) -> None:
    """5,000 messages in the conversation (half with usage) among 100,000 in the database."""
    big = store.create().id
    rows = []
    with store.db.transaction() as conn:
        for c in range(19):
            cid = f"other{c}"
            conn.execute("INSERT INTO conversations (id, created_at, updated_at) VALUES (?, 0, 0)", (cid,))
            rows += [(cid, i, "assistant", "filler text " * 20, "[]", "", "", 0,
                      json.dumps({"usage": _usage(100, 10, 0.001)}) if i % 2 else "{}") for i in range(5000)]
        rows += [(big, i, "assistant", "filler text " * 20, "[]", "", "", 0,
                  json.dumps({"usage": _usage(100, 10, 0.001)}) if i % 2 else "{}") for i in range(5000)]
        conn.executemany("INSERT INTO messages (conversation_id, position, role, content, tool_calls, tool_call_id, "
                         "name, created_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store.usage_totals(big)  # warm the page cache, as the window's second look would be
    started = time.perf_counter()
    totals = store.usage_totals(big)
    elapsed = time.perf_counter() - started
    assert totals.turns == 2500 and totals.total_tokens == 2500 * 110
    assert totals.cost_usd == pytest.approx(2.5)
    print(f"usage_totals over 5,000 messages (100,000 in the database): {elapsed * 1000:.1f} ms")
    assert elapsed < 0.25  # measured about 5 ms; generous for a loaded 2-core machine
