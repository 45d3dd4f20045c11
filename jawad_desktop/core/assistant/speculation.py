"""An answer started before the user has surely finished speaking (``Assistant.speculate``, for
conversation mode): its events held on a ``HeldBus`` until the ``Speculation`` is committed, and
dropped without a trace (nothing shown, saved or kept in history) when the user goes on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jawad_desktop.core import events as ev
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.messages import Message

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser import BrowserSession


class HeldBus(ev.EventBus):
    """The events of a speculative run: its own subscribers get them at once; the app's bus only
    once released (replayed in order, then passed on as they come), never when discarded. A tool
    call starting while held (its first ``ActionLogUpdate``, before the gate decides) calls
    ``on_tool``, which stops the run there."""

    def __init__(self, app_bus: ev.EventBus) -> None:
        super().__init__()
        self.app_bus = app_bus
        self.held: list[ev.Event] | None = []  # None once released
        self.discarded = False
        self.tool_tried = False
        self.on_tool: Callable[[], object] | None = None

    def emit(self, event: ev.Event) -> None:
        if self.discarded:
            return
        super().emit(event)
        if self.held is None:
            self.app_bus.emit(event)
            return
        self.held.append(event)
        if isinstance(event, ev.ActionLogUpdate) and not self.tool_tried:
            self.tool_tried = True
            if self.on_tool is not None:
                self.on_tool()

    def release(self) -> None:
        held, self.held = self.held or [], None
        for event in held:
            self.app_bus.emit(event)


@dataclass
class Speculation:
    """An answer started on a likely end of the user's turn (``Assistant.speculate``).

    Its events go to ``events`` at once (conversation mode synthesizes its sentences ahead) and
    to the app's bus only on ``commit()``: until then nothing is shown or saved. ``drop()``
    stops it and takes its messages out of the history, as if it had never run. A run that
    wanted a tool was stopped there (``spoiled``): drop it and send the message for real.
    """

    text: str
    events: HeldBus
    task: asyncio.Task[ev.ChatResponse]
    session: AgentSession
    browser: BrowserSession | None  # the assistant's, told of the user's message on commit
    history: list[Message]

    @property
    def spoiled(self) -> bool:
        return self.events.tool_tried

    def commit(self) -> None:
        """The user had finished: the answer is theirs (shown, saved, spoken)."""
        self.events.release()
        if self.browser is not None:
            self.browser.note_user_message(self.text)

    async def drop(self) -> None:
        """The user went on: stop the run and forget it (nothing shown, saved or kept in history)."""
        self.events.discarded = True
        self.task.cancel()
        await asyncio.wait({self.task})
        self.session.history.restore(self.history)
