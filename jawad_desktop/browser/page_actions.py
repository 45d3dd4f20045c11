"""The page driver's actions on elements: ``PageActions``.

Clicks (trusted mouse events at the element's centre, a JavaScript click when something covers
it), right and middle clicks, presses held, a click at a point of the last screenshot, typing into
fields, options, checkboxes, scrolling, waiting for text, keys, hover, drag and drop, and giving a
file to a file field. Each action runs in ``agent_action`` and ends with ``_settle``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QEvent, Qt

from jawad_desktop.browser import page_input
from jawad_desktop.browser.tab_following import TabFollowing
from jawad_desktop.core.tools.browser.elements import role_name
from jawad_desktop.core.tools.keys import parse_keys
from jawad_desktop.core.tools.page import (
    ActionOutcome,
    FieldReadback,
    PageError,
    ScrollWhere,
    Target,
    error_for,
)

log = logging.getLogger("jawad.browser")

# Scrolled to the end of a page that loads more when its end comes into view (a feed): how long the
# scroll waits for it to grow, looking every POLL_GROWTH_S. A page that is really at its end costs this.
GROW_WAIT_S = 1.2
POLL_GROWTH_S = 0.05
# Between a chord's modifier keys going down and its key (and back up): a page that re-renders on each
# keydown (React state) reads the next one with the new state, as with a person's fingers.
MODIFIER_LEAD_S = 0.06


def _cover_of(prepared: dict[str, Any]) -> str:
    """What lies over the element ``J.prepare`` hit-tested ('dialog "Cookies"'), or "" when nothing does."""
    cover = prepared.get("cover") if not prepared.get("onTop") else None
    if not isinstance(cover, dict):
        return ""
    kind, label = str(cover.get("kind") or "element"), str(cover.get("label") or "")
    return f'{kind} "{label}"' if label else kind


_BUTTONS = {"left": Qt.MouseButton.LeftButton, "right": Qt.MouseButton.RightButton,
            "middle": Qt.MouseButton.MiddleButton}


def _press_words(button: str, hold_s: float) -> str:
    """How a press is told: "Right-clicked", "Pressed and held for 3 s"."""
    if hold_s > 0:
        held = f"for {hold_s:g} s"
        return f"Pressed and held ({button} button) {held}" if button != "left" else f"Pressed and held {held}"
    return f"{button.capitalize()}-clicked"


class PageActions(TabFollowing):
    """Acting on the shown tab's elements, as a person's mouse and keyboard would."""

    async def click(self, target: Target, *, button: str = "left", hold_s: float = 0.0) -> ActionOutcome:
        if button != "left" or hold_s > 0:
            return await self._press(target, button, hold_s)
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._checked("prepare", target)
            if info.get("disabled"):
                raise error_for("disabled", target)
            # Let the scroll reach the compositor before the click lands on screen coordinates.
            await asyncio.sleep(0.05)
            info = await self._checked("prepare", target)
            cover = _cover_of(info)
            if cover and (info.get("cover") or {}).get("modal"):
                # A person could not reach it before closing the dialog; nor does the agent click through.
                raise PageError("covered", f"Element {target} is covered by {cover}: it cannot be clicked "
                                "until that is closed or answered. Use the dialog's own buttons (read_page "
                                "lists them first), then try again.")
            trusted = False
            if info.get("onTop") and self._point_in_view(info):
                trusted = self._send_click(float(info["x"]), float(info["y"]))
            if not trusted:
                await self._checked("jsClick", target)
            outcome = await self._settle(before_url, before_blocked)
        label = str(info.get("label") or info.get("selector") or target)
        how = ("" if trusted else f" (with a JavaScript click: it was covered by {cover})" if cover
               else " (with a JavaScript click: the element was off screen or the view takes no input)")
        message = f'Clicked {info.get("role", "element")} "{label}"{how}.'
        if outcome.message:
            message += " " + outcome.message
        return ActionOutcome(message=message, navigated_to=outcome.navigated_to, trusted=trusted,
                             blocked_navigation=outcome.blocked_navigation, opened_tab=outcome.opened_tab,
                             download=outcome.download, refound=bool(info.get("refound")), covered_by=cover)

    async def _press(self, target: Target, button: str, hold_s: float) -> ActionOutcome:
        """A right or middle click, or a press held ``hold_s`` seconds, with real mouse events at the
        element's centre (no JavaScript stands in: a page watching contextmenu or the press's length
        needs the real ones)."""
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(target)
            if info.get("disabled"):
                raise error_for("disabled", target)
            cover = _cover_of(info)
            if not info.get("onTop"):
                raise PageError("covered", f"Element {target} is covered by {cover or 'another element'} there, so "
                                "the mouse cannot reach it. Close or move what covers it, then try again.")
            await self._press_at(float(info["x"]), float(info["y"]), button, hold_s)
            outcome = await self._settle(before_url, before_blocked)
        label = str(info.get("label") or info.get("selector") or target)
        return self._with_settled(f'{_press_words(button, hold_s)} {role_name(str(info.get("role", "")))} '
                                  f'"{label}".', outcome)

    async def _press_at(self, x: float, y: float, button: str, hold_s: float) -> None:
        """Press ``button`` at a viewport point (CSS pixels), hold it ``hold_s`` seconds, let go. A
        right press gives the page its contextmenu event; the browser's own menu is not shown."""
        pressed, none = _BUTTONS[button], Qt.MouseButton.NoButton
        policy = self.view.contextMenuPolicy()
        if button == "right":
            self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        try:
            self._mouse(QEvent.Type.MouseMove, x, y)
            self._mouse(QEvent.Type.MouseButtonPress, x, y, pressed, pressed)
            try:
                if hold_s > 0:
                    await asyncio.sleep(hold_s)
            finally:  # never leave the button held (a Stop while holding lets go)
                self._mouse(QEvent.Type.MouseButtonRelease, x, y, pressed, none)
            if button == "right":
                await asyncio.sleep(0.15)  # the menu request comes back from the renderer after the press
        finally:
            self.view.setContextMenuPolicy(policy)

    def _shot_point(self, x: float, y: float) -> tuple[float, float]:
        """A point of the last screenshot (its pixels) in CSS pixels of the viewport."""
        if self._shot is None:
            raise PageError("no_screenshot", "There is no screenshot to take a point from: call look first, "
                            "then give a point of that picture (its pixels, from the top-left corner).")
        width, height, css_per_px = self._shot
        if not (0 <= x < width and 0 <= y < height):
            raise PageError("hidden", f"({x:g}, {y:g}) is outside the last screenshot, which is {width} x {height} "
                            "pixels. Give a point inside it.")
        return x * css_per_px, y * css_per_px

    async def _hit_at(self, x: float, y: float, css_x: float, css_y: float) -> str:
        """What lies at a point of the last screenshot (' on button "OK"'); PageError when it is gone."""
        hit = await self.call("atPoint", css_x, css_y)
        if not isinstance(hit, dict) or not hit.get("ok"):
            raise PageError("hidden", f"({x:g}, {y:g}) is no longer on the visible part of the page (it was "
                            "scrolled or resized since the screenshot): call look again.")
        return (f' on {role_name(str(hit.get("role", "")))} "{hit.get("label") or hit.get("selector") or ""}"'
                if hit.get("tag") else "")

    async def click_at(self, x: float, y: float, *, button: str = "left") -> ActionOutcome:
        css_x, css_y = self._shot_point(x, y)
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            what = await self._hit_at(x, y, css_x, css_y)
            await self._press_at(css_x, css_y, button, 0.0)
            outcome = await self._settle(before_url, before_blocked)
        verb = "Clicked" if button == "left" else f"{button.capitalize()}-clicked"
        return self._with_settled(f"{verb} at ({x:g}, {y:g}) of the last screenshot{what}.", outcome)

    async def drag_at(self, x: float, y: float, to_x: float, to_y: float) -> ActionOutcome:
        start, end = self._shot_point(x, y), self._shot_point(to_x, to_y)
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            what = await self._hit_at(x, y, *start)
            await self._drag_with_mouse({"x": start[0], "y": start[1]}, {"x": end[0], "y": end[1]})
            outcome = await self._settle(before_url, before_blocked)
        return self._with_settled(f"Dragged from ({x:g}, {y:g}){what} to ({to_x:g}, {to_y:g}) of the last "
                                  "screenshot.", outcome)

    async def fill(self, target: Target, text: str, *, submit: bool = False) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            result = await self._checked("fill", target, text)
            info = await self.describe(target)
            submitted = ""
            if submit:
                if result.get("hasForm"):
                    await self._checked("submit", target)
                    submitted = " and submitted the form"
                else:
                    # No form: the page listens for Enter itself (search boxes often do).
                    await self._checked("focus", target)
                    self._send_key(Qt.Key.Key_Return, "\r")
                    submitted = " and pressed Enter"
            outcome = await self._settle(before_url, before_blocked)
            if not submit and not outcome.navigated_to:
                # Read again once the page has settled: a mask or a check may rewrite the value late.
                try:
                    result = await self._checked("fieldValue", target, text)
                except PageError:
                    log.debug("could not read %s back after typing", target)
        label = info.label or info.selector
        readback = FieldReadback.from_js(result)
        # A password is never echoed: the model gets its length, not its characters.
        typed = (f'{len(text)} characters into the password field "{label}"' if readback.secret
                 else f'"{text}" into {info.role} "{label}"')
        return ActionOutcome(
            message=f"Typed {typed}{submitted}." + (f" {outcome.message}" if outcome.message else ""),
            navigated_to=outcome.navigated_to,
            blocked_navigation=outcome.blocked_navigation,
            opened_tab=outcome.opened_tab,
            download=outcome.download,
            field=readback,
            refound=info.refound or bool(result.get("refound")),
        )

    async def select_option(self, target: Target, option: str) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            result = await self._checked("selectOption", target, option)
            info = await self.describe(target)
            outcome = await self._settle(before_url, before_blocked)
        return ActionOutcome(
            message=f'Selected "{result.get("text", option)}" in "{info.label or info.selector}".' + (
                f" {outcome.message}" if outcome.message else ""),
            navigated_to=outcome.navigated_to, blocked_navigation=outcome.blocked_navigation,
            opened_tab=outcome.opened_tab, download=outcome.download, refound=info.refound)

    async def set_checked(self, target: Target, checked: bool) -> ActionOutcome:
        info = await self.describe(target)
        if info.role not in ("CHECKBOX", "RADIO", "SWITCH") and info.type not in ("checkbox", "radio"):
            raise PageError("not_checkable", f"Element {target} is not a checkbox, radio button or switch.")
        state = "checked" if checked else "unchecked"
        if info.checked == checked:
            return ActionOutcome(message=f'"{info.label or info.selector}" was already {state}.')
        outcome = await self.click(target)
        after = await self.describe(target)
        if after.checked != checked:
            raise PageError("script_error", f'Clicking "{after.label}" did not change it; it is still '
                            f'{"checked" if after.checked else "unchecked"}.')
        return ActionOutcome(message=f'"{after.label or after.selector}" is now {state}.',
                             navigated_to=outcome.navigated_to, trusted=outcome.trusted,
                             blocked_navigation=outcome.blocked_navigation, refound=outcome.refound or info.refound)

    async def scroll(self, where: ScrollWhere | Target) -> ActionOutcome:
        if isinstance(where, Target):
            await self._checked("scrollTo", where)
            return ActionOutcome(message=f"Scrolled element {where} into view.")
        result = await self.call("scroll", where)
        if not isinstance(result, dict) or not result.get("ok"):
            raise PageError("script_error", "The page could not be scrolled.")
        after, top = float(result.get("after", 0)), float(result.get("max", 0))
        if result.get("sideways"):
            if after == float(result.get("before", 0)):
                return ActionOutcome(message=f"Nothing more to scroll {where.replace('most', '')}: the page is "
                                             "at that edge (or does not scroll sideways).")
            place = ("the left edge" if after <= 0 else "the right edge" if after >= top - 1
                     else f"{after / max(top, 1):.0%}")
            return ActionOutcome(message=f"Scrolled {where}; now at {place} of the page's width.")
        if where in ("down", "bottom") and after >= top - 1:
            # At the end of a feed that loads more when its end comes into view: wait for it to grow.
            grown = await self._grown_beyond(top)
            if grown is not None:
                return ActionOutcome(message=f"Scrolled {where}; the page loaded more below (now at "
                                             f"{after / max(grown, 1):.0%} of it).")
        if after == float(result.get("before", 0)) and where in ("up", "down"):
            edge = "top" if where == "up" else "bottom"
            return ActionOutcome(message=f"Already at the {edge} of the page; nothing more to scroll.")
        position = "the top" if after <= 0 else "the bottom" if after >= top - 1 else f"{after / max(top, 1):.0%}"
        return ActionOutcome(message=f"Scrolled {where}; now at {position} of the page.")

    async def _grown_beyond(self, height: float) -> float | None:
        """The page's new scroll height once it grows past ``height`` (more loaded at its end), after
        the new part settles; None when it has not grown within ``GROW_WAIT_S``."""
        deadline = time.monotonic() + GROW_WAIT_S
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_GROWTH_S)
            state = await self.call("scroll", "none")
            if isinstance(state, dict) and float(state.get("max", 0)) > height + 1:
                await self.readiness.settle()
                again = await self.call("scroll", "none")
                return float(again.get("max", 0)) if isinstance(again, dict) else float(state["max"])
        return None

    async def wait_for(self, *, text: str = "", selector: str = "", timeout: float = 10.0) -> bool:
        query = {"selector": selector} if selector else {"text": text}
        deadline = time.monotonic() + timeout
        while True:
            try:
                result = await self.call("find", query, timeout=max(1.0, min(5.0, timeout)))
            except PageError as exc:
                if exc.code != "no_page":
                    raise
                result = {"ok": True, "found": False}  # a navigation is replacing the document
            if isinstance(result, dict) and result.get("error") == "invalid_selector":
                raise error_for("invalid_selector", selector)
            if isinstance(result, dict) and result.get("found"):
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.15)

    # -- keys ----------------------------------------------------------------------------------------

    async def _focus_for_keys(self, target: Target) -> None:
        """Give ``target`` the keyboard focus; an element a script cannot focus (a box that takes
        keys once clicked) is clicked, as a person would."""
        focused = await self._checked("focus", target)
        if focused.get("focused"):
            return
        info = await self._checked("prepare", target)
        await asyncio.sleep(0.05)  # the scroll reaches the compositor before the click
        info = await self._checked("prepare", target)
        if not (info.get("onTop") and self._point_in_view(info)
                and self._send_click(float(info["x"]), float(info["y"]))):
            await self._checked("jsClick", target)

    async def _focused(self) -> dict[str, Any]:
        try:
            found = await self.call("focused", timeout=3.0)
        except PageError:
            return {}
        return found if isinstance(found, dict) and found.get("focused") else {}

    @staticmethod
    def _describe_focused(found: dict[str, Any]) -> str:
        if not found:
            return "the page"
        what = f'{role_name(str(found.get("role") or found.get("tag") or ""))} "{found.get("label") or ""}"'
        if found.get("secret"):
            return f"{what} ({found.get('length', 0)} characters, hidden)"
        if found.get("editable") or found.get("value"):
            return f'{what} = "{found.get("value", "")}"'
        return what

    async def _keys_into(self, target: Target | None,
                         send: Callable[[], Awaitable[None]]) -> tuple[dict[str, Any], dict[str, Any], ActionOutcome]:
        """Send keys (``send``) to ``target`` (focused first) or where the focus is: what had the focus
        before, what has it after (nothing when the page went elsewhere), and how the action ended."""
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            if target is not None:
                await self._focus_for_keys(target)
            before = await self._focused()
            await send()
            outcome = await self._settle(before_url, before_blocked)
            after = await self._focused() if not outcome.navigated_to and not outcome.opened_tab else {}
        return before, after, outcome

    async def press_key(self, keys: str, target: Target | None = None) -> ActionOutcome:
        try:
            chord = parse_keys(keys)
        except ValueError as exc:
            raise PageError("bad_key", str(exc)) from None
        try:
            page_input.key_events(chord)
        except ValueError:
            raise PageError("bad_key", f"No key makes '{chord.key}': type it with type_text.") from None

        async def send() -> None:
            if chord.modifiers:  # held first, as fingers do: the page's keydown sees each key
                page_input.send_modifiers(self.view, chord, down=True)
                await asyncio.sleep(MODIFIER_LEAD_S)
            page_input.send_key(self.view, chord)
            if chord.modifiers:
                await asyncio.sleep(MODIFIER_LEAD_S)
                page_input.send_modifiers(self.view, chord, down=False)

        before, after, outcome = await self._keys_into(target, send)
        message = f"Pressed {chord} in {self._describe_focused(before)}."
        if after and self._describe_focused(after) != self._describe_focused(before):
            message += f" Now: {self._describe_focused(after)}."
        return self._with_settled(message, outcome)

    async def type_text(self, text: str, target: Target | None = None) -> ActionOutcome:
        async def send() -> None:
            committed = ""
            for i, char in enumerate(text.replace("\r\n", "\n")):
                if page_input.has_key(char) or char in "\n\r\t":
                    if committed:
                        page_input.commit(self.view, committed)
                        committed = ""
                    page_input.send_char(self.view, char)
                else:
                    committed += char  # letters no key makes go in one input-method commit
                if i % 16 == 15:
                    await asyncio.sleep(0.005)  # the loop stays free (Stop) and the page keeps up
            if committed:
                page_input.commit(self.view, committed)

        before, after, outcome = await self._keys_into(target, send)
        secret = before.get("secret") or after.get("secret")
        typed = f"{len(text)} characters" if secret else f'"{text}"'
        message = f"Typed {typed} into {self._describe_focused(before)}."
        if after:
            message += f" It now holds: {self._describe_focused(after)}."
        return self._with_settled(message, outcome)

    # -- pointer ---------------------------------------------------------------------------------

    async def hover(self, target: Target) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(target)
            x, y = float(info["x"]), float(info["y"])
            self._mouse(QEvent.Type.MouseMove, x - 2, y)  # a move onto it, as a pointer arrives
            self._mouse(QEvent.Type.MouseMove, x, y)
            outcome = await self._settle(before_url, before_blocked)
        label = info.get("label") or info.get("selector") or str(target)
        covered = "" if info.get("onTop") else " Something else covers it there, so the pointer is over that."
        return self._with_settled(f'The pointer is over {role_name(str(info.get("role", "")))} "{label}".'
                                  f"{covered} Call read_page to see what it opened.", outcome)

    async def drag_and_drop(self, source: Target, target: Target) -> ActionOutcome:
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            start = await self._on_screen(source)
            end = await self._checked("pointOf", target)
            if not self._point_in_view(end):
                await self._checked("scrollTo", target)
                await asyncio.sleep(0.05)
                start = await self._checked("pointOf", source)
                end = await self._checked("pointOf", target)
                if not self._point_in_view(start):
                    raise PageError("hidden", f"{source} and {target} are too far apart to drag between on one "
                                    "screen.")
            html_drag = await self.call("isHtmlDraggable", source.as_js())
            if isinstance(html_drag, dict) and html_drag.get("draggable"):
                # HTML drag and drop would start the platform's drag loop, which blocks the window:
                # the page gets the drag events from the page library instead.
                await self._checked("htmlDrag", source, target.as_js())
                trusted = False
            else:
                await self._drag_with_mouse(start, end)
                trusted = True
            outcome = await self._settle(before_url, before_blocked)
        what = f'{role_name(str(start.get("role", "")))} "{start.get("label") or source}"'
        onto = f'{role_name(str(end.get("role", "")))} "{end.get("label") or target}"'
        return self._with_settled(f"Dragged {what} onto {onto}.", outcome, trusted=trusted)

    async def _drag_with_mouse(self, start: dict[str, Any], end: dict[str, Any], steps: int = 10) -> None:
        x0, y0, x1, y1 = float(start["x"]), float(start["y"]), float(end["x"]), float(end["y"])
        left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
        self._mouse(QEvent.Type.MouseMove, x0, y0)
        self._mouse(QEvent.Type.MouseButtonPress, x0, y0, left, left)
        try:
            for i in range(1, steps + 1):
                await asyncio.sleep(0.02)  # pages follow a drag frame by frame
                self._mouse(QEvent.Type.MouseMove, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps, none, left)
            await asyncio.sleep(0.03)
        finally:  # never leave the button held (a Stop in the middle lets go where the pointer is)
            self._mouse(QEvent.Type.MouseButtonRelease, x1, y1, left, none)

    # -- files -----------------------------------------------------------------------------------

    def take_upload(self) -> list[str] | None:
        """The file the agent's upload gives the page's file chooser, once (``GuardedWebPage.chooseFiles``)."""
        files, self._pending_upload = self._pending_upload, None
        return files

    async def upload_file(self, target: Target, path: str) -> ActionOutcome:
        field_info = await self._checked("fileInput", target)
        chooser = Target(selector=str(field_info["click"]))
        before_url = self.page.url().toString()
        before_blocked = len(self.blocked_navigations)
        with self.agent_action():
            info = await self._on_screen(chooser)
            self._pending_upload = [path]
            try:
                if not (info.get("onTop") and self._send_click(float(info["x"]), float(info["y"]))):
                    raise PageError("hidden", f"The file field {target} is covered, so its chooser cannot be opened.")
                deadline = time.monotonic() + 3.0
                while self._pending_upload is not None and time.monotonic() < deadline:
                    await asyncio.sleep(0.03)
                if self._pending_upload is not None:
                    raise PageError("not_file_input", f"The page did not open a file chooser for {target}.")
            finally:
                self._pending_upload = None
            outcome = await self._settle(before_url, before_blocked)
            after = await self._checked("fileInput", target)
        names = ", ".join(map(str, after.get("names") or [])) or "nothing"
        label = field_info.get("label") or str(target)
        return self._with_settled(f'Gave the file {path} to "{label}"; the field now holds: {names}.', outcome)
