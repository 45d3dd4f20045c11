"""Pages the user browses by hand in the window go to the page cache when their load finishes
(spec 001 PAGE_CONTENT_READY), so a later turn knows "the previous product" though the agent
never read that page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _cached_titles(window: MainWindow) -> list[str]:
    assistant = window.presenter.assistant
    assert assistant is not None and assistant.cache is not None
    with assistant.cache.db.read() as conn:  # the app never lists the cache: read its table
        return [row["title"] for row in conn.execute("SELECT title FROM page_cache").fetchall()]


def test_a_page_browsed_by_hand_is_the_previous_product_of_a_later_turn(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, page_server: str, qtbot: Any
) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    window.browser.load(f"{page_server}/shop/jsonld.html")
    qtbot.waitUntil(lambda: "Trail Runner 2 – Example Shop" in _cached_titles(window), timeout=30_000)
    window.browser.load(f"{page_server}/shop/search.html?q=stoves")
    qtbot.waitUntil(lambda: window.browser.view.url().path().endswith("/search.html")
                    and window.browser.loads_finished >= 3, timeout=30_000)
    scripted_model.script(text("The Trail Runner 2 was 129.99."))
    window.chat.input.setPlainText("how much was the shoe I looked at?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy and bool(scripted_model.requests), timeout=60_000)
    system = scripted_model.requests[0]["messages"][0]["content"]
    assert "PREVIOUS PRODUCT" in system, system
    previous = system.split("PREVIOUS PRODUCT", 1)[1]
    assert "Trail Runner 2" in previous and "129.99" in previous
    assert "/search.html" in system.split("PREVIOUS PRODUCT", 1)[0]  # the current page is the search


def test_built_in_pages_are_not_cached(
    make_window: Any, profile_dir: Path, arun: Any
) -> None:
    window: MainWindow = make_window(profile_dir)
    assistant = window.presenter.assistant
    assert assistant is not None
    arun(assistant.page_loaded("about:blank"))
    arun(assistant.page_loaded("data:text/html,<p>x</p>"))
    assert _cached_titles(window) == []
