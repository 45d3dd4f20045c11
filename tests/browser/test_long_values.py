"""Values the element list gives whole (issue 35): a read-only field's text (the page gives it to read)
with its lines, and a list box's choices to their ends; a field the user edits stays short."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from tests.browser.test_library_controls import line_of
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]


def test_read_only_text_and_long_options_are_whole(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("fields/long-values.html")
    seen = Tools(web_page, arun)("read_page").for_model
    assert line_of(seen, r'textarea "Shopping list"').endswith(
        '= "2 tropical fish\\n1 lobster\\n8 bananas (look for bunches and singles for the best price)\\n'
        '24 eggs (2 dozen)" (read-only)'), seen
    plan = line_of(seen, r'select "Plan"')
    assert '= "Premium support plan with next-business-day replacement, 36 months"' in plan, plan
    assert "replacement, 12 months, Premium" in plan, plan  # the options too, each to its end
    note = line_of(seen, r'textarea "Note"')
    assert note.endswith('= "A note the user is typing, long enough …"'), note  # an editable field stays short
