"""Open menus, listboxes and dialogs over a page, as read_page shows them to the model.

The page library (``J.snapshot``'s ``popups``, ``core/tools/js/page``) finds what is open
over the page (a combobox's suggestions, a menu button's menu, a dialog) with its entries; here they
become the lines the model reads first, each entry with its ``[n]`` from the element list, so the
model can click it::

    Open listbox (combobox "Search"):
      [4] Trail Runner 2 (selected)
      [5] Trail Runner 3

A screen-reader line such as "2 results are available" says that a menu is open; this says what
is in it.
"""

from __future__ import annotations

from typing import Any

from jawad_desktop.core.tools.browser.elements import role_name

# A dialog's own text, shown in short (its buttons are its entries; its whole text is in the content).
DIALOG_TEXT_CHARS = 300


def _entry_line(entry: dict[str, Any], number: int) -> str:
    index = entry.get("index")
    ref = f"[{index}]" if isinstance(index, int) and index > 0 else f"{number}."
    state = "".join(f" ({word})" for word in ("selected", "disabled") if entry.get(word))
    return f"  {ref} {entry.get('text') or '(no text)'!s}{state}"


def format_popups(popups: list[dict[str, Any]]) -> str:
    """The open popups as the model reads them ("" when none is open)."""
    blocks: list[str] = []
    for popup in popups:
        head = f"Open {popup.get('kind') or 'menu'}"
        if popup.get("label"):
            head += f' "{popup["label"]}"'
        owner = popup.get("owner")
        if isinstance(owner, dict):
            role = role_name(str(owner.get("role") or "control"))
            head += f' ({role} "{owner.get("label") or ""}")'
        lines = [head + ":"]
        text = str(popup.get("text") or "")
        if text:
            lines.append(f"  {text[:DIALOG_TEXT_CHARS]}")
        entries = [e for e in popup.get("entries") or [] if isinstance(e, dict)]
        lines.extend(_entry_line(entry, n) for n, entry in enumerate(entries, 1))
        more = int(popup.get("count") or 0) - len(entries)
        if more > 0:
            lines.append(f"  ... and {more} more entries")
        if not entries and not text:
            lines.append("  (nothing in it yet)")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)
