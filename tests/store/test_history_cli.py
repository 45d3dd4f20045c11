"""``jawad history`` as a user runs it: a real subprocess on a real profile folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.store.conversations import ConversationStore

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-live-0123456789abcdefghij"


def jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
        capture_output=True, text=True, timeout=60, env=env, cwd=REPO,
    )


@pytest.fixture
def saved(profile_dir: Path) -> dict[str, str]:
    with ConversationStore.open(profile_dir / "data") as store:
        first = store.create().id
        store.append_message(first, Message("user", "Plan a trip to Lisbon in spring"))
        store.append_message(first, Message("assistant", "Lisbon in April: mild weather, few crowds."))
        second = store.create().id
        store.append_message(second, Message("user", f"Test my key {KEY} against OpenAI"))
        store.append_message(second, Message("assistant", "", tool_calls=[
            ToolCall("c1", "test_connection", {"api_key": KEY})]))
        store.append_message(second, Message("tool", "ok", tool_call_id="c1", name="test_connection"))
        store.record_action(second, ActionLogEntry("log_1", 1_700_000_000_000, "test_connection",
                                                   {"api_key": KEY}, "api.openai.com", "read",
                                                   "auto-approved", "success", "200 OK"))
    return {"lisbon": first, "key": second}


def test_list_newest_first(profile_dir: Path, saved: dict[str, str]) -> None:
    result = jawad(profile_dir, "history", "list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "LAST", "MESSAGE", "MSGS", "TITLE"]
    assert lines[1].startswith(saved["key"][:8]) and lines[2].startswith(saved["lisbon"][:8])
    assert "Plan a trip to Lisbon in spring" in lines[2]
    listed = json.loads(jawad(profile_dir, "history", "list", "--json").stdout)
    assert [c["id"] for c in listed] == [saved["key"], saved["lisbon"]]
    assert listed[1]["message_count"] == 2


def test_search_prints_highlighted_matches(profile_dir: Path, saved: dict[str, str]) -> None:
    result = jawad(profile_dir, "history", "search", "lisb")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(saved["lisbon"][:8]) == 2
    assert "**Lisbon** in April" in result.stdout
    nothing = jawad(profile_dir, "history", "search", "zanzibar")
    assert nothing.returncode == 0 and nothing.stdout == ""
    assert "No saved message matches 'zanzibar'" in nothing.stderr


def test_show_prints_the_conversation(profile_dir: Path, saved: dict[str, str]) -> None:
    result = jawad(profile_dir, "history", "show", saved["lisbon"][:6])
    assert result.returncode == 0, result.stderr
    assert "Plan a trip to Lisbon in spring" in result.stdout
    assert "Jawad:\nLisbon in April: mild weather, few crowds." in result.stdout


def test_export_to_a_file_redacts_keys(profile_dir: Path, saved: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "exports" / "chat.json"
    result = jawad(profile_dir, "history", "export", saved["key"], "--format", "json", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "Exported 3 messages to" in result.stderr
    text = out.read_text()
    assert KEY not in text and KEY[6:] not in text
    doc = json.loads(text)
    assert doc["action_log"][0]["parameters"] == {"api_key": "[redacted]"}
    md = jawad(profile_dir, "history", "export", saved["key"][:8])
    assert md.returncode == 0 and md.stdout.startswith("# Test my key sk-l…[redacted] against OpenAI")
    assert KEY not in md.stdout and "## Action log" in md.stdout


def test_failures_are_friendly(profile_dir: Path, saved: dict[str, str], tmp_path: Path) -> None:
    missing = jawad(profile_dir, "history", "show", "ffffffff")
    assert missing.returncode == 1
    assert "No saved conversation has an id starting with 'ffffffff'" in missing.stderr
    assert "jawad history list" in missing.stderr and "Traceback" not in missing.stderr
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = jawad(profile_dir, "history", "export", saved["lisbon"], "-o", str(blocked / "x.md"))
    assert unwritable.returncode == 1 and "Could not write the export" in unwritable.stderr
    assert "Traceback" not in unwritable.stderr
    usage = jawad(profile_dir, "history", "export", saved["lisbon"], "--format", "pdf")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr
    assert jawad(profile_dir, "history").returncode == 2


def test_an_empty_profile_says_so(profile_dir: Path) -> None:
    result = jawad(profile_dir, "history", "list")
    assert result.returncode == 0 and "No saved conversations yet." in result.stderr
    assert (profile_dir / "data" / "jawad.db").exists()
