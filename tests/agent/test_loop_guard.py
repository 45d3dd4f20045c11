"""The loop's two checks (issue 18, point 3): the same call with the same result three times stops the
run with a clear message, and an answer after an action the model has not looked at is checked against
the page (read_page) once before it is shown. Scripted model over HTTP, the real client, real tools
(a small page of the tests' own: a counter the model can press and read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.confirm import CONFIRM_HEADER
from jawad_desktop.core.agent.loop_guard import REPEATS
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import HarborGate
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.registry import ToolRegistry, ToolResult
from tests.servers.scripted_model import call, text


@dataclass
class Counter:
    """What the tools act on: a number the page shows, and whether pressing works."""

    value: int = 0
    stuck: bool = False
    reads: int = 0


def counter_tools(counter: Counter) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(level=PermissionLevel.INTERACT)
    def press(button: str) -> ToolResult:
        """Press a button of the counter."""
        if not counter.stuck:
            counter.value += 1
        # As an acting browser tool does, the result says what changed.
        return ToolResult(for_model=f'Pressed "{button}". ' + ("The page did not visibly change." if counter.stuck
                                                                else f'New text on the page: "{counter.value}".'),
                          changed_page=True)

    @registry.tool(name="read_page")
    def read_page() -> ToolResult:
        """Read the page."""
        counter.reads += 1
        return ToolResult(for_model=f"The counter shows {counter.value}.", observed_page=True)

    return basic_registry().merged(registry)


def _agent(make_agent: Any, counter: Counter) -> Any:
    gate = HarborGate(Harbor(auto_levels=(PermissionLevel.INTERACT,)), events.EventBus(), ask=False)
    return make_agent(registry=counter_tools(counter), gate=gate)


def test_the_same_call_with_the_same_result_three_times_stops_the_run(make_agent: Any, arun: Any) -> None:
    h = make_agent()
    h.model.script(*[call("calculate", {"expression": "2+2"}) for _ in range(REPEATS)], text("never asked"))
    response = arun(h.session.run("add two and two"))
    assert response.is_error and response.metadata["repeated_action"] == "calculate"
    assert len(h.model.requests) == REPEATS  # stopped before asking the model again
    assert 'I ran calculate(expression="2+2") 3 times and got the same result each time ("2+2 = 4")' \
        in response.content
    assert "do this step yourself in the browser" in response.content
    assert [e.result for e in h.recorder.log()] == ["success"] * REPEATS


def test_a_call_whose_result_changes_is_not_a_loop(make_agent: Any, arun: Any) -> None:
    counter = Counter()
    h = _agent(make_agent, counter)
    h.model.script(*[call("press", {"button": "+"}) for _ in range(REPEATS + 1)],
                   call("read_page"), text("The counter shows 4."))
    response = arun(h.session.run("press plus four times"))
    assert not response.is_error and response.content == "The counter shows 4."


def test_pressing_a_button_that_does_nothing_stops_after_three_tries(make_agent: Any, arun: Any) -> None:
    counter = Counter(stuck=True)
    h = _agent(make_agent, counter)
    h.model.script(*[call("press", {"button": "Next"}) for _ in range(REPEATS)], text("never asked"))
    response = arun(h.session.run("go to the next step"))
    assert response.is_error and 'press(button="Next") 3 times' in response.content
    assert "The page did not visibly change." in response.content


def test_an_answer_after_an_action_is_checked_against_the_page_first(make_agent: Any, arun: Any) -> None:
    counter = Counter()
    h = _agent(make_agent, counter)
    h.model.script(call("press", {"button": "+"}), text("Done, it shows 5."), text("It shows 1."))
    response = arun(h.session.run("press plus"))
    assert response.content == "It shows 1." and not response.is_error
    assert h.recorder.streamed() == "It shows 1."  # the draft was held back, never shown
    assert counter.reads == 1
    check = h.model.requests[2]["messages"]
    assert check[-2] == {"role": "assistant", "content": "Done, it shows 5."}
    assert check[-1]["role"] == "user" and check[-1]["content"].startswith(CONFIRM_HEADER)
    assert "The counter shows 1." in check[-1]["content"]
    assert [e.tool_name for e in h.recorder.log()] == ["press", "read_page"]  # the check is in the action log
    assert response.metadata["iterations"] == 3


def test_no_check_when_the_model_looked_at_the_page_and_only_one_per_turn(make_agent: Any, arun: Any) -> None:
    counter = Counter()
    h = _agent(make_agent, counter)
    h.model.script(call("press", {"button": "+"}), call("read_page"), text("It shows 1."))
    assert arun(h.session.run("press plus")).content == "It shows 1."
    assert counter.reads == 1 and len(h.model.requests) == 3
    # After the check, another action then an answer: no second check in the same turn.
    h.model.script(call("press", {"button": "+"}), text("Pressed."), call("press", {"button": "+"}),
                   text("Pressed again."))
    response = arun(h.session.run("press plus twice"))
    assert response.content == "Pressed again." and counter.reads == 2 and counter.value == 3
    assert h.recorder.streamed().endswith("Pressed again.") and "Pressed." not in h.recorder.streamed()


def test_a_replay_that_gets_somewhere_is_no_loop_and_a_circle_is() -> None:
    from jawad_desktop.core.agent.loop_guard import RepeatGuard
    from jawad_desktop.core.tools.untrusted import wrap_untrusted

    # A memory game: from the start, the known moves bring the same results each time, then a new
    # move is tried (a result never seen): the turn gets somewhere, however often the known moves repeat.
    guard = RepeatGuard()
    for trial in range(REPEATS + 3):
        assert guard.note("click_text", {"text": "🌟"}, "Progress: 2/15") is None
        assert guard.note("click_text", {"text": "🍟"}, "Progress: 3/15") is None
        assert guard.note("click_text", {"text": f"try {trial}"}, "Incorrect! The sequence has reset.") is None
    # A circle of two calls that brings nothing new stops at its third time, though the page is read
    # in between (each read fenced with a new random marker: the same page is the same result).
    guard = RepeatGuard()
    repeated = None
    for _ in range(REPEATS):
        assert guard.note("read_page", {}, wrap_untrusted("Progress: 1/15", "the page")) is None
        repeated = guard.note("click_text", {"text": "Next"}, "The page did not visibly change.")
    assert repeated is not None and repeated.times == REPEATS
