"""``jawad ask --url`` when the agent hands the page to the user: on a terminal it says why and waits
for Enter; without one (no stdin) the hand-over is cancelled at once and said on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.fixtures.terminal import prompts, run_on_terminal
from tests.servers.scripted_model import ScriptedModel, call, text


def _command(profile: Path, model: ScriptedModel, url: str) -> list[str]:
    return [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", "Sign me in", "--url", url,
            "--no-save", "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted"]


def _tool_result(model: ScriptedModel) -> str:
    return str(model.requests[1]["messages"][-1]["content"])


def test_without_a_terminal_the_hand_over_is_cancelled_and_said(
    profile_dir: Path, scripted_model: ScriptedModel, page_server: str
) -> None:
    scripted_model.script(call("ask_user_to_take_over", {"reason": "sign in to Example Mail"}),
                          text("Please sign in yourself."))
    started = time.monotonic()
    result = subprocess.run(_command(profile_dir, scripted_model, f"{page_server}/hand_over/login.html"),
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90, check=False,
                            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert result.returncode == 0, result.stderr
    assert "Jawad needs you to use the page (sign in to Example Mail), but nobody can answer here" in result.stderr
    assert "cancelled" in _tool_result(scripted_model)
    assert result.stdout.strip() == "Please sign in yourself."
    assert time.monotonic() - started < 60


def test_on_a_terminal_enter_continues_with_a_fresh_reading(
    profile_dir: Path, scripted_model: ScriptedModel, page_server: str
) -> None:
    scripted_model.script(call("ask_user_to_take_over", {"reason": "sign in to Example Mail"}), text("Done."))
    run = run_on_terminal(_command(profile_dir, scripted_model, f"{page_server}/hand_over/login.html"),
                          prompts([(b"press Enter to continue", b"\n")]),
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert run.answered == 1, run.transcript
    assert "Jawad needs you: sign in to Example Mail." in run.transcript
    assert run.returncode == 0, run.transcript
    result = _tool_result(scripted_model)
    assert "pressed Continue" in result and "Sign in to Example Mail" in result, result
    assert json.dumps(scripted_model.requests[1]).count("ask_user_to_take_over") >= 1
