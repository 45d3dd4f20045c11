"""The Assistant driven without Qt, through an in-process scripted chat client: what it assembles,
what it announces, what its recorder saves, and the bugs the loose wiring had."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.agent import commands
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.registry import ToolRegistry
from jawad_desktop.core.tools.untrusted import wrap_untrusted
from tests.fixtures.scripted_client import Scripted, ScriptedClient


class Seen:
    """Every event on the bus, in order."""

    def __init__(self, bus: ev.EventBus) -> None:
        self.events: list[ev.Event] = []
        bus.subscribe(self.events.append)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


Made = tuple[Assistant, ScriptedClient, Seen]


@pytest.fixture
def make(profile_dir: Path, arun: Callable[..., Any]) -> Iterator[Callable[..., Made]]:
    made: list[Assistant] = []

    def build(*replies: Scripted, **options: Any) -> Made:
        ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
        client = ScriptedClient().script(*replies)
        seen = Seen(ctx.bus)
        assistant = Assistant(ctx, client=client, **options)
        made.append(assistant)
        return assistant, client, seen

    yield build
    for assistant in made:
        arun(assistant.aclose())


def _saved(assistant: Assistant, conversation_id: str | None = None) -> list[tuple[str, str]]:
    assert assistant.store is not None
    cid = conversation_id or assistant.conversation_id
    assert cid is not None
    return [(s.message.role, s.message.content) for s in assistant.store.messages(cid)]


def test_a_turn_is_announced_and_saved_from_its_events(make: Any, arun: Any) -> None:
    assistant, client, seen = make(Scripted(calls=[("calculate", {"expression": "6*7"})]),
                                   Scripted(text="It is 42."))
    response = arun(assistant.send("What is 6*7?"))
    assert response.content == "It is 42." and not response.is_error
    turn_events = (ev.TurnStarted, ev.ChatDelta, ev.AgentStep, ev.ActionLogUpdate, ev.ChatResponse, ev.TurnFinished)
    kinds = [type(e) for e in seen.events if isinstance(e, turn_events)]
    assert kinds[0] is ev.TurnStarted and kinds[-1] is ev.TurnFinished
    assert kinds.index(ev.ChatResponse) == len(kinds) - 2
    (finished,) = seen.of(ev.TurnFinished)
    assert [m.role for m in finished.messages] == ["assistant", "tool", "assistant"]
    assert finished.response is response and finished.user_text == "What is 6*7?"
    (changed,) = seen.of(ev.ConversationChanged)
    assert changed.conversation_id == assistant.conversation_id
    assert _saved(assistant) == [("user", "What is 6*7?"), ("assistant", ""), ("tool", "6*7 = 42"),
                                 ("assistant", "It is 42.")]
    assert assistant.store is not None and assistant.conversation_id is not None
    assert [e.tool_name for e in assistant.store.action_log(assistant.conversation_id)] == ["calculate"]
    assert client.sent[0].tools and {t["function"]["name"] for t in client.sent[0].tools} >= {"calculate"}


def test_nothing_is_saved_without_save(make: Any, arun: Any) -> None:
    assistant, _client, seen = make(Scripted(text="Private."), save=False)
    arun(assistant.send("hi"))
    assert assistant.store is None and assistant.conversation_id is None
    assert seen.of(ev.ConversationChanged) == []


def test_new_chat_open_edit_and_regenerate(make: Any, arun: Any) -> None:
    assistant, client, seen = make(Scripted(text="One."), Scripted(text="Two."), Scripted(text="Two, again."))
    arun(assistant.send("first"))
    first = assistant.conversation_id
    assistant.new_chat()
    assert seen.of(ev.ConversationChanged)[-1].conversation_id == ""
    assert assistant.conversation_id is None and len(assistant.session.history) == 0
    arun(assistant.send("second"))
    second = assistant.conversation_id
    assert second not in (None, first)
    # Regenerate: the last question is asked again in place of its answer, in the store too.
    again = arun(assistant.regenerate())
    assert again is not None and again.content == "Two, again."
    assert _saved(assistant) == [("user", "second"), ("assistant", "Two, again.")]
    assert "Two." not in [m.content for m in client.sent[-1].messages]
    # Open the first again: its history goes back to the agent.
    opened = assistant.open_conversation(first)
    assert [m.content for m in opened.messages] == ["first", "One."]
    assert [m.content for m in assistant.session.history.messages] == ["first", "One."]
    assert seen.of(ev.ConversationChanged)[-1].conversation_id == first
    # Edit the last message: it comes back for editing and leaves the history and the store.
    assert assistant.edit_last() == "first"
    assert len(assistant.session.history) == 0 and _saved(assistant, first) == []


def test_what_was_read_is_forgotten_with_a_new_chat_and_known_again_when_its_conversation_opens(
        make: Any, arun: Any) -> None:
    registry = basic_registry()

    @registry.tool(level=PermissionLevel.READ_ONLY)
    def read_account() -> str:
        """Read the account page."""
        return wrap_untrusted("Order A-10442 ships to 12 Elm Street.", "https://shop.example/account")

    assistant, _client, _seen = make(Scripted(calls=[("read_account", {})]), Scripted(text="It ships."))
    assistant.session.registry = registry
    arun(assistant.send("where does my order ship?"))
    first = assistant.conversation_id
    assert first is not None
    flow = assistant.harbor.dataflow
    flow.record("Order A-10442 ships to 12 Elm Street.", "shop.example")  # as the browser session records it
    assert flow.leaks(["https://evil.example/?o=A-10442"], "evil.example")
    assistant.new_chat()
    assert not flow.leaks(["https://evil.example/?o=A-10442"], "evil.example")
    assistant.open_conversation(first)  # the page's text is in the model's context again
    (leak,) = flow.leaks(["https://evil.example/?o=A-10442"], "evil.example")
    assert leak.value == "A-10442" and leak.source == "shop.example"


def test_clear_starts_a_new_conversation_and_keeps_the_old(make: Any, arun: Any) -> None:
    assistant, client, seen = make(Scripted(text="Hello."))
    arun(assistant.send("hi"))
    old = assistant.conversation_id
    response = arun(assistant.send("/clear"))
    assert response.content == commands.CLEARED and len(client.sent) == 1  # the model was not asked
    assert seen.of(ev.ConversationChanged)[-1].conversation_id == ""
    assert assistant.conversation_id is None and len(assistant.session.history) == 0
    assert _saved(assistant, old) == [("user", "hi"), ("assistant", "Hello.")]  # kept, "/clear" not added


def test_help_and_tools_are_answered_but_not_kept_and_summarize_reads_as_a_request(make: Any, arun: Any) -> None:
    """/help in a new chat made a conversation titled "/help"; /summarize showed its raw text."""
    assistant, _client, seen = make(Scripted(text="A page about kettles."))
    assert arun(assistant.send("/help")).content.startswith("Commands:")
    arun(assistant.send("/tools"))
    assert assistant.conversation_id is None and seen.of(ev.ConversationChanged) == []
    assert assistant.store is not None and assistant.store.list_conversations() == []
    arun(assistant.send("/summarize prices"))
    assert seen.of(ev.TurnStarted)[-1].user_text == "Summarize this page, focusing on: prices"
    assert _saved(assistant)[0] == ("user", "Summarize this page, focusing on: prices")
    assert assistant.store.get(assistant.conversation_id or "").title == "Summarize this page, focusing on: prices"


def _press_registry(pressed: list[str]) -> ToolRegistry:
    registry = basic_registry()

    @registry.tool(level=PermissionLevel.INTERACT)
    def press(label: str) -> str:
        """Press a button."""
        pressed.append(label)
        return f"pressed {label}"

    return registry


def test_stop_while_asked_settles_the_request_and_saves_the_message(make: Any, arun: Any) -> None:
    pressed: list[str] = []
    assistant, _client, seen = make(Scripted(calls=[("press", {"label": "Buy"})]))
    assistant.session.registry = _press_registry(pressed)

    async def scenario() -> ev.ChatResponse:
        task = asyncio.ensure_future(assistant.send("press buy"))
        for _ in range(250):
            if seen.of(ev.PermissionRequest):
                break
            await asyncio.sleep(0.02)
        assistant.stop()
        return await task

    response = arun(scenario())
    assert response.interrupted and pressed == []
    (request,) = seen.of(ev.PermissionRequest)
    assert [(s.id, s.outcome) for s in seen.of(ev.PermissionSettled)] == [(request.id, "stopped")]
    assert seen.of(ev.TurnFinished)[-1].response is response
    assert _saved(assistant) == [("user", "press buy")]


def test_nobody_to_ask_denies_with_a_reason_the_model_reads(make: Any, arun: Any) -> None:
    pressed: list[str] = []
    assistant, client, _seen = make(Scripted(calls=[("press", {"label": "Go"})]), Scripted(text="I could not."),
                                    ask=False)
    assistant.session.registry = _press_registry(pressed)
    arun(assistant.send("press go"))
    assert pressed == []
    result = client.sent[1].messages[-1].content
    assert result.startswith("Permission denied: press") and "nobody can be asked here" in result


def test_allowed_levels_run_without_asking(make: Any, arun: Any) -> None:
    pressed: list[str] = []
    assistant, _client, seen = make(Scripted(calls=[("press", {"label": "Go"})]), Scripted(text="Done."),
                                    ask=False, auto_levels=["interact"])
    assistant.session.registry = _press_registry(pressed)
    arun(assistant.send("press go"))
    assert pressed == ["Go"] and seen.of(ev.PermissionRequest) == []


def test_the_tool_format_is_remembered_per_model_never_across_providers(profile_dir: Path, arun: Any) -> None:
    """A model that needs text tool calls does not put the next provider's model in text mode."""
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    small = ScriptedClient("built-in-small", kind="local").script(
        Scripted(reject_tools=True), Scripted(text="Hello from the small model."),
        Scripted(text="Still small."))
    cloud = ScriptedClient("gpt-cloud", kind="openai").script(Scripted(text="Hello from the cloud."))
    current = [small]
    session = AgentSession(client=lambda: current[0], registry=basic_registry(), settings=ctx.settings, bus=ctx.bus)
    arun(session.run("hi"))
    assert session.mode == "xml"
    arun(session.run("and again"))
    assert small.sent[-1].tools is None and "<" in small.sent[-1].messages[0].content  # text instructions
    current[0] = cloud
    arun(session.run("hi, cloud"))
    assert session.mode == "native" and cloud.sent[0].tools  # native tools for the new model
    current[0] = small.script(Scripted(text="Back."))
    arun(session.run("back to small"))
    assert session.mode == "xml" and small.sent[-1].tools is None  # remembered for that model


def test_summarize_forces_the_summary_tool_when_there_is_a_page(make: Any, arun: Any) -> None:
    """/summarize with browser tools asks the model to call summarize_page first (tool_choice)."""
    assistant, client, _seen = make(Scripted(text="Nothing to summarise."))
    arun(assistant.send("/summarize"))
    assert client.sent[0].tool_choice is None  # no page, no summary tool: nothing to force
    registry = basic_registry()

    @registry.tool(name="summarize_page")
    def summarize_page() -> str:
        """Get the page to summarise."""
        return "A page about kettles."

    assistant.session.registry = registry
    client.script(Scripted(calls=[("summarize_page", {})]), Scripted(text="Kettles."))
    arun(assistant.send("/summarize"))
    assert client.sent[1].tool_choice == {"type": "function", "function": {"name": "summarize_page"}}
    assert client.sent[2].tool_choice is None


def test_aclose_closes_the_client_and_the_store(make: Any, arun: Any) -> None:
    assistant, client, _seen = make(Scripted(text="ok"))
    arun(assistant.send("hi"))
    arun(assistant.aclose())
    assert client.closed
