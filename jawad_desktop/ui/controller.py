"""The window's controller: turns Send, Stop and New chat into core calls and runs them as
asyncio tasks on the one qasync loop.

It holds no business logic: a turn is run by a core ``runner`` (the agent), whose events
reach the widgets through the bridge. The controller only tracks the running task, keeps the
user's text until a turn is accepted, and shows the answer as it streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext

if TYPE_CHECKING:
    from jawad_desktop.ui.main_window import MainWindow
    from jawad_desktop.ui.settings_dialog import SettingsDialog

log = logging.getLogger("jawad.ui.controller")

Runner = Callable[[str], Awaitable[Any]]


class ChatController(QObject):
    """Sends the user's text to the runner, streams the answer into the chat, stops on request."""

    busy_changed = Signal(bool)

    def __init__(self, ctx: AppContext, window: MainWindow, runner: Runner | None = None) -> None:
        super().__init__(window)
        self.ctx = ctx
        self.window = window
        self.runner = runner
        self._task: asyncio.Task[Any] | None = None
        self._answer_id: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def attach(self) -> None:
        """Connect to the window's bridge (called once the window is built)."""
        bridge = self.window.bridge
        bridge.chat_delta.connect(self._on_delta)
        bridge.chat_response.connect(self._on_response)

    # User actions
    def send(self, text: str) -> None:
        chat = self.window.chat
        if self._task is not None and not self._task.done():
            return
        if self.ctx.settings.active() is None:
            # Keep what the user typed; tell them what to do.
            chat.add_message("notice", "Add a provider first: **Settings → Providers** (Ctrl+,).")
            self.window.open_settings()
            return
        if self.runner is None:
            chat.add_message("error", "The assistant could not start: no agent is available in this build.")
            return
        chat.take_input()
        chat.add_message("user", text)
        self._answer_id = None
        self._set_busy(True)
        self._task = asyncio.ensure_future(self._run(text))

    async def _run(self, text: str) -> None:
        assert self.runner is not None
        try:
            await self.runner(text)
        except asyncio.CancelledError:
            self._finish_answer(interrupted=True)
            raise
        except Exception as exc:  # the runner reports errors as events; this is the last guard
            log.exception("turn failed")
            self.window.chat.add_message("error", f"Something went wrong: {exc}")
        finally:
            self._set_busy(False)

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def new_chat(self) -> None:
        self.stop()
        self.window.chat.view.chat_model.clear()
        self.window.action_log.log_model.clear()
        self._answer_id = None

    def shutdown(self) -> None:
        """Cancel everything still running (the window is closing)."""
        self.stop()
        for task in list(self._tasks):
            task.cancel()

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # Settings integration
    def provider_hooks(self) -> dict[str, Any]:
        """Test Connection and model list callables for the Providers page."""
        return {}

    def extend_settings(self, dialog: SettingsDialog) -> None:
        """Add pages other parts of the app own to the Settings dialog."""

    def settings_changed(self) -> None:
        """The user changed settings: later turns use the new provider."""

    # Events
    def _on_delta(self, event: ev.ChatDelta) -> None:
        chat = self.window.chat
        if self._answer_id is None:
            self._answer_id = chat.add_message("assistant", "", streaming=True)
        chat.view.chat_model.append_text(self._answer_id, event.text)

    def _on_response(self, event: ev.ChatResponse) -> None:
        chat = self.window.chat
        model = chat.view.chat_model
        role = "error" if event.is_error else "assistant"
        text = event.content
        if event.interrupted:
            text = (text + "\n\n*(stopped)*").strip()
        if self._answer_id is None:
            self._answer_id = chat.add_message(role, text)
        else:
            model.update(self._answer_id, text=text, role=role, streaming=False)
        self._answer_id = None

    def _finish_answer(self, *, interrupted: bool) -> None:
        if self._answer_id is not None:
            model = self.window.chat.view.chat_model
            model.flush()
            item = model.get(self._answer_id)
            suffix = "\n\n*(stopped)*" if interrupted else ""
            if item is not None:
                model.update(self._answer_id, text=item.text + suffix, streaming=False)
            self._answer_id = None

    def _set_busy(self, busy: bool) -> None:
        self.window.chat.set_busy(busy)
        self.busy_changed.emit(busy)
        with contextlib.suppress(RuntimeError):
            self.window.stop_action.setEnabled(busy)
