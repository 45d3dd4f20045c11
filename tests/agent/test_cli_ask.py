"""``jawad ask`` runs the agent with its tools, as a real subprocess against the scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers.scripted_model import ScriptedModel, call, text


def _ask(profile: Path, model: ScriptedModel, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", *args,
         "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted"],
        capture_output=True, text=True, timeout=60, env=dict(os.environ), check=False,
    )


def test_ask_runs_tools_and_prints_the_action_log(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    scripted_model.script(call("calculate", {"expression": "6*7"}), text("It is **42**."))
    result = _ask(profile_dir, scripted_model, "What is 6*7?", "--verbose")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is **42**.\n"
    assert '[auto-approved] calculate({"expression": "6*7"}) [read-only]: success - 6*7 = 42' in result.stderr
    assert len(scripted_model.requests) == 2


def test_ask_json_and_quiet_log(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    scripted_model.script(call("get_time", {"timezone": "UTC"}), text("Noon."))
    result = _ask(profile_dir, scripted_model, "time?", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["content"] == "Noon." and not data["is_error"]
    assert data["metadata"]["tool_calls"] == 1 and data["metadata"]["iterations"] == 2
    assert data["metadata"]["api_calls"] == 2
    assert "get_time" not in result.stderr  # no --verbose, no log


def test_ask_iteration_limit_is_a_failure(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    # Different calls each time: the same call with the same result would stop sooner (the loop guard).
    scripted_model.script(*[call("calculate", {"expression": f"{i}+1"}) for i in range(10)])
    result = _ask(profile_dir, scripted_model, "loop")
    assert result.returncode == 1
    assert "stopped after 10 steps" in result.stderr and "Traceback" not in result.stderr
