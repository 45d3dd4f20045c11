"""The small ``Page`` interface the browser tools are written against, and its value types
(``PageContext`` is the page as the agent's system prompt describes it, spec 000).

The core never touches a browser engine: the QtWebEngine driver (``jawad_desktop.browser.driver``)
implements ``Page``, and so could a headless page. Elements are addressed by a ``Target``: the
index ``[n]`` from the last ``read_page`` listing, or a CSS selector (steps into same-origin
iframes and open shadow roots are joined with `` >>> ``). The page library that runs inside the
page lives in ``core/tools/js/`` and is loaded with :func:`page_script`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.sites import scheme_of, site_of


class PageError(JawadError):
    """An action on the page failed; ``code`` says how (for the model's message and the tests).

    Codes: ``unknown_index``, ``detached``, ``not_found``, ``invalid_selector``, ``hidden``,
    ``disabled``, ``not_editable``, ``not_select``, ``no_option``, ``no_form``,
    ``navigation_blocked``, ``navigation_failed``, ``timeout``, ``no_page``, ``script_error``;
    ``bad_key``, ``no_tab``, ``last_tab``, ``not_file_input`` (keys, tabs and uploads); ``covered``
    (a dialog lies over the element a click is for); ``not_web_address`` (a ``file:``,
    ``javascript:``, ``data:``... address the agent may not open, or a tab showing one it may not
    read: ``not_web_address``).
    """

    def __init__(self, code: str, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.code = code


def not_web_address(url: str, *, shown: bool = False) -> PageError:
    """The refusal of an address that is not a web page (``core.sites.is_web_address``): to open it
    or, with ``shown``, to read or act on the tab that shows it (one the user opened)."""
    scheme = scheme_of(url)
    kind = f"a {scheme}: address" if scheme else "not a web address"
    short = url if len(url) <= 80 else url[:79] + "…"
    if shown:
        return PageError("not_web_address", f"The tab shows {short}, which is {kind}, not a web page: Jawad reads "
                         "and acts on http and https pages only. Navigate to a web address first.")
    return PageError("not_web_address", f"{short} is {kind}: Jawad opens web addresses only (http and https), "
                     "never local files, scripts or browser pages. Use a web address instead.")


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
    refound: bool = False  # its [n] had gone (a re-render); this is the element found again by its description

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
            refound=bool(data.get("refound", False)),
        )


@dataclass(frozen=True, slots=True)
class FieldReadback:
    """A field's value read back after typing: what the page kept of the text (it may refuse it, cut
    it at its maxlength or reformat it). A password's value is never read: ``value`` is None and only
    its length and whether it is what was typed cross over."""

    kind: str  # the input's type (text, date, password...), or textarea
    value: str | None  # None for a password
    length: int
    typed_length: int
    same: bool  # the field holds exactly what was typed
    secret: bool = False
    max_length: int = -1
    invalid: str = ""  # the browser's validation message, when the value is invalid
    min: str = ""
    max: str = ""
    step: str = ""

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> FieldReadback:
        secret = bool(data.get("secret", False))
        return cls(kind=str(data.get("kind", "")), value=None if secret else str(data.get("value", "")),
                   length=int(data.get("length", 0) or 0), typed_length=int(data.get("typedLength", 0) or 0),
                   same=bool(data.get("same", False)), secret=secret,
                   max_length=int(data.get("maxLength", -1) if data.get("maxLength") is not None else -1),
                   invalid=str(data.get("invalid", "")), min=str(data.get("min", "")),
                   max=str(data.get("max", "")), step=str(data.get("step", "")))


@dataclass(frozen=True, slots=True)
class ActionOutcome:
    """What an action did: a sentence for the model and, when it happened, where the page went."""

    message: str
    navigated_to: str = ""
    trusted: bool = True  # False when the JavaScript click fallback was used
    blocked_navigation: str = ""  # a navigation the action started that the browser refused
    field: FieldReadback | None = None  # a typed field's value, read back after typing
    refound: bool = False  # the element had gone (a re-render) and was found again by its description
    covered_by: str = ""  # what lay over the element, when a click could not land on it ('dialog "Cookies"')
    opened_tab: str = ""  # a tab (popup, target=_blank) the action opened, now the one shown: its "title (URL)"
    download: str = ""  # a download the action started: its file name


@dataclass(frozen=True, slots=True)
class TabInfo:
    """One tab of the browser: its place (0 is the first), title and URL, and whether it is the one
    shown (the one the agent reads and acts on)."""

    index: int
    title: str
    url: str
    active: bool


@dataclass(frozen=True, slots=True)
class DownloadInfo:
    """One download of this browser. ``state``: ``asking`` (waiting for the user's permission),
    ``downloading``, ``done``, ``denied``, ``cancelled`` or ``failed``; ``size`` in bytes (0 when the
    site did not say), ``path`` where it is saved (once allowed); ``by_agent``: an action of the agent
    started it (the user's own downloads are theirs: the agent does not read them); ``page_url``: the
    page it came from."""

    name: str
    url: str
    state: str
    size: int = 0
    received: int = 0
    path: str = ""
    by_agent: bool = False
    page_url: str = ""
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
    # Mozilla Readability on the visible copy of the document: the article's HTML ("" when it found
    # none) and metadata, whether the page looks like an article, and Readability's time.
    article_html: str = ""
    article_title: str = ""
    byline: str = ""
    excerpt: str = ""
    site_name: str = ""
    readerable: bool = False
    reader_ms: float = 0.0
    # Open menus, listboxes and dialogs over the page: {"kind", "label", "owner": {"role", "label"},
    # "entries": [{"text", "index" (its [n], -1 when not listed), "selected", "disabled"}], "count",
    # "text" (a dialog's)}.
    popups: list[dict[str, Any]] = field(default_factory=list)
    still_loading: bool = False  # read before the page's load finished (images, adverts still coming)

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> RawSnapshot:
        elements = data.get("elements") or {}
        article = data.get("article") or {}
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
            article_html=str(article.get("content") or ""),
            article_title=str(article.get("title") or ""),
            byline=str(article.get("byline") or ""),
            excerpt=str(article.get("excerpt") or ""),
            site_name=str(article.get("siteName") or ""),
            readerable=bool(article.get("readerable", False)),
            reader_ms=float(article.get("ms", 0) or 0),
            popups=[dict(p) for p in data.get("popups") or [] if isinstance(p, dict)],
            still_loading=str(data.get("readyState", "complete")) != "complete",
        )


ScrollWhere = str  # "up" | "down" | "top" | "bottom" | "left" | "right" | "leftmost" | "rightmost"


@runtime_checkable
class Page(Protocol):
    """A web page the agent can read and act on, in a browser the user can watch."""

    # The navigations the browser refused while the agent drove, oldest first (a page's own script
    # address is noted as "javascript:").
    blocked_navigations: list[str]

    async def url(self) -> str: ...

    async def title(self) -> str: ...

    async def navigate(self, url: str, *, timeout: float = 30.0) -> str:
        """Load ``url`` (the agent's own navigation, already permitted); returns the final URL once
        the document is usable (DOMContentLoaded and a quiet moment), images and adverts may still be
        loading. PageError ``timeout`` (the load is stopped) or ``navigation_failed``."""
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

    async def screenshot(self, *, marks: bool = True) -> bytes:
        """The viewport as PNG bytes (at most ~1280 px wide); with ``marks`` each element of the last
        listing on screen is boxed with its ``[n]`` (set-of-marks, for ``look``)."""
        ...

    async def describe(self, target: Target) -> ElementInfo:
        """Find the element (PageError when it is gone, hidden, detached or unknown)."""
        ...

    async def highlight(self, target: Target, note: str = "") -> None: ...

    async def clear_highlight(self) -> None: ...

    async def click(self, target: Target, *, button: str = "left", hold_s: float = 0.0) -> ActionOutcome:
        """A trusted click at the element's centre, scrolled into view; a JavaScript click when something
        lies over it, or PageError ``covered`` when that is a dialog the element is not in. ``button``
        "right" or "middle", or ``hold_s`` > 0 (press, hold that long, release), are real mouse events
        only: PageError ``covered`` when something lies over the element."""
        ...

    async def click_at(self, x: float, y: float, *, button: str = "left") -> ActionOutcome:
        """Click at a point of the last ``screenshot`` (its pixels from the top-left corner), whatever is
        drawn there (a canvas, an SVG). PageError ``no_screenshot`` before any screenshot, ``hidden``
        for a point outside it."""
        ...

    async def drag_at(self, x: float, y: float, to_x: float, to_y: float) -> ActionOutcome:
        """Press the mouse at a point of the last ``screenshot``, move it to another and let go there (a
        drawn thing dragged on a canvas). PageErrors as ``click_at``'s."""
        ...

    async def fill(self, target: Target, text: str, *, submit: bool = False) -> ActionOutcome: ...

    async def select_option(self, target: Target, option: str) -> ActionOutcome: ...

    async def set_checked(self, target: Target, checked: bool) -> ActionOutcome: ...

    async def scroll(self, where: ScrollWhere | Target) -> ActionOutcome: ...

    async def wait_for(self, *, text: str = "", selector: str = "", timeout: float = 10.0) -> bool: ...

    # -- keys, pointer, history, tabs, files (issue 18) --------------------------------------------

    async def press_key(self, keys: str, target: Target | None = None) -> ActionOutcome:
        """Press one key or combination (``core.tools.keys``) as real key events, in the
        focused element or in ``target`` (focused first)."""
        ...

    async def type_text(self, text: str, target: Target | None = None) -> ActionOutcome:
        """Type ``text`` with real key events (input-method commits for what no key makes) into the
        focused element or ``target`` (focused first); what is there is kept."""
        ...

    async def hover(self, target: Target) -> ActionOutcome:
        """Move the pointer to the element's centre and leave it there (CSS ``:hover`` applies)."""
        ...

    async def drag_and_drop(self, source: Target, target: Target) -> ActionOutcome:
        """Press the mouse on ``source``, move it to ``target`` and release it there."""
        ...

    async def upload_file(self, target: Target, path: str) -> ActionOutcome:
        """Give the file at ``path`` to the file input ``target`` (the page's own file chooser gets it)."""
        ...

    async def go_forward(self, *, timeout: float = 15.0) -> str:
        """Go forward one step in history; returns the URL now shown. PageError if there is none."""
        ...

    async def reload(self, *, timeout: float = 30.0) -> str:
        """Load the page again; returns its URL once usable."""
        ...

    async def tabs(self) -> list[TabInfo]:
        """The browser's tabs, in order; the active one is the page the agent reads and acts on."""
        ...

    async def switch_tab(self, index: int) -> TabInfo:
        """Show tab ``index`` (the agent follows it). PageError ``no_tab`` when there is none."""
        ...

    async def close_tab(self, index: int) -> TabInfo:
        """Close tab ``index``; returns the tab shown now. PageError ``last_tab`` for the only one."""
        ...

    async def downloads(self) -> list[DownloadInfo]:
        """The downloads of this browser, oldest first."""
        ...


# The page library is written in modules (``core/tools/js/page``: ``open.js``, then ``NN_name.js`` in
# the order of their numbers, then ``close.js``), one function's body cut by subject: the core,
# what scripts make clickable, names, click_text, the element list, products, reading, actions,
# sturdy actions, changes, popups, readiness, critical actions, the call door. They share one scope,
# so they are joined into one script when it is loaded (``library_modules`` lists them). ESLint
# (tools/eslint) checks the joined script, its problems named at their module's line
# (tests/page_script/test_lint.py); tests/page_script/test_<module>.py test each module's entry points
# in QtWebEngine.
LIBRARY = "jawad_page.js"

# The reader the library's read_page uses, shipped in ``core/tools/js/vendor``: Mozilla's Readability,
# the reader view of Firefox (Apache-2.0, vendor/Readability-LICENSE.md and -NOTICE), 0.6.0 with the
# fixes made upstream since (github.com/mozilla/readability at ab4027a: MathJax kept, en and em dashes
# in titles, paragraph wrapping). Wrapped in a function, so its names stay out of the isolated world's
# globals but ``__jawadReader``. Only the main frame's library reads articles (a frame's document is
# read from the main frame, never by its own copy of the library), so the browser injects the reader
# into the main frame alone (about half the library's bytes) and the library into every frame.
READER = "jawad_reader.js"
_VENDORED: dict[str, tuple[str, ...]] = {READER: ("Readability.js", "Readability-readerable.js")}


# The name of the events on which the page library asks jawad_clicks.js (in the page's world) which
# elements have handlers: new for each run of the app, written into both scripts, never into a page.
_CLICK_CHANNEL = "c" + secrets.token_hex(12)


def library_modules() -> list[tuple[str, str]]:
    """The page library's modules, in the order they are joined: (file name, source)."""
    folder = resources.files("jawad_desktop.core.tools").joinpath("js", "page")
    numbered = sorted(f.name for f in folder.iterdir() if f.name[:2].isdigit() and f.name.endswith(".js"))
    return [(name, folder.joinpath(name).read_text(encoding="utf-8")) for name in ["open.js", *numbered, "close.js"]]


def page_script(name: str = LIBRARY, *, with_reader: bool = True) -> str:
    """The source of a page script shipped in ``core/tools/js``, read at each call (4 ms): not kept,
    the 0.8 MB of the scripts the browser holds would stay in the idle app's heap twice.

    ``jawad_page.js`` is the page library, joined from its modules (``library_modules``), with the
    reader (``READER``) ahead of it unless ``with_reader`` is false (the library of a sub-frame);
    ``jawad_reader.js`` the reader alone (vendored Readability as ``__jawadReader``)."""
    folder = resources.files("jawad_desktop.core.tools").joinpath("js")
    if name == READER:
        vendored = [folder.joinpath("vendor", v).read_text(encoding="utf-8") for v in _VENDORED[READER]]
        return ("var __jawadReader = (function () {\n" + "\n".join(vendored) +
                "\nreturn { Readability: Readability, isProbablyReaderable: isProbablyReaderable };\n})();\n")
    if name == LIBRARY:
        own = "\n".join(source for _, source in library_modules())
    else:
        own = folder.joinpath(name).read_text(encoding="utf-8")
    own = own.replace("__JAWAD_CHANNEL__", _CLICK_CHANNEL)
    return page_script(READER) + own if name == LIBRARY and with_reader else own


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
    "covered": "Element {target} is covered by another part of the page, so it cannot be clicked now.",
    "script_error": "The page script failed on {target}.",
    "not_file_input": "Element {target} is not a file field (an upload button). Pick the field that chooses a file.",
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
    interactive_elements: str = ""  # '[1] button "Add to Cart"' lines (core.tools.browser.elements)

    @property
    def site(self) -> str:
        return site_of(self.url)
