"""``jawad tasks`` as real processes (issue 34): a task added in words is said back; ``run-due --at`` (the
injected clock of a real app process) runs it once when due, against the scripted model, and prints
its answer; the history keeps the run; bad input gets a friendly error and exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers.scripted_model import ScriptedModel, text


def _jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "tasks", *args],
                          capture_output=True, text=True, timeout=90, env=dict(os.environ), check=False)


def _model(model: ScriptedModel) -> list[str]:
    return ["--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted"]


def test_a_task_runs_when_due_on_an_injected_clock_and_only_then(profile_dir: Path,
                                                                 scripted_model: ScriptedModel) -> None:
    added = _jawad(profile_dir, "add", "Tell me a short joke", "--when", "every weekday at 8", "--name", "Joke")
    assert added.returncode == 0, added.stderr
    assert "Scheduled task 1: Joke" in added.stderr and "Weekdays (Monday to Friday) at 08:00" in added.stderr
    assert "may only read" in added.stderr
    (listed,) = json.loads(_jawad(profile_dir, "list", "--json").stdout)
    due = listed["next_at"] / 1000
    before = _jawad(profile_dir, "run-due", "--at", _iso(due - 60), *_model(scripted_model))
    assert before.returncode == 0 and "No task is due." in before.stderr
    scripted_model.script(text("Why did the kettle whistle? It was steamed."))
    ran = _jawad(profile_dir, "run-due", "--at", _iso(due + 30), *_model(scripted_model))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "Why did the kettle whistle? It was steamed.\n"
    assert "Task 1 (Joke): done" in ran.stderr
    again = _jawad(profile_dir, "run-due", "--at", _iso(due + 60), *_model(scripted_model))
    assert "No task is due." in again.stderr  # the occurrence was taken
    (run,) = json.loads(_jawad(profile_dir, "history", "1", "--json").stdout)
    assert (run["outcome"], run["answer"]) == ("done", "Why did the kettle whistle? It was steamed.")
    assert len(scripted_model.requests) == 1
    paused = _jawad(profile_dir, "pause", "1")
    assert paused.returncode == 0 and "Task 1 paused." in paused.stderr
    assert "(paused)" in _jawad(profile_dir, "list").stdout
    removed = _jawad(profile_dir, "remove", "1")
    assert removed.returncode == 0 and json.loads(_jawad(profile_dir, "list", "--json").stdout) == []


def test_bad_input_says_what_to_do(profile_dir: Path) -> None:
    unclear = _jawad(profile_dir, "add", "x", "--when", "now and then")
    assert unclear.returncode == 1 and "The schedule is not clear" in unclear.stderr
    assert "Traceback" not in unclear.stderr
    no_site = _jawad(profile_dir, "add", "buy the kettle", "--when", "daily at 9", "--allow", "submit")
    assert no_site.returncode == 1 and "needs the sites it may act on" in no_site.stderr
    missing = _jawad(profile_dir, "remove", "7")
    assert missing.returncode == 1 and "There is no task numbered 7" in missing.stderr
    bad_time = _jawad(profile_dir, "run-due", "--at", "teatime")
    assert bad_time.returncode == 1 and "is not a time" in bad_time.stderr


def _iso(seconds: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(seconds).astimezone().isoformat()
