"""``jawad projects`` and ``jawad ask --project`` as real processes (issue 34): a project made with its
instructions, a question asked in it (the model gets them; the conversation is saved in it), listed with
its count, exported, removed; bad input is a friendly error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers.scripted_model import ScriptedModel, text


def _jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=90, env=dict(os.environ), check=False)


def test_a_project_made_asked_in_exported_and_removed(profile_dir: Path, tmp_path: Path,
                                                      scripted_model: ScriptedModel) -> None:
    made = _jawad(profile_dir, "projects", "add", "Kitchen", "--instructions", "Answer in one word.")
    assert made.returncode == 0 and "Project made:\nKitchen  (0 conversations)" in made.stderr
    scripted_model.script(text("Oak."))
    asked = _jawad(profile_dir, "ask", "Which wood?", "--project", "kitchen", "--kind", "openai-compatible",
                   "--base-url", scripted_model.base_url, "--model", "scripted")
    assert asked.returncode == 0, asked.stderr
    assert "Answer in one word." in scripted_model.requests[0]["messages"][0]["content"]
    (listed,) = json.loads(_jawad(profile_dir, "projects", "list", "--json").stdout)
    assert (listed["name"], listed["conversations"]) == ("Kitchen", 1)
    exported = _jawad(profile_dir, "projects", "export", "Kitchen", str(tmp_path / "k.json"))
    assert exported.returncode == 0
    assert json.loads((tmp_path / "k.json").read_text())["conversations"][0]["messages"][-1]["content"] == "Oak."
    removed = _jawad(profile_dir, "projects", "remove", "Kitchen")
    assert removed.returncode == 0 and "its 1 conversation kept, in no project" in removed.stderr
    missing = _jawad(profile_dir, "ask", "hi", "--project", "Garage", "--kind", "openai-compatible",
                     "--base-url", scripted_model.base_url)
    assert missing.returncode == 1 and "There is no project called Garage" in missing.stderr
    assert "Traceback" not in missing.stderr
