"""A code shown as typed reaches the model whole (issue 35): its blank lines do not cut it into
blocks that the choice of the page's main content judges apart, so its end is not lost."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser.content import _blocks
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]


def test_a_fenced_code_is_one_block_with_its_blank_lines() -> None:
    markdown = "Intro.\n\n```\na = 1\n\n  b = 2\n```\n\nAfter."
    assert _blocks(markdown) == ["Intro.", "```\na = 1\n\n  b = 2\n```", "After."]
    assert _blocks("~~~~\nx\n\n~~~\ny\n~~~~\n\nz") == ["~~~~\nx\n\n~~~\ny\n~~~~", "z"]  # a shorter fence is code


def test_a_code_shown_as_typed_is_read_to_its_end(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("code/text-to-copy.html")
    seen = Tools(web_page, arun)("read_page").for_model
    code = re.search(r"^```\n(.*?)\n```$", seen, re.S | re.M)
    assert code, seen
    assert code.group(1).startswith("// A snippet to copy.\nfunction greet(name) {"), seen
    assert code.group(1).endswith("blank.\n\n  Good luck!\n*/"), seen
