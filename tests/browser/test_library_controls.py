"""The controls real sites are built with, on the widget libraries' own pages (issue 35): each is
listed with its role, state and how to act on it, acting on it works through the tools, and the
action says what changed. Pages: jQuery UI's demo pages and the documented examples of flatpickr and
Bootstrap, on the files those packages ship (``tests/pages/libraries``, README there), in real
QtWebEngine through the browser tools as the agent calls them."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]
JQUI = "libraries/jquery-ui/demos"


def line_of(text: str, pattern: str) -> str:
    """The element line that matches ``pattern`` (a regex), or ''."""
    return next((line for line in text.splitlines() if re.search(pattern, line)), "")


def number(line: str) -> int:
    m = re.match(r"\s*\[(\d+)\]", line)
    assert m, line
    return int(m.group(1))


def test_a_jquery_ui_span_slider_is_a_slider_with_its_place_and_keys(web_page: QtWebEnginePage, load: Load,
                                                                      arun: Run) -> None:
    load(f"{JQUI}/slider/range.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    sliders = [line for line in seen.splitlines() if re.match(r"\[\d+\] slider ", line)]
    assert len(sliders) == 2, seen  # the two handles, not "clickable"
    assert 'slider "Price range:" = "15 %" (of its track; press_key ArrowLeft/ArrowRight, Home, End on it)' \
        in sliders[0]
    assert '= "60 %"' in sliders[1]
    moved = tool("press_key", key="End", index=number(sliders[1])).for_model
    assert "$75 - $500" in moved  # what changed: the amount the page shows
    assert 'slider "Price range:" = "100 %" (was "60 %")' in moved  # and the handle's own place
    assert re.search(r'\] slider "Price range:" = "100 %"', tool("read_page").for_model)


def test_a_jquery_ui_dialog_close_is_a_button_and_its_title_bar_no_control(web_page: QtWebEnginePage, load: Load,
                                                                          arun: Run) -> None:
    load(f"{JQUI}/dialog/default.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    assert "draggable" not in seen, seen
    close = line_of(seen, r'^\[\d+\] button "Close"$')
    assert close, seen
    said = tool("click_element", index=number(close)).for_model
    assert 'The dialog "Basic dialog" closed.' in said


def test_jquery_ui_tabs_and_accordion_open_no_phantom_menu(web_page: QtWebEnginePage, load: Load,
                                                           arun: Run) -> None:
    for page in ("tabs/default.html", "accordion/default.html"):
        load(f"{JQUI}/{page}")
        tool = Tools(web_page, arun)
        seen = tool("read_page").for_model
        assert "Open menu" not in seen and "nothing in it yet" not in seen, seen
        assert tool.reading.popups == []
    # The accordion's sections say what they are and open with a click, which says what changed.
    second = line_of(seen, r'tab "Section 2" \(collapsed\)')
    assert second, seen
    said = tool("click_element", index=number(second)).for_model
    assert 'Opened (expanded): tab "Section 2".' in said and 'Closed (collapsed): tab "Section 1".' in said


def test_jquery_ui_autocomplete_suggestions_are_listed_after_typing(web_page: QtWebEnginePage, load: Load,
                                                                     arun: Run) -> None:
    load(f"{JQUI}/autocomplete/default.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    field = line_of(seen, r'textbox "Tags:"')
    assert field, seen
    tool("type_text", text="Jav", index=number(field))
    tool("wait_for", selector=".ui-autocomplete li", timeout_s=5)
    seen = tool("read_page").for_model
    assert 'Open listbox (textbox "Tags:"):' in seen, seen
    entries = re.findall(r"^  \[(\d+)\] (Java\S*)$", seen, re.M)
    assert [name for _, name in entries] == ["Java", "JavaScript"], seen
    tool("click_element", index=int(entries[1][0]))
    assert line_of(tool("read_page").for_model, r'textbox "Tags:" = "JavaScript"'), tool.reading.for_model()


def test_date_picker_fields_say_how_they_are_set(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load(f"{JQUI}/datepicker/default.html")
    tool = Tools(web_page, arun)
    field = line_of(tool("read_page").for_model, r'textbox "Date"')
    assert field.endswith("(opens a calendar; typing the date also works)"), field
    tool("fill_form", index=number(field), text="03/14/2025")
    assert line_of(tool("read_page").for_model, r'textbox "Date" = "03/14/2025"')

    load("libraries/flatpickr/basic.html")
    tool = Tools(web_page, arun)
    field = line_of(tool("read_page").for_model, r'"Departure date"')
    assert field.endswith("(read-only, click it for a calendar, then click the day)"), field
    tool("click_element", index=number(field))
    seen = tool("read_page").for_model
    day = line_of(seen, r'\] clickable "[A-Z][a-z]+ 15, \d{4}"')
    assert day, seen  # the calendar's days are listed, each with its full date
    tool("click_element", index=number(day))
    assert re.search(r'"Departure date" = "\d{4}-\d\d-15"', tool("read_page").for_model), tool.reading.for_model()


def test_bootstrap_more_menu_modal_close_and_collapse(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("libraries/bootstrap/components.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    assert "Mute" not in seen.split("Content")[0] and "Submit" not in seen.split("Content")[0]
    more = line_of(seen, r'button "More" \(collapsed\)')
    said = tool("click_element", index=number(more)).for_model
    assert 'Opened (expanded): button "More".' in said
    seen = tool("read_page").for_model
    for item in ("Mute", "Share", "Block"):  # the menu items behind "More"
        assert re.search(rf'^  \[\d+\] {item}$', seen, re.M), seen
    tool("press_key", key="Escape")

    said = tool("click_element", index=number(line_of(tool("read_page").for_model,
                                                      r'button "Launch demo modal"'))).for_model
    assert 'A dialog "Modal title" opened' in said
    # Bootstrap ignores a close while the modal still fades in (0.3 s); a model's next turn comes later.
    arun(asyncio.sleep(0.5), timeout=5)
    seen = tool("read_page").for_model
    closes = [line for line in seen.splitlines() if re.match(r'\[\d+\] button "Close"', line)]
    assert len(closes) == 2, seen  # the "x" (aria-label Close) and the footer's, both buttons
    said = tool("click_element", index=number(closes[0])).for_model
    # Bootstrap fades the modal out (0.3 s): on a loaded machine the action may settle before the fade
    # ends; then the next read shows it gone.
    if 'The dialog "Modal title" closed.' not in said:
        arun(asyncio.sleep(1.0), timeout=5)
        assert "Open dialog" not in tool("read_page").for_model, said

    toggle = line_of(tool("read_page").for_model, r'button "Button with data-bs-target" \(collapsed\)')
    said = tool("click_element", index=number(toggle)).for_model
    assert 'Opened (expanded): button "Button with data-bs-target".' in said and 'button "Submit"' in said
    assert re.search(r'^\[\d+\] button "Submit"$', tool("read_page").for_model, re.M)


def test_nouislider_handles_are_sliders_with_value_and_range(web_page: QtWebEnginePage, load: Load,
                                                              arun: Run) -> None:
    load("libraries/nouislider/basic.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    # Named by the words over the widget ("Price"), each handle by what its class says it is.
    upper = line_of(seen, r'\] slider "Price \(upper\)" = "80.00" \(from 20.0 to 100.0\)')
    assert line_of(seen, r'\] slider "Price \(lower\)" = "20.00" \(from 0.0 to 80.0\)') and upper, seen
    said = tool("press_key", key="End", index=number(upper)).for_model
    assert 'slider "Price (upper)" = "100.00" (was "80.00")' in said


def test_select2_is_listed_once_as_its_list_box_and_takes_a_choice(web_page: QtWebEnginePage, load: Load,
                                                                    arun: Run) -> None:
    load("libraries/select2/basic.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    elements = seen.split("Content (Markdown):")[0]
    # The hidden native list box is the control, once; the box Select2 draws for it is not listed apart.
    state = line_of(elements, r'\] select "State" = "Alabama"; options: Alabama, Alaska, Arizona, Wyoming$')
    assert state and len(re.findall(r"^\[\d+\]", elements, re.M)) == 1, seen
    said = tool("select_option", index=number(state), option="Arizona").for_model
    assert 'select "State" = "Arizona" (was "Alabama")' in said, said
    shown = arun(web_page.run_js("document.querySelector('.select2-selection__rendered').textContent", world=0))
    assert shown == "Arizona"  # Select2's own box follows the choice
