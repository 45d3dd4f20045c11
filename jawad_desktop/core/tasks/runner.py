"""Running scheduled tasks: one run of a task, and the scheduler that runs what is due (no Qt).

``TaskRunner.run(task)`` gives the task's prompt to an assistant the face builds for it
(``MakeAssistant``: the window's, with a browser tab the user can watch; ``jawad tasks`` an
offscreen page) on a context of its own (its own event bus, so the window's chat does not show
it), with no person to ask and the task's approved scope held as its plan
(``PlanApproval.hold``): within the scope nothing asks; the first action outside it (or any
critical action, or data leaving for another site) is denied, and the run stops there and says
what it would have needed. A run is capped at ``max_run_s``. Its record (``TaskStore``) keeps
the answer, the actions and why it stopped or failed, and ``TaskRunFinished`` is announced on
the app's bus (the window notifies).

``Scheduler`` looks for due tasks on a clock it is given (``clock``: the tests inject one),
claims each occurrence in the database (so the window and ``jawad tasks run-due`` never run it
twice), catches up once after the computer slept (missed occurrences run once, not each) and
runs one task at a time (a task never overlaps itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Protocol

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.harbor.plan_approval import ActionPlan
from jawad_desktop.core.tasks.task_store import Task, TaskStore, as_ms

__all__ = ["MakeAssistant", "Scheduler", "TaskAssistant", "TaskRunner"]

log = logging.getLogger("jawad.tasks")

MAX_RUN_S = 30 * 60.0
CHECK_EVERY_S = 30.0


class TaskAssistant(Protocol):
    """What a run needs of the assistant (``core.assistant.Assistant`` is one)."""

    session: Any

    async def connect_mcp(self) -> list[str]: ...

    async def send(self, text: str) -> ev.ChatResponse: ...

    def stop(self) -> None: ...

    @property
    def conversation_id(self) -> str | None: ...

    async def aclose(self) -> None: ...


# Builds the assistant for one run: the task's own context (its bus), the scope to hold.
MakeAssistant = Callable[[AppContext, ActionPlan], Awaitable[TaskAssistant]]


def _instructions(task: Task) -> str:
    return ("THIS IS A SCHEDULED TASK, running in the background with nobody to ask. It may only "
            f"{task.scope_text()}. Anything else is refused and ends the run, so stay within that; if the task "
            "cannot be done within it, say so in your answer. Answer briefly: the answer is shown in a notification.")


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} minutes" if seconds >= 120 else f"{seconds:.0f} seconds"


class TaskRunner:
    """One run of a task at a time (see the module docstring)."""

    def __init__(self, ctx: AppContext, store: TaskStore, make_assistant: MakeAssistant, *,
                 max_run_s: float = MAX_RUN_S) -> None:
        self.ctx = ctx
        self.store = store
        self.make_assistant = make_assistant
        self.max_run_s = max_run_s
        self._current: TaskAssistant | None = None

    def stop(self) -> None:
        """Stop the run in progress, if any (it is recorded as stopped)."""
        if self._current is not None:
            self._current.stop()

    async def run(self, task: Task, due_at: int | None = None) -> ev.TaskRunFinished:
        """Run ``task`` now; its record is kept and the outcome announced on the app's bus."""
        run_id = self.store.start_run(task, due_at if due_at is not None else ev.now_ms())
        own = dataclasses.replace(self.ctx, bus=ev.EventBus())
        actions: dict[str, dict[str, Any]] = {}
        refused: list[str] = []
        assistant: TaskAssistant | None = None

        def watch(event: ev.Event) -> None:
            if not isinstance(event, ev.ActionLogUpdate):
                return
            entry = event.entry
            actions[entry.id] = {"tool": entry.tool_name, "site": entry.site, "decision": entry.decision,
                                 "result": entry.result, "details": entry.details[:300]}
            if entry.decision == "denied" and not refused:
                where = f" on {entry.site}" if entry.site else ""
                refused.append(f"{entry.tool_name}{where}: {entry.details or 'outside its approved scope'}")
                if assistant is not None:
                    assistant.stop()

        own.bus.subscribe(watch)
        outcome: ev.TaskRunFinished
        conversation = ""
        try:
            assistant = await self.make_assistant(own, task.scope())
            self._current = assistant
            assistant.session.system_extra = "\n\n".join(
                part for part in (getattr(assistant.session, "system_extra", ""), _instructions(task)) if part)
            await assistant.connect_mcp()
            async with asyncio.timeout(self.max_run_s):
                response = await assistant.send(task.prompt)
            conversation = assistant.conversation_id or ""
            if refused:
                outcome = ev.TaskRunFinished(task.id, task.name, "stopped", response.content,
                                             f"It stopped: it would have needed {refused[0]}. Change the task's "
                                             "scope if it may do that.")
            elif response.is_error:
                outcome = ev.TaskRunFinished(task.id, task.name, "failed", "", response.content)
            elif response.interrupted:
                outcome = ev.TaskRunFinished(task.id, task.name, "stopped", response.content, "It was stopped.")
            else:
                outcome = ev.TaskRunFinished(task.id, task.name, "done", response.content)
        except TimeoutError:
            outcome = ev.TaskRunFinished(task.id, task.name, "failed", "",
                                         f"It took longer than {_duration(self.max_run_s)} and was stopped.")
        except JawadError as exc:
            outcome = ev.TaskRunFinished(task.id, task.name, "failed", "", exc.user_text())
        except Exception as exc:  # a run must never take the scheduler (or the app) down
            log.exception("task %d failed", task.id)
            outcome = ev.TaskRunFinished(task.id, task.name, "failed", "", f"Something went wrong: {exc}")
        finally:
            self._current = None
            if assistant is not None:
                try:
                    await assistant.aclose()
                except Exception:
                    log.exception("closing task %d's assistant failed", task.id)
        self.store.finish_run(run_id, outcome.outcome, answer=outcome.answer, reason=outcome.reason,
                              actions=list(actions.values()), conversation_id=conversation)
        log.info("task %d (%s): %s %s", task.id, task.name, outcome.outcome, outcome.reason)
        self.ctx.bus.emit(outcome)
        return outcome


