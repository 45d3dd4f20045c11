"""The terminal words the core's remedies as ``jawad`` commands, never as the window's menus:
in its own wording table, for an error raised before a turn (``main``'s handler) and for one
that ends a turn (``TurnPrinter``), as real ``jawad ask`` subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from jawad_desktop.cli.remedies import error_text, remedy_text, with_remedy
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import Remedy, RemedyPlace
from jawad_desktop.core.llm.connection import missing_key_error
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from tests.servers.scripted_model import ScriptedModel, error

WINDOW_WORDS = ("Settings →", "Ctrl+,")


def jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ), check=False)


@pytest.mark.parametrize("place", get_args(RemedyPlace))
def test_every_remedy_has_terminal_words(place: RemedyPlace) -> None:
    for provider in ("Work AI", ""):
        text = remedy_text(Remedy(place, provider))
        assert text and not [w for w in WINDOW_WORDS if w in text], text
        if place.startswith("provider"):
            assert "jawad providers" in text and ("'Work AI'" if provider else "NAME") in text
    assert remedy_text(None) == ""


def test_an_error_and_a_turns_answer_get_the_same_words() -> None:
    error = missing_key_error(ProviderConfig(name="Work AI", kind=ProviderKind.OPENAI))
    text = error_text(error)
    assert text.startswith("No API key is stored for 'Work AI' (OpenAI).\n  - ")
    assert "jawad providers edit 'Work AI' --api-key-env VARIABLE" in text
    assert with_remedy(error.user_text(), error.remedy) == text
    assert with_remedy("Nothing to fix.", None) == "Nothing to fix."


def _save(profile: Path, provider: ProviderConfig) -> None:
    ctx = AppContext.open(str(profile))
    ctx.settings.providers = [provider]
    ctx.settings.active_provider = provider.name
    ctx.save_settings()


def test_ask_without_a_key_names_the_command(profile_dir: Path, secret_store: SecretStore) -> None:
    _save(profile_dir, ProviderConfig(name="Work", kind=ProviderKind.OPENAI))
    secret_store.delete(provider_key_name("Work"))
    asked = jawad(profile_dir, "ask", "Hello?")
    assert asked.returncode == 1 and "Traceback" not in asked.stderr
    assert asked.stderr.startswith("jawad: No API key is stored for 'Work' (OpenAI).")
    assert "`jawad providers edit Work --api-key-env VARIABLE`" in asked.stderr
    assert not [w for w in WINDOW_WORDS if w in asked.stderr], asked.stderr


def test_a_turn_that_fails_names_the_command(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    _save(profile_dir, scripted_model.provider("Work"))
    scripted_model.script(error(401, "Incorrect API key provided."))
    asked = jawad(profile_dir, "ask", "Hello?")
    assert asked.returncode == 1 and asked.stderr.startswith("jawad: Invalid API key"), asked.stderr
    assert "`jawad providers edit Work --api-key-env VARIABLE`" in asked.stderr
    assert not [w for w in WINDOW_WORDS if w in asked.stderr], asked.stderr
