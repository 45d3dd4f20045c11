"""read_page hands the extractor the whole rendered document: content far down a page is read,
text the browser hides is not, and the head (title, meta) comes along."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import PageReading, read_page

Load = Callable[[str], str]


def read(web_page: QtWebEnginePage, arun: Callable[..., Any]) -> PageReading:
    return arun(read_page(web_page), timeout=30)


def test_content_after_60kb_of_markup_is_read_whole(web_page: QtWebEnginePage, load: Load,
                                                     arun: Callable[..., Any]) -> None:
    load("reading/long-menu.html")  # no <main>/<article>: the article after about 85 KB of menu
    r = read(web_page, arun)
    assert "trimmed the wicks, polished the great lenses" in r.markdown
    assert "Closing sentence: the ferrymen still tell their stories" in r.markdown
    assert not any(note.startswith("The page is long") for note in r.notes)


def test_hidden_text_does_not_reach_the_markdown(web_page: QtWebEnginePage, load: Load,
                                                 arun: Callable[..., Any]) -> None:
    load("reading/hidden-text.html")
    r = read(web_page, arun)
    assert "tight cluster around the queen" in r.markdown
    assert "twenty kilograms of stored honey" in r.markdown
    for hidden in ("purple walrus", "orange giraffe", "green penguin", "yellow octopus"):
        assert hidden not in r.markdown, hidden


def test_the_head_is_handed_to_the_extractor(web_page: QtWebEnginePage, load: Load,
                                             arun: Callable[..., Any]) -> None:
    load("reading/long-menu.html")
    snap = arun(web_page.snapshot(), timeout=30)
    assert "<title>The Lighthouse Keepers of the North Coast</title>" in snap.html
    assert 'name="description"' in snap.html
    assert read(web_page, arun).title == "The Lighthouse Keepers of the North Coast"
