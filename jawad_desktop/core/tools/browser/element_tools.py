"""The browser tools that act on the page's elements: clicks (by [n], by the words shown, at a
point of the last screenshot; right-click, press and hold), fill, select, check, keys, hover, drag
and drop, and giving a file to a file field. Each runs through ``tool_running.act``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from pydantic import Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.tools.browser import values
from jawad_desktop.core.tools.browser.by_text import find_by_text
from jawad_desktop.core.tools.browser.tool_running import (
    CLICK_AT_TOOL,
    TOOLS,
    IndexArg,
    PageAction,
    SelectorArg,
    act,
    act_in_place,
    browser_of,
    page_errors,
    target_of,
)
from jawad_desktop.core.tools.browser.uploads import UploadRefused, user_named_file
from jawad_desktop.core.tools.keys import parse_keys
from jawad_desktop.core.tools.page import ActionOutcome, Page, Target
from jawad_desktop.core.tools.registry import ToolError, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext


def _fill_level(args: Any) -> PermissionLevel:
    return PermissionLevel.SUBMIT if getattr(args, "submit", False) else PermissionLevel.INTERACT


# -- acting on an element -----------------------------------------------------------------------


ButtonArg = Annotated[Literal["left", "right", "middle"], Field(description=(
    "The mouse button: right opens the page's own right-click (context) menu"))]
HoldArg = Annotated[float, Field(ge=0, le=30, description=(
    "Press and hold the button this many seconds before letting go (a press-and-hold button); 0 for a "
    "plain click"))]


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("click", "right_click", "press_and_hold", "long_press"))
async def click_element(
    ctx: ToolContext,
    index: IndexArg = None,
    selector: SelectorArg = None,
    button: ButtonArg = "left",
    hold_seconds: HoldArg = 0,
) -> ToolResult:
    """Click an element of the current page (a button, link, tab...). Give its [n] from read_page.
    Also right-clicks (button "right") and presses and holds (hold_seconds)."""
    target = target_of(index, selector)
    return await act(browser_of(ctx), target, *_pressing(target, button, hold_seconds))


@TOOLS.tool(name=CLICK_AT_TOOL, level=PermissionLevel.INTERACT, aliases=("click_point", "click_xy", "click_pixel"))
async def click_at(
    ctx: ToolContext,
    x: Annotated[float, Field(ge=0, description="Pixels from the left edge of the last look screenshot")],
    y: Annotated[float, Field(ge=0, description="Pixels from the top edge of the last look screenshot")],
    button: ButtonArg = "left",
    drag_to_x: Annotated[float | None, Field(ge=0, description=(
        "With drag_to_y: hold the button down at (x, y), move to this point of the screenshot and let go "
        "(drag something drawn)"))] = None,
    drag_to_y: Annotated[float | None, Field(ge=0, description="With drag_to_x: where to let go")] = None,
) -> ToolResult:
    """Click at a point of the last look screenshot, for what is drawn and not listed (a canvas, a
    picture, a spot in a drawing), or drag from it to another point. Prefer click_element when the
    thing has an [n]."""
    if (drag_to_x is None) != (drag_to_y is None):
        raise ToolError("Give both drag_to_x and drag_to_y to drag, or neither to click.")
    if drag_to_x is not None and drag_to_y is not None:
        to_x, to_y = drag_to_x, drag_to_y
        return await act_in_place(browser_of(ctx), lambda page: page.drag_at(x, y, to_x, to_y))
    return await act_in_place(browser_of(ctx), lambda page: page.click_at(x, y, button=button))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("click_by_text", "click_on_text"))
async def click_text(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The words shown on the element, as the page shows them")],
    nth: Annotated[int, Field(ge=1, description="Which one, when several elements show these words (1: the "
                                               "first; the result says how many there are)")] = 1,
    button: ButtonArg = "left",
    hold_seconds: HoldArg = 0,
) -> ToolResult:
    """Click the visible element that shows these words (its whole text first, then one containing
    them), for something read_page does not list. Prefer click_element with an index when it does.
    Also right-clicks (button "right") and presses and holds (hold_seconds)."""
    if not text.strip():
        raise ToolError("Say which words to click: the text shown on the element.")
    browser = browser_of(ctx)
    with page_errors():
        match = await find_by_text(browser.page, text, nth)
    target = match.target
    if (button != "left" or hold_seconds) and match.on_words is not None:
        target = match.on_words  # a right-click or a hold lands on the words, not the middle of a container
    return await act(browser, target, *_pressing(target, button, hold_seconds), note=match.note(text.strip()))


def _pressing(target: Target, button: str, hold_seconds: float) -> tuple[str, PageAction]:
    """What a click does (its word for the highlight, and the page action): a plain click, a right
    or middle click, or a press held ``hold_seconds``."""
    if button == "left" and not hold_seconds:
        return "click", lambda page: page.click(target)
    return ("hold" if hold_seconds else f"{button}-click",
            lambda page: page.click(target, button=button, hold_s=float(hold_seconds)))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("fill", "fill_input"), level_for=_fill_level)
async def fill_form(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type into the field")],
    index: IndexArg = None,
    selector: SelectorArg = None,
    submit: Annotated[bool, Field(description="Submit the form (or press Enter) after typing")] = False,
) -> ToolResult:
    """Type text into a text field of the current page, replacing what is there; optionally submit.
    Dates, times and colours may be given as people write them: they are entered in the field's format."""
    target = target_of(index, selector)
    browser = browser_of(ctx)
    with page_errors():
        info = await browser.page.describe(target)
    kind = info.type or (info.role[6:-1].lower() if info.role.startswith("INPUT[") else "")
    entry = values.for_input(kind, text)
    return await act(browser, target, "submit" if submit else "type",
                     lambda page: page.fill(target, entry.value, submit=submit),
                     note=entry.note, value_hint=values.format_hint(kind))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("select",))
