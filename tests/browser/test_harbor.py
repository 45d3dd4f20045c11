"""Harbor's rules, its persisted grants, and the gate's five decisions, asked through the bus."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.events import Event, EventBus, GrantsChanged, PermissionRequest, PermissionSettled
from jawad_desktop.core.harbor import Harbor, HarborGate, PermissionCheck, PermissionDecision, PermissionLevel, Verdict
from jawad_desktop.core.harbor.policy import (
    HarborPolicy,
    check_permission,
    is_critical_action,
    update_policy_for_decision,
)

L = PermissionLevel


def test_default_policy() -> None:
    p = HarborPolicy()
    assert check_permission(p, "read_page", L.READ_ONLY, "shop.test") is Verdict.AUTO_APPROVE
    same_site = check_permission(p, "navigate", L.NAVIGATE, "shop.test", current_site="www.shop.test")
    assert same_site is Verdict.AUTO_APPROVE
    assert check_permission(p, "navigate", L.NAVIGATE, "other.test", current_site="shop.test") is Verdict.ASK
    assert check_permission(p, "click_element", L.INTERACT, "shop.test", current_site="shop.test") is Verdict.ASK
    assert check_permission(p, "fill_form", L.SUBMIT, "shop.test") is Verdict.ASK


def test_decisions_update_the_policy() -> None:
    p = HarborPolicy()
    assert update_policy_for_decision(p, "click_element", "shop.test", "allow-once") is None
    assert check_permission(p, "click_element", L.INTERACT, "shop.test") is Verdict.ASK
    update_policy_for_decision(p, "click_element", "https://www.shop.test/x", "allow-site")
    assert check_permission(p, "click_element", L.INTERACT, "shop.test") is Verdict.AUTO_APPROVE
    assert check_permission(p, "click_element", L.INTERACT, "other.test") is Verdict.ASK
    assert check_permission(p, "fill_form", L.INTERACT, "shop.test") is Verdict.ASK  # per tool
    update_policy_for_decision(p, "fill_form", "shop.test", "allow-session")
    assert check_permission(p, "fill_form", L.INTERACT, "shop.test") is Verdict.AUTO_APPROVE
    assert ("shop.test", "fill_form") in p.session_grants and ("shop.test", "fill_form") not in p.site_grants
    update_policy_for_decision(p, "set_checked", "shop.test", "deny")
    assert check_permission(p, "set_checked", L.INTERACT, "shop.test") is Verdict.ASK
    update_policy_for_decision(p, "set_checked", "shop.test", "deny-all")
    assert check_permission(p, "set_checked", L.INTERACT, "shop.test") is Verdict.DENY
    assert check_permission(p, "read_page", L.READ_ONLY, "shop.test") is Verdict.AUTO_APPROVE
    assert check_permission(p, "click_element", L.INTERACT, "shop.test") is Verdict.AUTO_APPROVE  # granted


def test_critical_actions_always_ask_whatever_the_grants() -> None:
    p = HarborPolicy(auto_levels={L.READ_ONLY, L.INTERACT, L.SUBMIT})
    update_policy_for_decision(p, "click_element", "shop.test", "allow-site")
    assert check_permission(p, "click_element", L.INTERACT, "shop.test", critical=True) is Verdict.ASK
    p.deny_all = True
    assert check_permission(p, "click_element", L.INTERACT, "shop.test", critical=True) is Verdict.DENY


@pytest.mark.parametrize("text", [
    "Buy now", "Place order", "Pay $25", "Checkout", "Confirm purchase", "Delete account", "Transfer funds",
    "Subscribe", "Passer la commande", "Jetzt kaufen", "Zahlungspflichtig bestellen", "Comprar ahora",
    "Finalizar compra", "Acquista ora", "Nu kopen", "Satın al", "إتمام الطلب", "Купить", "立即购买", "今すぐ購入",
    "결제하기", "Supprimer le compte", "Abonnieren",
])
def test_critical_words_in_several_languages(text: str) -> None:
    assert is_critical_action(text, "")


@pytest.mark.parametrize("text", ["Add to Cart", "Display options", "Search", "PayPal info", "Next page",
                                  "Details", "Subscriber stories", "Read more"])
def test_ordinary_buttons_are_not_critical(text: str) -> None:
    assert not is_critical_action(text, "https://shop.test/products/5")


def test_critical_by_destination() -> None:
    assert is_critical_action("Continue", "https://shop.test/checkout/step-2")
    assert is_critical_action("OK", "https://bank.test/transfer")
    assert not is_critical_action("Search", "https://shop.test/search?q=pay")


def test_site_grants_persist_and_revoke(tmp_path: Path) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path, bus=bus)
    changes: list[Event] = []
    bus.subscribe(lambda event: changes.append(event) if isinstance(event, GrantsChanged) else None)
    harbor.apply_decision("click_element", "shop.test", "allow-site", level="interact")
    harbor.apply_decision("fill_form", "shop.test", "allow-session", level="interact")
    saved = json.loads((tmp_path / "harbor_grants.json").read_text())
    assert [(g["site"], g["tool"]) for g in saved["grants"]] == [("shop.test", "click_element")]
    again = Harbor.in_folder(tmp_path)  # a new session: site grants kept, session grants gone
    assert again.check("click_element", L.INTERACT, "shop.test") is Verdict.AUTO_APPROVE
    assert again.check("fill_form", L.INTERACT, "shop.test") is Verdict.ASK
    assert again.revoke("shop.test", "click_element")
    assert Harbor.in_folder(tmp_path).check("click_element", L.INTERACT, "shop.test") is Verdict.ASK
    assert len(changes) == 2


def test_a_corrupt_grants_file_is_kept_aside_and_harbor_asks(tmp_path: Path) -> None:
    (tmp_path / "harbor_grants.json").write_text("{not json")
    harbor = Harbor.in_folder(tmp_path)
    assert harbor.grants() == [] and harbor.store is not None and "kept as" in harbor.store.problem
    assert list(tmp_path.glob("harbor_grants.corrupt-*.json"))


def test_two_corrupt_grants_files_in_one_second_are_both_kept(tmp_path: Path) -> None:
    # The grants store used to name the kept file by the second alone and overwrite the first.
    for text in ("{bad", "{worse"):
        (tmp_path / "harbor_grants.json").write_text(text)
        Harbor.in_folder(tmp_path)
    kept = sorted(tmp_path.glob("harbor_grants.corrupt-*.json"))
    assert {p.read_text() for p in kept} == {"{bad", "{worse"}


# -- the gate -----------------------------------------------------------------------------------


LEVELS = {"click_element": L.INTERACT, "read_page": L.READ_ONLY}


def _check(name: str, site: str = "shop.test", run_id: str = "run1") -> PermissionCheck:
    return PermissionCheck(tool=name, call_id="c1", arguments={"index": 3}, level=LEVELS[name], site=site,
                           current_site=site, run_id=run_id)


class Answerer:
    """Answers every PermissionRequest on the bus with the next scripted decision, as the panel would."""

    def __init__(self, bus: EventBus, gate: HarborGate, answers: list[str]) -> None:
        self.requests: list[PermissionRequest] = []
        self.answers = answers
        self.gate = gate
        bus.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        if isinstance(event, PermissionRequest):
            self.requests.append(event)
            if self.answers:
                answer = self.answers.pop(0)
                asyncio.get_running_loop().call_soon(self.gate.respond, event.id, answer)


def test_gate_five_decisions(tmp_path: Path, arun: Callable[..., Any]) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path)
    gate = HarborGate(harbor, bus, timeout_s=5)
    answers = Answerer(bus, gate, ["allow-once", "deny", "allow-site", "deny-all"])

    d = arun(gate.check(_check("read_page")))
    assert d.allowed and d.decision == "auto-approved" and not answers.requests
    d = arun(gate.check(_check("click_element")))  # allow-once: runs, asked again next time
    assert d.allowed and d.user_decision is PermissionDecision.ALLOW_ONCE
    r = answers.requests[-1]
    assert (r.tool_name, r.site, r.permission_level, r.parameters) == ("click_element", "shop.test", "interact",
                                                                       {"index": 3})
    assert "click_element" in r.reason
    d = arun(gate.check(_check("click_element")))  # deny
    assert not d.allowed and not d.stop_run and len(answers.requests) == 2
    d = arun(gate.check(_check("click_element")))  # allow-site: remembered on disk
    assert d.allowed and harbor.check("click_element", "interact", "shop.test") is Verdict.AUTO_APPROVE
    d = arun(gate.check(_check("click_element")))
    assert d.decision == "auto-approved" and len(answers.requests) == 3
    d = arun(gate.check(_check("click_element", site="other.test")))  # deny-all: the run stops
    assert not d.allowed and d.stop_run
    d = arun(gate.check(_check("click_element", site="third.test")))
    assert not d.allowed and len(answers.requests) == 4  # denied without asking
    gate.timeout_s = 0.3
    d = arun(gate.check(_check("click_element", site="third.test", run_id="run2")))  # a new request
    assert len(answers.requests) == 5 and not d.allowed  # asked again (and nobody answered: timeout)


def test_gate_allow_session_is_not_persisted(tmp_path: Path, arun: Callable[..., Any]) -> None:
    bus = EventBus()
    harbor = Harbor.in_folder(tmp_path)
    gate = HarborGate(harbor, bus, timeout_s=5)
    Answerer(bus, gate, ["allow-session"])
    assert arun(gate.check(_check("click_element"))).allowed
    assert arun(gate.check(_check("click_element"))).decision == "auto-approved"
    assert not (tmp_path / "harbor_grants.json").exists()
    harbor.end_session()
    assert harbor.check("click_element", "interact", "shop.test") is Verdict.ASK


def test_unanswered_request_times_out_as_deny(tmp_path: Path, arun: Callable[..., Any]) -> None:
    bus = EventBus()
    gate = HarborGate(Harbor.in_folder(tmp_path), bus, timeout_s=0.2)
    seen: list[Event] = []
    bus.subscribe(seen.append)
    d = arun(gate.check(_check("click_element")))
    assert not d.allowed and "within" in d.reason
    request, settled = seen  # asked once, then settled by the clock
    assert isinstance(request, PermissionRequest) and settled == PermissionSettled(id=request.id, outcome="timeout")
    assert gate.pending_ids == [] and not gate.respond(request.id, "allow-once")


def test_without_a_person_to_ask_the_gate_denies_with_a_way_out(tmp_path: Path, arun: Callable[..., Any]) -> None:
    gate = HarborGate(Harbor(auto_levels=["navigate"]), EventBus(), ask=False)
    d = arun(gate.check(_check("click_element")))
    assert not d.allowed and "allow the level" in d.reason


def test_a_page_with_no_site_is_never_granted(tmp_path: Path) -> None:
    """A local file, a data: page: one "allow on this site" there would cover every such page."""
    harbor = Harbor.in_folder(tmp_path)
    for decision in ("allow-site", "allow-session"):
        assert harbor.apply_decision("click_element", "file:///home/user/.ssh/id_rsa", decision) is None
    assert harbor.grants() == []
    assert harbor.check("click_element", L.INTERACT, "file:///home/user/notes.txt") is Verdict.ASK
    assert harbor.check("navigate", L.NAVIGATE, "file:///etc/passwd", current_site="file:///home/user/") is Verdict.ASK
    # A grant for no site written by an older version is not loaded.
    (tmp_path / "harbor_grants.json").write_text(json.dumps({"version": 1, "grants": [
        {"site": "", "tool": "navigate", "level": "navigate", "granted_at": 1},
        {"site": "shop.test", "tool": "navigate", "level": "navigate", "granted_at": 1}]}), encoding="utf-8")
    again = Harbor.in_folder(tmp_path)
    assert [g.site for g in again.grants()] == ["shop.test"]
    assert again.check("navigate", L.NAVIGATE, "file:///etc/passwd") is Verdict.ASK


def test_stop_in_the_moment_the_person_allows_stops_the_call(tmp_path: Path, arun: Callable[..., Any]) -> None:
    """Stop pressed as the answer comes in (the same turn of the loop): the call does not run, the
    run's task ends cancelled (Python 3.11's asyncio.wait_for returned the answer and swallowed Stop)."""
    bus = EventBus()
    gate = HarborGate(Harbor.in_folder(tmp_path), bus, timeout_s=5)
    asked: list[PermissionRequest] = []
    bus.subscribe(lambda event: asked.append(event) if isinstance(event, PermissionRequest) else None)

    async def stop_as_allowed() -> str:
        run = asyncio.ensure_future(gate.check(_check("click_element")))
        while not asked:
            await asyncio.sleep(0)
        assert gate.respond(asked[0].id, "allow-once")
        run.cancel()
        try:
            decision = await run
        except asyncio.CancelledError:
            return "stopped"
        return f"ran ({decision.decision})"

    assert arun(stop_as_allowed()) == "stopped"
    assert gate.pending_ids == []
