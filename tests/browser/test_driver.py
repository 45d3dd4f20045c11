"""The QtWebEngine page driver against real pages: scripts, clicks, fills, frames, shadow DOM."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.core.tools.page import PageError, Target
from jawad_desktop.ui.page_driver import QtWebEnginePage


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
