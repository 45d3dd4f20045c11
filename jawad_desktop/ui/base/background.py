"""The one way the UI runs work in the background, and the one path for messages to the user.

``run_async(coro, ...)`` runs a coroutine on the qasync loop; ``run_in_thread(fn, ...)`` runs a
blocking function on the loop's worker threads. Both call ``on_done(result)`` on the GUI thread
when the work succeeds, and ``on_error(exc)`` when it fails; without ``on_error`` the failure is
logged and told to the user (never silence). Cancellation is not a failure.

``tell(bus, level, text)`` is the one path for a message to the user from the window: a core
``Notice`` on the bus, which the window shows in its banner (the CLI prints the same events).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from jawad_desktop.core.events import EventBus, Notice

log = logging.getLogger("jawad.ui.background")

T = TypeVar("T")
Level = Literal["info", "warning", "error"]

# Tasks are kept here until they end: the loop holds only weak references to them.
_running: set[asyncio.Future[Any]] = set()


def tell(bus: EventBus | None, level: Level, text: str) -> None:
    """Show ``text`` to the user (the window's banner), or log it when there is no bus yet."""
    if bus is None:
        log.log(logging.ERROR if level == "error" else logging.WARNING, "%s", text)
        return
    bus.emit(Notice(level=level, text=text))


def _settle(
    future: asyncio.Future[T],
    what: str,
    bus: EventBus | None,
    on_done: Callable[[T], None] | None,
    on_error: Callable[[BaseException], None] | None,
) -> None:
    _running.discard(future)
    if future.cancelled():
        return
    exc = future.exception()
    try:
        if exc is None:
            if on_done is not None:
                on_done(future.result())
        elif on_error is not None:
            on_error(exc)
        else:
            log.error("%s failed", what, exc_info=exc)
            tell(bus, "error", f"{what[:1].upper()}{what[1:]} failed: {exc}")
    except RuntimeError as gone:  # the widget the callback touches was closed meanwhile
        log.debug("%s: its callback found its widget gone (%s)", what, gone)
    except Exception:
        log.exception("the callback after %s failed", what)


def run_async(
    coro: Coroutine[Any, Any, T],
    *,
    what: str,
    bus: EventBus | None = None,
    on_done: Callable[[T], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
) -> asyncio.Task[T]:
    """Run ``coro`` on the loop; ``what`` names it for the user ("testing the connection")."""
    task = asyncio.ensure_future(coro)
    _running.add(task)
    task.add_done_callback(lambda t: _settle(t, what, bus, on_done, on_error))
    return task


def run_in_thread(
    fn: Callable[..., T],
    *args: Any,
    what: str,
    bus: EventBus | None = None,
    on_done: Callable[[T], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
) -> asyncio.Future[T]:
    """Run the blocking ``fn(*args)`` on a worker thread; callbacks come back on the GUI thread."""
    future: asyncio.Future[T] = asyncio.get_event_loop().run_in_executor(None, fn, *args)
    _running.add(future)
    future.add_done_callback(lambda f: _settle(f, what, bus, on_done, on_error))
    return future


def cancel_all() -> None:
    """Cancel whatever still runs (the window is closing)."""
    for future in list(_running):
        future.cancel()
