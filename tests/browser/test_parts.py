"""A long page's content in parts (``core.tools.browser.parts``): the split at headings, then
paragraphs, never inside a word; the outline with part numbers; finding a phrase, else its
words, anywhere in the content; and the reading that shows one part and says how to get the rest."""

from __future__ import annotations

import re

import pytest

from jawad_desktop.core.tools.browser.parts import PART_CHARS, PageParts, part_chars_for
from jawad_desktop.core.tools.browser.reading import PageReading, parse_snapshot
from jawad_desktop.core.tools.page import RawSnapshot

PLACES = ["Cape Wrath", "Skerryvore", "Bell Rock", "Noss Head", "Barns Ness", "Corsewall"]


def article(sections: int = 12, paragraphs: int = 5) -> str:
    """Markdown of ``sections`` chapters (about 2,800 characters each), every sentence unique."""
    lines = ["# Keepers of the Northern Lights", ""]
    for s in range(1, sections + 1):
        lines += [f"## Chapter {s}", ""]
        for p in range(1, paragraphs + 1):
            lines += [" ".join(f"Chapter {s} paragraph {p} sentence {k}: the keeper at {PLACES[(s + p + k) % 6]} "
                               f"logged {s * 100 + p * 10 + k} ships." for k in range(1, 9)), ""]
    return "\n".join(lines)


def words(text: str) -> list[str]:
    return text.split()


def assert_whole(parts: PageParts) -> None:
    """Every word of the text is in the parts, whole and in order; no part is over its size."""
    assert all(len(p) <= parts.size for p in parts)
    assert [w for p in parts for w in words(p)] == words(parts.markdown)


def test_a_long_article_is_split_at_its_headings() -> None:
    text = article()
    parts = PageParts(text)
    assert len(text) > 30_000 and len(parts) >= 6
    assert_whole(parts)
    assert all(p.startswith("#") for p in parts)  # each part begins with a heading
    assert all(len(p) > PART_CHARS / 3 for p in list(parts)[:-1])  # and is filled with whole sections


def test_a_text_without_headings_is_split_between_sentences() -> None:
    text = " ".join(f"Sentence number {i} tells of the lighthouse keeper and his log." for i in range(900))
    parts = PageParts(text, 2_000)
    assert len(parts) > 10
    assert_whole(parts)
    assert all(p.endswith("log.") for p in parts)  # whole sentences, never half a word
    wordy = " ".join(f"word{i}" for i in range(3_000))  # no sentence at all: between words
    assert_whole(PageParts(wordy, 1_000))


def test_a_heading_is_never_left_at_the_end_of_a_part() -> None:
    text = "# Title\n\n" + "Intro line.\n\n" * 10 + "## Long section\n\n" + "Plain words without end " * 400
    parts = PageParts(text, 1_500)
    assert_whole(parts)
    for part in parts:
        last_line = part.rstrip().splitlines()[-1]
        assert not last_line.startswith("#"), part[-200:]
    assert any(p.startswith("## Long section\n\nPlain words") for p in parts)


def test_a_word_longer_than_a_part_is_cut_only_then() -> None:
    text = "Before it. " + "x" * 5_000 + " After it."
    parts = PageParts(text, 1_000)
    assert all(len(p) <= 1_000 for p in parts)
    assert "".join(parts).replace(" ", "") == text.replace(" ", "")


def test_the_outline_gives_each_heading_its_part() -> None:
    parts = PageParts(article())
    outline = parts.outline()
    lines = outline.splitlines()
    assert lines[0] == "- Keepers of the Northern Lights (part 1)"
    assert len(lines) == 13 and all(line.startswith("  - Chapter ") for line in lines[1:])
    for heading in parts.headings:
        assert f"- {heading.text} (part {heading.part})" in outline
        assert ("#" * heading.level + " " + heading.text) in parts.part(heading.part)
    assert PageParts("# Short\n\nOne part only.").outline() == ""


def test_the_outline_is_capped_dropping_the_deepest_headings_first() -> None:
    text = "\n\n".join(f"## Chapter {c}\n\n" + "\n\n".join(f"### Section {c}.{s}\n\nText of {c}.{s}. " * 20
                                                             for s in range(1, 9)) for c in range(1, 21))
    parts = PageParts(text)
    outline = parts.outline(max_headings=60)
    assert "Section 1.1" not in outline and "- Chapter 20 (part" in outline
    assert outline.endswith("(... 160 deeper headings not listed)")
    few = parts.outline(max_headings=5)
    assert "- Chapter 5 (part" in few and "- Chapter 6 (part" not in few
    assert "- ... 15 more headings" in few


def test_a_text_without_headings_outlines_its_parts_by_their_opening_words() -> None:
    parts = PageParts(" ".join(f"Sentence {i} of the log." for i in range(2_000)), 3_000)
    lines = parts.outline().splitlines()
    assert lines[0].startswith('- part 1: "Sentence 0 of the log.')
    assert lines[1].startswith('- part 2: "Sentence ')


