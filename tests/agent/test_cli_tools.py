"""``jawad providers test NAME --tools`` as a user runs it (a real process) against the scripted
model server: the tool-calling result is printed, remembered in the profile, and a model that
cannot call tools fails the test plainly; ``--context-window`` is saved with the provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.secrets import SecretStore
from tests.servers.scripted_model import ScriptedModel, reject_tools, text


def jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=90, env=dict(os.environ), check=False,
                          stdin=subprocess.DEVNULL)


def test_providers_test_tools(profile_dir: Path, secret_store: SecretStore, scripted_model: ScriptedModel) -> None:
    added = jawad(profile_dir, "providers", "add", "Small", "--kind", "openai-compatible", "--base-url",
                  scripted_model.base_url, "--model", "scripted", "--context-window", "6000")
    assert added.returncode == 0, added.stderr
    settings = json.loads((profile_dir / "config" / "settings.json").read_text())
    assert settings["providers"][0]["context_window"] == 6000

    scripted_model.script(text("ok"), reject_tools(), text('<get_time />'))  # "Say ok", then the test
    tested = jawad(profile_dir, "providers", "test", "Small", "--tools")
    assert tested.returncode == 0, tested.stderr
    assert "OK: Small answered" in tested.stdout and "Tool calling: Uses the XML format" in tested.stdout
    assert "Traceback" not in tested.stderr
    [(key, facts)] = ModelFactsStore.in_folder(profile_dir / "config").all().items()
    assert key[2] == "scripted" and facts.tool_format == "xml"

    scripted_model.script(text("ok"), reject_tools(), text("It is noon."), text("Noon."))
    failed = jawad(profile_dir, "providers", "test", "Small", "--tools")
    assert failed.returncode == 1
    assert "jawad: Small: Could not call a tool: it refuses native tools" in failed.stderr
    assert "Traceback" not in failed.stderr

    edited = jawad(profile_dir, "providers", "edit", "Small", "--context-window", "0")
    assert edited.returncode == 0, edited.stderr
    assert json.loads((profile_dir / "config" / "settings.json").read_text())["providers"][0]["context_window"] == 0
