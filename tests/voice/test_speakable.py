"""Streaming answers cut into speakable sentences: as soon as each is complete, Markdown made speakable."""

from __future__ import annotations

import pytest

from jawad_desktop.core.events import AgentStep
from jawad_desktop.core.voice.speakable import CODE_BLOCK, SentenceChunker, announcement, speakable_sentence


def stream(text: str, size: int = 4) -> list[list[str]]:
    """What the chunker returns after each delta of ``size`` characters, then at the end."""
    chunker = SentenceChunker()
    steps = [chunker.feed(text[i:i + size]) for i in range(0, len(text), size)]
    return [*steps, chunker.flush()]


def spoken(text: str, size: int = 4) -> list[str]:
    return [sentence for step in stream(text, size) for sentence in step]


def test_each_sentence_comes_out_as_soon_as_it_is_complete() -> None:
    chunker = SentenceChunker(early_clause=False)
    assert chunker.feed("The capital of France") == []
    assert chunker.feed(" is Paris. It is") == ["The capital of France is Paris."]
    assert chunker.feed(" large") == []
    assert chunker.feed("! Anything else?") == ["It is large!"]
    assert chunker.flush() == ["Anything else?"]


def test_the_first_piece_can_be_a_clause_to_start_speaking_early() -> None:
    chunker = SentenceChunker()
    assert chunker.feed("Looking at the prices on this page, the cheapest") == ["Looking at the prices on this page,"]
    # Only the first piece: later clauses wait for their sentence.
    assert chunker.feed(" one is red, and it costs") == []
    assert chunker.feed(" less. ") == ["the cheapest one is red, and it costs less."]


def test_a_code_block_is_said_once_and_its_content_never() -> None:
    text = "Run this:\n\n```python\nprint('Hello. World.')\nx = 1\n```\nThen restart it."
    result = spoken(text, 3)
    assert result == ["Run this:", CODE_BLOCK, "Then restart it."]
    # The block is held back until it is closed: nothing of it is spoken while it streams.
    chunker = SentenceChunker()
    chunker.feed("Run this:\n```py\nprint('Hello. World.')\n")
    assert chunker.feed("more. code.\n") == []
    assert chunker.feed("```\n") == [CODE_BLOCK]


def test_an_unfinished_code_block_at_the_end_is_still_a_code_block() -> None:
    assert spoken("Here:\n```\nrm -rf build. ok.") == ["Here:", CODE_BLOCK]


def test_links_headings_lists_emphasis_and_tables_read_naturally() -> None:
    text = (
        "## Three options\n\n"
        "1. The **Acme** kettle, see [the product page](https://shop.example/k?id=1).\n"
        "2. *Cheaper*: https://example.com/b.html\n"
        "- `pip install x` works\n\n"
        "> Quoted advice.\n\n"
        "| Name | Price |\n|---|---|\n| Kettle | 20 |\n\n---\n"
        "![a photo of it](p.png)"
    )
    assert spoken(text, 5) == [
        "Three options.",
        "The Acme kettle, see the product page.",
        "Cheaper: a link.",
        "pip install x works.",
        "Quoted advice.",
        "Name, Price",
        "Kettle, 20",
        "a photo of it",
    ]


@pytest.mark.parametrize("size", [1, 2, 7, 50])
def test_the_result_does_not_depend_on_how_the_text_was_cut(size: int) -> None:
    text = "Sure, here it is. Visit [Docs](https://a.b/c.d) e.g. today. Done!\n\n```\nx\n```\nBye."
    assert spoken(text, size) == spoken(text, 1000)


def test_abbreviations_and_decimals_do_not_end_a_sentence() -> None:
    assert spoken("It costs 3.50 euros, e.g. at the shop. Fine.", 3) == [
        "It costs 3.50 euros,", "e.g. at the shop.", "Fine."]  # the first piece is a clause


def test_nothing_speakable_gives_nothing() -> None:
    assert speakable_sentence("---") == ""
    assert speakable_sentence("|---|:--:|") == ""
    assert speakable_sentence("**") == ""
    assert spoken("\n\n  \n") == []


def test_tool_announcements() -> None:
    step = AgentStep(run_id="r", state="tool", iteration=1, max_iterations=10, tool_name="read_page",
                     doing="reading the page")
    assert announcement(step) == "Reading the page."
    assert announcement(AgentStep(run_id="r", state="thinking", iteration=1, max_iterations=10)) == ""
    assert announcement(AgentStep(run_id="r", state="tool", iteration=1, max_iterations=10,
                                  tool_name="lookup", doing="using lookup")) == ""
    opening = AgentStep(run_id="r", state="tool", iteration=2, max_iterations=10, tool_name="navigate",
                        doing="opening https://example.com/a")
    assert announcement(opening) == "Opening a page."
