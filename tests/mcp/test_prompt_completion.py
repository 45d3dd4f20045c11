"""Completion of an MCP prompt's slash command while it is typed: the core (``core.mcp.prompt_line``) and
the composer's list (``ui.chat.prompt_completion``), against the real notes server (written with the SDK)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.config.mcp import McpSettings
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.mcp.offers import McpPromptArgument, McpPromptInfo
from jawad_desktop.core.mcp.prompt_line import LineCompletion, complete_prompt_line, prompt_arguments
from jawad_desktop.ui.chat.chat_view import ChatInput
from jawad_desktop.ui.chat.prompt_completion import attach
from tests.mcp.test_offers import NOTES


@pytest.fixture
def notes(arun: Any) -> Iterator[McpConnections]:
    connections = McpConnections(McpSettings(servers=[NOTES]))
    arun(connections.connect(), timeout=60)
    assert connections.problems == {}
    try:
        yield connections
    finally:
        arun(connections.aclose(), timeout=30)


def test_arguments_are_read_by_name_or_in_order() -> None:
    prompt = McpPromptInfo("s", "p", arguments=(McpPromptArgument("topic", required=True), McpPromptArgument("style")))
    assert prompt_arguments(prompt, "budget") == {"topic": "budget"}
    assert prompt_arguments(prompt, "style=long 'the budget'") == {"style": "long", "topic": "the budget"}
    assert prompt_arguments(prompt, "a b c") == {"topic": "a", "style": "b"}


def test_the_prompt_then_each_argument_is_completed_by_the_server(notes: McpConnections, arun: Any) -> None:
    async def lines(*typed: str) -> list[LineCompletion | None]:
        return [await complete_prompt_line(notes, line) for line in typed]

    name, positional, named, later, unknown, plain = arun(lines(
        "/sum", "/summarize de", "/summarize topic=h", "/summarize budget sh", "/nothing x", "hello"))
    assert name == LineCompletion(1, ["summarize"], "prompt")
    assert positional == LineCompletion(len("/summarize "), ["deadlines", "design"], "topic")
    assert named == LineCompletion(len("/summarize topic="), ["hiring", "holidays"], "topic")
    assert later is None  # the server completes no style
    assert unknown is None and plain is None


def test_the_composer_offers_completions_while_typing_and_enter_chooses(
        notes: McpConnections, qtbot: Any) -> None:
    editor = ChatInput()
    qtbot.addWidget(editor)
    sent: list[bool] = []
    editor.submitted.connect(lambda: sent.append(True))
    completion = attach(editor, lambda: notes)
    editor.show()
    editor.setFocus()
    qtbot.keyClicks(editor, "/summarize de")
    qtbot.waitUntil(lambda: completion.showing == ["deadlines", "design"], timeout=15000)
    qtbot.keyClick(editor, Qt.Key.Key_Down)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert editor.toPlainText() == "/summarize design "
    assert sent == []  # Enter chose a value; it did not send the message
    assert completion.showing == []

    qtbot.keyClicks(editor, "style=x")  # the server completes no style: nothing is offered
    qtbot.wait(completion.PAUSE_MS + 700)
    assert completion.showing == []
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert sent == [True]  # with no list open, Enter sends as always
