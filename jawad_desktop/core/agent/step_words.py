"""What a tool call does, in the user's words, for the status line while the agent works.

``describe_step("click_element", {"index": 4}, reading)`` is ``clicking "Add to cart"``: the
tool's verb, with its target's label from the last element listing (``PageReading.elements``)
when the call names an element by its number, else the words or the selector it was given.
A tool without words of its own is named as it is ("using lookup_weather").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["describe_step"]

# tool -> its verb, before the target: 'typing into "Email"'
_VERBS: dict[str, str] = {
    "click_element": "clicking",
    "click_text": "clicking",
    "fill_form": "typing into",
    "type_text": "typing into",
    "select_option": "choosing in",
    "set_checked": "ticking",
    "hover": "pointing at",
    "upload_file": "uploading a file to",
}
_PLAIN: dict[str, str] = {
    "read_page": "reading the page",
    "find_in_page": "searching the page",
    "scroll_page": "scrolling the page",
    "click_at": "clicking a point of the page",
    "wait_for": "waiting for the page",
    "summarize_page": "summarising the page",
    "go_back": "going back",
    "go_forward": "going forward",
    "reload": "reloading the page",
    "list_tabs": "looking at the tabs",
    "switch_tab": "switching tabs",
    "close_tab": "closing a tab",
    "list_downloads": "looking at the downloads",
    "ask_user_to_take_over": "waiting for you to use the page",
    "calculate": "calculating",
    "look": "looking at the page",
}
_LABEL_CHARS = 40


def _quoted(text: str) -> str:
    text = " ".join(str(text).split())
    if len(text) > _LABEL_CHARS:
        text = text[: _LABEL_CHARS - 1] + "…"
    return f'"{text}"'


def _label(index: Any, elements: Sequence[Mapping[str, Any]]) -> str:
    """The label of element ``index`` in the last listing ("" when it is not there)."""
    for item in elements:
        if item.get("index") == index:
            return str(item.get("label") or item.get("text") or "").strip()
    return ""


def _target(arguments: Mapping[str, Any], elements: Sequence[Mapping[str, Any]]) -> str:
    index = arguments.get("index")
    if index is not None:
        label = _label(index, elements)
        return _quoted(label) if label else f"element {index}"
    for key in ("text", "selector"):
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return _quoted(value)
    return ""


def describe_step(tool: str, arguments: Mapping[str, Any], elements: Sequence[Mapping[str, Any]] = ()) -> str:
    """What the call does, in words: 'clicking "Add to cart"', 'reading the page', 'opening example.com'."""
    if tool == "navigate":
        url = str(arguments.get("url", "")).strip()
        return f"opening {url}" if url else "opening a page"
    if tool == "search_web":
        query = str(arguments.get("query", "")).strip()
        return f"searching the web for {_quoted(query)}" if query else "searching the web"
    if tool == "press_key":
        key = str(arguments.get("key", "")).strip()
        target = _target(arguments, elements)
        return f"pressing {key or 'a key'}" + (f" in {target}" if target else "")
    if tool == "calculate" and str(arguments.get("expression", "")).strip():
        return f"calculating {str(arguments['expression']).strip()[:_LABEL_CHARS]}"
    if tool == "drag_and_drop":
        return "dragging an element"
    if tool in _VERBS:
        verb = "unticking" if tool == "set_checked" and arguments.get("checked") is False else _VERBS[tool]
        target = _target(arguments, elements)
        return f"{verb} {target}" if target else f"{verb} an element"
    if tool in _PLAIN:
        return _PLAIN[tool]
    return f"using {tool}"
