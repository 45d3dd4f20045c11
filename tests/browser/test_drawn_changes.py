"""What an action changed includes what the page draws rather than writes (a game's pieces as empty
coloured boxes, a canvas): its picture gets a number, the same picture the same number, so a model
and the loop guard tell a move from a repeat though no word on the page changed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.agent.loop_guard import RepeatGuard
from tests.browser.test_open_menus import Tools

PICTURE = re.compile(r"its picture is now #([0-9a-f]{8})")


def _click(tool: Tools, listing: str, label: str) -> str:
    m = re.search(r'\[(\d+)\] button "' + label + '"', listing)
    assert m, listing
    return tool("click_element", index=int(m.group(1))).for_model


def test_a_moved_piece_and_a_drawn_canvas_are_told_with_the_pictures_number(
        web_page: QtWebEnginePage, load: Callable[[str], str], arun: Callable[..., Any]) -> None:
    load("input/drawn.html")
    tool = Tools(web_page, arun)
    listing = tool("read_page").for_model
    right = _click(tool, listing, "Right peg")
    assert "did not visibly change" not in right, right
    moved = PICTURE.search(right)
    assert moved, right
    left = _click(tool, listing, "Left peg")
    back = PICTURE.search(left)
    assert back and back.group(1) != moved.group(1), left
    again = _click(tool, listing, "Right peg")
    assert PICTURE.search(again) and PICTURE.search(again).group(1) == moved.group(1), again  # the same picture
    assert PICTURE.search(_click(tool, listing, "Draw a dot")), "a canvas drawn on is a changed picture"
    quiet = _click(tool, listing, "Does nothing")
    assert "The page did not visibly change. Its picture is #" in quiet and "as before" in quiet, quiet
    # The same click from another state of the drawing is told apart (a game's "Select" on a peg whose
    # disks moved in between is no repeat), and from the same state it is the same.
    _click(tool, listing, "Left peg")
    other = _click(tool, listing, "Does nothing")
    assert other != quiet and "as before" in other, other
    _click(tool, listing, "Right peg")
    _click(tool, listing, "Draw a dot")
    _click(tool, listing, "Left peg")
    assert _click(tool, listing, "Does nothing") != other  # the canvas has one more dot
    # The loop guard, which stops a call repeated with the same result, lets a piece move back and forth.
    guard = RepeatGuard()
    assert guard.note("click_element", {"index": 1}, right) is None
    assert guard.note("click_element", {"index": 1}, left) is None


def test_an_action_waits_for_a_dialog_fading_in(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                 arun: Callable[..., Any]) -> None:
    load("input/fade.html")
    tool = Tools(web_page, arun)
    said = _click(tool, tool("read_page").for_model, "Save")
    assert 'A dialog "Saved" opened' in said, said  # the backdrop faded in (0.6 s, DOM quiet), then the dialog came
