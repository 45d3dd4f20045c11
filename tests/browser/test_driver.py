"""The QtWebEngine page driver against real pages: scripts, clicks, fills, frames, shadow DOM."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.page import PageError, Target


async def page_text(page: QtWebEnginePage, selector: str) -> str:
    # Reads the page's own DOM from the main world, as a person looking at it would.
    return str(await page.run_js(f"document.querySelector({selector!r}).textContent", world=0))


def test_library_is_isolated_from_the_page(web_page: QtWebEnginePage, load: Callable[[str], str],
                                           arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    assert arun(web_page.run_js("typeof window.__jawad", world=0)) == "undefined"
    assert arun(web_page.run_js("typeof window.__jawad")) == "object"


def test_trusted_click_changes_the_page(web_page: QtWebEnginePage, load: Callable[[str], str],
                                        arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    snap = arun(web_page.snapshot())
    add = next(e for e in snap.elements if e["label"] == "Add to Cart")
    outcome = arun(web_page.click(Target(index=add["index"])))
    assert outcome.trusted
    assert arun(page_text(web_page, "#cart-count")) == "1"
    assert arun(web_page.run_js("document.body.dataset.trusted", world=0)) == "true"


def test_fill_select_check_and_submit_a_form(web_page: QtWebEnginePage, load: Callable[[str], str],
                                             arun: Callable[..., Any]) -> None:
    load("form.html")
    arun(web_page.fill(Target(selector="#msg"), "Hello there"))
    out = arun(web_page.select_option(Target(selector="#topic"), "Support"))
    assert 'Selected "Support"' in out.message
    out = arun(web_page.set_checked(Target(selector="#news"), True))
    assert "now checked" in out.message
    out = arun(web_page.set_checked(Target(selector="#news"), True))
    assert "already checked" in out.message
    arun(web_page.fill(Target(selector="#msg"), "Hello again", submit=True))
    assert arun(page_text(web_page, "#result")) == "Sent: Hello again / support / true"


def test_fill_without_a_form_presses_a_trusted_enter(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                     arun: Callable[..., Any]) -> None:
    load("form.html")
    arun(web_page.fill(Target(selector="#live"), "lamps", submit=True))
    assert arun(page_text(web_page, "#echo")) == "lamps"  # the input event reached the page's listener
    assert arun(page_text(web_page, "#entered")) == "enter:lamps"


def test_failures_say_what_happened(web_page: QtWebEnginePage, load: Callable[[str], str],
                                    arun: Callable[..., Any]) -> None:
    load("form.html")
    cases = [
        (web_page.click(Target(index=99)), "unknown_index"),
        (web_page.click(Target(selector="#nope")), "not_found"),
        (web_page.click(Target(selector="!!")), "invalid_selector"),
        (web_page.fill(Target(selector="#ro"), "x"), "disabled"),
        (web_page.fill(Target(selector="#topic"), "x"), "not_editable"),
        (web_page.select_option(Target(selector="#topic"), "Billing"), "no_option"),
        (web_page.select_option(Target(selector="#msg"), "x"), "not_select"),
    ]
    for coro, code in cases:
        with pytest.raises(PageError) as info:
            arun(coro)
        assert info.value.code == code, (code, info.value.message)
    with pytest.raises(PageError) as info:
        arun(web_page.select_option(Target(selector="#topic"), "Billing"))
    assert "Sales" in info.value.message  # the options are listed so the model can pick one


def test_an_element_that_left_the_page_is_reported_detached(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                            arun: Callable[..., Any]) -> None:
    load("changing.html")
    snap = arun(web_page.snapshot())
    offer = next(e for e in snap.elements if e["label"].startswith("Offer"))
    arun(_sleep(0.3))  # the list is re-rendered every 100 ms
    with pytest.raises(PageError) as info:
        arun(web_page.click(Target(index=offer["index"])))
    assert info.value.code == "detached" and "read_page again" in info.value.message


def test_covered_element_falls_back_to_a_javascript_click(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                          arun: Callable[..., Any]) -> None:
    load("form.html")
    out = arun(web_page.click(Target(selector="#covered")))
    assert not out.trusted and "JavaScript click" in out.message
    assert arun(page_text(web_page, "#cov")) == "clicked"


def test_far_element_is_scrolled_into_view_and_clicked_for_real(web_page: QtWebEnginePage,
                                                                load: Callable[[str], str],
                                                                arun: Callable[..., Any]) -> None:
    load("form.html")
    out = arun(web_page.click(Target(selector="#far")))
    assert out.trusted
    assert arun(page_text(web_page, "#farres")) == "far:true"


def test_clicks_inside_an_iframe_and_a_shadow_root_are_trusted(web_page: QtWebEnginePage,
                                                               load: Callable[[str], str],
                                                               arun: Callable[..., Any]) -> None:
    load("iframe_outer.html")
    arun(web_page.fill(Target(selector="#widget >>> #card"), "1234"))
    out = arun(web_page.click(Target(selector="#widget >>> #check")))
    assert out.trusted
    inner = "document.querySelector('#widget').contentDocument.querySelector('#out').textContent"
    assert arun(web_page.run_js(inner, world=0)) == "checked:1234:true"
    load("shadow.html")
    arun(web_page.fill(Target(selector="#signup >>> #mail"), "a@b.test"))
    out = arun(web_page.click(Target(selector="#signup >>> #join")))
    assert out.trusted
    assert arun(page_text(web_page, "#log")) == "joined:a@b.test:true"


def test_click_that_navigates_reports_the_new_page(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                   arun: Callable[..., Any]) -> None:
    url = load("shop/jsonld.html")
    out = arun(web_page.click(Target(selector='a[href="/shop/checkout.html"]')))
    assert out.navigated_to == url.replace("jsonld", "checkout")
    back = arun(web_page.go_back())
    assert back == url


def test_agent_click_leaving_the_site_is_blocked_by_the_browser(web_page: QtWebEnginePage,
                                                                load: Callable[[str], str],
                                                                arun: Callable[..., Any]) -> None:
    url = load("shop/jsonld.html")
    asked: list[tuple[str, str]] = []

    def refuse(a: str, b: str) -> bool:
        asked.append((a, b))
        return False

    web_page.navigation_guard = refuse
    out = arun(web_page.click(Target(selector='a[href="http://localhost:1/elsewhere"]')))
    assert out.blocked_navigation == "http://localhost:1/elsewhere"
    assert asked == [(url, "http://localhost:1/elsewhere")]
    assert arun(web_page.url()) == url


def test_scroll_and_wait_for(web_page: QtWebEnginePage, load: Callable[[str], str],
                             arun: Callable[..., Any]) -> None:
    load("changing.html")
    assert arun(web_page.wait_for(text="Results loaded", timeout=5))
    assert not arun(web_page.wait_for(selector="#never", timeout=0.5))
    load("form.html")
    assert "now at" in arun(web_page.scroll("bottom")).message
    assert "Already at the bottom" in arun(web_page.scroll("down")).message
    assert "the top" in arun(web_page.scroll("top")).message


def test_highlight_is_shown_and_cleared(web_page: QtWebEnginePage, load: Callable[[str], str],
                                        arun: Callable[..., Any]) -> None:
    load("shop/checkout.html")
    arun(web_page.highlight(Target(selector="#place"), "Jawad asks"))
    present = "!!document.getElementById('__jawad_highlight__')"
    assert arun(web_page.run_js(present, world=0)) is True  # the user sees it in the page
    arun(web_page.clear_highlight())
    assert arun(web_page.run_js(present, world=0)) is False


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def test_attaching_to_a_pane_keeps_its_page_and_wires_harbor(qtbot: Any, web_profile: Any, page_server: str,
                                                            arun: Callable[..., Any], profile_dir: Any) -> None:
    from PySide6.QtWebEngineCore import QWebEnginePage
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.store.secrets import SecretStore
    from jawad_desktop.core.tools.browser import browser_registry
    from tests.browser.wiring import wire_browser

    view = QWebEngineView()
    qtbot.addWidget(view)
    view.setPage(QWebEnginePage(web_profile, view))  # as the browser pane builds it
    view.resize(800, 600)
    view.show()
    with qtbot.waitSignal(view.loadFinished, timeout=10000):
        view.load(f"{page_server}/shop/jsonld.html")
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore(problem="not needed here"))
    driver = QtWebEnginePage(view)  # the agent's driver on the pane's own page
    kit = wire_browser(driver, ctx.bus, config_dir=ctx.paths.config, data_dir=ctx.paths.data, settings=ctx.settings)
    try:
        assert view.page() is driver.page and driver.profile is web_profile
        arun(driver.wait_until_loaded(10))
        qtbot.waitUntil(lambda: view.url().toString().endswith("/shop/jsonld.html"), timeout=10000)
        assert kit.session.page is driver
        assert {t.name for t in browser_registry()} >= {"read_page", "click_element", "fill_form", "navigate"}
        assert driver.navigation_guard is not None
        assert not driver.navigation_guard(view.url().toString(), "http://localhost:1/")  # leaving: refused
        kit.harbor.apply_decision("navigate", "localhost", "allow-site")
        assert driver.navigation_guard(view.url().toString(), "http://localhost:1/")  # granted
        assert (profile_dir / "config" / "harbor_grants.json").exists()
    finally:
        kit.close()


def test_page_dialogs_are_answered_cancel_and_reported(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                       arun: Callable[..., Any]) -> None:
    load("form.html")
    out = arun(web_page.click(Target(selector="#ask")))
    assert 'confirm: "Really delete?" (Jawad answered Cancel)' in out.message
    assert arun(page_text(web_page, "#answer")) == "no"


def test_a_dialog_no_one_can_see_does_not_freeze_the_page(web_page: QtWebEnginePage, web_view: Any, page_server: str,
                                                         qtbot: Any, arun: Callable[..., Any]) -> None:
    # Loaded as the user would (not the agent's navigation), offscreen: Qt's modal box would wait for a
    # click no one can give, and the page's script (and every read after it) would wait with it.
    with qtbot.waitSignal(web_view.loadFinished, timeout=15000):
        web_view.load(f"{page_server}/dialogs/alert_on_load.html")
    assert arun(page_text(web_page, "#said"), timeout=15) == "after the alert"
    out = arun(web_page.click(Target(selector="#go")), timeout=15)
    assert 'alert: "WebGL2 not supported"' in out.message
    assert arun(page_text(web_page, "#said")) == "clicked"


def test_new_window_links_open_in_a_new_tab_the_agent_follows(web_page: QtWebEnginePage,
                                                              load: Callable[[str], str],
                                                              arun: Callable[..., Any]) -> None:
    url = load("form.html")
    out = arun(web_page.click(Target(selector="#newwin")))
    popup = url.replace("form.html", "shop/search.html?q=popup")
    assert out.navigated_to == "" and out.opened_tab.startswith("tab 2: ") and popup in out.opened_tab
    tabs = arun(web_page.tabs())
    assert [(t.index, t.url, t.active) for t in tabs] == [(0, url, False), (1, popup, True)]
    assert "popup" in arun(page_text(web_page, "#q"))  # the agent reads and acts on the new tab
    arun(web_page.close_tab(1))
    assert arun(web_page.url()) == url and len(arun(web_page.tabs())) == 1


def test_a_failing_page_script_is_an_error_not_an_empty_page(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                             arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    # The library catches its own errors (J.call answers {ok: false}); the reader must not take that
    # answer for a page with nothing on it.
    arun(web_page.run_js("window.__jawad.snapshot = function () { throw new Error('boom'); }; 1"))
    with pytest.raises(PageError) as info:
        arun(web_page.snapshot())
    assert info.value.code == "script_error" and "boom" in info.value.message


def test_a_label_cut_inside_an_emoji_reaches_python_well_formed(web_page: QtWebEnginePage,
                                                               load: Callable[[str], str],
                                                               arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    # A link whose label is clipped (80 characters) between the two halves of an emoji: the page
    # library's answer holds a lone surrogate, which a UTF-8 request to a model could not carry.
    arun(web_page.run_js("var a = document.createElement('a'); a.href = '#x'; "
                         "a.textContent = 'x'.repeat(78) + '\\u{1F600}tail'; document.body.prepend(a); 1", world=0))
    snap = arun(web_page.snapshot())
    labels = [str(e["label"]) for e in snap.elements]
    assert any(label.startswith("x" * 78) for label in labels), labels
    for label in labels:
        label.encode("utf-8")  # raises on a lone surrogate


def test_stop_in_the_moment_a_script_answers_stops_the_run(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                           aio_loop: Any, qtbot: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop (the agent's task cancelled) as a page script's answer comes in: the run stops. On
    Python 3.11 ``asyncio.wait_for`` returned the answer instead, and the run went on (after Stop,
    a slow navigation was waited for until its timeout)."""
    load("shop/jsonld.html")
    run_js = web_page.page.runJavaScript
    stopped: list[asyncio.Task[str]] = []

    def answer_then_stop(source: str, world: int, callback: Callable[[Any], None]) -> None:
        def answered(value: Any) -> None:
            callback(value)
            stopped[0].cancel()  # Stop, in the same moment

        run_js(source, world, answered)

    monkeypatch.setattr(web_page.page, "runJavaScript", answer_then_stop)

    async def run() -> str:
        await web_page.run_js("1 + 1")
        return "went on after Stop"

    stopped.append(aio_loop.create_task(run()))
    qtbot.waitUntil(stopped[0].done, timeout=10_000)
    assert stopped[0].cancelled(), stopped[0].result()
