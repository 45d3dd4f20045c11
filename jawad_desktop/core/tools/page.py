"""The small ``Page`` interface the browser tools are written against, and its value types
(``PageContext`` is the page as the agent's system prompt describes it, spec 000).

The core never touches a browser engine: the QtWebEngine driver (``jawad_desktop.ui.page_driver``)
implements ``Page``, and so could a headless page. Elements are addressed by a ``Target``: the
index ``[n]`` from the last ``read_page`` listing, or a CSS selector (steps into same-origin
iframes and open shadow roots are joined with `` >>> ``). The page library that runs inside the
page lives in ``core/tools/js/`` and is loaded with :func:`page_script`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.sites import site_of


class PageError(JawadError):
    """An action on the page failed; ``code`` says how (for the model's message and the tests).

    Codes: ``unknown_index``, ``detached``, ``not_found``, ``invalid_selector``, ``hidden``,
    ``disabled``, ``not_editable``, ``not_select``, ``no_option``, ``no_form``,
    ``navigation_blocked``, ``navigation_failed``, ``timeout``, ``no_page``, ``script_error``.
    """

    def __init__(self, code: str, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.code = code


@dataclass(frozen=True, slots=True)
class Target:
    """Which element: ``index`` from the last read_page listing, or a ``selector``."""

    index: int | None = None
    selector: str | None = None

    def __post_init__(self) -> None:
        if (self.index is None) == (not self.selector):
            raise ValueError("a Target needs exactly one of index or selector")

    def as_js(self) -> dict[str, Any]:
        return {"index": self.index} if self.index is not None else {"selector": self.selector}

    def __str__(self) -> str:
        return f"[{self.index}]" if self.index is not None else str(self.selector)


@dataclass(frozen=True, slots=True)
class ElementInfo:
    """What the page says about one element (for the model, the log and Harbor)."""

    tag: str
    role: str
    label: str
    selector: str
    visible: bool = True
    disabled: bool = False
    href: str = ""
    form_action: str = ""
    is_submit: bool = False
    type: str = ""
    checked: bool = False
    value: str = ""
    editable: bool = False
    in_frame: bool = False

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> ElementInfo:
        return cls(
            tag=str(data.get("tag", "")),
            role=str(data.get("role", "")),
            label=str(data.get("label", "")),
            selector=str(data.get("selector", "")),
            visible=bool(data.get("visible", True)),
            disabled=bool(data.get("disabled", False)),
            href=str(data.get("href", "")),
            form_action=str(data.get("formAction", "")),
            is_submit=bool(data.get("isSubmit", False)),
            type=str(data.get("type", "")),
            checked=bool(data.get("checked", False)),
            value=str(data.get("value", "")),
            editable=bool(data.get("editable", False)),
            in_frame=bool(data.get("inFrame", False)),
        )


@dataclass(frozen=True, slots=True)
class ActionOutcome:
    """What an action did: a sentence for the model and, when it happened, where the page went."""

    message: str
    navigated_to: str = ""
    trusted: bool = True  # False when the JavaScript click fallback was used
    blocked_navigation: str = ""  # a navigation the action started that the browser refused


@dataclass(slots=True)
class RawSnapshot:
    """What the page script collects for read_page, before the parsing done off the GUI thread."""

    url: str
    title: str
    html: str  # the main content's HTML (capped; the whole page when it is small)
    html_truncated: bool = False
    structured_html: str = ""  # head, JSON-LD and microdata items: what extruct reads
    lang: str = ""
    h1: str = ""
    text: str = ""
    text_length: int = 0
    # Price-styled texts: {"text", "struck": bool, "h1"/"buy": pixel distance or None}.
    price_texts: list[dict[str, Any]] = field(default_factory=list)
    frames: list[dict[str, str]] = field(default_factory=list)
    shadow_text: list[str] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)
    candidates: int = 0
    hidden: int = 0
    omitted: int = 0

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> RawSnapshot:
        elements = data.get("elements") or {}
        return cls(
            url=str(data.get("url", "")),
            title=str(data.get("title", "")),
            html=str(data.get("html", "")),
            html_truncated=bool(data.get("htmlTruncated", False)),
            structured_html=str(data.get("structuredHtml", "")),
            lang=str(data.get("lang", "")),
            h1=str(data.get("h1", "")),
            text=str(data.get("text", "")),
            text_length=int(data.get("textLength", 0) or 0),
            price_texts=[dict(t) if isinstance(t, dict) else {"text": str(t)} for t in data.get("priceTexts") or []],
            frames=[dict(f) for f in data.get("frames") or []],
            shadow_text=[str(t) for t in data.get("shadowText") or []],
            elements=list(elements.get("items") or []),
            candidates=int(elements.get("candidates", 0) or 0),
            hidden=int(elements.get("hidden", 0) or 0),
            omitted=int(elements.get("omitted", 0) or 0),
        )


ScrollWhere = str  # "up" | "down" | "top" | "bottom"


@runtime_checkable
class Page(Protocol):
    """A web page the agent can read and act on, in a browser the user can watch."""

    async def url(self) -> str: ...

    async def title(self) -> str: ...

    async def navigate(self, url: str, *, timeout: float = 30.0) -> str:
        """Load ``url`` (the agent's own navigation, already permitted); returns the final URL."""
        ...

    async def go_back(self, *, timeout: float = 15.0) -> str:
        """Go back one step in history; returns the URL now shown. PageError if there is none."""
        ...

    def allow_navigation_once(self, url: str) -> None:
        """Let the next navigation to ``url`` through, though an action starts it and it leaves the
        site (the user allowed that action knowing where it leads)."""
        ...

    async def call(self, function: str, *args: Any, timeout: float = 10.0) -> Any:
        """Call ``window.__jawad.<function>(*args)`` of the page library in the isolated world."""
        ...

    async def snapshot(self, *, max_elements: int = 150) -> RawSnapshot: ...

    async def describe(self, target: Target) -> ElementInfo:
        """Find the element (PageError when it is gone, hidden, detached or unknown)."""
        ...

    async def highlight(self, target: Target, note: str = "") -> None: ...

    async def clear_highlight(self) -> None: ...

    async def click(self, target: Target) -> ActionOutcome:
        """A trusted click at the element's centre (JavaScript click when it is covered)."""
        ...

    async def fill(self, target: Target, text: str, *, submit: bool = False) -> ActionOutcome: ...

    async def select_option(self, target: Target, option: str) -> ActionOutcome: ...

    async def set_checked(self, target: Target, checked: bool) -> ActionOutcome: ...

    async def scroll(self, where: ScrollWhere | Target) -> ActionOutcome: ...

    async def wait_for(self, *, text: str = "", selector: str = "", timeout: float = 10.0) -> bool: ...


@functools.cache
def page_script(name: str = "jawad_page.js") -> str:
    """The source of a page script shipped in ``core/tools/js``."""
    return resources.files("jawad_desktop.core.tools").joinpath("js", name).read_text(encoding="utf-8")


ERROR_MESSAGES: dict[str, str] = {
    "unknown_index": "There is no element {target} in the last page listing. Call read_page for fresh indexes.",
    "detached": "Element {target} is no longer on the page (the page changed). Call read_page again.",
    "not_found": "No element matches {target}. Call read_page to see the elements that exist.",
    "invalid_selector": "{target} is not a valid CSS selector. Use an index from read_page instead.",
    "hidden": "Element {target} is hidden, so it cannot be used. Scroll, open its menu, or pick another.",
    "disabled": "Element {target} is disabled or read-only.",
    "not_editable": "Element {target} is not a text field. Pick an INPUT, TEXTAREA or TEXTBOX.",
    "not_select": "Element {target} is not a drop-down list (SELECT).",
    "no_option": "Element {target} has no option like that.",
    "no_form": "Element {target} is not inside a form, so there is nothing to submit.",
    "script_error": "The page script failed on {target}.",
}


def error_for(code: str, target: Target | str, detail: str = "") -> PageError:
    """A PageError with the model-facing sentence for ``code``."""
    template = ERROR_MESSAGES.get(code, "The action on {target} failed ({code}).")
    text = template.format(target=target if isinstance(target, str) else str(target), code=code)
    if detail:
        text = f"{text} {detail}"
    return PageError(code, text)


@dataclass(slots=True)
class PageContext:
    """The current page as the model is told about it (spec 001 READ_PAGE's shape)."""

    title: str = ""
    url: str = ""
    markdown: str = ""  # main content; untrusted, the prompt wraps and labels it
    product: dict[str, Any] | None = None
    interactive_elements: str = ""  # "[1] BUTTON \"Add to Cart\" -> button.add-to-cart" lines

    @property
    def site(self) -> str:
        return site_of(self.url)
