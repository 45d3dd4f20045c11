"""``jawad compare`` as a real process (issue 34): both saved providers answer one message (the loopback
scripted model behind both names), each under its label; nothing is saved without --keep; --keep first
saves the first answer; an unknown provider is a friendly error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jawad_desktop.core.context import AppContext
from tests.servers.scripted_model import ScriptedModel, text


def _jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=90, env=dict(os.environ), check=False)


def _answers(stdout: str) -> dict[str, str]:
    blocks = [b for b in stdout.split("== ") if b.strip()]
    return {b.split("\n", 1)[0]: b.split("\n", 1)[1].strip() for b in blocks}


def test_two_models_answer_and_only_the_kept_answer_is_saved(profile_dir: Path,
                                                             scripted_model: ScriptedModel) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Alpha"), scripted_model.provider("Beta")]
    ctx.settings.active_provider = "Alpha"
    ctx.save_settings()
    scripted_model.script(text("Blue."), text("Green."))
    shown = _jawad(profile_dir, "compare", "Pick a colour", "--with", "Beta")
    assert shown.returncode == 0, shown.stderr
    answers = _answers(shown.stdout)
    assert list(answers) == ["Alpha · scripted", "Beta · scripted"]
    assert sorted(answers.values()) == ["Blue.", "Green."]
    assert json.loads(_jawad(profile_dir, "history", "list", "--json").stdout) == []  # nothing kept

    scripted_model.script(text("Tea."), text("Coffee."))
    kept = _jawad(profile_dir, "compare", "Tea or coffee?", "--with", "Beta", "--keep", "first")
    assert kept.returncode == 0, kept.stderr
    first = _answers(kept.stdout)["Alpha · scripted"]
    assert "Kept Alpha · scripted's answer in the history." in kept.stderr
    (saved,) = json.loads(_jawad(profile_dir, "history", "list", "--json").stdout)
    conversation = _jawad(profile_dir, "history", "show", saved["id"]).stdout
    assert "Tea or coffee?" in conversation and first in conversation
    assert ({"Tea.", "Coffee."} - {first}).pop() not in conversation

    missing = _jawad(profile_dir, "compare", "hi", "--with", "Gamma")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr and "Gamma" in missing.stderr
