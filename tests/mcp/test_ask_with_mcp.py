"""`jawad ask` gives the agent the MCP servers' tools from Settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.fixtures.terminal import prompts, run_on_terminal
from tests.llm.test_cli import jawad
from tests.mcp.conftest import ROOT
from tests.servers.scripted_model import ScriptedModel, call, text


def _add_calc(profile_dir: Path) -> None:
    added = jawad(profile_dir, "mcp", "add", "calc", "--command", f"{sys.executable} -m tests.servers.mcp_server stdio",
                  "--cwd", str(ROOT), "--allow", "add", "--permission", "read-only")
    assert added.returncode == 0, added.stderr


def test_ask_calls_an_mcp_tool(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    _add_calc(profile_dir)
    scripted_model.script(call("add", {"a": 40, "b": 2}), text("The sum is 42."))
    out = jawad(profile_dir, "ask", "--no-save", "--kind", "openai-compatible", "--base-url", scripted_model.base_url,
                "--model", "scripted", "--verbose", "Add 40 and 2 with the calculator")
    assert out.returncode == 0, out.stderr
    assert "The sum is 42." in out.stdout
    tool_message = scripted_model.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "42" in tool_message["content"]
    names = [t["function"]["name"] for t in scripted_model.requests[0].get("tools", [])]
    assert any(name.endswith("add") for name in names), names


def _add_asking_calc(profile_dir: Path) -> None:
    added = jawad(profile_dir, "mcp", "add", "calc", "--command", f"{sys.executable} -m tests.servers.mcp_server stdio",
                  "--cwd", str(ROOT), "--allow", "add", "--permission", "ask")
    assert added.returncode == 0, added.stderr


def _ask_args(model: ScriptedModel, *extra: str) -> list[str]:
    return ["ask", "--no-save", "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted",
            *extra]


def test_an_mcp_tool_that_asks_is_denied_without_a_person_and_allowed_with_allow(
        profile_dir: Path, scripted_model: ScriptedModel) -> None:
    """`jawad ask` without --url goes through the same gate as the window: a tool that asks is
    denied when nobody can answer, with a reason the model reads; --allow lets it run."""
    _add_asking_calc(profile_dir)
    scripted_model.script(call("add", {"a": 1, "b": 2}), text("I was not allowed."))
    denied = jawad(profile_dir, *_ask_args(scripted_model, "Add 1 and 2"))
    assert denied.returncode == 0, denied.stderr
    result = scripted_model.requests[1]["messages"][-1]["content"]
    assert result.startswith("Permission denied:") and "nobody can be asked here" in result
    scripted_model.script(call("add", {"a": 1, "b": 2}), text("It is 3."))
    allowed = jawad(profile_dir, *_ask_args(scripted_model, "--allow", "read-only,submit", "Add 1 and 2"))
    assert allowed.returncode == 0, allowed.stderr
    assert "3" in scripted_model.requests[-1]["messages"][-1]["content"]


def test_an_mcp_tool_that_asks_is_asked_on_the_terminal(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    _add_asking_calc(profile_dir)
    scripted_model.script(call("add", {"a": 20, "b": 22}), text("The sum is 42."))
    run = run_on_terminal([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir),
                           *_ask_args(scripted_model, "Add 20 and 22")],
                          prompts([(b"Your choice", b"o\n")]), env=dict(os.environ), timeout_s=120, cwd=ROOT)
    assert "Jawad wants to use" in run.transcript and "add" in run.transcript, run.transcript
    assert run.answered == 1 and run.returncode == 0
    assert "The sum is 42." in run.stdout
    assert "42" in scripted_model.requests[1]["messages"][-1]["content"]


def test_mcp_tools_join_the_browser_tools_in_ask_url(profile_dir: Path, scripted_model: ScriptedModel,
                                                     page_server: str) -> None:
    _add_calc(profile_dir)
    scripted_model.script(call("add", {"a": 40, "b": 2}), text("The sum is 42."))
    out = jawad(profile_dir, *_ask_args(scripted_model, "--url", f"{page_server}/form.html", "Add 40 and 2"))
    assert out.returncode == 0, out.stderr
    names = {t["function"]["name"] for t in scripted_model.requests[0].get("tools", [])}
    assert "read_page" in names and any(name.endswith("add") for name in names), names
    assert "42" in scripted_model.requests[1]["messages"][-1]["content"]