class Scheduler:
    """Runs the due tasks (see the module docstring). ``clock`` gives the time now."""

    def __init__(self, runner: TaskRunner, *, clock: Callable[[], datetime] | None = None,
                 check_every_s: float = CHECK_EVERY_S) -> None:
        self.runner = runner
        self.store = runner.store
        self.clock = clock or (lambda: datetime.now().astimezone())
        self.check_every_s = check_every_s
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    async def run_due(self) -> list[ev.TaskRunFinished]:
        """Run every task due now, one after the other; what each came to."""
        finished: list[ev.TaskRunFinished] = []
        async with self._lock:  # one pass at a time: a task never overlaps itself
            self.store.abandoned(as_ms(self.clock()) - int((self.runner.max_run_s + 60) * 1000))
            for task in self.store.due(self.clock()):
                due_at = task.next_at
                if not self.store.claim(task, self.clock()):
                    continue  # another process took this occurrence
                finished.append(await self.runner.run(task, due_at))
        return finished

    def start(self) -> None:
        """Check for due tasks every ``check_every_s`` until ``stop``."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="jawad-scheduler")

    async def _loop(self) -> None:
        while True:
            try:
                await self.run_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database was locked a moment...: try again at the next check
                log.exception("checking the scheduled tasks failed")
            await asyncio.sleep(self.check_every_s)

    def cancel(self) -> None:
        """Stop checking and stop the run in progress (it is recorded as stopped, or, when the
        process ends first, as failed by the next start: ``TaskStore.abandoned``)."""
        self.runner.stop()
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        self.cancel()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
