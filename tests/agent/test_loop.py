"""The agent loop end to end: scripted model over HTTP, the real client, real tools."""

from __future__ import annotations

from typing import Any

from jawad_desktop.core import events
from tests.servers.scripted_model import call, text


def test_native_call_then_answer(make_agent: Any, arun: Any) -> None:
    h = make_agent()
    h.model.script(call("calculate", {"expression": "6*7"}), text("The answer is **42**."))
    response = arun(h.session.run("what is 6 times 7?"))
    assert response.content == "The answer is **42**."
    assert not response.is_error
    assert h.recorder.streamed() == "The answer is **42**."
    assert [e.content for e in h.recorder.of(events.ChatResponse)] == ["The answer is **42**."]
    second = h.model.requests[1]["messages"]
    assert second[-1]["role"] == "tool" and second[-1]["content"] == "6*7 = 42"
    assert second[-2]["tool_calls"][0]["function"]["name"] == "calculate"
    (entry,) = h.recorder.log()
    assert (entry.tool_name, entry.decision, entry.result) == ("calculate", "auto-approved", "success")
    assert entry.parameters == {"expression": "6*7"} and entry.permission_level == "read-only"
    assert [m.role for m in h.session.history.messages] == ["user", "assistant", "tool", "assistant"]
