"""A new user's first question with an OpenAI key and a current OpenAI model: `jawad ask`
reaches the calculator and the answer on OpenAI's reasoning models, under the ``openai`` and
``openai-compatible`` kinds, against the scripted model answering as OpenAI does. A reasoning
model no table knows works through the repair path alone; what it learned is kept in the
profile, the next run sends the right parameters at once, and ``jawad providers facts`` /
``forget`` show and reset it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers.openai_rules import UNKNOWN_REASONER
from tests.servers.scripted_model import ScriptedModel, call, text

QUESTION = "What is 12*34? Use the calculator."


def jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", *args, "--profile", str(profile)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "K": "sk-test"},
        stdin=subprocess.DEVNULL, check=False,
    )


def ask(profile: Path, model: ScriptedModel, kind: str, name: str, url: str = "") -> subprocess.CompletedProcess[str]:
    model.script(call("calculate", {"expression": "12*34"}), text("12*34 = 408."))
    return jawad(profile, "ask", "--kind", kind, "--base-url", url or model.base_url, "--model", name,
                 "--api-key-env", "K", QUESTION)


def _chats(model: ScriptedModel) -> list[dict[str, object]]:
    return [b for b in model.requests if "messages" in b]


@pytest.mark.parametrize("kind", ["openai", "openai-compatible"])
@pytest.mark.parametrize("name", ["o4-mini", "o3-mini", "gpt-5", "gpt-5-mini", "gpt-5.1"])
def test_ask_reaches_the_calculator_on_reasoning_models(kind: str, name: str, tmp_path: Path,
                                                        scripted_model: ScriptedModel) -> None:
    out = ask(tmp_path, scripted_model, kind, name)
    assert out.returncode == 0, out.stderr
    assert "408" in out.stdout
    first, second = _chats(scripted_model)  # right the first time: no refusal
    assert first["tools"] and "max_tokens" not in first and "temperature" not in first
    assert first["max_completion_tokens"] == second["max_completion_tokens"]
    assert second["messages"][-1]["role"] == "tool" and "408" in second["messages"][-1]["content"]


@pytest.mark.parametrize("gateway", ["", "litellm"])
def test_an_unknown_reasoning_model_is_learned_and_right_the_next_time(gateway: str, tmp_path: Path,
                                                                       scripted_model: ScriptedModel) -> None:
    url = scripted_model.gateway_url(gateway) if gateway else scripted_model.base_url
    out = ask(tmp_path, scripted_model, "openai-compatible", UNKNOWN_REASONER, url)
    assert out.returncode == 0, out.stderr
    assert "408" in out.stdout
    chats = _chats(scripted_model)
    assert [("max_tokens" in b, "temperature" in b) for b in chats] == [(True, True), (False, True), (False, False),
                                                                        (False, False)]
    assert chats[-1]["messages"][-1]["role"] == "tool"

    learned = ModelFactsStore.in_folder(tmp_path / "config").get(("openai-compatible", url, UNKNOWN_REASONER))
    assert learned.renamed == {"max_tokens": "max_completion_tokens"} and learned.dropped == ["temperature"]

    out = ask(tmp_path, scripted_model, "openai-compatible", UNKNOWN_REASONER, url)  # a new process
    assert out.returncode == 0, out.stderr
    assert "408" in out.stdout
    first, _ = _chats(scripted_model)
    assert first["max_completion_tokens"] and "max_tokens" not in first and "temperature" not in first


def test_ask_on_the_openai_kind_learns_only_temperature(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    out = ask(tmp_path, scripted_model, "openai", UNKNOWN_REASONER)
    assert out.returncode == 0, out.stderr
    assert "408" in out.stdout
    assert ["temperature" in b for b in _chats(scripted_model)] == [True, False, False]


def test_providers_facts_and_forget(tmp_path: Path, scripted_model: ScriptedModel) -> None:
    added = jawad(tmp_path, "providers", "add", "Gateway", "--kind", "openai-compatible",
                  "--base-url", scripted_model.base_url, "--model", UNKNOWN_REASONER)
    assert added.returncode == 0, added.stderr
    assert "Nothing learned about Gateway's models yet" in jawad(tmp_path, "providers", "facts", "Gateway").stdout

    scripted_model.script(call("calculate", {"expression": "12*34"}), text("12*34 = 408."))
    out = jawad(tmp_path, "ask", "--provider", "Gateway", QUESTION)
    assert out.returncode == 0, out.stderr
    assert "408" in out.stdout

    shown = jawad(tmp_path, "providers", "facts", "Gateway")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("Gateway (openai-compatible, ") and lines[1].strip() == UNKNOWN_REASONER
    assert "- sends 'max_completion_tokens' instead of 'max_tokens'" in shown.stdout
    assert "- leaves out 'temperature'" in shown.stdout and "why: " in shown.stdout
    [row] = json.loads(jawad(tmp_path, "providers", "facts", "--json").stdout)
    assert row["provider"] == "Gateway" and row["model"] == UNKNOWN_REASONER
    assert row["renamed"] == {"max_tokens": "max_completion_tokens"} and row["dropped"] == ["temperature"]
    assert sum("refused" in note for note in row["notes"]) == 2  # (the agent notes its tool format too)

    assert "Nothing was learned about model 'other'" in jawad(
        tmp_path, "providers", "forget", "Gateway", "--model", "other").stdout
    gone = jawad(tmp_path, "providers", "forget", "Gateway", "--model", UNKNOWN_REASONER)
    assert gone.returncode == 0 and "Forgot what was learned about model 'zeta-reasoner-2'" in gone.stdout
    assert "Nothing learned" in jawad(tmp_path, "providers", "facts").stdout

    scripted_model.script(call("calculate", {"expression": "12*34"}), text("12*34 = 408."))
    out = jawad(tmp_path, "ask", "--provider", "Gateway", QUESTION)  # learns again
    assert out.returncode == 0 and len(_chats(scripted_model)) == 4


def test_forget_names_a_saved_provider(tmp_path: Path) -> None:
    out = jawad(tmp_path, "providers", "forget", "Nobody")
    assert out.returncode != 0 and "No provider is named 'Nobody'" in out.stderr
