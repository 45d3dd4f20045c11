"""Everything a person can click is listed (issue 18, point 2), in the real offscreen QtWebEngine.

Elements that the page's scripts make clickable are listed: spans and divs with handlers (noted in
the page's world by ``core/tools/js/jawad_clicks.js``, which leaves nothing there a page can read or
forge), inline handlers, ``el.onclick``, anchors
without href, ``tabindex``, the targets of a delegated handler (cursor:pointer under it), a label
standing for its concealed checkbox. Icons get names, repeated entries get the words of their row,
the same control is listed once, and a page with no controls gets no entries. The task pages of
``tests/pages/tasks`` (served by the task server, each reporting its own verdict) are solved by index
and by ``click_text``, through the tools the model calls; ``click_text`` also goes through Harbor.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.tools.browser import browser_registry, read_page
from jawad_desktop.core.tools.page import _CLICK_CHANNEL
from jawad_desktop.core.tools.registry import ToolResult
from tests.browser.wiring import wire_browser
from tests.fixtures.model_tools import ModelTools
from tests.fixtures.task_server import TaskServer, task_server  # noqa: F401  (a fixture)
from tests.fixtures.task_suite import TaskInstance, task_instance

Run = Callable[..., Any]
Load = Callable[[str], str]


def lines_of(listing: str) -> list[tuple[int, str]]:
    """``(n, line after the number)`` for every numbered line of a listing, in order."""
    found = (re.match(r"\[(\d+)\] (.*)", line) for line in listing.splitlines())
    return [(int(m.group(1)), m.group(2)) for m in found if m]


def listing_of(page: QtWebEnginePage, arun: Run) -> str:
    return str(arun(read_page(page), timeout=30).interactive_elements)


def index_of(listing: str, start: str, within: str = "") -> int:
    """The number of the first line that starts with ``start`` and holds ``within``."""
    for n, line in lines_of(listing):
        if line.startswith(start) and within in line:
            return n
    raise AssertionError(f"no line {start!r} ... {within!r} in:\n{listing}")


class Tools(ModelTools):
    """The browser tools as the model calls them, on one page."""

    def listing(self) -> str:
        return listing_of(self.page, self.arun)

    def click(self, start: str, within: str = "") -> ToolResult:
        """Read the page, then click the line that starts with ``start`` (and holds ``within``)."""
        result = self("click_element", index=index_of(self.listing(), start, within))
        assert result.ok, result.for_model
        return result

    def js(self, source: str) -> Any:
        return self.arun(self.page.run_js(source, world=0))

    def noted(self) -> list[str]:
        """The elements jawad_clicks.js noted, as the page library learns them (id or tag), asked
        in the library's isolated world on the run's channel."""
        return json.loads(self.arun(self.page.run_js(f"""(function () {{
          var out = [], take = function (e) {{ var el = e.composedPath()[0]; out.push(el.id || el.tagName); }};
          window.addEventListener("{_CLICK_CHANNEL}-answer", take, true);
          window.dispatchEvent(new Event("{_CLICK_CHANNEL}-ask"));
          window.removeEventListener("{_CLICK_CHANNEL}-answer", take, true);
          return JSON.stringify(out);
        }})()""")))


@pytest.fixture
def tools(web_page: QtWebEnginePage, arun: Run) -> Tools:
    return Tools(web_page, arun)


# -- what is listed ------------------------------------------------------------------------------


def test_scripted_controls_are_listed_once_with_their_names(tools: Tools, load: Load) -> None:
    load("clickables/scripted.html")
    assert [line for _, line in lines_of(tools.listing())] == [
        'clickable "trash"',  # no text, no title: the words of its class name
        'clickable "star"',
        'clickable "Close panel"',  # an SVG's <title>
        'checkbox "Dark mode"',  # the label of a box clipped to a pixel, standing for it
        'radio "Small"', 'radio "Large"',  # labels of transparent radios
        'checkbox "Send me news"',  # a visible box: its pointer label is not listed again
        'clickable "Save draft"',  # a handler on the div and on the span inside it: one entry
        'link "Load more"',  # an anchor without href
        'clickable "Open the side panel"',  # tabindex=0
        'clickable "Property handler"',  # el.onclick = ...
        'clickable "Inline handler"',  # onclick="..."
        'treeitem "Documents" (expanded)',  # its own words, not its children's
        'treeitem "cv.pdf"', 'treeitem "notes.txt"',
        'gridcell "A1"', 'gridcell "A2"',  # under the grid's delegated handler, with a pointer
        'row "B1 (the whole row)"',  # a row with a handler (a row without one is not listed)
        'slider "Volume" = "40" (from 0 to 100)', 'spinbutton "Guests" = "2"',
        'listitem "A list entry with a handler"',  # the entry without one is not listed
    ]
    for start, said in (('clickable "trash"', "clicked trash"), ('clickable "Close panel"', "clicked close"),
                        ('clickable "Save draft"', "clicked save"), ('link "Load more"', "clicked more"),
                        ('clickable "Property handler"', "clicked prop"),
                        ('clickable "Inline handler"', "clicked inline"), ('treeitem "cv.pdf"', "clicked cv"),
                        ('gridcell "A2"', "clicked seat A2"), ('row "B1', "clicked row b"),
                        ('listitem "A list', "clicked list entry")):
        tools.click(start)
        assert tools.js("document.getElementById('out').textContent") == said
    # The label stands for its box: checking it by index checks the box, and the list shows it.
    done = tools("set_checked", index=index_of(tools.listing(), 'checkbox "Dark mode"'), checked=True)
    assert done.ok, done.for_model
    assert tools.js("document.getElementById('dark').checked") is True
    assert 'checkbox "Dark mode" (checked)' in tools.listing()
    assert tools("set_checked", index=index_of(tools.listing(), 'radio "Large"'), checked=True).ok
    assert tools.js("document.getElementById('size-l').checked") is True
    assert 'radio "Large" (checked)' in tools.listing()


def test_the_targets_of_a_delegated_handler_are_listed_not_its_container(tools: Tools, load: Load) -> None:
    load("clickables/delegated.html")
    assert [line for _, line in lines_of(tools.listing())] == [
        'clickable "Hiking trips"', 'clickable "Sailing trips"', 'clickable "Cycling trips"',
        'clickable "Alps traverse Seven days from hut to hut."', 'clickable "Coast path Five days along the cliffs."',
    ]
    tools.click('clickable "Sailing trips"')
    assert tools.js("document.getElementById('out').textContent") == "filter sailing"
    tools.click('clickable "Coast path')
    assert tools.js("document.getElementById('out').textContent") == "trip coast"
    # The delegated handler noted its own element only; the document's noted <html>; the page sees none.
    assert sorted(tools.noted()) == ["HTML", "app"]
    assert tools.js("document.querySelectorAll('*').length > 10 && "
                    "Array.from(document.querySelectorAll('*')).every(e => !e.getAttributeNames().some("
                    "n => /jawad/i.test(n)))") is True


def test_a_page_without_controls_gets_no_entries_for_its_text(tools: Tools, load: Load) -> None:
    load("clickables/article.html")  # a document listener (analytics), paragraphs, a quote, two links
    assert [line for _, line in lines_of(tools.listing())] == ['link "our favourite routes"', 'link "what to pack"']


def test_the_marker_stays_out_of_the_pages_way(tools: Tools, load: Load) -> None:
    load("clickables/scripted.html")
    seen = tools.js("""(function () {
      var out = {};
      out.native = String(EventTarget.prototype.addEventListener).indexOf("[native code]") >= 0;
      var setter = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "onclick").set;
      out.setter = String(setter).indexOf("[native code]") >= 0;
      out.globals = Object.getOwnPropertyNames(window).filter(function (n) { return /jawad/i.test(n); });
      // Listeners still work, options and removal included, and on what is not an element.
      var el = document.createElement("div"), calls = 0, f = function () { calls++; };
      el.addEventListener("click", f, { once: true }); el.click(); el.click();
      el.addEventListener("click", f); el.removeEventListener("click", f); el.click();
      out.calls = calls;
      out.marked = el.getAttributeNames().length;
      var t = new EventTarget(), got = 0;
      t.addEventListener("click", function () { got++; }); t.dispatchEvent(new Event("click"));
      out.plain = got;
      var p = document.getElementById("prop");
      out.getter = typeof p.onclick === "function";
      var b = document.createElement("b"); b.addEventListener("focus", f);
      out.otherTypes = b.getAttributeNames().length;
      return JSON.stringify(out);
    })()""")
    assert seen == ('{"native":true,"setter":true,"globals":[],"calls":1,"marked":0,"plain":1,"getter":true,'
                    '"otherTypes":0}')


def test_a_page_can_neither_read_nor_forge_the_notes(tools: Tools, load: Load) -> None:
    """After the agent's click the page's world holds no trace of the notes (no attribute, no global,
    no event it could hear), and an attribute a page forges (a decoy) lists nothing and turns no click."""
    load("clickables/delegated.html")
    tools.js("""(function () {
      window.heard = [];
      // A page listening for anything it can name on the window, and watching every attribute.
      ["click", "jawad", "message", "jawad-click"].forEach(function (t) {
        window.addEventListener(t, function (e) { if (e.type !== "click") window.heard.push(e.type); }, true);
      });
      // Decoys: the old marks, forged on words that are no control.
      var decoy = document.createElement("div");
      decoy.id = "decoy"; decoy.textContent = "Confirm and pay now";
      decoy.setAttribute("data-jawad-click", "");
      document.body.appendChild(decoy);
      document.querySelector("h1").setAttribute("data-jawad-click", "");
      window.mutations = [];  // every attribute that changes from now on
      new MutationObserver(function (records) {
        records.forEach(function (r) { if (r.type === "attributes") window.mutations.push(r.attributeName); });
      }).observe(document, { attributes: true, subtree: true });
    })()""")
    listing = tools.listing()
    assert "Confirm and pay now" not in listing and "Filters" not in listing, listing
    tools.click('clickable "Sailing trips"')
    assert tools.js("document.getElementById('out').textContent") == "filter sailing"
    assert "decoy" not in tools.noted() and "H1" not in tools.noted()
    assert tools.js("JSON.stringify([window.heard, window.mutations.filter(n => n !== 'style'), "
                    "Object.getOwnPropertyNames(window).filter(n => /jawad/i.test(n)), "
                    "document.querySelectorAll('[data-jawad-click]').length])") == '[[],[],[],2]'



# -- the task pages: what is listed ----------------------------------------------------------------


def open_task(tools: Tools, server: TaskServer, task: str, seed: int) -> TaskInstance:
    inst = task_instance(task, seed)
    server.clear(task, seed)
    tools.arun(tools.page.navigate(server.url(inst.spec.file, seed)), timeout=30)
    return inst


def verdict(tools: Tools, server: TaskServer, inst: TaskInstance) -> bool:
    report = tools.arun(server.until_done(inst.id, inst.seed, timeout=5.0), timeout=10)
    assert report is not None, f"{inst.id} seed {inst.seed}: no verdict"
    assert report.ok, f"{inst.id} seed {inst.seed}: {report.detail}"
    return True


def expected_lines(inst: TaskInstance) -> list[str]:
    """Lines (or their starts) the element list of a task page must have for its seed."""
    d = inst.data
    if inst.id == "collapsible":
        return [f'clickable "{s}"' for s in d["sections"]]
    if inst.id == "email_inbox":
        return [line for e in d["emails"] for line in (
            f'clickable "Star ☆" (row: "{e["from"]} {e["subject"]} 🗑")',
            f'clickable "Delete 🗑" (row: "☆ {e["from"]} {e["subject"]}")')]
    if inst.id == "tree_navigation":
        return [f'clickable "{t["name"]}"' for t in d["tree"]]
    if inst.id == "calendar_slots":
        return [f'clickable "{d["time"]}" (column: "{d["day"]}")']
    if inst.id == "date_picker":
        return ['link "‹ Prev"', 'link "Next ›"', 'clickable "15"', 'button "Submit"']
    if inst.id == "custom_dropdown":
        return ['clickable "Select…"', 'button "Save"']
    if inst.id == "custom_spinner":
        return ['clickable "Fewer −"', 'clickable "More +"', 'button "Book"']
    if inst.id == "social_feed":
        return [line for p in d["posts"] for line in (f'clickable "Like ♡ {p["likes"]}" (row: "@{p["user"]} Follow',
                                                      f'clickable "More options ⋯" (row: "@{p["user"]} Follow')]
    if inst.id == "confirm_dialog":
        return [f'button "Delete" (row: "{f}")' for f in d["files"]]
    raise AssertionError(inst.id)


LISTED_TASKS = ["collapsible", "email_inbox", "tree_navigation", "calendar_slots", "date_picker", "custom_dropdown",
                "custom_spinner", "social_feed", "confirm_dialog"]


@pytest.mark.parametrize("task", LISTED_TASKS)
def test_task_pages_list_their_controls(task: str, tools: Tools, task_server: TaskServer) -> None:  # noqa: F811
    inst = open_task(tools, task_server, task, 1)
    listing = tools.listing()
    assert "(none visible)" not in listing and lines_of(listing), listing
    shown = [line for _, line in lines_of(listing)]
    for want in expected_lines(inst):
        assert any(line.startswith(want) for line in shown), f"{want!r} not in:\n{listing}"
    assert len(shown) == len(set(map(str, lines_of(listing)))), listing


# -- the task pages: solved by index and by click_text ---------------------------------------------


def solve_by_index(tools: Tools, inst: TaskInstance) -> None:
    d = inst.data
    if inst.id == "collapsible":
        tools.click(f'clickable "{d["section"]}"')
        tools.click(f'link "{d["link"]}"')
    elif inst.id == "date_picker":
        for _ in range(abs(d["offset"])):
            tools.click('link "Next ›"' if d["offset"] > 0 else 'link "‹ Prev"')
        tools.click(f'clickable "{d["day"]}"')
        tools.click('button "Submit"')
    elif inst.id == "tree_navigation":
        for name in d["path"].split("/"):
            tools.click(f'clickable "{name}"')
    elif inst.id == "calendar_slots":
        tools.click(f'clickable "{d["time"]}" (column: "{d["day"]}")')
    elif inst.id == "custom_spinner":
        steps = d["count"] - d["start"]
        for _ in range(abs(steps)):
            tools.click('clickable "More +"' if steps > 0 else 'clickable "Fewer −"')
        tools.click('button "Book"')
    elif inst.id == "custom_dropdown":
        tools.click('clickable "Select…"')
        tools.click(f'clickable "{d["option"]}"')
        tools.click('button "Save"')
    elif inst.id == "confirm_dialog":
        tools.click('button "Delete"', f'(row: "{d["file"]}")')
        tools.click(f'button "{d["confirm"]}"')
    elif inst.id == "email_inbox":
        e = d["emails"][d["index"]]
        row = f'{e["from"]} {e["subject"]}'
        if d["kind"] == "star":
            tools.click('clickable "Star ☆"', row)
        elif d["kind"] == "delete":
            tools.click('clickable "Delete 🗑"', row)
        else:
            tools.click(f'clickable "☆ {row} 🗑"')  # the row opens the email
            tools.click('clickable "Reply ↩"' if d["kind"] == "reply" else 'clickable "Forward ↪"')
            listing = tools.listing()
            if d["kind"] == "reply":
                assert tools("fill_form", index=index_of(listing, 'textarea "Message"'), text=d["text"]).ok
            else:
                assert tools("fill_form", index=index_of(listing, 'textbox "To"'), text=d["address"]).ok
            tools.click('clickable "Send"')
    elif inst.id == "social_feed":
        post = d["posts"][d["index"]]
        where = f'(row: "@{post["user"]} '
        if d["kind"] == "like":
            tools.click('clickable "Like ♡', where)
        elif d["kind"] == "follow":
            tools.click('button "Follow"', where)
        elif d["kind"] == "comment":
            tools.click('clickable "💬 Comment"', where)
            listing = tools.listing()
            assert tools("fill_form", index=index_of(listing, 'textbox "Comment"'), text=d["text"]).ok
            tools.click('button "Post"')
        else:
            tools.click('clickable "More options ⋯"', where)
            tools.click('clickable "Hide post"')
    else:
        raise AssertionError(inst.id)


def seeds_for_every_kind(task: str, kinds: int) -> list[int]:
    seeds, seen = [], set()
    for seed in range(1, 40):
        kind = task_instance(task, seed).data["kind"]
        if kind not in seen:
            seen.add(kind)
            seeds.append(seed)
        if len(seen) == kinds:
            return seeds
    raise AssertionError(f"{task}: no seed for every kind")


SOLVED = [(t, 1) for t in ("collapsible", "date_picker", "tree_navigation", "calendar_slots", "custom_spinner",
                            "custom_dropdown", "confirm_dialog")]


@pytest.mark.parametrize(("task", "seed"), SOLVED)
def test_task_pages_are_solved_by_index(task: str, seed: int, tools: Tools, task_server: TaskServer) -> None:  # noqa: F811
    inst = open_task(tools, task_server, task, seed)
    solve_by_index(tools, inst)
    assert verdict(tools, task_server, inst)


@pytest.mark.parametrize("task", ["email_inbox", "social_feed"])
def test_every_kind_of_inbox_and_feed_task_is_solved_by_index(task: str, tools: Tools,
                                                             task_server: TaskServer) -> None:  # noqa: F811
    for seed in seeds_for_every_kind(task, 4):
        inst = open_task(tools, task_server, task, seed)
        solve_by_index(tools, inst)
        assert verdict(tools, task_server, inst)


def click_text(tools: Tools, text: str, nth: int = 1) -> ToolResult:
    result = tools("click_text", text=text, nth=nth)
    assert result.ok, result.for_model
    return result


def test_task_pages_are_solved_by_click_text(tools: Tools, task_server: TaskServer) -> None:  # noqa: F811
    inst = open_task(tools, task_server, "tree_navigation", 2)
    for name in inst.data["path"].split("/"):
        click_text(tools, name)
    assert verdict(tools, task_server, inst)

    inst = open_task(tools, task_server, "custom_dropdown", 2)
    click_text(tools, "Select…")
    said = click_text(tools, inst.data["option"]).for_model
    assert said.startswith(f'Clicked CLICKABLE "{inst.data["option"]}"'), said
    click_text(tools, "save")  # case does not matter
    assert verdict(tools, task_server, inst)

    inst = open_task(tools, task_server, "confirm_dialog", 2)
    files = inst.data["files"]
    said = click_text(tools, "Delete", nth=files.index(inst.data["file"]) + 1).for_model
    assert f'It was match {files.index(inst.data["file"]) + 1} of {len(files)} for "Delete"' in said, said
    assert f'"Delete (in: {inst.data["file"]})"' in said, said
    # The dialog's button is the one nothing covers: it comes first among the exact matches.
    click_text(tools, inst.data["confirm"])
    assert verdict(tools, task_server, inst)

    inst = open_task(tools, task_server, "date_picker", 3)
    for _ in range(abs(inst.data["offset"])):
        click_text(tools, "Next" if inst.data["offset"] > 0 else "Prev")  # contained in "Next ›"
    click_text(tools, str(inst.data["day"]))
    click_text(tools, "Submit")
    assert verdict(tools, task_server, inst)


def test_click_text_says_what_it_could_not_find(tools: Tools, load: Load) -> None:
    load("clickables/delegated.html")
    missing = tools("click_text", text="Skiing")
    assert not missing.ok and 'No visible element shows the text "Skiing"' in missing.for_model
    past = tools("click_text", text="trips", nth=9)  # three chips, and a paragraph's words
    assert not past.ok and "Only 4 visible elements show" in past.for_model and "from 1 to 4" in past.for_model
    # Among matches alike, what takes clicks comes before plain text: the first chip, not the paragraph.
    said = click_text(tools, "trips").for_model
    assert said.startswith('Clicked CLICKABLE "Hiking trips"') and "match 1 of 4" in said, said
    # Words split over elements ("<b>Cycling</b> trips") are found, and the chip is what is clicked.
    said = click_text(tools, "cycling trips").for_model
    assert said.startswith('Clicked CLICKABLE "Cycling trips"'), said
    assert tools.js("document.getElementById('out').textContent") == "filter cycling"
    # Words inside a card: the card, the outermost element of its pointer group, is clicked.
    click_text(tools, "along the cliffs")
    assert tools.js("document.getElementById('out').textContent") == "trip coast"


# -- click_text through Harbor ---------------------------------------------------------------------


@pytest.fixture
def wired(web_page: QtWebEnginePage, tmp_path: Path, arun: Run) -> Iterator[Any]:
    bus = events.EventBus()
    w = wire_browser(web_page, bus, config_dir=tmp_path / "config", data_dir=tmp_path / "data",
                     highlight_s=0.05, timeout_s=5)
    asked: list[events.PermissionRequest] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.PermissionRequest):
            asked.append(event)
            asyncio.get_running_loop().call_soon(w.gate.respond, event.id, "allow-once")

    bus.subscribe(on_event)
    yield w, asked
    w.close()


def test_click_text_is_inspected_and_asked_like_a_click(web_page: QtWebEnginePage, load: Load, arun: Run,
                                                        wired: Any, scripted_model: Any) -> None:
    from jawad_desktop.core.agent.session import AgentSession
    from jawad_desktop.core.llm.client import LLMClient
    from jawad_desktop.core.tools.basic import basic_registry
    from tests.servers.scripted_model import call, text

    w, asked = wired
    load("clickables/delegated.html")
    settings = Settings()
    settings.network.max_retries = 0
    bus = w.gate.bus
    client = LLMClient(scripted_model.provider(), network=settings.network, bus=bus)
    agent = AgentSession(client=client, registry=basic_registry().merged(browser_registry()), settings=settings,
                         bus=bus, gate=w.gate, browser=w.session)
    # The second answer is for the agent's check of the page after an action, when it makes one.
    scripted_model.script(call("click_text", {"text": "Sailing"}), text("Sailing trips are shown."),
                          text("Sailing trips are shown."))
    w.session.note_user_message("show me the sailing trips")
    response = arun(agent.run("show me the sailing trips"), timeout=60)
    arun(client.aclose())
    assert response.content == "Sailing trips are shown." and not response.is_error
    assert [r.tool_name for r in asked] == ["click_text"]
    assert 'CLICKABLE "Sailing trips"' in asked[0].element_hint
    assert not asked[0].from_page_content  # the user said "sailing"
    assert arun(web_page.run_js("document.getElementById('out').textContent", world=0)) == "filter sailing"
