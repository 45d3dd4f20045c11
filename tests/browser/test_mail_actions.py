"""An e-mail's actions drawn as an icon over a word (MiniWoB's e-mail inbox), in a bar that shows a
pointer all over: each action is listed by its word, and clicking it does that action (issue 35)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from tests.browser.test_library_controls import line_of, number
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]


def test_reply_and_forward_are_each_listed_and_clicked(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("clickables/mail-actions.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    reply, forward = line_of(seen, r'^\[\d+\] clickable "Reply"$'), line_of(seen, r'^\[\d+\] clickable "Forward"$')
    assert reply and forward, seen
    said = tool("click_element", index=number(reply)).for_model
    assert "Replying" in said, said
