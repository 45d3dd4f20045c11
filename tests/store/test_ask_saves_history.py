"""`jawad ask` keeps its conversation in the same store as the window, unless --no-save."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jawad_desktop.core.store.conversations import ConversationStore
from tests.servers.scripted_model import ScriptedModel, call, text


def _ask(profile: Path, model: ScriptedModel, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "ask", "--profile", str(profile), "--kind", "openai-compatible",
         "--base-url", model.base_url, "--model", "scripted", *extra],
        capture_output=True, text=True, timeout=60, env=dict(os.environ), stdin=subprocess.DEVNULL, check=False,
    )


def test_ask_saves_the_turn_with_its_tool_calls(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    scripted_model.script(call("calculate", {"expression": "6*7"}), text("It is 42."))
    out = _ask(tmp_path, scripted_model, "What is six times seven?")
    assert out.returncode == 0, out.stderr
    assert "It is 42." in out.stdout
    store = ConversationStore.open(tmp_path / "data")
    try:
        [conversation] = store.list_conversations()
        roles = [s.message.role for s in store.messages(conversation.id)]
        assert roles == ["user", "assistant", "tool", "assistant"]
        assert [e.tool_name for e in store.action_log(conversation.id)] == ["calculate"]
        assert conversation.title.startswith("What is six times seven")
    finally:
        store.close()


def test_no_save_leaves_no_trace(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    scripted_model.script(text("Private answer."))
    out = _ask(tmp_path, scripted_model, "--no-save", "A private question")
    assert out.returncode == 0, out.stderr
    store = ConversationStore.open(tmp_path / "data")
    try:
        assert store.list_conversations() == []
    finally:
        store.close()
