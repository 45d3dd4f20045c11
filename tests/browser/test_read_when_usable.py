"""A page is read once usable (DOMContentLoaded and a quiet moment), not after its last image or advert:
pages whose resources come late or never (``tests/servers/slow_pages.py``), in QtWebEngine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import read_page
from jawad_desktop.core.tools.browser.reading import STILL_LOADING_NOTE
from jawad_desktop.core.tools.page import PageError
from tests.servers.slow_pages import SlowPageServer

Run = Callable[..., Any]
OLD_WAIT_S = 30.0  # navigate waited for the load event, up to this, then stopped the page


def test_a_page_whose_image_never_comes_is_read_at_once(web_page: QtWebEnginePage, slow_pages: SlowPageServer,
                                                        arun: Run) -> None:
    started = time.monotonic()
    url = arun(web_page.navigate(f"{slow_pages.base_url}/page/never-image"), timeout=OLD_WAIT_S + 5)
    reading = arun(read_page(web_page))
    elapsed = time.monotonic() - started
    assert elapsed < 5.0, f"{elapsed:.1f} s: the read waited for the image"
    assert url.endswith("/page/never-image")
    assert "guided boats into the harbour" in reading.markdown and "112 steps" in reading.markdown
    assert reading.notes.count(STILL_LOADING_NOTE) == 1
    assert "Notes: " in reading.for_model() and STILL_LOADING_NOTE in reading.for_model()


def test_what_a_script_adds_after_domcontentloaded_is_read(web_page: QtWebEnginePage, slow_pages: SlowPageServer,
                                                           arun: Run) -> None:
    # The load event comes at once (no resources); the board is filled 200 ms after DOMContentLoaded.
    arun(web_page.navigate(f"{slow_pages.base_url}/page/late-content"))
    reading = arun(read_page(web_page))
    assert "The 16:42 to Riverside leaves from platform 7." in reading.markdown
    assert STILL_LOADING_NOTE not in reading.notes  # loaded: no note
    # The same while an image never comes: read during the load, with the late paragraph and a note.
    arun(web_page.navigate(f"{slow_pages.base_url}/page/late-content?hang=1"))
    reading = arun(read_page(web_page))
    assert "platform 7" in reading.markdown and STILL_LOADING_NOTE in reading.notes


def test_the_new_document_is_read_not_the_one_it_replaces(web_page: QtWebEnginePage, slow_pages: SlowPageServer,
                                                          arun: Run) -> None:
    arun(web_page.navigate(f"{slow_pages.base_url}/page/never-image"))
    arun(web_page.navigate(f"{slow_pages.base_url}/page/late-content?hang=1"))
    reading = arun(read_page(web_page))
    assert reading.title == "Train times" and "lighthouse" not in reading.markdown


def test_a_load_stopped_before_domcontentloaded_is_still_read(web_page: QtWebEnginePage,
                                                              slow_pages: SlowPageServer, arun: Run) -> None:
    # The HTML waits on a script that never comes: DOMContentLoaded never fires, the library is never
    # injected, and the load is stopped. A call then gets "" for the missing library (PySide's null),
    # which once failed as "not JSON" instead of injecting the library.
    with pytest.raises(PageError) as failure:
        arun(web_page.navigate(f"{slow_pages.base_url}/page/blocked", timeout=1.5))
    assert failure.value.code == "timeout"
    assert arun(web_page.call("find", {"text": "parsed before the script"})) == {"ok": True, "found": True}
    reading = arun(read_page(web_page))
    assert "This text is parsed before the script that never comes." in reading.markdown


def test_a_site_that_does_not_answer_still_fails_to_load(web_page: QtWebEnginePage, arun: Run) -> None:
    started = time.monotonic()
    with pytest.raises(PageError) as failure:
        arun(web_page.navigate("http://127.0.0.1:9/"))  # the discard port: nothing listens
    assert failure.value.code == "navigation_failed" and time.monotonic() - started < 10


def test_the_page_cache_event_still_fires_when_the_load_finishes(qtbot: Any, web_profile: Any, arun: Run,
                                                                  slow_pages: SlowPageServer) -> None:
    from jawad_desktop.ui.window.browser_pane import BrowserPane

    pane = BrowserPane(web_profile, shortcuts=False)
    qtbot.addWidget(pane)
    pane.resize(800, 600)
    pane.show()
    driver = QtWebEnginePage(pane.view)  # adopts the pane's page, as the window's assistant does
    assert driver.adopted
    url = f"{slow_pages.base_url}/page/late-content?image_ms=2500"
    ready: list[str] = []
    pane.page_ready.connect(ready.append)
    started = time.monotonic()
    arun(driver.navigate(url))
    reading = arun(read_page(driver))
    assert time.monotonic() - started < 2.5 and STILL_LOADING_NOTE in reading.notes  # read before the map came
    assert url not in ready
    qtbot.waitUntil(lambda: url in ready, timeout=15_000)  # PAGE_CONTENT_READY once the load finishes
    assert STILL_LOADING_NOTE not in arun(read_page(driver)).notes
