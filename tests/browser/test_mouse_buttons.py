"""The mouse beyond a left click (WebGames' right-click, button-hold and drawn targets): a right-click
gives the page its contextmenu event, a press held for a duration is held that long, and click_at
clicks a point of the last ``look`` screenshot, where something only drawn (a canvas) is hit."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QColor, QImage

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import browser_registry
from tests.browser.test_open_menus import Tools

Load = Callable[[str], str]
Run = Callable[..., Any]


def _refused(tool: Tools, name: str, **arguments: Any) -> str:
    found = browser_registry().get(name)
    assert found is not None
    result = tool.arun(found.run(tool.ctx, found.validate(arguments)), timeout=30)
    assert not result.ok, result.for_model
    return str(result.for_model)


def _index(listing: str, pattern: str) -> int:
    m = re.search(r"\[(\d+)\] " + pattern, listing)
    assert m, listing
    return int(m.group(1))


def test_right_click_opens_the_pages_own_menu(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/mouse.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    assert "Rename" not in seen
    said = tool("click_element", index=_index(seen, r'\S+ "report.txt"'), button="right").for_model
    assert said.startswith('Right-clicked'), said
    assert "Rename" in said and "Delete" in said, said  # the menu that appeared is told
    assert arun(web_page.run_js("document.body.dataset.trusted", world=0)) == "true"
    load("input/mouse.html")  # by the words shown, as for an area read_page does not list
    said = tool("click_text", text="report.txt", button="right").for_model
    assert said.startswith('Right-clicked') and "Rename" in said, said
    # The words of an area inside a larger clickable block: the right-click lands on the words.
    said = tool("click_text", text="Show Secret", button="right").for_model
    assert "The secret is shown." in said, said


def test_press_and_hold_holds_for_the_duration(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("input/mouse.html")
    tool = Tools(web_page, arun)
    hold = _index(tool("read_page").for_model, r'button "Hold me"')
    said = tool("click_element", index=hold, hold_seconds=2.2).for_model
    assert said.startswith('Pressed and held for 2.2 s button "Hold me"'), said
    assert re.search(r"Held for 2\.\d s: unlocked\.", said), said
    short = tool("click_element", index=hold).for_model  # a plain click is no hold
    assert "too short" in short, short


def _red_centre(png: bytes) -> tuple[int, int]:
    image = QImage()
    assert image.loadFromData(png, "PNG")
    points = [(x, y) for y in range(0, image.height(), 2) for x in range(0, image.width(), 2)
              if (c := QColor(image.pixel(x, y))).red() > 180 and c.green() < 40 and c.blue() < 40]
    assert points
    return (sum(p[0] for p in points) // len(points), sum(p[1] for p in points) // len(points))


def test_click_at_a_point_of_the_screenshot_hits_what_is_drawn(web_page: QtWebEnginePage, load: Load,
                                                               arun: Run) -> None:
    load("input/mouse.html")
    tool = Tools(web_page, arun)
    tool("read_page")
    assert "call look first" in _refused(tool, "click_at", x=10, y=10)
    looked = tool("look")
    x, y = _red_centre(looked.images[0].data)
    said = tool("click_at", x=x, y=y).for_model
    assert f"Clicked at ({x}, {y}) of the last screenshot" in said and "You hit the red square." in said, said
    said = tool("click_at", x=x - 150, y=y).for_model
    assert "You missed the square." in said, said
    assert "outside the last screenshot" in _refused(tool, "click_at", x=5000, y=10)


def test_click_at_is_offered_with_look_only() -> None:
    from jawad_desktop.core.tools.browser.tool_running import SEEING_TOOLS
    assert {"look", "click_at"} == SEEING_TOOLS
    assert browser_registry().get("click_pixel") is browser_registry().get("click_at")


def test_look_without_boxes_shows_the_page_as_drawn(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    """Small drawn things (a grid's cells, a dot) can lie under the numbered boxes: ``boxes=false`` gives
    the page as it is, and click_at takes its points the same way."""
    load("input/mouse.html")
    tool = Tools(web_page, arun)
    boxed, plain = tool("look"), tool("look", boxes=False)
    assert "elements boxed with their [n]" in boxed.for_model
    assert "as the page shows it (no boxes drawn)" in plain.for_model, plain.for_model
    rects = arun(web_page.call("markRects"))
    box = rects["rects"][0]
    a, b = QImage(), QImage()
    assert a.loadFromData(boxed.images[0].data, "PNG") and b.loadFromData(plain.images[0].data, "PNG")
    scale = a.width() / rects["viewport"]["width"]
    x, y = round(box["x"] * scale), round((box["y"] + box["height"] / 2) * scale)
    assert any(a.pixel(x + dx, y) != b.pixel(x + dx, y) for dx in (-1, 0, 1)), "the plain picture has the box"
    x, y = _red_centre(plain.images[0].data)
    assert "You hit the red square." in tool("click_at", x=x, y=y).for_model


def _green_centre(png: bytes) -> tuple[int, int]:
    image = QImage()
    assert image.loadFromData(png, "PNG")
    points = [(x, y) for y in range(0, image.height(), 2) for x in range(0, image.width(), 2)
              if (c := QColor(image.pixel(x, y))).green() > 150 and c.red() < 80 and c.blue() < 130]
    assert points
    return (sum(p[0] for p in points) // len(points), sum(p[1] for p in points) // len(points))


def test_click_at_drags_a_drawn_thing_from_point_to_point(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    """A square only drawn on a canvas is dragged with the mouse from where the screenshot shows it to
    where the zone is drawn: press, moves, release, as a person's hand."""
    load("input/drag_canvas.html")
    tool = Tools(web_page, arun)
    tool("read_page")
    looked = tool("look", boxes=False)
    (x, y), (to_x, to_y) = _red_centre(looked.images[0].data), _green_centre(looked.images[0].data)
    assert "Give both drag_to_x and drag_to_y" in _refused(tool, "click_at", x=x, y=y, drag_to_x=to_x)
    said = tool("click_at", x=x, y=y, drag_to_x=to_x, drag_to_y=to_y).for_model
    assert f"Dragged from ({x}, {y})" in said and f"to ({to_x}, {to_y}) of the last screenshot" in said, said
    assert "The square is in the zone." in said, said
