"""A long page through the agent's tools in QtWebEngine: read_page shows part 1 with the outline,
read_page(part=N) and find_in_page reach the rest without reading the page again, and every
sentence of the page is reachable: nothing is cut silently."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext
from tests.fixtures.page_server import PAGES

Load = Callable[[str], str]
PAGE = "reading/long-parts.html"  # about 40,000 characters of article under 13 headings
LIMIT = 20_000  # the tool result share of a mid-sized model (core.agent.budget)


def sentences() -> list[str]:
    """Every sentence of the article's paragraphs, from the page's HTML."""
    source = (PAGES / PAGE).read_text(encoding="utf-8")
    source = source[source.index("<article>"):source.index("</article>")]
    paragraphs = [html.unescape(p) for p in re.findall(r"<p>(.*?)</p>", source, re.S)]
    return [s for p in paragraphs for s in re.split(r"(?<=\.) ", p.strip())]


def call(arun: Callable[..., Any], ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    tool = browser_registry().get(name)
    assert tool is not None
    result: ToolResult = arun(tool.run(ctx, tool.validate(arguments)), timeout=30)
    return result


@pytest.fixture
def ctx(web_page: QtWebEnginePage) -> ToolContext:
    return ToolContext(settings=Settings(), bus=EventBus(), browser=BrowserSession(web_page, highlight_s=0),
                       result_chars=LIMIT)


def content_of(result: ToolResult) -> str:
    return result.for_model.split("Content (Markdown):\n", 1)[1].split("\n</untrusted_page_content id=")[0]


def test_a_long_page_is_read_in_parts_with_an_outline(ctx: ToolContext, load: Load,
                                                      arun: Callable[..., Any]) -> None:
    url = load(PAGE)
    first = call(arun, ctx, "read_page")
    assert first.ok
    count = first.data["parts"]
    assert count >= 5 and first.data["part"] == 1 and first.data["url"] == url
    assert f"Part 1 of {count} of the content. read_page(part=K) reads another part; find_in_page(query)" \
        in first.for_model
    outline = first.for_model.split("Outline of the content (headings, with the part each is in):\n", 1)[1]
    # The page's h1 repeats its title, which the reading shows as "Title:" (Readability leaves it out).
    assert first.for_model.startswith("Title: Keepers of the Northern Lights")
    assert "- Chapter 1: Early years on the rock (part 1)" in outline
    assert "- Chapter 5: The storm of 1881 (part " in outline
    assert "In chapter 1, paragraph 1, sentence 1," in content_of(first)
    assert "Closing sentence" not in first.for_model
    assert len(first.for_model) <= LIMIT
    reading = ctx.browser.last_reading if ctx.browser else None
    assert reading is not None

    third = call(arun, ctx, "read_page", part=3)
    assert third.ok and third.data["part"] == 3
    assert ctx.browser is not None and ctx.browser.last_reading is reading  # no new snapshot
    text = content_of(third)
    assert text == reading.parts(LIMIT).part(3)
    assert "In chapter 1, paragraph 1" not in text
    assert "(not repeated here: read_page() without a part lists them)" in third.for_model
    stormy = [h for h in reading.parts(LIMIT).headings if h.part == 3]
    assert all(h.text in text for h in stormy)

    too_far = call(arun, ctx, "read_page", part=count + 1)
    assert not too_far.ok and f"has {count} parts: ask for a part from 1 to {count}" in too_far.for_model


def test_find_in_page_finds_a_sentence_from_the_end(ctx: ToolContext, load: Load, arun: Callable[..., Any]) -> None:
    load(PAGE)
    count = call(arun, ctx, "read_page").data["parts"]
    reading = ctx.browser.last_reading if ctx.browser else None
    found = call(arun, ctx, "find_in_page", query="the last lamp was put out")
    assert found.ok and ctx.browser is not None and ctx.browser.last_reading is reading
    assert '"the last lamp was put out" is on the page' in found.for_model
    assert f"[part {count}, under \"Chapter 12: What remains today\"]" in found.for_model
    assert "walked home across the frozen sound" in found.for_model
    assert found.data["passages"][0]["part"] == count
    words = call(arun, ctx, "find", query="storm keeper Skerryvore 1881 schooners")  # an alias, the words
    assert words.ok and words.data["how"] in ("phrase", "words", "none")
    missing = call(arun, ctx, "find_in_page", query="purple walrus")
    assert missing.ok and '"purple walrus" is not on the page' in missing.for_model


def test_find_in_page_reads_the_page_when_there_is_no_reading(ctx: ToolContext, load: Load,
                                                              arun: Callable[..., Any]) -> None:
    load(PAGE)
    assert ctx.browser is not None and ctx.browser.last_reading is None
    found = call(arun, ctx, "find_in_page", query="Closing sentence")
    assert found.ok and found.data["count"] == 1 and ctx.browser.last_reading is not None
    load("form.html")  # another page: the old reading is not used for it
    other = call(arun, ctx, "find_in_page", query="Closing sentence")
    assert other.data["count"] == 0 and ctx.browser.last_reading.url.endswith("form.html")


def test_every_sentence_of_the_page_is_reachable_through_its_parts(ctx: ToolContext, load: Load,
                                                                   arun: Callable[..., Any]) -> None:
    load(PAGE)
    first = call(arun, ctx, "read_page")
    shown = [content_of(first)]
    for part in range(2, first.data["parts"] + 1):
        result = call(arun, ctx, "read_page", part=part)
        assert "not shown" not in result.for_model, part
        shown.append(content_of(result))
    seen = " ".join(" ".join(text.split()) for text in shown)
    expected = sentences()
    assert len(expected) > 300
    missing = [s for s in expected if s not in seen]
    assert not missing, missing[:3]


def test_a_folded_section_is_listed_and_an_unknown_one_named(ctx: ToolContext, load: Load,
                                                             arun: Callable[..., Any]) -> None:
    load(PAGE)
    call(arun, ctx, "read_page")
    assert ctx.browser is not None and ctx.browser.last_reading is not None
    ctx.browser.last_reading.folded = {"navigation": '[1] LINK "Home"\n[2] LINK "History"'}
    listed = call(arun, ctx, "read_page", section="Navigation")
    assert listed.ok and "Section 'navigation' of" in listed.for_model
    assert '[2] LINK "History"' in listed.for_model and "<untrusted_page_content" in listed.for_model
    unknown = call(arun, ctx, "read_page", section="footer")
    assert not unknown.ok
    assert "no folded section 'footer'. Its folded sections are: 'navigation'." in unknown.for_model


def test_after_an_action_a_part_is_read_from_the_page_again(ctx: ToolContext, load: Load,
                                                            arun: Callable[..., Any]) -> None:
    load("shop/jsonld.html")
    call(arun, ctx, "read_page")
    assert ctx.browser is not None and ctx.browser.last_reading is not None
    before = ctx.browser.last_reading
    assert call(arun, ctx, "read_page", part=1).ok and ctx.browser.last_reading is before  # reused
    (index,) = [e["index"] for e in before.elements if e.get("label") == "Add to Cart"]
    assert call(arun, ctx, "click_element", index=index).ok
    again = call(arun, ctx, "read_page", part=1)  # the click may have changed the page: read again
    assert again.ok and ctx.browser.last_reading is not before
    assert '"Add to Cart"' in again.for_model  # a new reading lists its elements