def test_a_heading_inside_code_is_not_a_heading() -> None:
    parts = PageParts("# Real\n\n```\n# not a heading\n```\n\n## Also real")
    assert [h.text for h in parts.headings] == ["Real", "Also real"]


def test_find_gives_the_part_of_a_phrase_far_down() -> None:
    parts = PageParts(article())
    target = "Chapter 9 paragraph 2 sentence 3"
    found = parts.find(target.upper().replace(" ", "  "))  # case and spaces do not matter
    (passage,) = found.passages
    assert found.how == "phrase" and found.count == 1
    assert passage.part == parts.part_of(parts.markdown.index(target)) and passage.part >= 3
    assert target in parts.part(passage.part) and passage.heading == "Chapter 9"
    assert target in passage.text and len(passage.text) <= 320
    centre = passage.text.index(target) + len(target) // 2
    assert abs(centre - len(passage.text) / 2) < 60  # the match in the middle of its passage
    assert "is on the page (" in found.summary() and "once" in found.summary()
    assert f'[part {passage.part}, under "Chapter 9"]' in found.listing()


def test_find_looks_for_the_words_near_each_other_when_the_phrase_is_absent() -> None:
    parts = PageParts(article())
    found = parts.find("the ships logged at Bell Rock, sentence 3 paragraph 2 chapter 9")
    assert found.how == "words" and found.count >= 1
    assert any("Chapter 9 paragraph 2 sentence 3" in p.text for p in found.passages)
    assert "The exact phrase" in found.summary()
    phrase = parts.find("keeper at")
    assert phrase.how == "phrase" and phrase.count == 12 * 5 * 8 and len(phrase.passages) <= 8


def test_find_across_line_breaks_and_emphasis() -> None:
    parts = PageParts("The price is **Now only**\n$1,249.00 today.")
    assert parts.find("now only $1,249.00").count == 1


def test_find_says_when_nothing_matches_and_how_often_each_word_occurs() -> None:
    parts = PageParts(article())
    found = parts.find("Skerryvore walrus")
    assert found.how == "none" and not found.passages
    assert found.words[0][0] == "skerryvore" and found.words[0][1] > 0 and found.words[1][:2] == ("walrus", 0)
    assert "is not on the page" in found.summary() and '"walrus" 0 times' in found.summary()


def test_the_part_size_shrinks_for_a_model_that_reads_little() -> None:
    assert part_chars_for(0) == PART_CHARS == part_chars_for(60_000)
    assert 800 <= part_chars_for(2_000) < part_chars_for(8_000) < PART_CHARS


@pytest.mark.parametrize("limit", [0, 2_000, 8_192, 60_000])
def test_every_sentence_is_reachable_through_the_parts_a_model_reads(limit: int) -> None:
    text = article()
    elements = "\n".join(f'[{i}] LINK "Item {i}" -> a.item{i}' for i in range(150))
    reading = PageReading(title="Keepers", url="https://lights.example/", markdown=text, product=None,
                          interactive_elements=elements)
    first = reading.for_model(limit)
    count = len(reading.parts(limit))
    assert f"Part 1 of {count} of the content. read_page(part=K) reads another part" in first
    assert "Outline of the content" in first and "[0] LINK" in first
    shown = ""
    for number in range(1, count + 1):
        text_k = reading.for_model(limit, number, elements=False)
        assert not limit or len(text_k) <= limit
        assert "not shown" not in text_k, number  # a whole part fits when the elements are not repeated
        shown += text_k.split("Content (Markdown):\n", 1)[1].split("\n</untrusted_page_content id=")[0] + "\n"
    sentences = re.findall(r"Chapter \d+ paragraph \d+ sentence \d+: [^.]+\.", text)
    assert len(sentences) == 480 and all(s in shown for s in sentences)
    assert reading.as_dict(2, limit)["part"] == 2 and reading.as_dict(2, limit)["parts"] == count
    assert reading.as_dict()["outline"][1] == {"level": 2, "text": "Chapter 1", "part": 1}


def test_parse_snapshot_keeps_the_whole_content() -> None:
    paragraphs = "".join(f"<p>Paragraph {i} of a long history of the lighthouse and its keepers.</p>"
                         for i in range(1_500))  # about 100,000 characters: more than any one read
    html = f"<html><body><article><h1>History</h1>{paragraphs}</article></body></html>"
    reading = parse_snapshot(RawSnapshot(url="https://lights.example/", title="History", html=html))
    assert "Paragraph 1499 of a long history" in reading.markdown and not reading.notes
    capped = parse_snapshot(RawSnapshot(url="https://lights.example/", title="History", html=html),
                            max_markdown=20_000)  # memory's cap, said in a note
    assert len(capped.markdown) <= 20_000 and "Paragraph 1499" not in capped.markdown
    assert any("only its first 20,000 of" in note for note in capped.notes)
