"""The terminal asker as a person meets it (``cli/terminal.py``): `jawad ask --url` on a pseudo-terminal,
the agent driven by the scripted model. A page's or a model's characters cannot redraw the question
(escape sequences, carriage returns, bells, C1 controls and bidirectional overrides are removed), and
a question that timed out does not keep a reader that would swallow the answer to the next one."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.fixtures.terminal import Responder, prompts, run_on_terminal
from tests.servers.scripted_model import ScriptedModel, call, text

QUESTION = b"Your choice (Enter = deny): "


def _command(profile: Path, model: ScriptedModel, url: str) -> list[str]:
    return [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", "Save my list", "--url", url,
            "--no-save", "--verbose", "--kind", "openai-compatible", "--base-url", model.base_url,
            "--model", "scripted"]


def _tool_results(model: ScriptedModel) -> list[str]:
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]


def test_page_and_model_text_cannot_redraw_the_permission_question(
    profile_dir: Path, scripted_model: ScriptedModel, page_server: str
) -> None:
    scripted_model.script(
        call("click_element", {"selector": "#pay"}),
        call("fill_form", {"selector": "#save", "text": "list\u009b2J\u202edlrow\x1b[31m"}),
        text("Nothing was paid.\x1b]0;pwned\x07\u202e"),
    )
    run = run_on_terminal(_command(profile_dir, scripted_model, f"{page_server}/terminal/escapes.html"),
                          prompts([(QUESTION, b"d\n"), (QUESTION, b"d\n")]),
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert run.returncode == 0 and run.answered == 2, run.transcript
    asked = run.transcript
    assert "Element: " in asked and "[o] allow once (recommended)" in asked  # the page's words, shown as words
    for control in ("\x1b", "\x07", "\x9b", "\u202e", "\u009b"):
        assert control not in asked and control not in run.stdout, (control, asked)
    # A page's line break cannot start a line of the question's own.
    assert "\n  [o] allow once (recommended)" not in asked.replace("\r\n", "\n")
    assert run.stdout.strip() == "Nothing was paid.]0;pwned"


def _second_question(reply: bytes) -> Responder:
    """Leaves the first question unanswered (it times out), then answers the second."""
    state = {"answered": False}

    def respond(seen: bytes) -> bytes:
        if not state["answered"] and seen.count(QUESTION) >= 2:
            state["answered"] = True
            return reply
        return b""

    return respond


@pytest.mark.slow  # 9-14 s in CI: first, not at the end of a parallel run
def test_a_question_that_timed_out_does_not_swallow_the_next_answer(
    profile_dir: Path, scripted_model: ScriptedModel, page_server: str
) -> None:
    config = profile_dir / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"browser": {"permission_timeout_s": 5}}), encoding="utf-8")
    scripted_model.script(
        call("click_element", {"selector": "#pay"}),
        call("click_element", {"selector": "#save"}),
        text("Saved."), text("Saved."),  # the answer after an action is checked against a fresh reading
    )
    run = run_on_terminal(_command(profile_dir, scripted_model, f"{page_server}/terminal/escapes.html"),
                          _second_question(b"o\n"), env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout_s=60)
    assert run.returncode == 0, run.transcript
    first, second = _tool_results(scripted_model)[:2]
    assert "within 5 s" in first or "nobody answered" in first, first
    assert second.startswith('Clicked BUTTON "Save the list"'), (second, run.transcript)
    assert "settled without your answer" in run.transcript


def test_json_on_a_terminal_is_the_same_json_without_what_a_terminal_acts_on() -> None:
    from jawad_desktop.cli.terminal import one_line, printable, printable_json

    raw = json.dumps({"content": "Paid\u009b2J \u202eyap\x1b[31m\r\nnext\tline\x07"}, ensure_ascii=False)
    shown = printable_json(raw)
    assert json.loads(shown) == json.loads(raw)
    assert not set(shown) & {"\u009b", "\u202e", "\x1b", "\x07"}
    assert printable("a\x1b[2Kb\r\nc\td\u2066e\u0085") == "a[2Kb\nc\tde"
    assert one_line("Pay\n  [o] allow once\x07") == "Pay [o] allow once"
