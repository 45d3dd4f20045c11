"""Handing the page to the user: a login, a CAPTCHA, a one-time code or payment details.

The agent must not type a password, solve a CAPTCHA or enter a card; the user does, in the
browser they see. ``HandOver`` is the round trip, the same shape as the permission gate's
(``core.harbor.gate``): ``request(reason, url)`` emits ``HandOverRequested`` and waits for
``respond(id, continued)`` from whoever shows it (the window's banner, the terminal); whatever
ends it (Continue, Cancel, Stop) is announced once as ``HandOverFinished``. Stop cancels the
wait like any other step of a run. There is no clock: a two-factor code can take minutes.
When nobody can answer (``ask=False``: ``jawad ask`` without a terminal), it is cancelled at
once and the reason is told as a notice.

``needs_user_note`` is what read_page adds when the page shows such fields (``J.needsUser``),
so the model knows to hand over rather than try.
"""

from __future__ import annotations

import asyncio
import logging

from jawad_desktop.core.events import (
    EventBus,
    HandOverFinished,
    HandOverOutcome,
    HandOverRequested,
    Notice,
    new_id,
)
from jawad_desktop.core.tools.page import Page, PageError

log = logging.getLogger("jawad.browser")

__all__ = ["HAND_OVER_TOOL", "HandOver", "needs_user_note"]

HAND_OVER_TOOL = "ask_user_to_take_over"


class HandOver:
    """The hand-over round trip (see the module docstring). ``ask``: whether a person can answer."""

    def __init__(self, bus: EventBus, *, ask: bool = True) -> None:
        self.bus = bus
        self.ask_enabled = ask
        self._pending: dict[str, asyncio.Future[bool]] = {}

    async def request(self, reason: str, url: str = "", *, run_id: str = "") -> HandOverOutcome:
        """Ask the user to act on the page and wait: "continued", "cancelled" (Cancel, or nobody can
        answer here). Stop cancels the wait (``CancelledError``, announced as "stopped")."""
        if not self.ask_enabled:
            self.bus.emit(Notice(level="warning", text=(
                f"Jawad needs you to use the page ({reason}), but nobody can answer here: "
                "run the request from an interactive terminal, or in the window.")))
            return "cancelled"
        request_id = new_id("handover")
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.bus.emit(HandOverRequested(id=request_id, reason=reason, url=url, run_id=run_id))
        outcome: HandOverOutcome = "stopped"
        try:
            outcome = "continued" if await future else "cancelled"
            return outcome
        finally:
            self._pending.pop(request_id, None)
            log.info("hand-over %s: %s", request_id, outcome)
            self.bus.emit(HandOverFinished(id=request_id, outcome=outcome))

    def respond(self, request_id: str, continued: bool) -> bool:
        """Continue (True) or cancel (False) a waiting hand-over; False when it is unknown or over."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(bool(continued))
        return True

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)


async def needs_user_note(page: Page) -> str:
    """A sentence for the model when the page shows what only the user should fill ("" otherwise)."""
    try:
        found = await page.call("needsUser", timeout=5.0)
    except PageError:
        log.debug("could not look for login, CAPTCHA or payment fields", exc_info=True)
        return ""
    if not isinstance(found, dict):
        return ""
    what = [name for key, name in (("password", "a password field"), ("captcha", "a CAPTCHA"),
                                   ("otp", "a one-time code field"), ("payment", "payment card fields"))
            if found.get(key)]
    if not what:
        return ""
    listed = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
    return (f"Note: this page shows {listed}. Do not try to solve a CAPTCHA, and do not make up or guess a "
            "password, code or card details: unless the user gave you what to enter, call "
            f"{HAND_OVER_TOOL}(reason) so the user does it in the browser, then continue from the fresh reading "
            "it returns.")
