"""The element list the model reads: short numbered lines, state shown, navigation folded, a budget.

The page library (``J.elements`` in ``core/tools/js/page``) gives the visible interactive
elements already in reading order, each with its index into the page's references, its region
(``dialog``, ``main``, ``other``, ``navigation``), whether it is in the viewport, its state and its
selector; links to the same place under the same label come as one, and so does a control inside
another with the same label. Besides links, buttons and fields, the list has what the page's scripts
made clickable (``clickable "Star ☆"``: spans and divs with handlers, anchors without href, a label
standing for its concealed checkbox). Entries with the same role and name carry the words of their
row (``context``), since the model cannot tell five "Delete" buttons apart otherwise. This module
turns them into what the model reads::

    Main content:
    [1] select "Size" = "M"; options: Choose a size, S, M, L, XL (sold out) (unavailable)
    [2] checkbox "Gift wrap" (checked)
    [3] button "Add to cart"
    [4] button "Notify me when XL is back" (disabled)
    Site navigation:
    [40] searchbox "Search 20,000 products"
    45 navigation links: read_page(section='navigation')

No selector is on a line: the model acts by index (``click_element(index=3)`` goes through the
page's references), and the selectors stay in the element dicts for Harbor and the log. The
site's navigation links are folded into one line; the full navigation listing, and the elements
left out by the budget, go into ``ElementListing.folded`` (``PageReading.folded``), which
``read_page(section=...)`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.tools.page import RawSnapshot

# About 1,500 tokens: the most the element list takes of a read (the rest is in ``folded``).
ELEMENTS_BUDGET_CHARS = 6_000
# Fewer navigation links than this are listed where they are; more are folded into one line.
NAVIGATION_FOLD_MIN = 9
# The longest a folded section gets (read_page(section=...) returns it whole).
SECTION_CHARS_MAX = 24_000
HEADING = 'Interactive elements ([n] role "label"; act on one with its number as index):'

_GROUPS = (("dialog", "Open dialog or menu:"), ("main", "Main content:"), ("other", "Elsewhere on the page:"),
           ("navigation", "Site navigation:"))
_INPUT_ROLES = {"text": "textbox", "search": "searchbox", "": "textbox"}
_SHOWN_OPTIONS = 8


@dataclass(slots=True)
class ElementListing:
    """The listing for the model, notes on what was left out, and the folded sections."""

    text: str
    notes: list[str] = field(default_factory=list)
    folded: dict[str, str] = field(default_factory=dict)
    listed: int = 0  # elements with a line in ``text``
    folded_navigation: int = 0  # navigation links behind the folded line


def role_name(role: str) -> str:
    """The page library's role (``BUTTON``, ``INPUT[email]``) as the model reads it."""
    role = role.strip()
    if role.upper().startswith("INPUT[") and role.endswith("]"):
        kind = role[6:-1].lower()
        return _INPUT_ROLES.get(kind, f"input[{kind}]")
    return role.lower() or "element"


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# The element's flags said as a word when set, in this order (around checked and expanded).
_FLAGS_BEFORE = (("selected", "selected"), ("pressed", "pressed"))
_FLAGS_AFTER = (("disabled", "disabled"), ("required", "required"), ("invalid", "invalid"),
                # A menu only CSS :hover opens: the hover tool shows its entries.
                ("opensOnHover", "opens on hover"), ("readonly", "read-only"))


def state_words(item: dict[str, Any]) -> list[str]:
    """The element's state as words: checked, selected, pressed, expanded, disabled, required..."""
    words = ["mixed"] if item.get("mixed") else ["checked"] if item.get("checked") else []
    words += [word for key, word in _FLAGS_BEFORE if item.get(key)]
    if item.get("expanded") is True:
        words.append("expanded")
    elif item.get("expanded") is False:
        words.append("collapsed")
    words += [word for key, word in _FLAGS_AFTER if item.get(key)]
    if item.get("picker"):  # a date picker's field: its calendar sets it
        words.append("click it for a calendar, then click the day" if item.get("readonly")
                     else "opens a calendar; typing the date also works")
    low, high = _range(item)
    if item.get("keys"):  # a slider made of spans: where its handle is, and the keys it takes
        arrows = "ArrowUp/ArrowDown" if item.get("upright") else "ArrowLeft/ArrowRight"
        words.append(f"of its track; press_key {arrows}, Home, End on it")
    elif low or high:
        words.append(f"from {low or '?'} to {high or '?'}")
    return words


def _range(item: dict[str, Any]) -> tuple[str, str]:
    """A slider's or number field's range as the page gives it (``["0", "100"]``), or empty."""
    value = item.get("range")
    if isinstance(value, list | tuple) and len(value) == 2:
        return str(value[0] or ""), str(value[1] or "")
    return "", ""


def element_line(item: dict[str, Any]) -> str:
    """``[12] button "Add to cart"``, with its value, state, a select's options, and the words of its
    row when other entries have the same role and name (``[5] button "Delete" (row: "Invoice 1042")``;
    in a grid, ``(column: "Monday")``)."""
    line = f'[{item.get("index", "?")}] {role_name(str(item.get("role", "")))} {_quote(item.get("label", ""))}'
    if item.get("value"):
        line += f" = {_quote(item['value'])}"
    words = state_words(item)
    if words:
        line += f" ({', '.join(words)})"
    if item.get("context"):  # "row", or "column" (a grid's header), or "next to"
        line += f" ({item.get('contextKind') or 'row'}: {_quote(item['context'])})"
    options = item.get("options")
    if options:
        shown = [str(o) for o in options[:_SHOWN_OPTIONS]]
        more = int(item.get("optionCount") or len(options)) - len(shown)
        line += "; options: " + ", ".join(shown) + (f" +{more} more" if more > 0 else "")
    return line


