"""``jawad tasks``: scheduled tasks — add, list, run now, run what is due, pause, resume, remove, history.

The same tasks as Settings → Tasks (``core.tasks``, in ``jawad.db``). A task runs in the
background while Jawad's window (or its tray icon) is open; ``jawad tasks run-due`` runs what is
due now, for a system scheduler (cron, a systemd timer, Task Scheduler) when the window is closed.
The scope a task may act within (``--site``, ``--allow``) is approved by giving it here; at run
time anything outside it is refused and the run stops, saying what it would have needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from jawad_desktop.cli.actions import JSON_AS_TEXT, Action, add_command, arg, remove_numbered
from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.harbor.plan_approval import ActionPlan
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.tasks.schedule import parse_schedule
from jawad_desktop.core.tasks.task_store import KINDS, Task, TaskStore


def register(subparsers: Any) -> argparse.ArgumentParser:
    number = arg("number", type=int, help="the task's number")
    return add_command(
        subparsers, "tasks", run, dest="tasks_action",
        help="scheduled tasks: prompts Jawad runs on a schedule",
        description="Prompts Jawad runs on a schedule while its window or tray icon is open (Settings → Tasks "
                    "in the window). `jawad tasks run-due` runs what is due, for your system's scheduler.",
        actions=[
            Action("add", "schedule a prompt", [
                arg("prompt", help="what Jawad should do each time"),
                arg("--when", required=True, metavar="RULE",
                    help='when, in words: "every weekday at 8", "every day at 19:30", "every monday at 9", '
                         '"every 3 hours", "tomorrow at 9", "2026-12-01 09:00"'),
                arg("--site", action="append", default=[], metavar="HOST",
                    help="a site the task may act on (repeatable); reading is always allowed"),
                arg("--allow", default="", metavar="KINDS",
                    help=f"the kinds of action it may take on those sites, comma-separated: "
                         f"{', '.join(k for k in KINDS if k != 'read')}"),
                arg("--name", default="", help="a short name (default: the prompt's start)")]),
            Action("list", "every task, the next due first, with its number", [JSON_AS_TEXT]),
            Action("run", "run a task now", [
                arg("number", type=int, help="the task's number, as `jawad tasks list` shows it"),
                add_provider_selection]),
            Action("run-due", "run every task that is due (for cron or a systemd timer)", [
                arg("--at", metavar="TIME", help="as if it were TIME (ISO 8601, e.g. 2026-12-01T08:00)"),
                add_provider_selection]),
            Action("history", "a task's last runs", [number, JSON_AS_TEXT]),
            Action("pause", "stop running a task until resumed", [number]),
            Action("resume", "run a paused task again", [number]),
            Action("remove", "remove tasks and their history",
                   [arg("numbers", type=int, nargs="+", help="the tasks' numbers")]),
        ])


def _now(at: str | None = None) -> datetime:
    if not at:
        return datetime.now().astimezone()
    try:
        return datetime.fromisoformat(at).astimezone()
    except ValueError:
        raise JawadError(f"{at!r} is not a time.", suggestions=["Write it as 2026-12-01T08:00."]) from None


def _when(ms: int | None) -> str:
    return "never again" if ms is None else datetime.fromtimestamp(ms / 1000).astimezone().strftime("%a %d %b %H:%M")


def _describe(task: Task) -> str:
    state = "" if task.enabled else " (paused)"
    return (f"{task.id:>4}  {one_line(task.name)}{state}\n      {task.schedule.describe()}; next: {_when(task.next_at)}"
            f"\n      {task.scope_text()}")


def run(args: argparse.Namespace, ctx: AppContext) -> Any:
    action = args.tasks_action
    if action in ("run", "run-due"):
        return _run_tasks(args, ctx)
    with Database.in_folder(ctx.paths.data) as db:
        store = TaskStore(db, bus=ctx.bus)
        if action == "add":
            now = _now()
            schedule = parse_schedule(args.when, now)
            kinds = [k.strip().lower() for k in args.allow.split(",") if k.strip()]
            task = store.add(args.prompt, schedule, now=now, wording=args.when, name=args.name,
                             sites=args.site, kinds=kinds)
            print(f"Scheduled task {task.id}: {one_line(task.name)}\n{_describe(task)}", file=sys.stderr)
            print("It runs while Jawad's window or tray icon is open; `jawad tasks run-due` runs what is due "
                  "from your system's scheduler.", file=sys.stderr)
            return 0
        if action == "list":
            tasks = store.tasks()
            if args.json:
                print(json.dumps([{"number": t.id, "name": t.name, "prompt": t.prompt, "rule": t.schedule.describe(),
                                   "wording": t.wording, "next_at": t.next_at, "enabled": t.enabled,
                                   "sites": list(t.sites), "kinds": list(t.kinds)} for t in tasks],
                                 ensure_ascii=False, indent=2))
            elif not tasks:
                print('No scheduled tasks yet. Add one: jawad tasks add "check the news" --when "every day at 8"',
                      file=sys.stderr)
            for task in tasks if not args.json else ():
                print(_describe(task))
            return 0
        if action == "history":
            runs = store.runs(store.get(args.number).id)
            if args.json:
                print(json.dumps([{"outcome": r.outcome, "started_at": r.started_at, "finished_at": r.finished_at,
                                   "answer": r.answer, "reason": r.reason, "actions": r.actions} for r in runs],
                                 ensure_ascii=False, indent=2))
            elif not runs:
                print("This task has not run yet.", file=sys.stderr)
            for r in runs if not args.json else ():
                print(f"{_when(r.started_at)}  {r.outcome}: {one_line(r.reason or r.answer)[:200]}")
            return 0
        if action in ("pause", "resume"):
            task = store.set_enabled(args.number, action == "resume")
            print(f"Task {task.id} {'resumed' if task.enabled else 'paused'}.", file=sys.stderr)
            return 0
        return remove_numbered(args.numbers, store.remove, done="Removed", item="task", missing="task",
                               command="tasks")


def _run_tasks(args: argparse.Namespace, ctx: AppContext) -> Any:
    """``run`` and ``run-due``: with a browser page (on Qt's loop) when a task may act on sites."""
    from jawad_desktop.core.tasks.runner import Scheduler, TaskRunner

    db = Database.in_folder(ctx.paths.data)
    store = TaskStore(db, bus=ctx.bus)
    now = _now(getattr(args, "at", None))
    chosen = [store.get(args.number)] if args.tasks_action == "run" else store.due(now)
    if not chosen:
        db.close()
        print("No task is due.", file=sys.stderr)
        return 0
    pages: list[Any] = []
    if any(task.sites for task in chosen):
        from jawad_desktop.cli.terminal import offscreen_page

        pages.append(offscreen_page(ctx, private=False))

    async def make(own: AppContext, scope: ActionPlan) -> Any:
        from jawad_desktop.core.assistant import Assistant

        return Assistant(own, page=pages[0] if pages and scope.sites else None,
                         client=client_from_args(args, own), ask=False, scope=scope)

    finished: list[ev.TaskRunFinished] = []

    def report(event: ev.Event) -> None:
        if isinstance(event, ev.TaskRunFinished):
            finished.append(event)
            print(f"Task {event.task_id} ({one_line(event.name)}): {event.outcome}"
                  + (f" — {one_line(event.reason)}" if event.reason else ""), file=sys.stderr)
            if event.answer:
                print(event.answer)

    ctx.bus.subscribe(report)
    runner = TaskRunner(ctx, store, make)

    async def main() -> int:
        try:
            if args.tasks_action == "run":
                await runner.run(chosen[0])
            else:
                await Scheduler(runner, clock=lambda: now).run_due()
        finally:
            for page in pages:
                await page.close(release_profile=True)
            db.close()
        return 0 if finished and all(f.outcome == "done" for f in finished) else 1

    if pages:
        from jawad_desktop.cli.terminal import run_on_qt

        run_on_qt(main)
    return main()
