"""Running scheduled tasks (issue 34): a run acts within the scope approved when the task was made and
stops at its edge, saying what it would have needed; the scheduler, on an injected clock, runs what is
due once, catches up once after a sleep, and never runs an occurrence twice (two processes claim it).
The runs' records keep the answer and the actions; the window's chat (the app's bus) sees none of it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.harbor.plan_approval import ActionPlan
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tasks.runner import Scheduler, TaskRunner
from jawad_desktop.core.tasks.schedule import parse_schedule
from jawad_desktop.core.tasks.task_store import TaskStore, scope_of
from tests.servers.scripted_model import ScriptedModel, call, text

MONDAY_7 = datetime(2026, 11, 30, 7, 0).astimezone()


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def ctx(profile_dir: Path) -> AppContext:
    made = AppContext.open(str(profile_dir), secrets=SecretStore())
    made.settings.network.max_retries = 0
    return made


@pytest.fixture
def store(ctx: AppContext) -> Iterator[TaskStore]:
    db = Database.in_folder(ctx.paths.data)
    yield TaskStore(db, bus=ctx.bus)
    db.close()


def _maker(scripted_model: ScriptedModel, page: Any = None) -> Callable[..., Any]:
    async def make(own: AppContext, scope: ActionPlan) -> Assistant:
        client = LLMClient(scripted_model.provider(), network=own.settings.network, bus=own.bus)
        return Assistant(own, page=page, client=client, ask=False, scope=scope)
    return make


def test_the_scope_is_checked_when_the_task_is_made(store: TaskStore) -> None:
    rule = parse_schedule("every day at 8", MONDAY_7)
    with pytest.raises(JawadError, match="needs the sites it may act on"):
        store.add("buy it", rule, now=MONDAY_7, kinds=["submit"])
    with pytest.raises(JawadError, match="Unknown kind of action: pay"):
        store.add("buy it", rule, now=MONDAY_7, sites=["shop.example"], kinds=["pay"])
    with pytest.raises(JawadError, match="is not a web site"):
        store.add("read it", rule, now=MONDAY_7, sites=["file:///etc"], kinds=["navigate"])
    task = store.add("check the kettle", rule, now=MONDAY_7, sites=["https://Shop.Example/kettle"], kinds=["navigate"])
    assert task.sites == ("shop.example",) and task.kinds == ("navigate", "read")
    scope = scope_of(["shop.example"], ["navigate"])
    assert scope.covers("navigate", "shop.example", PermissionLevel.NAVIGATE)
    assert not scope.covers("click_element", "shop.example", PermissionLevel.INTERACT)
    assert not scope.covers("navigate", "evil.example", PermissionLevel.NAVIGATE)


def test_a_run_within_its_scope_answers_and_stops_at_its_edge(
        ctx: AppContext, store: TaskStore, web_page: QtWebEnginePage, scripted_model: ScriptedModel,
        page_server: str, arun: Callable[..., Any]) -> None:
    outside = page_server.replace("127.0.0.1", "localhost") + "/form.html"
    task = store.add("Read the form page and tell me its heading", parse_schedule("every day at 8", MONDAY_7),
                     now=MONDAY_7, sites=["127.0.0.1"], kinds=["navigate"])
    app_events: list[ev.Event] = []
    ctx.bus.subscribe(app_events.append)
    scripted_model.script(call("navigate", {"url": f"{page_server}/form.html"}),
                          call("navigate", {"url": outside}),
                          text("never sent: the run stops at the edge"))
    runner = TaskRunner(ctx, store, _maker(scripted_model, web_page))
    finished = arun(runner.run(task), timeout=60)
    assert finished.outcome == "stopped", finished
    assert "navigate on localhost" in finished.reason and "Change the task's scope" in finished.reason
    (record,) = store.runs(task.id)
    assert record.outcome == "stopped" and record.finished_at is not None
    assert [(a["tool"], a["site"], a["decision"]) for a in record.actions] == [
        ("navigate", "127.0.0.1", "auto-approved"), ("navigate", "localhost", "denied")]
    system = scripted_model.requests[0]["messages"][0]["content"]
    assert "THIS IS A SCHEDULED TASK" in system and "may navigate on 127.0.0.1" in system
    assert [e for e in app_events if isinstance(e, ev.TaskRunFinished)] == [finished]
    assert not [e for e in app_events if isinstance(e, ev.ChatDelta | ev.ActionLogUpdate | ev.PermissionRequest)]
    assert len(scripted_model.requests) == 2  # nothing asked of the model after the refusal

    scripted_model.script(call("navigate", {"url": f"{page_server}/form.html"}), text("The heading is Contact."))
    done = arun(runner.run(task), timeout=60)
    assert (done.outcome, done.answer, done.reason) == ("done", "The heading is Contact.", "")
    assert [r.outcome for r in store.runs(task.id)] == ["done", "stopped"]
    assert store.runs(task.id)[0].conversation_id  # the run is in the history too


def test_the_scheduler_runs_what_is_due_once_and_catches_up_once_after_a_sleep(
        ctx: AppContext, store: TaskStore, scripted_model: ScriptedModel, arun: Callable[..., Any]) -> None:
    task = store.add("Say hello", parse_schedule("every weekday at 8", MONDAY_7), now=MONDAY_7)
    clock = Clock(MONDAY_7 + timedelta(minutes=59))
    scheduler = Scheduler(TaskRunner(ctx, store, _maker(scripted_model)), clock=clock)
    assert arun(scheduler.run_due()) == []  # 07:59: not yet
    clock.now = MONDAY_7 + timedelta(hours=1)
    scripted_model.script(text("Hello (Monday)."))
    (first,) = arun(scheduler.run_due(), timeout=30)
    assert (first.outcome, first.answer) == ("done", "Hello (Monday).")
    assert arun(scheduler.run_due()) == []  # the same occurrence never twice
    clock.now = MONDAY_7 + timedelta(days=3, hours=5)  # asleep from Monday to Thursday noon
    scripted_model.script(text("Hello (caught up)."))
    (caught,) = arun(scheduler.run_due(), timeout=30)
    assert caught.answer == "Hello (caught up)."  # Tuesday's, Wednesday's and Thursday's run once
    assert store.get(task.id).next_at == int(datetime(2026, 12, 4, 8).astimezone().timestamp() * 1000)
    assert [r.due_at for r in store.runs(task.id)] == [
        int(datetime(2026, 12, 1, 8).astimezone().timestamp() * 1000),
        int(datetime(2026, 11, 30, 8).astimezone().timestamp() * 1000)]
    store.set_enabled(task.id, False)
    clock.now += timedelta(days=2)
    assert arun(scheduler.run_due()) == []  # paused


def test_an_occurrence_claimed_by_another_process_is_not_run_again(store: TaskStore, ctx: AppContext) -> None:
    store.add("Say hello", parse_schedule("every day at 8", MONDAY_7), now=MONDAY_7)
    eight = MONDAY_7 + timedelta(hours=1)
    (seen_here,) = store.due(eight)
    other = TaskStore(Database.in_folder(ctx.paths.data))  # the window and `jawad tasks run-due`
    try:
        (seen_there,) = other.due(eight)
        assert other.claim(seen_there, eight)
        assert not store.claim(seen_here, eight)
    finally:
        other.db.close()


def test_a_run_that_fails_says_why_and_a_run_left_by_a_closed_app_is_marked(
        ctx: AppContext, store: TaskStore, scripted_model: ScriptedModel, arun: Callable[..., Any]) -> None:
    task = store.add("Say hello", parse_schedule("every day at 8", MONDAY_7), now=MONDAY_7)

    async def broken(own: AppContext, scope: ActionPlan) -> Assistant:
        raise JawadError("No provider is set up.", suggestions=["Add one in Settings → Providers."])

    failed = arun(TaskRunner(ctx, store, broken).run(task))
    assert (failed.outcome, failed.reason) == ("failed", "No provider is set up.\n  - Add one in Settings → Providers.")
    left = store.start_run(task, 0)
    assert store.abandoned(ev.now_ms() + 1) == 1
    assert [r.reason for r in store.runs(task.id) if r.id == left] == ["Jawad was closed while it ran."]

    async def slow(own: AppContext, scope: ActionPlan) -> Assistant:
        client = LLMClient(scripted_model.provider(), network=own.settings.network, bus=own.bus)
        return Assistant(own, client=client, ask=False, scope=scope)

    scripted_model.script(text("late", delay_s=3))
    late = arun(TaskRunner(ctx, store, slow, max_run_s=0.5).run(task), timeout=30)
    assert late.outcome == "failed" and "took longer than" in late.reason
