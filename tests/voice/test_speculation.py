"""A speculative answer (``Assistant.speculate``, conversation mode's answer started on a likely end
of the turn) on the real Assistant, a real conversation store and the loopback scripted model:
held from the app until committed, gone without a trace when dropped, and no tool run for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.client import LLMClient
from tests.servers.scripted_model import ScriptedModel, call, text


def app_events(ctx: AppContext) -> list[ev.Event]:
    seen: list[ev.Event] = []
    ctx.bus.subscribe(seen.append)
    return seen


def test_a_dropped_speculative_answer_leaves_no_trace(
    voice_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any]
) -> None:
    assistant = Assistant(voice_ctx, client=LLMClient(scripted_model.provider()))
    try:
        scripted_model.script(text("Paris is the capital of France."),
                              text("Book the earlier one, then.", chunk_size=4, chunk_delay_s=0.05),
                              text("Done: the earlier one is booked."))
        arun(assistant.send("What is the capital of France?"))
        assert assistant.recorder is not None and assistant.store is not None
        conversation = assistant.recorder.conversation_id
        assert conversation is not None
        before = assistant.session.history.messages
        seen = app_events(voice_ctx)

        async def speculate_then_drop() -> list[ev.Event]:
            speculation = assistant.speculate("I'd like to book.")
            assert speculation is not None
            heard: list[ev.Event] = []
            speculation.events.subscribe(heard.append)
            while not any(isinstance(e, ev.ChatDelta) for e in heard):  # it streams to its own listeners
                await asyncio.sleep(0.01)
            await speculation.drop()  # the user went on: "...the earlier one"
            return heard

        heard = arun(speculate_then_drop())
        assert any(isinstance(e, ev.TurnStarted) for e in heard)
        assert seen == [], seen  # nothing reached the app: not shown, not saved
        assert assistant.session.history.messages == before
        stored = [m.message.content for m in assistant.store.messages(conversation)]
        assert stored == ["What is the capital of France?", "Paris is the capital of France."]
        assert not assistant.busy
        # The turn goes on as usual: the real message is answered and saved after the first.
        response = arun(assistant.send("I'd like to book the earlier one."))
        assert response.content == "Done: the earlier one is booked."
        stored = [m.message.content for m in assistant.store.messages(conversation)]
        assert stored[2:] == ["I'd like to book the earlier one.", "Done: the earlier one is booked."]
        assert [m.content for m in assistant.session.history.messages][2:] == stored[2:]
    finally:
        arun(assistant.aclose())


def test_a_committed_speculative_answer_is_shown_and_saved_like_any_turn(
    voice_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any]
) -> None:
    assistant = Assistant(voice_ctx, client=LLMClient(scripted_model.provider()))
    try:
        scripted_model.script(text("The earlier one is at nine.", chunk_size=4, chunk_delay_s=0.02))
        seen = app_events(voice_ctx)

        async def speculate_and_commit() -> ev.ChatResponse:
            speculation = assistant.speculate("When is the earlier one?")
            assert speculation is not None
            await asyncio.sleep(0.05)
            held = [e for e in seen if isinstance(e, ev.TurnStarted | ev.ChatDelta)]
            assert held == []  # still held
            speculation.commit()
            return await speculation.task

        response = arun(speculate_and_commit())
        assert response.content == "The earlier one is at nine."
        kinds = [type(e) for e in seen]
        assert kinds.index(ev.TurnStarted) < kinds.index(ev.ChatDelta) < kinds.index(ev.TurnFinished)
        assert "".join(e.text for e in seen if isinstance(e, ev.ChatDelta)) == response.content
        assert assistant.store is not None and assistant.recorder is not None
        assert assistant.recorder.conversation_id is not None
        stored = [m.message.content for m in assistant.store.messages(assistant.recorder.conversation_id)]
        assert stored == ["When is the earlier one?", "The earlier one is at nine."]
    finally:
        arun(assistant.aclose())


def test_no_tool_runs_for_a_speculative_answer(
    voice_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any]
) -> None:
    assistant = Assistant(voice_ctx, client=LLMClient(scripted_model.provider()))
    try:
        scripted_model.script(call("calculate", {"expression": "6*7"}), text("It is 42."))
        seen = app_events(voice_ctx)

        async def speculate() -> bool:
            speculation = assistant.speculate("What is six times seven?")
            assert speculation is not None
            await asyncio.wait({speculation.task})
            spoiled = speculation.spoiled
            await speculation.drop()
            return spoiled

        assert arun(speculate()) is True  # it wanted a tool: stopped there, to be asked for real
        assert len(scripted_model.requests) == 1  # the tool's result never went back to the model
        assert seen == [] and len(assistant.session.history) == 0
        assert assistant.recorder is not None and assistant.recorder.conversation_id is None  # nothing saved
    finally:
        arun(assistant.aclose())
