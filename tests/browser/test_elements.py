"""The element list the model reads, on a big shop page in QtWebEngine (tests/pages/shop/big.html: 45
header links, mega-menus, a product with variants, related products, 62 footer links): regions and
order, navigation folded, duplicates merged, state shown, the budget, and indexes that still hit
their element after the reordering, through the tools the model calls."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, PageReading, browser_registry, read_page
from jawad_desktop.core.tools.browser.elements import ELEMENTS_BUDGET_CHARS, list_elements
from jawad_desktop.core.tools.page import RawSnapshot, Target
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

Load = Callable[[str], str]
Run = Callable[..., Any]


def read(web_page: QtWebEnginePage, arun: Run) -> PageReading:
    return arun(read_page(web_page), timeout=30)


def lines_of(listing: str) -> list[tuple[int, str]]:
    """``(n, line after the number)`` for every numbered line of a listing, in order."""
    found = (re.match(r"\[(\d+)\] (.*)", line) for line in listing.splitlines())
    return [(int(m.group(1)), m.group(2)) for m in found if m]


def numbered(listing: str) -> dict[str, int]:
    """``line after the number -> n`` (the first such line)."""
    out: dict[str, int] = {}
    for n, line in lines_of(listing):
        out.setdefault(line, n)
    return out


def position(listing: str, text: str) -> int:
    lines = listing.splitlines()
    return next(i for i, line in enumerate(lines) if text in line)


PRODUCT_LINES = ['select "Size" = "M"; options: Choose a size, S, M, L, XL (sold out) (unavailable)',
                 'input[number] "Quantity" = "1"', 'checkbox "Gift wrap" (checked)', 'button "Add to cart"']


def test_big_shop_page_product_first_navigation_folded(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("shop/big.html")
    r = read(web_page, arun)
    listing = r.interactive_elements
    shown = numbered(listing)
    # The product's own controls are in the list, in the main content, before anything else.
    for line in PRODUCT_LINES:
        assert line in shown, listing
    assert listing.startswith("Main content:\n")
    assert position(listing, 'button "Add to cart"') < position(listing, "Elsewhere on the page:")
    assert len(listing) <= ELEMENTS_BUDGET_CHARS
    add = next(i for i in r.elements if i["index"] == shown['button "Add to cart"'])
    assert add["region"] == "main" and add["inView"] and add["selector"] == "#add"  # the selector stays inside
    # The 45 header links, the logo, the breadcrumbs and the 62 footer links are folded (one line, below).
    assert 'link "Jackets"' not in listing and 'link "Help page 14"' not in listing
    nav = numbered(r.folded["navigation"])
    assert {'link "Jackets"', 'link "Help page 14"', 'link "Big Outdoor Store home"'} <= set(nav)
    # The header's search and menu buttons stay listed, last, just before the folded line.
    tail = [line.split("] ", 1)[-1] for line in listing.splitlines()[-10:]]
    assert tail == ["Site navigation:", 'searchbox "Search 20,000 products"', 'button "Search"',
                    'button "Clothing" (collapsed)', 'button "Footwear" (collapsed)', 'button "Equipment" (collapsed)',
                    'button "Camping" (collapsed)', 'button "Sports" (collapsed)', 'button "Brands" (collapsed)',
                    "111 navigation links: read_page(section='navigation')"]
    # Numbers follow the order shown: the visible list counts up from 1, then the folded links.
    assert [n for n, _ in lines_of(listing)] == list(range(1, len(lines_of(listing)) + 1))
    assert min(nav[k] for k in nav if k.startswith("link")) > max(shown.values())
    # A related product's image and title link to one place under one name: one entry.
    assert sum(1 for line in listing.splitlines() if line.endswith('link "Trail Jacket 3"')) == 1
    assert next(i for i in r.elements if i["label"] == "Trail Jacket 3").get("dupes") == 1
    # Half of the old listing, at most (11,324 characters: selectors, document order, capped at 150).
    assert len(listing) < 11_324 / 2


def test_without_landmarks_runs_of_links_are_navigation(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("shop/big.html?landmarks=0")
    r = read(web_page, arun)
    shown = numbered(r.interactive_elements)
    for line in PRODUCT_LINES:
        assert line in shown
    # No nav, header or footer tags: the category list and the footer columns are runs of links.
    assert "105 navigation links: read_page(section='navigation')" in r.interactive_elements
    regions = {i["label"]: i["region"] for i in r.elements}
    assert regions["Add to cart"] == regions["Trail Jacket 1"] == "main"  # the block around the h1
    assert regions["Fleeces"] == regions["Legal page 3"] == "navigation"
    assert regions["Clothing"] == "other"  # the three breadcrumbs are not a run either
    assert regions["Sign in"] == "other"  # five links in a bar are not a run


def test_an_open_menu_and_a_dialog_come_first(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("shop/big.html?menu=1")
    r = read(web_page, arun)
    lines = r.interactive_elements.splitlines()
    assert lines[0] == "Open dialog or menu:" and lines[1] == '[1] link "Clothing line 0"'
    assert '[24] link "Clothing line 23"' in lines and 'button "Clothing" (expanded)' in r.interactive_elements
    load("shop/big.html?cookie=1")
    lines = read(web_page, arun).interactive_elements.splitlines()
    assert lines[:4] == ["Open dialog or menu:", '[1] button "Accept all"', '[2] button "Only necessary"',
                         "Main content:"]


def tools(web_page: QtWebEnginePage) -> tuple[ToolContext, Callable[..., ToolResult]]:
    ctx = ToolContext(settings=Settings(), bus=EventBus(), browser=BrowserSession(web_page, highlight_s=0))

    def run(arun: Run, name: str, **arguments: Any) -> ToolResult:
        tool = browser_registry().get(name)
        assert tool is not None
        result: ToolResult = arun(tool.run(ctx, tool.validate(arguments)), timeout=30)
        assert result.ok, result.for_model
        return result

    return ctx, run


def test_the_product_is_bought_by_index_through_the_tools(web_page: QtWebEnginePage, load: Load, arun: Run) -> None:
    load("shop/big.html")
    ctx, run = tools(web_page)
    seen = run(arun, "read_page").for_model
    shown = numbered(seen)
    assert "->" not in seen and "#add" not in seen  # the model reads numbers, not selectors
    run(arun, "select_option", index=shown[PRODUCT_LINES[0]], option="L")
    run(arun, "fill_form", index=shown['input[number] "Quantity" = "1"'], text="2")
    run(arun, "set_checked", index=shown['checkbox "Gift wrap" (checked)'], checked=False)
    # Add to cart is the 70th interactive element of the document and [13] of the list.
    assert shown['button "Add to cart"'] == 13
    run(arun, "click_element", index=13)
    assert arun(web_page.run_js("document.getElementById('cart-note').textContent", world=0)) == "Added 2 x l"
    after = numbered(run(arun, "read_page").for_model)
    assert 'select "Size" = "L"; options: Choose a size, S, M, L, XL (sold out) (unavailable)' in after
    assert 'input[number] "Quantity" = "2"' in after
    assert 'checkbox "Gift wrap"' in after  # unchecked now
    # A folded navigation link is reached by its number from read_page(section='navigation').
    section = run(arun, "read_page", section="navigation").for_model
    fleeces = numbered(section)['link "Fleeces"']
    info = arun(web_page.describe(Target(index=fleeces)))
    assert (info.label, info.href.split("/", 3)[-1]) == ("Fleeces", "c/fleeces?ref=header-nav")
    assert ctx.browser is not None and ctx.browser.last_reading is not None
    assert ctx.browser.last_reading.folded["navigation"] in section  # the section is the reading's, whole


def test_state_disabled_expanded_pressed_required_invalid(web_page: QtWebEnginePage, load: Load,
                                                         arun: Run) -> None:
    load("shop/big.html")
    _, run = tools(web_page)
    shown = numbered(run(arun, "read_page").for_model)
    assert 'button "Notify me when XL is back" (disabled)' in shown
    assert 'button "Show image 1" (pressed)' in shown and 'button "Show image 2"' in shown
    assert 'tab "Description" (selected)' in shown and 'tab "Reviews (38)"' in shown
    assert 'radio "Glacier blue" (checked)' in shown and 'radio "Moss green"' in shown
    assert 'input[email] "Email" (required)' in shown
    run(arun, "click_element", index=shown['button "Size guide" (collapsed)'])
    run(arun, "fill_form", index=shown['input[email] "Email" (required)'], text="not an address")
    shown = numbered(run(arun, "read_page").for_model)
    assert 'button "Size guide" (expanded)' in shown
    assert 'input[email] "Email" = "not an address" (required, invalid)' in shown


def test_what_is_in_view_comes_first_and_the_new_numbers_hit(web_page: QtWebEnginePage, load: Load,
                                                             arun: Run) -> None:
    load("shop/big.html")
    _, run = tools(web_page)
    before = numbered(run(arun, "read_page").for_model)
    run(arun, "scroll_page", direction="bottom")
    listing = run(arun, "read_page").for_model
    after = numbered(listing)
    # At the bottom, the newsletter form is in view and the product is not: the form comes first now.
    assert after['input[email] "Email" (required)'] < after['button "Add to cart"']
    assert before['input[email] "Email" (required)'] > before['button "Add to cart"']
    assert after['button "Add to cart"'] != before['button "Add to cart"']
    run(arun, "click_element", index=after['button "Add to cart"'])
    assert arun(web_page.run_js("document.getElementById('cart-note').textContent", world=0)) == "Added 1 x m"


def test_every_index_resolves_to_its_own_element_after_the_reordering(web_page: QtWebEnginePage, load: Load,
                                                                     arun: Run) -> None:
    load("shop/big.html?menu=1")
    snap: RawSnapshot = arun(web_page.snapshot())
    assert [i["index"] for i in snap.elements] == list(range(1, len(snap.elements) + 1))
    for item in snap.elements:
        info = arun(web_page.describe(Target(index=item["index"])))
        assert (info.role, info.label, info.selector) == (item["role"], item["label"], item["selector"]), item


def item(index: int, role: str, label: str, region: str = "main", **state: Any) -> dict[str, Any]:
    return {"index": index, "role": role, "label": label, "selector": f"#e{index}", "region": region,
            "inView": index < 5, **state}


def test_the_budget_cuts_with_a_note_and_keeps_the_navigation_line() -> None:
    elements = [item(n, "BUTTON", f"Product button number {n}") for n in range(1, 301)]
    elements += [item(300 + n, "LINK", f"Category {n}", "navigation") for n in range(1, 41)]
    elements.append(item(341, "INPUT[search]", "Search", "navigation"))
    listing = list_elements(RawSnapshot(url="u", title="t", html="", elements=elements), budget=1500)
    lines = listing.text.splitlines()
    assert len(listing.text) <= 1500
    assert lines[0] == "Main content:" and lines[1] == '[1] button "Product button number 1"'
    cut = next(line for line in lines if line.startswith("[..."))
    kept = sum(1 for line in lines if line.startswith("[") and not line.startswith("[..."))
    assert cut == (f"[... {300 - kept + 1} more elements not listed (most of them further down the page): "
                   "read_page(section='elements') lists them all; or scroll_page, then read_page again]")
    assert lines[-3:] == ["Site navigation:", '[341] searchbox "Search"',
                          "40 navigation links: read_page(section='navigation')"]
    assert '[300] button "Product button number 300"' in listing.folded["elements"]
    assert '[340] link "Category 40"' in listing.folded["navigation"]
    assert listing.folded_navigation == 40


@pytest.mark.parametrize(("state", "shown"), [
    ({"value": "M", "options": ["S", "M"], "optionCount": 2}, ' = "M"; options: S, M'),
    ({"checked": True, "disabled": True}, " (checked, disabled)"),
    ({"expanded": False}, " (collapsed)"),
    ({"mixed": True, "checked": False}, " (mixed)"),
    ({"value": 'say "hi"', "required": True, "invalid": True}, ' = "say \\"hi\\"" (required, invalid)'),
    ({"options": [str(n) for n in range(12)], "optionCount": 40}, "; options: 0, 1, 2, 3, 4, 5, 6, 7 +32 more"),
])
def test_state_words(state: dict[str, Any], shown: str) -> None:
    listing = list_elements(RawSnapshot(url="u", title="t", html="", elements=[item(1, "SELECT", "X", **state)]))
    assert listing.text == f'[1] select "X"{shown}'


def test_few_navigation_links_are_listed_where_they_are() -> None:
    elements = [item(1, "BUTTON", "Buy")] + [item(1 + n, "LINK", f"Nav {n}", "navigation") for n in range(1, 4)]
    listing = list_elements(RawSnapshot(url="u", title="t", html="", elements=elements))
    assert listing.text.splitlines() == ["Main content:", '[1] button "Buy"', "Site navigation:", '[2] link "Nav 1"',
                                         '[3] link "Nav 2"', '[4] link "Nav 3"']
    assert "navigation" not in listing.folded


def test_a_floating_listbox_is_a_popup_one_laid_out_in_the_page_is_not(web_page: QtWebEnginePage, load: Load,
                                                                        arun: Run) -> None:
    load("shop/size-picker.html")
    lines = read(web_page, arun).interactive_elements.splitlines()
    assert lines == ["Open dialog or menu:", '[1] option "Wool socks"', '[2] option "Wool hat"',
                     "Main content:", '[3] option "S" (selected)', '[4] option "M"', '[5] option "L" (disabled)',
                     '[6] button "Add to cart"', "Site navigation:", '[7] combobox "Search" = "wool" (expanded)']


def test_selectors_of_a_long_list_are_made_without_a_search_each(web_page: QtWebEnginePage, load: Load,
                                                                  arun: Run) -> None:
    # 800 tiles' links and buttons: each selector used to ask the whole page whether its id, its
    # attributes and its classes were unique (seconds on a shop's page); now counted once a call.
    # The page is in quirks mode, where ids and classes match whatever their case; a form there has
    # a field named "id" (its .id is that field).
    load("shop/many_tiles_quirks.html")
    counted = arun(web_page.run_js("""(function () {
      var calls = 0, original = Document.prototype.querySelectorAll;
      Document.prototype.querySelectorAll = function (sel) { calls++; return original.call(this, sel); };
      try { var list = window.__jawad.elements(1000); } finally { Document.prototype.querySelectorAll = original; }
      var wrong = list.items.filter(function (item) {
        var hits = document.querySelectorAll(item.selector);
        return hits.length !== 1 || hits[0] !== window.__jawad.refs[item.index];
      }).map(function (item) { return item.selector; });
      return JSON.stringify({ calls: calls, items: list.items.length, wrong: wrong, compat: document.compatMode });
    })()"""))
    import json

    result = json.loads(counted)
    assert result["compat"] == "BackCompat" and result["items"] >= 800
    assert result["wrong"] == []  # every selector finds its own element, and only it
    assert result["calls"] < 100, result["calls"]


def test_the_words_of_a_row_are_left_out_where_they_tell_no_entry_apart() -> None:
    # A grid of tiles, each with "Quick view" and "Save": each button's "row" holds only the other's
    # label, the same for all of them; "Delete" buttons on rows of their own keep their rows' words.
    elements = [item(n, "BUTTON", "Quick view" if n % 2 else "Save", contextKind="row",
                     context="Save" if n % 2 else "Quick view") for n in range(1, 5)]
    elements += [item(5, "BUTTON", "Delete", context="Invoice 1042"), item(6, "BUTTON", "Delete", context="Invoice 7")]
    listing = list_elements(RawSnapshot(url="u", title="t", html="", elements=elements))
    assert listing.text.splitlines() == ['[1] button "Quick view"', '[2] button "Save"', '[3] button "Quick view"',
                                         '[4] button "Save"', '[5] button "Delete" (row: "Invoice 1042")',
                                         '[6] button "Delete" (row: "Invoice 7")']
    assert elements[0]["context"] == "Save"  # the snapshot's own entries are not changed


def test_a_link_beside_one_to_the_same_place_whose_label_holds_its_own_is_not_listed_again() -> None:
    # A teaser's picture and its title link to the same page: one line, the fuller label.
    elements = [item(1, "LINK", "Best flashlight ever", href="http://x/a"),
                item(2, "LINK", "Best flashlight ever Lumify X9", href="http://x/a"),
                item(3, "LINK", "Best flashlight ever", href="http://x/b"),  # elsewhere: listed
                item(4, "LINK", "Reviews", href="http://x/b")]  # same place, another label: listed
    listing = list_elements(RawSnapshot(url="u", title="t", html="", elements=elements))
    assert listing.text.splitlines() == ['[2] link "Best flashlight ever Lumify X9"', '[3] link "Best flashlight ever"',
                                         '[4] link "Reviews"']
