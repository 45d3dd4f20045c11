"""What a turn used, on the command line: ``jawad ask --json`` has it in its metadata,
``--verbose`` prints a usage line to stderr, ``jawad history show`` prints a conversation's
totals; a broken price table is moved aside and said. Real subprocesses against the scripted
model on loopback, priced by the profile's prices.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers.scripted_model import ScriptedModel, call, text

REPO = Path(__file__).resolve().parents[2]
USAGE = {"prompt_tokens": 1000, "completion_tokens": 234, "total_tokens": 1234}


def _jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=60, env=env, cwd=REPO, check=False)


def _ask(profile: Path, model: ScriptedModel, *args: str) -> subprocess.CompletedProcess[str]:
    return _jawad(profile, "ask", *args, "--kind", "openai-compatible", "--base-url", model.base_url,
                  "--model", "scripted")


@pytest.fixture
def priced(profile_dir: Path) -> Path:
    """The profile, with the scripted model priced at gpt-4o's $2.50 / $10 per million tokens."""
    (profile_dir / "config").mkdir(exist_ok=True)
    (profile_dir / "config" / "prices.json").write_text(json.dumps({"scripted": {"input": 2.5, "output": 10}}))
    return profile_dir


def test_ask_json_has_the_tokens_and_cost(priced: Path, scripted_model: ScriptedModel) -> None:
    scripted_model.script(call("calculate", {"expression": "6*7"}, usage=dict(USAGE)),
                          text("It is 42.", usage=dict(USAGE)))
    result = _ask(priced, scripted_model, "6*7?", "--json")
    assert result.returncode == 0, result.stderr
    meta = json.loads(result.stdout)["metadata"]
    assert (meta["input_tokens"], meta["output_tokens"], meta["total_tokens"]) == (2000, 468, 2468)
    assert meta["cost_usd"] == pytest.approx(0.00968) and meta["cost_known"] is True
    assert meta["model"] == "scripted"


def test_ask_verbose_prints_a_usage_line_and_history_show_the_totals(
    priced: Path, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(text("Lisbon has a famous tram 28.", usage=dict(USAGE)))
    result = _ask(priced, scripted_model, "Tell me about Lisbon trams", "--verbose")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Lisbon has a famous tram 28.\n"
    assert result.stderr.splitlines()[-1] == "jawad: used 1,234 tokens · about $0.0048"
    scripted_model.script(text("Tram 28 is yellow.", usage={"prompt_tokens": 2000, "completion_tokens": 100}))
    quiet = _ask(priced, scripted_model, "What colour?")
    assert "tokens" not in quiet.stderr  # only with --verbose
    listed = json.loads(_jawad(priced, "history", "list", "--json").stdout)
    assert len(listed) == 2
    shown = _jawad(priced, "history", "show", listed[-1]["id"][:8])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[2] == "used 1,234 tokens · about $0.0048"


def test_an_unpriced_model_says_cost_unknown_and_a_local_one_free(
    profile_dir: Path, scripted_model: ScriptedModel
) -> None:
    # As an OpenAI provider (a cloud kind) the model "scripted" has no price: never "$0".
    scripted_model.script(text("Hi.", usage=dict(USAGE)))
    env_key = "JAWAD_TEST_USAGE_KEY"
    os.environ[env_key] = "sk-test-0000"
    try:
        result = _jawad(profile_dir, "ask", "hello", "--verbose", "--kind", "openai", "--base-url",
                        scripted_model.base_url, "--model", "scripted", "--api-key-env", env_key)
    finally:
        del os.environ[env_key]
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "jawad: used 1,234 tokens · cost unknown"
    # As an OpenAI-compatible server on this machine it costs nothing.
    scripted_model.script(text("Hi.", usage=dict(USAGE)))
    result = _ask(profile_dir, scripted_model, "hello", "--verbose")
    assert result.stderr.splitlines()[-1] == "jawad: used 1,234 tokens · free"


def test_a_broken_price_table_is_moved_aside_and_said(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    config = profile_dir / "config"
    config.mkdir(exist_ok=True)
    (config / "prices.json").write_text("{not json")
    scripted_model.script(text("Hi.", usage=dict(USAGE)))
    result = _ask(profile_dir, scripted_model, "hello")
    assert result.returncode == 0, result.stderr
    assert "price table" in result.stderr and "could not be used" in result.stderr
    assert not (config / "prices.json").exists() and list(config.glob("prices.corrupt-*.json"))


def test_prices_set_list_and_unset(profile_dir: Path) -> None:
    result = _jawad(profile_dir, "prices", "set", "house-model*", "--input", "0.5", "--output", "1.5")
    assert result.returncode == 0, result.stderr
    saved = json.loads((profile_dir / "config" / "prices.json").read_text())
    assert saved == {"house-model*": {"input": 0.5, "output": 1.5}}
    listed = json.loads(_jawad(profile_dir, "prices", "list", "--json").stdout)
    assert listed["house-model*"] == {"input": 0.5, "output": 1.5, "yours": True}
    assert listed["gpt-4o"] == {"input": 2.5, "output": 10.0, "cached_input": 1.25, "yours": False}
    table = _jawad(profile_dir, "prices", "list")
    assert any(line.split()[:2] == ["house-model*", "*"] for line in table.stdout.splitlines())
    assert _jawad(profile_dir, "prices", "unset", "house-model*").returncode == 0
    assert json.loads((profile_dir / "config" / "prices.json").read_text()) == {}
    again = _jawad(profile_dir, "prices", "unset", "house-model*")
    assert again.returncode == 1 and "no price of your own" in again.stderr