def _is_link(item: dict[str, Any]) -> bool:
    return str(item.get("role", "")).upper() == "LINK"


def _section(lines: Iterable[str], what: str) -> str:
    """Lines joined, at most ``SECTION_CHARS_MAX`` characters, saying what did not fit."""
    kept: list[str] = []
    size = 0
    rest = list(lines)
    for n, line in enumerate(rest):
        if size + len(line) + 1 > SECTION_CHARS_MAX:
            kept.append(f"[... {len(rest) - n} more {what} not listed; scroll_page, then read_page again]")
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def _without_useless_context(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items, with the words of their row left out where those words tell no entry apart from the
    others with its role and name: the same words for all of them (a grid's "Quick view" and "Save"
    buttons, each "row" holding only the other's label)."""
    contexts: dict[tuple[str, str], set[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    for item in items:
        key = (str(item.get("role", "")), str(item.get("label", "")))
        counts[key] = counts.get(key, 0) + 1
        contexts.setdefault(key, set()).add(str(item.get("context") or ""))
    useless = {key for key, seen in contexts.items() if counts[key] > 1 and len(seen) == 1}
    return [{k: v for k, v in item.items() if k not in ("context", "contextKind")}
            if item.get("context") and (str(item.get("role", "")), str(item.get("label", ""))) in useless else item
            for item in items]


def _words(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def _one_link_per_place(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items without a link that goes where the link next to it goes under a label the other's
    holds (a teaser's picture "Best flashlight ever" and its title "Best flashlight ever Lumify X9"):
    the one with the longer label is listed, and reaches the same page."""
    kept: list[dict[str, Any]] = []
    for item in items:
        before = kept[-1] if kept else None
        if (before is not None and _is_link(item) and _is_link(before) and item.get("href")
                and item.get("href") == before.get("href")):
            mine, theirs = _words(str(item.get("label", ""))), _words(str(before.get("label", "")))
            if mine and theirs and (f" {mine} " in f" {theirs} " or f" {theirs} " in f" {mine} "):
                if len(mine) > len(theirs):
                    kept[-1] = item
                continue
        kept.append(item)
    return kept


def list_elements(snapshot: RawSnapshot, *, budget: int = ELEMENTS_BUDGET_CHARS) -> ElementListing:
    """The element list of a snapshot within ``budget`` characters (0: no budget)."""
    items = _without_useless_context(_one_link_per_place(snapshot.elements))
    groups: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in _GROUPS}
    for item in items:
        region = str(item.get("region", ""))
        groups[region if region in groups else "other"].append(item)
    navigation = groups.pop("navigation")
    nav_links = [i for i in navigation if _is_link(i)]
    fold = len(nav_links) >= NAVIGATION_FOLD_MIN
    folded: dict[str, str] = {}
    nav_lines = [element_line(i) for i in navigation if not (fold and _is_link(i))]
    folded_count = len(nav_links) if fold else 0
    if budget and sum(len(line) + 1 for line in nav_lines) > budget // 3:
        # So many navigation controls that they would crowd out the page: all of them are folded.
        fold, folded_count = True, len(navigation)
        nav_lines = []
    if fold:
        what = "navigation links" if folded_count == len(nav_links) else "navigation elements"
        nav_lines.append(f"{folded_count} {what}: read_page(section='navigation')")
        folded["navigation"] = _section((element_line(i) for i in navigation), "navigation elements")
    headed = sum(1 for g in groups.values() if g) + (1 if nav_lines else 0) > 1
    titles = dict(_GROUPS)

    # Navigation comes last but its lines are kept: they say how to reach the folded links.
    tail = ([titles["navigation"]] if headed and nav_lines else []) + nav_lines
    room = budget - sum(len(line) + 1 for line in tail) - 160 if budget else 0  # 160: the note
    lines: list[str] = []
    listed = len(navigation) - folded_count
    left: list[dict[str, Any]] = []
    used = 0
    for name, group in groups.items():
        if not group:
            continue
        if left:
            left.extend(group)
            continue
        head = [titles[name]] if headed else []
        for n, item in enumerate(group):
            line = element_line(item)
            cost = len(line) + 1 + (len(head[0]) + 1 if head else 0)
            if budget and used + cost > room:
                left = group[n:]
                break
            lines.extend(head)
            head = []
            lines.append(line)
            used += cost
            listed += 1
    # Every element outside the navigation, for when the budget (or a small model's room) cuts the list.
    content = [i for name, _ in _GROUPS if name != "navigation" for i in groups[name]]
    if content:
        folded["elements"] = _section((element_line(i) for i in content), "elements")
    notes: list[str] = []
    if left:
        below = sum(1 for i in left if not i.get("inView"))
        where = " (most of them further down the page)" if below * 2 > len(left) else ""
        lines.append(f"[... {len(left)} more elements not listed{where}: read_page(section='elements') lists "
                     "them all; or scroll_page, then read_page again]")
    if snapshot.omitted:
        notes.append(f"{snapshot.omitted} more interactive elements were not listed (the page has more than "
                     "read_page indexes); scroll_page, then read_page again, reaches those further down.")
    return ElementListing(text="\n".join(lines + tail), notes=notes, folded=folded, listed=listed,
                          folded_navigation=folded_count)
