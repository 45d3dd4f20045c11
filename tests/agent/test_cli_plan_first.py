"""``jawad ask --plan-first`` on a terminal and without one: the plan is shown and y (or Enter)
approves it, after which the agent acts; without a person the plan is rejected and nothing is done."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures.terminal import prompts, run_on_terminal
from tests.servers.scripted_model import ScriptedModel, call, text

# A plan with an action in it (a plan that only reads runs without a question: reading never asks).
PLAN = {"sites": ["127.0.0.1"], "actions": ["read: the page", "interact: fill in the name"],
        "steps": ["Read the page", "Say its title"]}


def _command(profile: Path, model: ScriptedModel, url: str) -> list[str]:
    return [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", "What is this page called?",
            "--url", url, "--plan-first", "--no-save", "--kind", "openai-compatible", "--base-url", model.base_url,
            "--model", "scripted"]


def test_on_a_terminal_the_plan_is_shown_and_y_approves_it(profile_dir: Path, scripted_model: ScriptedModel,
                                                           page_server: str) -> None:
    scripted_model.script(call("propose_plan", PLAN), call("read_page", {}), text("It is called Form test."))
    run = run_on_terminal(_command(profile_dir, scripted_model, f"{page_server}/form.html"),
                          prompts([(b"Approve this plan? [Y/n]: ", b"y\n")]),
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert run.answered == 1, run.transcript
    assert "Jawad proposes a plan for: What is this page called?" in run.transcript
    assert "Sites: 127.0.0.1" in run.transcript and "1. Read the page" in run.transcript
    assert run.returncode == 0, run.transcript
    assert run.stdout.strip() == "It is called Form test."
    # After the approval the agent acted: the page was read, with the plan in its instructions.
    assert len(scripted_model.requests) == 3
    assert "THE PLAN THE USER APPROVED" in scripted_model.requests[1]["messages"][0]["content"]
    assert scripted_model.requests[2]["messages"][-1]["role"] == "tool"


def test_without_a_terminal_the_plan_is_rejected_and_nothing_is_done(profile_dir: Path,
                                                                     scripted_model: ScriptedModel,
                                                                     page_server: str) -> None:
    scripted_model.script(call("propose_plan", PLAN), text("unused"))
    result = subprocess.run(_command(profile_dir, scripted_model, f"{page_server}/form.html"),
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90, check=False,
                            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert result.returncode == 1, result.stderr
    assert "Nothing was done: plan-first mode needs someone to approve the plan" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(scripted_model.requests) == 1  # only the plan was asked for
