"""Scheduled tasks in the running app: the scheduler on the window's loop, and a notification for each run.

While the window or its tray icon is open, ``ScheduledTasks`` checks for due tasks
(``core.tasks.runner.Scheduler``) and runs each with an assistant of its own: no person to ask,
the task's approved scope held as its plan, and, for a task that may act on sites, a hidden
browser page on a private profile (nothing of the user's logins or cookies; deleted after the
run). Each finished run is told in a desktop notification, with why it stopped or failed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.harbor.plan_approval import ActionPlan
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.tasks.runner import Scheduler, TaskRunner
from jawad_desktop.core.tasks.task_store import TaskStore
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.bridge import EventBridge

log = logging.getLogger("jawad.ui.tasks")

APP_NAME = "Jawad"


class _RunWithPage:
    """An assistant for one run with the hidden page it acts on; closing it deletes both."""

    def __init__(self, assistant: Any, driver: Any, view: Any, profile: Any) -> None:
        self.assistant = assistant
        self.session = assistant.session
        self._page = (driver, view, profile)

    async def connect_mcp(self) -> list[str]:
        return list(await self.assistant.connect_mcp())

    async def send(self, text: str) -> ev.ChatResponse:
        response: ev.ChatResponse = await self.assistant.send(text)
        return response

    def stop(self) -> None:
        self.assistant.stop()

    @property
    def conversation_id(self) -> str | None:
        value: str | None = self.assistant.conversation_id
        return value

    async def aclose(self) -> None:
        import shiboken6

        driver, view, profile = self._page
        try:
            await self.assistant.aclose()
        finally:
            await driver.close()
            for thing in (view, profile):  # the page went first; a page must not outlive its profile
                if shiboken6.isValid(thing):
                    shiboken6.delete(thing)


class ScheduledTasks(QObject):
    """Runs the due tasks while the app runs (see the module docstring). ``notify(title, body)``
    shows a desktop notification."""

    def __init__(self, ctx: AppContext, bridge: EventBridge, notify: Callable[[str, str], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.notify = notify
        self.db = Database.in_folder(ctx.paths.data)
        self.store = TaskStore(self.db, bus=ctx.bus)
        self.runner = TaskRunner(ctx, self.store, self._assistant)
        self.scheduler = Scheduler(self.runner)
        bridge.other.connect(self._event)

    def start(self) -> None:
        """Check for due tasks now and every half minute, on the window's loop."""
        run_async(self._start(), what="starting the scheduled tasks", bus=self.ctx.bus)

    async def _start(self) -> None:
        self.scheduler.start()

    async def run_now(self, task_id: int) -> ev.TaskRunFinished:
        """Run a task now (Settings → Tasks' Run now), whatever its schedule."""
        return await self.runner.run(self.store.get(task_id))

    async def _assistant(self, own: AppContext, scope: ActionPlan) -> Any:
        from jawad_desktop.core.assistant import Assistant

        if not scope.sites:
            return Assistant(own, ask=False, scope=scope)
        from PySide6.QtWebEngineCore import QWebEngineProfile
        from PySide6.QtWebEngineWidgets import QWebEngineView

        from jawad_desktop.browser.driver import QtWebEnginePage
        from jawad_desktop.browser.guarded_page import GuardedWebPage

        profile = QWebEngineProfile()  # off the record: a background run never uses the user's logins
        view = QWebEngineView()
        view.setPage(GuardedWebPage(profile, view))
        driver = QtWebEnginePage(view)
        return _RunWithPage(Assistant(own, page=driver, ask=False, scope=scope), driver, view, profile)

    def _event(self, event: object) -> None:
        if not isinstance(event, ev.TaskRunFinished):
            return
        if event.outcome == "done":
            self.notify(f"{APP_NAME}: {event.name}", event.answer or "Done.")
        elif event.outcome == "stopped":
            self.notify(f"{APP_NAME} stopped a task: {event.name}", event.reason)
        else:
            self.notify(f"{APP_NAME} could not run a task: {event.name}", event.reason)

    def dispose(self) -> None:
        """The app is quitting: no more checks; a run in progress stops."""
        self.scheduler.cancel()
