"""Calendars laid out without a table (issue 35): a CSS grid of divs, a month of day boxes that wrap
in rows (flatpickr's own calendar) read as tables, so which day each event or date falls on, and
which day is marked, reach the model."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from tests.browser.test_library_controls import line_of, number
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]


def table_rows(seen: str) -> list[list[str]]:
    """The Markdown table rows of a reading, each as its cells' texts (the extractors space them apart)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in seen.splitlines() if line.strip().startswith("|") and "---" not in line]


def test_a_css_grid_week_reads_as_a_table_of_days_and_hours(web_page: QtWebEnginePage, load: Load,
                                                            arun: Run) -> None:
    load("grids/week.html")
    seen = Tools(web_page, arun)("read_page").for_model
    assert table_rows(seen) == [["", "Monday", "Tuesday", "Wednesday"],
                                ["9:00", "Stand-up; 09:00 - 09:15", "", "Planning; 09:30 - 10:30"],
                                ["10:00", "", "Review; 10:00 - 11:00 (today)", ""]], seen


def test_flatpickrs_open_month_reads_as_weeks_with_the_marked_day(web_page: QtWebEnginePage, load: Load,
                                                                  arun: Run) -> None:
    load("libraries/flatpickr/basic.html")
    tool = Tools(web_page, arun)
    tool("click_element", index=number(line_of(tool("read_page").for_model, r'"Departure date"')))
    seen = tool("read_page").for_model
    rows = table_rows(seen)
    weeks = [r for r in rows if len(r) == 7 and all(re.fullmatch(r"\d{1,2}( \([a-z, ]+\))?", c) for c in r)]
    assert len(weeks) >= 5, seen  # a month's weeks (rows of seven), a day number in each cell
    assert [int(c.split()[0]) for c in weeks[1]] == list(range(int(weeks[1][0]), int(weeks[1][0]) + 7)), weeks
    assert sum("(today" in c for w in weeks for c in w) == 1, weeks  # flatpickr marks today
