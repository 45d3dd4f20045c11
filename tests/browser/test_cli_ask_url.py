"""`jawad ask --url` as a user runs it: a real process, an offscreen browser on a local site, the agent
driven by the scripted model over HTTP, permissions decided by --allow / --deny-all (no terminal)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.terminal import prompts, run_on_terminal
from tests.servers.scripted_model import ScriptedModel, call, text


def _ask(model: ScriptedModel, profile: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", "Send the message Hello",
         "--url", url, "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted", *extra],
        capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL, check=False,
    )


def _tool_results(model: ScriptedModel) -> list[str]:
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]


def test_allowed_levels_run_and_submit_reaches_the_page(scripted_model: ScriptedModel, page_server: str,
                                                        profile_dir: Path) -> None:
    scripted_model.script(
        call("fill_form", {"selector": "#msg", "text": "Hello", "submit": True}),
        call("wait_for", {"text": "Sent: Hello", "timeout_s": 5}),
        text("Your message was sent."),
    )
    out = _ask(scripted_model, profile_dir, f"{page_server}/form.html", "--allow", "interact,submit")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Your message was sent."
    results = _tool_results(scripted_model)
    assert results[0].startswith('Typed "Hello" into TEXTAREA "Message" and submitted the form')
    assert results[1] == '"Sent: Hello" is on the page now.'
    assert "[auto-approved] fill_form" in out.stderr
    # The system prompt carried the page, wrapped as untrusted.
    assert "<untrusted_page_content" in scripted_model.requests[0]["messages"][0]["content"]


def test_without_a_terminal_the_default_is_deny(scripted_model: ScriptedModel, page_server: str,
                                                profile_dir: Path) -> None:
    scripted_model.script(call("click_element", {"selector": "#covered"}), text("I could not click it."))
    out = _ask(scripted_model, profile_dir, f"{page_server}/form.html")
    assert out.returncode == 0, out.stderr
    (result,) = _tool_results(scripted_model)
    assert result.startswith("Permission denied: click_element") and "nobody can be asked here" in result
    assert "[denied] click_element" in out.stderr


def test_critical_actions_are_denied_when_nobody_can_be_asked(scripted_model: ScriptedModel, page_server: str,
                                                              profile_dir: Path) -> None:
    scripted_model.script(call("click_element", {"selector": "#place"}), text("I did not place the order."))
    out = _ask(scripted_model, profile_dir, f"{page_server}/shop/checkout.html", "--allow", "interact,submit")
    (result,) = _tool_results(scripted_model)
    assert "Permission denied" in result and "critical actions" in result
    assert out.returncode == 0


def test_deny_all_and_bad_levels(scripted_model: ScriptedModel, page_server: str, profile_dir: Path) -> None:
    scripted_model.script(call("navigate", {"url": "http://localhost:1/"}), text("Not allowed."))
    out = _ask(scripted_model, profile_dir, f"{page_server}/form.html", "--deny-all")
    (result,) = _tool_results(scripted_model)
    assert result.startswith("Permission denied: navigate") and out.returncode == 0
    bad = _ask(scripted_model, profile_dir, f"{page_server}/form.html", "--allow", "everything")
    assert bad.returncode == 1 and "Unknown permission level: everything" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_the_browser_profile_keeps_cookies_between_runs(scripted_model: ScriptedModel, page_server: str,
                                                        profile_dir: Path) -> None:
    scripted_model.script(text("First visit."))
    first = _ask(scripted_model, profile_dir, f"{page_server}/cookie.html")
    assert first.returncode == 0, first.stderr
    assert "Cookies before this visit: none" in scripted_model.requests[0]["messages"][0]["content"]
    scripted_model.script(text("Second visit."))
    second = _ask(scripted_model, profile_dir, f"{page_server}/cookie.html")
    assert second.returncode == 0, second.stderr
    assert "Cookies before this visit: visited=yes" in scripted_model.requests[0]["messages"][0]["content"]
    assert (profile_dir / "data" / "browser").is_dir()
    scripted_model.script(text("Private visit."))
    private = _ask(scripted_model, profile_dir, f"{page_server}/cookie.html", "--private")
    assert private.returncode == 0, private.stderr
    assert "Cookies before this visit: none" in scripted_model.requests[0]["messages"][0]["content"]


@pytest.mark.slow
def test_on_a_terminal_the_question_is_asked_and_answered(scripted_model: ScriptedModel, page_server: str,
                                                          profile_dir: Path) -> None:
    # The answer after the click is checked against the page (read_page) before it is given.
    scripted_model.script(call("click_element", {"selector": "#place"}), text("Order placed."), text("Order placed."))
    run = run_on_terminal(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "ask", "Place my order",
         "--url", f"{page_server}/shop/checkout.html", "--kind", "openai-compatible", "--base-url",
         scripted_model.base_url, "--model", "scripted"],
        prompts([(b"Your choice", b"o\n")]), env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout_s=120)
    assert "WARNING: this looks like a purchase" in run.transcript, run.transcript
    assert 'BUTTON "Place order"' in run.transcript
    assert run.answered == 1 and run.returncode == 0
    assert run.stdout.strip() == "Order placed."
    (result,) = _tool_results(scripted_model)
    assert result.startswith('Clicked BUTTON "Place order"') and "confirmed.html" in result
    assert "Order confirmed" in scripted_model.requests[-1]["messages"][-1]["content"]  # the page it checked
