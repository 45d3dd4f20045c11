"""`jawad research` as a user runs it: a real process against the scripted model over HTTP (unsaved
provider flags), the steps in an offscreen browser on the local shops, approval by --yes or refused
without a terminal, progress on stderr, the cited answer on stdout, the research saved with --save."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jawad_desktop.core.research import ResearchStore
from jawad_desktop.core.store.conversations import ConversationStore
from tests.fixtures.terminal import prompts, run_on_terminal
from tests.servers.scripted_model import ScriptedModel, call, text

INTENT = "Compare the price of the Acme Kettle 1.7 L in three shops"


def _research(model: ScriptedModel, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "research", INTENT,
         "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted", *extra],
        capture_output=True, text=True, timeout=180, env=env, stdin=subprocess.DEVNULL, check=False,
    )


def _plan(page_server: str) -> str:
    return json.dumps({"steps": [
        {"agent": "BrowserAgent", "task": f"Find the kettle's price at shop {s.upper()}",
         "site": f"{page_server}/research/shop-{s}.html", "permissions": ["read-only", "navigate"]} for s in "abc"]})


def test_research_with_yes_runs_prints_progress_and_cites_the_pages(scripted_model: ScriptedModel,
                                                                    page_server: str, profile_dir: Path) -> None:
    urls = [f"{page_server}/research/shop-{s}.html" for s in "abc"]
    scripted_model.script(
        text("```json\n" + _plan(page_server) + "\n```"),
        call("navigate", {"url": urls[0]}), call("read_page", {}), text("Alpha Appliances: $39.99."),
        call("navigate", {"url": urls[1]}), call("read_page", {}), text("Bravo Home: $34.50."),
        call("navigate", {"url": urls[2]}), call("read_page", {}), text("Charlie Kitchen: $42.00."),
        text("Cheapest: Bravo Home at $34.50 [2]. Alpha Appliances $39.99 [1], Charlie Kitchen $42.00 [3]."),
    )
    out = _research(scripted_model, profile_dir, "--yes", "--save")
    assert out.returncode == 0, out.stderr
    assert "Research plan for: " + INTENT in out.stdout
    assert "1. [BrowserAgent] Find the kettle's price at shop A" in out.stdout
    assert "permissions: read-only, navigate" in out.stdout
    for number in (1, 2, 3):
        assert f"[{number}/3] running:" in out.stderr and f"[{number}/3] completed:" in out.stderr
    assert "Bravo Home: $34.50." in out.stderr and "Writing the answer…" in out.stderr
    assert "Cheapest: Bravo Home at $34.50 [2]." in out.stdout
    assert f"[2] Acme Kettle 1.7 L — Bravo Home — {urls[1]}" in out.stdout
    assert all(url in out.stdout for url in urls)
    assert "Saved in conversation" in out.stderr and "Traceback" not in out.stderr
    with ConversationStore.open(profile_dir / "data") as store:
        (conversation,) = store.list_conversations()
        messages = store.messages(conversation.id)
        assert messages[0].message.content == f"/research {INTENT}"
        assert messages[-1].message.role == "assistant" and "Sources:" in messages[-1].message.content
        (plan,) = ResearchStore(store.db).for_conversation(conversation.id)
        assert plan.status.value == "completed" and [c.url for c in plan.citations] == urls


def test_without_yes_and_no_terminal_the_plan_is_shown_and_refused(scripted_model: ScriptedModel,
                                                                   page_server: str, profile_dir: Path) -> None:
    scripted_model.script(text(_plan(page_server)))
    out = _research(scripted_model, profile_dir)
    assert out.returncode == 1
    assert "3. [BrowserAgent] Find the kettle's price at shop C" in out.stdout
    assert "The plan was not run: nobody can approve it here" in out.stderr and "--yes" in out.stderr
    assert scripted_model.remaining == 0 and len(scripted_model.requests) == 1  # nothing ran
    assert "Traceback" not in out.stderr


def test_plan_only_json_and_a_plan_that_cannot_be_made(scripted_model: ScriptedModel, page_server: str,
                                                       profile_dir: Path) -> None:
    scripted_model.script(text(_plan(page_server)))
    out = _research(scripted_model, profile_dir, "--plan-only", "--json")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["intent"] == INTENT and payload["status"] == "draft" and len(payload["steps"]) == 3
    scripted_model.script(text("no"), text("still no"), text("never"))
    bad = _research(scripted_model, profile_dir, "--yes")
    assert bad.returncode == 1 and "did not write a usable research plan in 3 tries" in bad.stderr
    assert "Traceback" not in bad.stderr


def _on_terminal(model: ScriptedModel, profile: Path, answers: list[bytes]) -> tuple[int | None, str, str]:
    """Run `jawad research` with stdin and stderr on a pseudo-terminal; answer each question in turn."""
    run = run_on_terminal(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "research", INTENT,
         "--kind", "openai-compatible", "--base-url", model.base_url, "--model", "scripted"],
        prompts([(b"Run this plan? [y/N]", answer) for answer in answers]),
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout_s=180)
    assert run.answered == len(answers), run.transcript
    return run.returncode, run.stdout, run.transcript


def test_on_a_terminal_the_plan_is_approved_or_declined(scripted_model: ScriptedModel, page_server: str,
                                                        profile_dir: Path) -> None:
    one = json.dumps({"steps": [{"agent": "BrowserAgent", "task": "Find the kettle's price at shop B",
                                 "site": f"{page_server}/research/shop-b.html", "permissions": ["navigate"]}]})
    scripted_model.script(text(one))
    code, out, terminal = _on_terminal(scripted_model, profile_dir, [b"n\n"])
    assert code == 1 and "The plan was not run." in terminal and "1. [BrowserAgent]" in out
    assert scripted_model.remaining == 0 and len(scripted_model.requests) == 1
    url = f"{page_server}/research/shop-b.html"
    scripted_model.script(text(one), call("navigate", {"url": url}), call("read_page", {}),
                          text("Bravo Home: $34.50."), text("It costs $34.50 at Bravo Home [1]."))
    code, out, terminal = _on_terminal(scripted_model, profile_dir, [b"y\n"])
    assert code == 0, terminal
    assert "It costs $34.50 at Bravo Home [1]." in out and f"[1] Acme Kettle 1.7 L — Bravo Home — {url}" in out
    assert "[1/1] completed" in terminal
