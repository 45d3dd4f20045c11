"""Text a page shows with its own line breaks (CSS white-space pre-wrap or pre-line on a block that is
no <pre>) keeps them in read_page; a line break in ordinary HTML source stays a space."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from tests.browser.test_open_menus import Tools


def test_pre_wrapped_text_keeps_its_lines(web_page: QtWebEnginePage, load: Callable[[str], str],
                                         arun: Callable[..., Any]) -> None:
    load("reading/pre-wrap.html")
    seen = Tools(web_page, arun)("read_page").for_model
    content = seen.split("Content (Markdown):", 1)[1].split("Also visible on the page", 1)[0]
    lines = [line.rstrip() for line in content.splitlines()]
    first = ("Dear neighbours, the garden party moves to Saturday afternoon because the forecast promises rain "
             "on Friday.")
    second = "Bring a chair if you can, and a dish to share with everyone who comes along."
    third = ("The committee thanks all of you who helped to plant the new hedge along the northern wall last spring, "
             "it is growing well.")
    assert lines[lines.index(first) + 1] == second, seen  # its own line, not joined to the first
    assert third in lines, seen
    assert lines[lines.index(second) + 1:lines.index(third)] == [""], seen  # the blank line between
    assert "eggs" in seen.splitlines() and "bread" in seen.splitlines(), seen  # pre-line too
    assert "This paragraph is written over two source lines but shows as one." in seen, seen
