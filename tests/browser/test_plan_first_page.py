"""Plan-first mode on a real page: the scripted model proposes a plan for a local form, and once it is
approved the actions within it run without a question, while one on a site outside it asks; Stop
during the wait for approval ends the turn with nothing done; ``jawad ask --plan-first`` without a
terminal rejects the plan and says how to run it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.store.secrets import SecretStore
from tests.servers.scripted_model import ScriptedModel, call, text

PLAN = {"sites": ["127.0.0.1"], "actions": ["interact: type the message", "submit: send the form"],
        "steps": ["Type Hello into the message", "Send the form"]}


@pytest.fixture
def assistant(profile_dir: Path, web_page: QtWebEnginePage, scripted_model: ScriptedModel,
              arun: Callable[..., Any]) -> Iterator[Assistant]:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    ctx.settings.network.max_retries = 0
    client = LLMClient(scripted_model.provider(), network=ctx.settings.network, bus=ctx.bus)
    made = Assistant(ctx, page=web_page, client=client, plan_first=True, save=False)
    yield made
    arun(made.aclose())


def _events(bus: ev.EventBus) -> list[ev.Event]:
    seen: list[ev.Event] = []
    bus.subscribe(seen.append)
    return seen


def test_approved_plan_runs_its_actions_without_asking_and_asks_outside_it(
    assistant: Assistant, scripted_model: ScriptedModel, page_server: str, arun: Callable[..., Any],
    web_page: QtWebEnginePage,
) -> None:
    arun(web_page.navigate(f"{page_server}/form.html"), timeout=30)
    outside = page_server.replace("127.0.0.1", "localhost") + "/form.html"
    scripted_model.script(call("propose_plan", PLAN),
                          call("fill_form", {"selector": "#msg", "text": "Hello", "submit": True}),
                          call("navigate", {"url": outside}),
                          text("Sent."),  # held back: checked against a fresh reading first
                          text("Sent; I did not leave the site."))
    seen = _events(assistant.bus)

    def answer(event: ev.Event) -> None:
        loop = asyncio.get_running_loop()
        if isinstance(event, ev.PlanProposed):
            loop.call_soon(assistant.gate.plans.respond, event.id, True)
        elif isinstance(event, ev.PermissionRequest):
            loop.call_soon(assistant.gate.respond, event.id, "deny")

    assistant.bus.subscribe(answer)
    response = arun(assistant.send("Send the message Hello with this form"), timeout=60)
    assert response.content == "Sent; I did not leave the site.", response.content
    (plan,) = [e for e in seen if isinstance(e, ev.PlanProposed)]
    assert plan.sites == ("127.0.0.1",) and plan.actions == tuple(PLAN["actions"])
    log = {e.entry.tool_name: e.entry for e in seen if isinstance(e, ev.ActionLogUpdate)}
    assert (log["fill_form"].decision, log["fill_form"].result) == ("auto-approved", "success")
    assert arun(web_page.run_js("document.getElementById('result').textContent")).startswith("Sent: Hello")
    (asked,) = [e for e in seen if isinstance(e, ev.PermissionRequest)]
    assert asked.tool_name == "navigate" and asked.site == "localhost"
    assert "not in the approved plan" in asked.reason
    assert log["navigate"].decision == "denied"


def test_stop_while_the_plan_waits_does_nothing(
    assistant: Assistant, scripted_model: ScriptedModel, page_server: str, arun: Callable[..., Any],
    web_page: QtWebEnginePage,
) -> None:
    arun(web_page.navigate(f"{page_server}/form.html"), timeout=30)
    scripted_model.script(call("propose_plan", PLAN))
    seen = _events(assistant.bus)
    assistant.bus.subscribe(lambda e: asyncio.get_running_loop().call_later(0.2, assistant.stop)
                            if isinstance(e, ev.PlanProposed) else None)
    response = arun(assistant.send("Send the message Hello with this form"), timeout=30)
    assert response.interrupted
    assert [e.outcome for e in seen if isinstance(e, ev.PlanSettled)] == ["stopped"]
    assert not [e for e in seen if isinstance(e, ev.ActionLogUpdate)]
    assert arun(web_page.run_js("document.getElementById('result').textContent")) == ""
    assert len(scripted_model.requests) == 1


def test_cli_without_a_terminal_rejects_the_plan_and_says_how(
    scripted_model: ScriptedModel, page_server: str, profile_dir: Path
) -> None:
    scripted_model.script(call("propose_plan", PLAN))
    out = subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "ask", "Send the message Hello",
         "--url", f"{page_server}/form.html", "--plan-first", "--allow", "interact,submit", "--no-save",
         "--kind", "openai-compatible", "--base-url", scripted_model.base_url, "--model", "scripted"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 1, out.stderr
    assert "Nothing was done: plan-first mode needs someone to approve the plan" in out.stderr
    assert "interactive terminal" in out.stderr and "without --plan-first" in out.stderr
    assert "fill_form" not in out.stderr and len(scripted_model.requests) == 1
