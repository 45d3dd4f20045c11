"""Elicitation: a real MCP server asks the user mid-call; the question reaches the faces as an
event, the answer is checked against the requested schema, and without a person it is declined."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import ElicitationRequested, ElicitationSettled, Event, EventBus, Notice
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.mcp.elicitation import Elicitations, check_answer
from jawad_desktop.core.tools.tool_context import ToolContext
from tests.fixtures.terminal import prompts, run_on_terminal
from tests.llm.test_cli import jawad
from tests.mcp.conftest import ROOT
from tests.servers.scripted_model import ScriptedModel, call, text

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "email": {"type": "string", "format": "email"},
        "guests": {"type": "integer", "minimum": 1, "maximum": 12},
        "score": {"type": "number", "default": 95.5},
        "vip": {"type": "boolean", "default": False},
        "seating": {"type": "string", "enum": ["inside", "terrace"], "default": "inside"},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["cake", "wine"]}, "maxItems": 2},
        "day": {"type": "string", "format": "date"},
    },
    "required": ["name", "guests"],
}


def test_an_answer_is_checked_against_the_schema_and_defaults_fill_the_rest() -> None:
    content, problems = check_answer(SCHEMA, {"name": "Ada", "guests": "4", "vip": "yes", "extras": "cake, wine",
                                              "size": "l", "day": "2026-12-24", "email": ""})
    assert problems == []
    assert content == {"name": "Ada", "guests": 4, "score": 95.5, "vip": True, "seating": "inside", "size": "l",
                       "extras": ["cake", "wine"], "day": "2026-12-24"}
    _, problems = check_answer(SCHEMA, {"name": "", "guests": 40, "email": "not-an-address", "seating": "roof",
                                        "extras": ["beer"], "day": "24/12", "vip": "maybe", "other": 1})
    assert problems == [
        "name: required", "email: give an email address", "guests: give a number from 1 to 12",
        "vip: answer yes or no", "seating: 'roof' is not one of inside, terrace",
        "extras: beer is not one of cake, wine", "day: give a date as 2025-12-31", "not asked for: other"]
    _, problems = check_answer(SCHEMA, {"name": "Ada", "guests": 2.5})
    assert problems == ["guests: give a whole number"]


def _connections(elicitations: Elicitations | None) -> McpConnections:
    settings = McpSettings(servers=[McpServerConfig(
        name="tables", transport="stdio", command=sys.executable, args=["-m", "tests.mcp.asking_server"],
        cwd=str(ROOT))])
    return McpConnections(settings, elicitations=elicitations)


async def _booked(elicitations: Elicitations | None, bus: EventBus) -> tuple[bool, str]:
    """Connect to the asking server and call book_table("Friday") as the agent does."""
    connections = _connections(elicitations)
    try:
        await connections.connect()
        assert connections.problems == {}
        tool = connections.registry().get("book_table")
        assert tool is not None
        result = await tool.run(ToolContext(settings=Settings(), bus=bus), tool.validate({"day": "Friday"}))
        return result.ok, result.for_model
    finally:
        await connections.aclose()


def test_a_server_question_is_answered_by_the_user_and_a_wrong_answer_is_refused(arun: Any) -> None:
    bus = EventBus()
    elicitations = Elicitations(bus)
    seen: list[Event] = []
    refused: list[list[str]] = []

    def person(event: Event) -> None:
        seen.append(event)
        if isinstance(event, ElicitationRequested):
            assert event.server == "tables" and "Friday" in event.message
            assert set(event.schema["properties"]) == {"name", "guests", "seating"}
            refused.append(elicitations.respond(event.id, "accept", {"name": "Ada", "guests": 30}))
            assert elicitations.pending(event.id) is not None  # still open after a refused answer
            assert elicitations.respond(event.id, "accept", {"name": "Ada", "guests": "3"}) == []

    bus.subscribe(person)
    elicitations.answered_here()
    ok, result = arun(_booked(elicitations, bus), timeout=60)
    assert ok, result
    assert '"name":"Ada"' in result and '"guests":3' in result and '"seating":"inside"' in result
    assert refused == [["Guests: give a number from 1 to 12"]]
    assert [e.outcome for e in seen if isinstance(e, ElicitationSettled)] == ["accept"]


@pytest.mark.parametrize("who", ["no person", "no face that answers"])
def test_without_a_person_a_server_question_is_declined_with_a_notice(arun: Any, who: str) -> None:
    bus = EventBus()
    notices: list[str] = []
    bus.subscribe(lambda e: notices.append(e.text) if isinstance(e, Notice) else None)
    elicitations = Elicitations(bus, ask=who != "no person")
    if who == "no person":
        elicitations.answered_here()  # a face is there, but nobody to answer it
    _, result = arun(_booked(elicitations, bus), timeout=60)
    assert "not booked: the user chose decline" in result
    assert notices and "nobody can answer here" in notices[0] and "tables" in notices[0]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_the_user_may_decline_or_cancel(arun: Any, action: str) -> None:
    bus = EventBus()
    elicitations = Elicitations(bus)
    bus.subscribe(lambda e: elicitations.respond(e.id, action) if isinstance(e, ElicitationRequested) else None)
    elicitations.answered_here()
    _, result = arun(_booked(elicitations, bus), timeout=60)
    assert f"not booked: the user chose {action}" in result


def test_jawad_ask_asks_the_server_question_on_the_terminal(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    added = jawad(profile_dir, "mcp", "add", "tables", "--command", f"{sys.executable} -m tests.mcp.asking_server",
                  "--cwd", str(ROOT), "--permission", "read-only")
    assert added.returncode == 0, added.stderr
    scripted_model.script(call("book_table", {"day": "Friday"}), text("Your table is booked."))
    run = run_on_terminal(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "ask", "--no-save", "--kind",
         "openai-compatible", "--base-url", scripted_model.base_url, "--model", "scripted", "--allow", "read-only",
         "Book a table for Friday"],
        prompts([(b"[a] answer", b"a\n"), (b"Whose name", b"Ada\n"), (b"How many people", b"50\n"),
                 (b"Seating", b"\n"), (b"Whose name", b"Ada\n"), (b"How many people", b"2\n"),
                 (b"Seating", b"terrace\n")]),
        env=dict(os.environ), timeout_s=120, cwd=ROOT)
    assert "The MCP server tables asks you: Booking a table for Friday" in run.transcript, run.transcript
    assert "Guests: give a number from 1 to 12" in run.transcript
    assert run.returncode == 0, run.transcript
    tool_result = scripted_model.requests[1]["messages"][-1]["content"]
    assert '"name":"Ada"' in tool_result and '"guests":2' in tool_result and '"seating":"terrace"' in tool_result


def test_the_window_form_answers_a_server_question(arun: Any, qtbot: Any) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QComboBox, QLineEdit

    from jawad_desktop.ui.prompts.elicitation_panel import ElicitationPanel

    bus = EventBus()
    elicitations = Elicitations(bus)
    panel = ElicitationPanel(elicitations.respond)
    qtbot.addWidget(panel)
    seen: dict[str, Any] = {}

    def fill() -> None:
        name, guests = panel.findChild(QLineEdit, "elicit_name"), panel.findChild(QLineEdit, "elicit_guests")
        seating = panel.findChild(QComboBox, "elicit_seating")
        assert name is not None and guests is not None and seating is not None
        seen["default seating"] = seating.currentData()  # the schema's default, filled in
        name.setText("Ada")
        guests.setText("40")
        qtbot.mouseClick(panel.send_button, Qt.MouseButton.LeftButton)
        seen["problems"] = panel.problems.text() if panel.problems.isVisibleTo(panel) else ""
        seen["still open"] = panel.isVisibleTo(panel.parentWidget() or panel) or panel.current is not None
        guests.setText("4")
        seating.setCurrentIndex(seating.findData("terrace"))
        qtbot.mouseClick(panel.send_button, Qt.MouseButton.LeftButton)

    def on_event(event: Event) -> None:
        if isinstance(event, ElicitationRequested):
            panel.show_request(event)
            QTimer.singleShot(0, fill)
        elif isinstance(event, ElicitationSettled):
            panel.settle(event)

    bus.subscribe(on_event)
    elicitations.answered_here()
    ok, result = arun(_booked(elicitations, bus), timeout=60)
    assert ok, result
    assert seen == {"default seating": "inside", "problems": "Guests: give a number from 1 to 12",
                    "still open": True}
    assert '"guests":4' in result and '"seating":"terrace"' in result and '"name":"Ada"' in result
    assert panel.current is None and not panel.isVisible()
