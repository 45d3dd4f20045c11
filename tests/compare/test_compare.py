"""Two models side by side (issue 34, point 5): one message to two clients at once, both answers streamed
apart, nothing saved until one is kept; the kept answer (with its tool calls) joins the conversation and
the history as an ordinary turn, the other is dropped."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.compare import Comparison
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.secrets import SecretStore
from tests.fixtures.scripted_client import Scripted, ScriptedClient


def test_both_answer_at_once_and_the_kept_one_joins_the_conversation(profile_dir: Path,
                                                                      arun: Callable[..., Any]) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    first = ScriptedClient().script(Scripted(calls=[("calculate", {"expression": "12*34"})]),
                                    Scripted(text="12 × 34 = 408."), Scripted(text="Still 408."))
    second = ScriptedClient().script(Scripted(text="It is 408, I think."))
    assistant = Assistant(ctx, client=first)
    seen: list[ev.Event] = []
    ctx.bus.subscribe(seen.append)
    try:
        comparison = Comparison(assistant, (first, second), ("First · a", "Second · b"))
        one, two = arun(comparison.run("What is 12*34?"))
        assert (one.content, two.content) == ("12 × 34 = 408.", "It is 408, I think.")
        streamed = ["".join(e.text for e in seen if isinstance(e, ev.ComparisonDelta) and e.side == side)
                    for side in (0, 1)]
        assert streamed == ["12 × 34 = 408.", "It is 408, I think."]
        ended = [(e.side, e.label) for e in seen if isinstance(e, ev.ComparisonFinished)]
        assert sorted(ended) == [(0, "First · a"), (1, "Second · b")]
        assert [e.entry.tool_name for e in seen if isinstance(e, ev.ActionLogUpdate)][-1] == "calculate"
        assert not [e for e in seen if isinstance(e, ev.TurnStarted | ev.ChatResponse)]  # nothing kept yet
        assert assistant.session.history.messages == [] and assistant.conversation_id is None

        comparison.keep(0)
        with pytest.raises(JawadError, match="was already kept"):
            comparison.keep(1)
        kept = [e for e in seen if isinstance(e, ev.ChatResponse)]
        assert kept[0].content == "12 × 34 = 408." and kept[0].metadata["compared_with"] == "Second · b"
        roles = [m.role for m in assistant.session.history.messages]
        assert roles == ["user", "assistant", "tool", "assistant"]  # the tool call and its result kept too
        assert assistant.conversation_id is not None
        db = Database.in_folder(ctx.paths.data)
        try:
            stored = ConversationStore(db).messages(assistant.conversation_id)
            said = [s.message for s in stored if s.message.role in ("user", "assistant") and s.message.content]
            assert [m.content for m in said] == ["What is 12*34?", "12 × 34 = 408."]
        finally:
            db.close()
        arun(assistant.send("And again?"))
        sent = first.sent[-1].messages
        assert "It is 408, I think." not in str(sent) and "12 × 34 = 408." in str(sent)
    finally:
        arun(assistant.aclose())


def test_an_unfinished_side_cannot_be_kept_and_an_empty_message_is_refused(profile_dir: Path,
                                                                            arun: Callable[..., Any]) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    client = ScriptedClient()
    assistant = Assistant(ctx, client=client)
    try:
        comparison = Comparison(assistant, (client, ScriptedClient()), ("a", "b"))
        with pytest.raises(JawadError, match="not finished yet"):
            comparison.keep(1)
        with pytest.raises(JawadError, match="nothing to compare"):
            arun(comparison.run("  "))
    finally:
        arun(assistant.aclose())
