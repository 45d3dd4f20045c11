"""Open menus, listboxes and dialogs are read with their entries, which the model can click; closed
and dismissed ones are not read at all (real pages in QtWebEngine, through the tools)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, PageReading, browser_registry
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

Load = Callable[[str], str]
Run = Callable[..., Any]


class Tools:
    """The browser tools on ``web_page``, called as the agent calls them."""

    def __init__(self, web_page: QtWebEnginePage, arun: Run) -> None:
        self.ctx = ToolContext(settings=Settings(), bus=EventBus(), browser=BrowserSession(web_page, highlight_s=0))
        self.arun = arun

    def __call__(self, name: str, **arguments: Any) -> ToolResult:
        tool = browser_registry().get(name)
        assert tool is not None
        result: ToolResult = self.arun(tool.run(self.ctx, tool.validate(arguments)), timeout=30)
        assert result.ok, result.for_model
        return result

    @property
    def reading(self) -> PageReading:
        assert self.ctx.browser is not None and self.ctx.browser.last_reading is not None
        return self.ctx.browser.last_reading


def index_of(reading: PageReading, label: str) -> int:
    return next(int(item["index"]) for item in reading.elements if item.get("label") == label)


def test_an_autocomplete_lists_its_suggestions_which_can_be_clicked(web_page: QtWebEnginePage, load: Load,
                                                                    arun: Run) -> None:
    load("menus/autocomplete.html")
    tool = Tools(web_page, arun)
    assert "Open listbox" not in tool("read_page").for_model  # nothing typed, nothing open
    tool("fill_form", index=index_of(tool.reading, "Search"), text="trail")
    tool("wait_for", selector="#suggestions [role=option]", timeout_s=5)
    seen = tool("read_page").for_model
    popups = tool.reading.popups
    assert [(p["kind"], p["label"], p["owner"]["label"]) for p in popups] == [("listbox", "Suggestions", "Search")]
    entries = popups[0]["entries"]
    assert [e["text"] for e in entries] == ["Trail Runner 2", "Trail Runner 3 GTX", "Trailhead Sandal"]
    assert [bool(e.get("selected")) for e in entries] == [True, False, False]
    listed = {int(item["index"]) for item in tool.reading.elements}
    assert all(e["index"] in listed for e in entries)  # each entry is in the element list, by its [n]
    assert tool.reading.as_dict()["popups"] == popups  # `jawad read-page --json` has them too
    block = (f'Open listbox "Suggestions" (combobox "Search"):\n  [{entries[0]["index"]}] Trail Runner 2 (selected)\n'
             f'  [{entries[1]["index"]}] Trail Runner 3 GTX\n  [{entries[2]["index"]}] Trailhead Sandal')
    assert block in seen
    assert seen.index(block) < seen.index("Content (Markdown):")  # read before the page's content
    tool("click_element", index=entries[1]["index"])
    assert "You picked Trail Runner 3 GTX: in stock in Leeds." in tool("read_page").for_model
    assert tool.reading.popups == []  # chosen: the listbox closed


def test_dismissed_overlays_and_closed_menus_are_not_read(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("menus/overlay.html")
    tool = Tools(web_page, arun)
    seen = tool("read_page").for_model
    assert "arm that holds its position" in seen
    for hidden in ("ten percent off", "Join now", "No thanks", "Newsletter", "Price, low to high", "Newest first"):
        assert hidden not in seen, hidden
    # A listbox laid out in the page is not a popup; its options are ordinary elements.
    assert tool.reading.popups == [] and "Matt black" in tool.reading.interactive_elements
    tool("click_element", index=index_of(tool.reading, "Sort by"))
    seen = tool("read_page").for_model
    entries = tool.reading.popups[0]["entries"]
    assert [e["text"] for e in entries] == ["Price, low to high", "Newest first"]
    assert (f'Open menu "Sort order" (button "Sort by"):\n  [{entries[0]["index"]}] Price, low to high\n'
            f'  [{entries[1]["index"]}] Newest first') in seen
    assert "ten percent off" not in seen