async def select_option(
    ctx: ToolContext,
    option: Annotated[str, Field(description="The option's visible text or value")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Choose an option of a drop-down list (SELECT) on the current page."""
    target = target_of(index, selector)
    return await act(browser_of(ctx), target, "select", lambda page: page.select_option(target, option))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("check", "toggle"))
async def set_checked(
    ctx: ToolContext,
    index: IndexArg = None,
    selector: SelectorArg = None,
    checked: Annotated[bool, Field(description="true to tick it, false to clear it")] = True,
) -> ToolResult:
    """Tick or clear a checkbox, radio button or switch on the current page."""
    target = target_of(index, selector)
    return await act(browser_of(ctx), target, "check" if checked else "uncheck",
                                   lambda page: page.set_checked(target, checked))


# -- keys, pointer and files -----------------------------------------------------------------------

KeyArg = Annotated[str, Field(description=(
    "The key: Enter, Escape, Tab, Backspace, Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, "
    "PageUp, PageDown, Space, F1-F12 or one character; a combination joins keys with +, as in Control+A or "
    "Shift+Tab"))]


def _presses_enter(keys: str) -> bool:
    try:
        return parse_keys(keys).key == "Enter"
    except ValueError:
        return False


def _key_level(args: Any) -> PermissionLevel:
    # Enter sends the form a field is in, as fill_form's submit does.
    return PermissionLevel.SUBMIT if _presses_enter(getattr(args, "key", "")) else PermissionLevel.INTERACT


def _typing_level(args: Any) -> PermissionLevel:
    # A new line is an Enter.
    return PermissionLevel.SUBMIT if "\n" in getattr(args, "text", "") else PermissionLevel.INTERACT


async def _keys_action(ctx: ToolContext, index: int | None, selector: str | None, what: str,
                       action: Callable[[Page, Target | None], Awaitable[ActionOutcome]]) -> ToolResult:
    """Keys go to element [n] (highlighted and focused first, as any acting tool) or where the focus is."""
    browser = browser_of(ctx)
    if index is not None or selector:
        target = target_of(index, selector)
        return await act(browser, target, what, lambda page: action(page, target))
    return await act_in_place(browser, lambda page: action(page, None))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("press", "key", "keypress", "press_keys", "send_keys"),
             level_for=_key_level)
async def press_key(ctx: ToolContext, key: KeyArg, index: IndexArg = None, selector: SelectorArg = None) -> ToolResult:
    """Press a key or a key combination as on a keyboard: in element [n] (focused first), or where the
    keyboard focus is. For lists, menus, sliders and date pickers (arrows), dialogs (Escape), moving
    between fields (Tab), fields that act on Enter, and shortcuts (Control+A)."""
    try:
        parse_keys(key)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    return await _keys_action(ctx, index, selector, f"press {key}", lambda page, t: page.press_key(key, t))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("type", "type_keys", "keyboard_type", "send_text"),
             level_for=_typing_level)
async def type_text(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type; a new line presses Enter")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Type text with real key presses: into element [n] (focused first), or where the keyboard focus
    is, after what is already there. For editors, terminals, chat boxes and fields that react to each
    key; fill_form replaces a field's value instead."""
    if not text:
        raise ToolError("The text is empty: say what to type (press_key presses one key).")
    return await _keys_action(ctx, index, selector, "type", lambda page, t: page.type_text(text, t))


# Read-only: moving the pointer changes nothing the site keeps, as scrolling does not; what a hover
# opens (a menu) is then used with click_element, which asks.
@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("hover_over", "mouse_over", "mouseover", "hover_element"))
async def hover(ctx: ToolContext, index: IndexArg = None, selector: SelectorArg = None) -> ToolResult:
    """Move the mouse pointer over an element and leave it there, to open a menu or a tooltip that
    shows on hover; then read_page shows what opened."""
    target = target_of(index, selector)
    return await act(browser_of(ctx), target, "point at", lambda page: page.hover(target))


@TOOLS.tool(level=PermissionLevel.INTERACT, aliases=("drag", "drag_drop", "drag_to"))
async def drag_and_drop(
    ctx: ToolContext,
    from_index: Annotated[int | None, Field(description="The [n] of the element to drag")] = None,
    to_index: Annotated[int | None, Field(description="The [n] of the element to drop it on")] = None,
    from_selector: Annotated[str | None, Field(description="A CSS selector for the element to drag")] = None,
    to_selector: Annotated[str | None, Field(description="A CSS selector for where to drop it")] = None,
    to_text: Annotated[str | None, Field(description="The words shown where it goes (a column's or box's "
                                                     "heading), when that place is not in the list")] = None,
) -> ToolResult:
    """Drag an element with the mouse and drop it on another (cards between columns, items in a
    list, a file onto a drop zone's box, a slider's handle)."""
    browser = browser_of(ctx)
    source = target_of(from_index, from_selector)
    if to_text and to_text.strip() and to_index is None and not to_selector:
        with page_errors():
            target = (await find_by_text(browser.page, to_text, 1)).target
    else:
        target = target_of(to_index, to_selector)
    return await act(browser, source, "drag", lambda page: page.drag_and_drop(source, target))


@TOOLS.tool(level=PermissionLevel.SUBMIT, aliases=("upload", "attach_file", "choose_file", "upload_files"))
async def upload_file(
    ctx: ToolContext,
    path: Annotated[str, Field(description="The file's full path, as the user gave it")],
    index: IndexArg = None,
    selector: SelectorArg = None,
) -> ToolResult:
    """Give a file from the user's computer to a file field (an upload button) of the current page.
    Only a file the user named in their messages; the user is asked every time."""
    browser = browser_of(ctx)
    target = target_of(index, selector)
    try:
        file = user_named_file(path, browser.user_texts)
    except UploadRefused as exc:
        raise ToolError(str(exc)) from None
    return await act(browser, target, "upload", lambda page: page.upload_file(target, str(file)))
