"""The main content of a page: Readability's article (run by the page script on the visible copy of
the rendered page) or trafilatura's extraction, the title, and the visible text outside the content.

Pages are real and served on 127.0.0.1: ``tests/pages/reading/`` and two pages of the article
corpus (``../shared/corpora/articles``), scored with the article benchmark's own scorer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from benchmarks import serve_folder
from benchmarks.bench_articles import CORPUS, f1, html_text, markdown_text
from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import PageReading, read_page
from jawad_desktop.core.tools.browser.content import ArticleNotes, agreed_content, article_markdown, main_content
from jawad_desktop.core.tools.browser.other_text import OTHER_LINE_MAX_CHARS, other_visible_text
from jawad_desktop.core.tools.page import RawSnapshot

Load = Callable[[str], str]

NOTICE = "The footpath along the north wall is closed until 12 May for repairs; please use the east gate."


def read(web_page: QtWebEnginePage, arun: Callable[..., Any]) -> PageReading:
    return arun(read_page(web_page), timeout=30)


# -- in the browser ---------------------------------------------------------------------------------


def test_a_visible_notice_above_the_article_reaches_the_model_outside_the_content(
        web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    load("reading/notice-above-article.html")
    r = read(web_page, arun)
    assert r.content_from == "readability"
    assert "Rebuild with a batter" in r.markdown and "a well-built wall repaired this way" in r.markdown
    assert NOTICE not in r.markdown  # the benchmark scores the markdown as the main content
    assert NOTICE in r.other_text.splitlines()
    assert NOTICE in r.as_dict()["otherText"]  # `jawad read-page --json` has it too
    assert "Home" not in r.other_text.splitlines()  # a link: the element list gives it
    text = r.for_model()
    shown = text.index("Also visible on the page (outside the main content):\n")
    assert text.index("Content (Markdown):") < shown < text.index(NOTICE)


def test_the_title_is_readabilitys(web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    load("reading/notice-above-article.html")  # <title> says "... | Field Notes"; og:title does not
    assert read(web_page, arun).title == "Repairing a Dry-Stone Wall"


def test_hidden_text_reaches_the_model_nowhere(web_page: QtWebEnginePage, load: Load,
                                               arun: Callable[..., Any]) -> None:
    load("reading/hidden-text.html")
    r = read(web_page, arun)
    assert r.content_from == "readability"
    assert "tight cluster around the queen" in r.markdown
    text = r.for_model()
    for hidden in ("purple walrus", "orange giraffe", "green penguin", "yellow octopus"):
        assert hidden not in text, hidden


def test_content_hidden_by_visibility_until_scripts_run_is_read(web_page: QtWebEnginePage, load: Load,
                                                                 arun: Callable[..., Any]) -> None:
    # The whole story inherits visibility:hidden from its container (a page waiting for its scripts);
    # only a small part hidden on its own (the tooltip) is left out.
    load("reading/hidden-until-scripts.html")
    r = read(web_page, arun)
    assert "reclining seats of the lounge" in r.markdown
    assert "white houses of the harbour" in r.markdown
    assert "scarlet lobster" not in r.for_model()


def test_a_short_form_page_is_read_by_the_fallback(web_page: QtWebEnginePage, load: Load,
                                                   arun: Callable[..., Any]) -> None:
    load("reading/sign-in-code.html")
    snap = arun(web_page.snapshot(), timeout=30)
    assert not snap.readerable
    r = read(web_page, arun)
    assert r.content_from == "trafilatura"
    assert "Enter the six-digit code we sent to the number ending in 42." in r.markdown
    assert "The code expires in ten minutes." in r.markdown + "\n" + r.other_text


@pytest.fixture(scope="module")
def corpus_server() -> Iterator[str]:
    if not CORPUS.is_dir():
        pytest.skip(f"the article corpus is not here: {CORPUS}")
    yield serve_folder(CORPUS)


# Saved pages run their own scripts, which fail offline and say so on the console.
@pytest.mark.qt_log_ignore("Uncaught", "Failed to load resource", "net::ERR_")
@pytest.mark.parametrize("name", ["ars-1", "guardian-1"])
def test_corpus_articles_are_read_whole(name: str, corpus_server: str, web_page: QtWebEnginePage,
                                        arun: Callable[..., Any]) -> None:
    folder = CORPUS / name
    with web_page.agent_action():  # as the benchmark: a page's dialogs are answered
        arun(web_page.navigate(f"{corpus_server}/{name}/source.html"), timeout=40)
    r = read(web_page, arun)
    want = html_text((folder / "expected.html").read_text(encoding="utf-8"))
    assert f1(markdown_text(r.markdown), want) >= 0.9
    meta = json.loads((folder / "expected-metadata.json").read_text(encoding="utf-8"))
    assert r.title == " ".join(str(meta["title"]).split())


# -- the parts, on their own ------------------------------------------------------------------------


def test_article_markdown_keeps_structure_and_what_the_page_says() -> None:
    html = """<div><h2>Results</h2><p>+ Added slime blocks<br>+ Added rabbits<br>1. Finland</p>
    <ul><li>real item</li></ul><p>See <a href="/x">the notes</a> <img src="a.png" alt="chart"></p>
    <table><tr><td><p>Layout cell with the article's paragraph.</p></td><td><p>Second paragraph.</p></td></tr></table>
    <table><tr><th>Year</th><th>Count</th></tr><tr><td>2023</td><td>7</td></tr></table></div>"""
    md = article_markdown(html)
    assert "## Results" in md
    assert "\\+ Added slime blocks\n\\+ Added rabbits\n1\\. Finland" in md  # text, not a list
    assert "- real item" in md
    assert "See the notes" in md and "png" not in md and "](" not in md
    assert "Layout cell with the article's paragraph.\n\nSecond paragraph." in md  # not a table row
    assert "| Year | Count |" in md and "| 2023 | 7 |" in md
    assert markdown_text(md).split()[:6] == ["Results", "+", "Added", "slime", "blocks", "+"]


def test_the_html_sources_line_breaks_and_indents_are_spaces_not_paragraphs_or_code() -> None:
    # Pretty-printed HTML: inline elements (MathML, spans) each on lines of their own, indented. The
    # browser shows one sentence; Markdown must not make a paragraph of each word, nor code of the indent.
    html = """<div><p>When</p>
        <span class="math">
            <math><mi>
                a
            </mi><mo>
                =
            </mo><mn>
                0
            </mn></math>
        </span>, there are two solutions to
        <span class="math"><math><mi>
                x
            </mi></math></span> and more.
        <ol><li><p>First</p><p>  its second paragraph</p></li><li>Second</li></ol>
        <pre>keep\n    this   indent</pre></div>"""
    md = article_markdown(html)
    assert "When\n\na = 0 , there are two solutions to x and more." in md
    assert "1. First\n\n   its second paragraph\n2. Second" in md  # a list item's paragraph keeps its indent
    assert "keep\n    this   indent" in md  # code as it is


def test_other_visible_text_is_what_the_content_lacks_once_short_and_capped() -> None:
    content = "# Walls\n\nA dry-stone wall stands without mortar, held by the weight of the stones above it."
    text = "\n".join([
        "Home", "Walls", NOTICE, "A dry-stone wall stands without mortar, held by the weight of the stones above it.",
        NOTICE, "x" * 500, *(f"Footer line number {i} of the page" for i in range(200)),
    ])
    other = other_visible_text(text, content, skip={"Home"}).splitlines()
    assert other[:2] == [NOTICE, "x" * (OTHER_LINE_MAX_CHARS - 1) + "…"]
    assert "Home" not in other and "Walls" not in other  # a link's label; a heading of the content
    assert other.count(NOTICE) == 1
    assert len("\n".join(other)) <= 1500 and other[-1].startswith("Footer line number")


def test_other_visible_text_leaves_out_what_the_element_list_already_shows() -> None:
    # The element list gives the model each link's and button's label: a line of the page that is part
    # of a label (a teaser link's title, its label clipped), or a row of buttons, is not repeated.
    labels = ["Share", "Pin it", "Print", "Garden care Keep your potted plants alive through the winter in the g…"]
    text = "\n".join(["Share Pin it Print", "Garden care", NOTICE,
                      "Keep your potted plants alive through the winter in the greenhouse"])
    assert other_visible_text(text, "# Walls", skip=labels) == NOTICE


def test_other_visible_text_leaves_out_a_menus_labels_shown_without_spaces_between_them() -> None:
    # A menu's links side by side, with no space between them in the page's text.
    labels = ["Custom Upholstery", "Sofas & Sectionals", "TV Stands", "Beds"]
    text = "\n".join(["Custom UpholsterySofas & SectionalsTV Stands", NOTICE, "BedsX"])
    assert other_visible_text(text, "# Walls", skip=labels).splitlines() == [NOTICE, "BedsX"]


def test_readability_is_kept_when_it_finds_an_article_else_trafilatura() -> None:
    paragraph = "<p>" + "The ferry crosses to the islands every night of the year. " * 8 + "</p>"
    page = f"<html><head><title>T</title></head><body><nav>Menu</nav><article>{paragraph * 3}</article></body></html>"
    chosen = main_content(RawSnapshot(url="http://127.0.0.1/", title="T", html=page,
                                      article_html=f"<div>{paragraph * 3}</div>"))
    assert chosen.source == "readability" and "ferry crosses" in chosen.markdown
    short = main_content(RawSnapshot(url="http://127.0.0.1/", title="T", html=page, article_html="<p>Menu</p>"))
    assert short.source == "trafilatura" and "ferry crosses" in short.markdown


def test_readabilitys_article_is_checked_against_trafilaturas_reading() -> None:
    # Readability keeps its subtree whole: a photo credit and a teaser inside it are read as the article.
    # trafilatura dropped them; it kept a paragraph Readability's subtree did not hold.
    story = "The harbour authority opened the new ferry terminal on Monday after four years of building. "
    quay = "Passengers waited on the old quay for the last time, some of them for over an hour in the rain. "
    article = (f"# The new terminal\n\n{story * 2}\n\nPhoto: Harbour Press/Agency\n\n"
               f"More on this: Ferry fares rise again\n\n{quay * 2}")
    cafe = ("The terminal's café opens at six in the morning and closes when the last boat of the night "
            "has left the quay.")
    extracted = f"{story * 2}\n\n{quay * 2}\n\n{cafe * 2}\n\n- Chapters"
    agreed = agreed_content(article, extracted)
    assert "Photo: Harbour Press" not in agreed and "More on this" not in agreed
    assert agreed.startswith("# The new terminal")  # the title stays
    assert story.strip() in agreed and quay.strip() in agreed
    assert agreed.endswith(cafe.strip())  # trafilatura's paragraph; not its short "Chapters" line
    assert "Chapters" not in agreed
    assert "## Related" not in agreed_content(article + "\n\n## Related\n\n" + quay, extracted)
    # A long block trafilatura lacks is Readability's find, not boilerplate: it stays.
    longer = "The old quay will become a park with a market on Saturdays and a path along the water. " * 2
    assert longer.strip() in agreed_content(article + "\n\n" + longer, extracted)
    # With next to nothing from trafilatura (a page it could not read), the article stands as it is.
    assert agreed_content(article, "Menu") == article


def test_the_agreed_article_keeps_a_list_items_paragraphs_in_the_item() -> None:
    # A list item with two paragraphs: the second is indented under it. Cut into blocks and joined
    # again, it must keep that indent, or it ends the list and the next item restarts the numbering.
    story = "The harbour authority opened the new ferry terminal on Monday after four years of building. " * 2
    article = f"{story}\n\n1. The old quay\n\n   Passengers waited there for the last time\n2. The new hall"
    extracted = f"{story}\n\nThe old quay\n\nPassengers waited there for the last time\n\nThe new hall"
    agreed = agreed_content(article, extracted)
    assert "1. The old quay\n\n   Passengers waited there for the last time\n2. The new hall" in agreed
    assert markdown_text(agreed).split().count("1.") == 0  # one list: its numbers are marks, not text


def test_a_table_trafilatura_reads_cell_by_cell_keeps_its_rows_and_columns() -> None:
    # A short page with a data table and a form: trafilatura finds no main content and falls back to
    # a line per cell, so "the City of Ana Ruiz" could no longer be read (the task suite's staff table).
    rows = "".join(f"<tr><td>{n}</td><td>{d}</td><td>{c}</td></tr>"
                   for n, d, c in [("Jade Wu", "Research", "Lagos"), ("Ana Ruiz", "Sales", "Dublin")])
    page = ("<html><head><title>Staff directory</title></head><body><h1>Staff directory</h1><table><thead><tr>"
            f"<th>Name</th><th>Department</th><th>City</th></tr></thead><tbody>{rows}</tbody></table>"
            "<form><label>Answer <input></label><button>Submit</button></form></body></html>")
    chosen = main_content(RawSnapshot(url="http://127.0.0.1/", title="Staff directory", html=page,
                                      article_html="<div><h1>Staff directory</h1></div>"))
    assert "| Ana Ruiz | Sales | Dublin |" in chosen.markdown.splitlines()
    assert chosen.markdown.count("Staff directory") == 1  # the <title> is not read as text
    # A layout table (no header, two cells) is no data table: trafilatura's reading stands.
    layout = page.replace("<thead><tr><th>Name</th><th>Department</th><th>City</th></tr></thead>", "")
    layout = layout.replace(rows, "<tr><td>Jade Wu works in Research at the Lagos office.</td></tr>")
    kept = main_content(RawSnapshot(url="http://127.0.0.1/", title="Staff directory", html=layout, article_html=""))
    assert "|" not in kept.markdown and "Jade Wu works in Research" in kept.markdown


STORY = "The harbour authority opened the new ferry terminal on Monday after four years of building. "
QUAY = "Passengers waited on the old quay for the last time, some of them for over an hour in the rain. "


def test_a_heading_over_kept_text_stays_though_trafilatura_dropped_it() -> None:
    # trafilatura leaves out headings a page styles as its own ("Fazit", "10 tips"): over text that is
    # kept, a heading is the article's; over nothing kept it is a related box's.
    article = (f"{STORY * 2}\n\n## Building work ahead\n\n{QUAY * 2}\n\n"
               "## More from the harbour\n\nFerry fares rise again")
    agreed = agreed_content(article, f"{STORY * 2}\n\n{QUAY * 2}")
    assert "## Building work ahead" in agreed
    assert "More from the harbour" not in agreed and "Ferry fares" not in agreed


def test_a_line_of_one_or_two_words_trafilatura_holds_in_place_stays() -> None:
    # A story's line of dialogue and a step's label are too short for a 3-gram of their own: they are
    # judged by trafilatura having them between the same words. One trafilatura dropped goes.
    article = (f"{STORY * 2}\n\n\"Anyone there?\"\n\nNo answer.\n\nStep 2\n\n{QUAY * 2}\n\nAdvertisement\n\n"
               f"{STORY}\n\nBy:\n\nJane Doe")
    extracted = f"{STORY * 2}\n\n\"Anyone there?\"\n\nNo answer.\n\nStep 2\n\n{QUAY * 2}\n\n{STORY}\n\nBy:\n\nJane Doe"
    agreed = agreed_content(article, extracted)
    assert "\n\nNo answer.\n\nStep 2\n\n" in agreed and "Anyone there?" in agreed
    assert "Advertisement" not in agreed
    # After the article's last long paragraph trafilatura holds, a short line is the page's, not the story's.
    assert "By:" not in agreed and "Jane Doe" not in agreed
    # "No answer." where trafilatura has other words around those two: not held there.
    assert "No answer." not in agreed_content(article, extracted.replace("\n\nNo answer.\n\n", "\n\n")
                                              + "\n\nNo answer. was the reply")


def test_spaces_and_punctuation_of_scripts_without_spaces_are_no_words() -> None:
    # A Japanese line spaced with ideographic spaces (U+3000), which trafilatura gives as one plain space;
    # sentences ending in "。". Counted as characters of the text, they made a line trafilatura holds
    # look dropped by it.
    story = "肉をくわえたイヌが、橋を渡っていました。ふと下を見ると、川の中にも肉をくわえたイヌがいます。" * 3
    article = f"{story}\n\nいぬのかお\u3000\u3000\u3000いぬ\n\n{story}"
    agreed = agreed_content(article, f"{story}\n\nいぬのかお いぬ\n\n{story}")
    assert "いぬのかお\u3000\u3000\u3000いぬ" in agreed


def test_the_articles_tail_trafilatura_does_not_hold_is_dropped_where_both_read_it() -> None:
    # An author's box after the article: long, so no caption, but after the last paragraph trafilatura
    # holds while both read the same article.
    author = ("Jane Doe studied maritime history before she joined the paper's city desk, where she has "
              "written about the port, its ships and its people since 2015. ")
    article = f"{STORY * 2}\n\n{QUAY * 2}\n\n{author}"
    assert author.strip() not in agreed_content(article, f"{STORY * 2}\n\n{QUAY * 2}")
    # Where trafilatura read much less of the article, the tail is not judged by it.
    assert author.strip() in agreed_content(article, f"{STORY * 2}\n\nA menu line and a footer of the site.")


def test_trafilaturas_shorter_blocks_are_added_where_the_two_read_different_parts() -> None:
    # Readability took one section of the page; trafilatura read another with a short paragraph: it is
    # added (where both read the same article, trafilatura's short lines are not).
    section = "Opening hours of the terminal and the quay's ticket office, from Monday to Sunday. "
    extracted = f"{STORY * 2}\n\n{section}\n\n{QUAY * 3}"
    builders = "The builders came from three towns along the coast and stayed in the old school all winter. "
    assert section.strip() in agreed_content(f"{STORY * 2}\n\n{builders * 2}", extracted)
    assert section.strip() not in agreed_content(f"{STORY * 2}\n\n{QUAY * 3}", extracted)


def test_trafilaturas_reading_is_the_content_where_readability_took_another_part() -> None:
    story = "".join(f"<p>{STORY}{QUAY}The {n}th boat left at dawn with the mail.</p>" for n in range(4, 12))
    teasers = ("<p>Read also: ferry fares rise again in the spring, the council says after its meeting of the "
               "board, and the island schools close for a week in May while the roads are mended.</p>") * 3
    page = (f"<html><head><title>Terminal</title></head><body><nav>Home News Sport</nav><article><h1>Terminal"
            f"</h1>{story}</article><aside>{teasers}</aside></body></html>")
    chosen = main_content(RawSnapshot(url="http://127.0.0.1/", title="Terminal", html=page,
                                      article_html=f"<div>{teasers}</div>"))
    assert chosen.source == "trafilatura" and "11th boat left" in chosen.markdown
    assert "Read also" not in chosen.markdown


STANDFIRST = "Four years of building are over: the ferry terminal opened on Monday, with a new hall, quay and café."


@pytest.mark.parametrize("described", [STANDFIRST, STANDFIRST[:-12],  # cut short, mid-word
                                       f"{STANDFIRST} {STORY[:40]} […]"])  # run on into the article
def test_the_standfirst_shown_above_the_article_opens_it_where_neither_extractor_kept_it(described: str) -> None:
    # The lead under a headline sits outside the article's subtree and trafilatura drops it as short; the
    # page shows it, and its description (Readability's excerpt) begins the same.
    lead = STANDFIRST
    story = "".join(f"<p>{STORY}{QUAY}The {n}th boat left at dawn with the mail.</p>" for n in range(4, 9))
    page = (f"<html><head><title>Terminal</title><meta name='description' content='{lead}'></head><body>"
            f"<header><h1>The new terminal</h1><p class='lead'>{lead}</p></header><article>{story}</article>"
            "</body></html>")
    shown = "The new terminal\n" + lead + "\n" + "\n".join(
        f"{STORY}{QUAY}The {n}th boat left at dawn with the mail." for n in range(4, 9))

    def snapshot(text: str) -> RawSnapshot:
        return RawSnapshot(url="http://127.0.0.1/", title="Terminal", html=page, text=text, excerpt=described,
                           article_html=f"<div><h1>The new terminal</h1>{story}</div>")

    chosen = main_content(snapshot(shown))
    assert chosen.source == "readability"
    assert chosen.markdown.startswith(f"# The new terminal\n\n{lead}\n\n")
    assert chosen.markdown.count("ferry terminal opened on Monday") == 1
    # Shown below the article (a teaser of it on the same page), it is no standfirst.
    below = main_content(snapshot(shown.replace(lead + "\n", "") + "\n" + lead)).markdown
    assert lead not in below
    # Not shown on the page at all: the description is the page's, not the article's text.
    assert lead not in main_content(snapshot(shown.replace(lead + "\n", ""))).markdown


def test_a_rubys_reading_is_not_read_into_its_words() -> None:
    # Furigana over Japanese (a children's news site): shown above the word, not in the line.
    html = "<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの<ruby>虐待<rt>ぎゃくたい</rt></ruby>をなくす</p>"
    assert article_markdown(html) == "子どもへの虐待をなくす"


def test_what_the_browser_does_not_show_splits_no_word_and_a_words_asterisk_is_no_emphasis() -> None:
    # A soft hyphen marks where a word may break ("auto\xadnome") and a zero-width space is invisible:
    # the reader sees the word whole. German's gender star between letters is the word's own: two of them
    # in a paragraph must not become emphasis (rendered, "Kund*innen" would lose its asterisk).
    markdown = article_markdown("<p>Schüler*innen und Kund*innen, auto\xadnome Ar\u200bbeit.</p><pre>a*b</pre>")
    assert markdown == "Schüler\\*innen und Kund\\*innen, autonome Arbeit.\n\n```\na*b\n```"
    assert "Schüler*innen und Kund*innen" in markdown_text(markdown)


def test_trafilatura_judges_no_article_it_read_next_to_nothing_of_and_adds_no_other_kind_of_content() -> None:
    # A page of formulas: trafilatura kept one sentence of it (under a tenth), so the formulas and their
    # headings it did not keep are no boilerplate.
    formulas = "\n\n".join(f"## Equation {n}\n\nx{n} = a{n} + b{n}" for n in range(60))
    article = f"{STORY * 2}\n\n{formulas}"
    assert agreed_content(article, STORY + "And the quay.") == article
    # A slideshow's list trafilatura read beside the article, longer than the whole article: not added.
    slides = "\n".join(f"- Slide {n}: the ferry at the quay at dawn, from the old lighthouse" for n in range(60))
    agreed = agreed_content(f"{STORY * 2}\n\n{QUAY * 2}", f"{STORY * 2}\n\n{QUAY * 2}\n\n{slides}")
    assert "Slide" not in agreed and QUAY.strip() in agreed


def test_a_label_and_a_link_to_another_article_is_left_out_of_the_article() -> None:
    # Inside the article's subtree, "Read more: <a>…</a>" points the reader to another story: no text
    # of this one. A link inside a sentence, or a label without a colon, is the article's own.
    html = (f"<p>{STORY}</p><p><em>Read more</em>: <a href='/ferry-fares'>Ferry fares rise again</a></p>"
            f"<p><b>VEA TAMBIÉN: </b><a href='/otra'>La isla cierra sus escuelas en mayo</a></p>"
            f"<p>The council <a href='/council'>published the plans</a> on Monday.</p>"
            f"<p>Source <a href='/plans'>the harbour plans</a></p>")
    notes = ArticleNotes()
    markdown = article_markdown(html, "http://127.0.0.1/terminal", notes)
    assert "Read more" not in markdown and "Ferry fares" not in markdown and "VEA" not in markdown
    assert "The council published the plans on Monday." in markdown
    assert "Source the harbour plans" in markdown and STORY.strip() in markdown
    assert any("Ferry fares rise again" in text for text in notes.pointers)


def test_a_list_only_of_links_to_other_pages_of_the_site_is_left_out_with_its_heading() -> None:
    here = "http://127.0.0.1/news/terminal"
    items = "".join(f"<li><a href='/news/story-{n}'>Story number {n} of the week</a></li>" for n in range(5))
    toc = "".join(f"<li><a href='{here}#part-{n}'>Part {n}</a></li>" for n in range(5))
    sources = "".join(f"<li><a href='https://bugs.example.org/{n}'>Bug {n} fixed</a></li>" for n in range(5))
    html = (f"<p>{STORY}</p><h2>Most read</h2><ol>{items}</ol><ul>{toc}</ul><ul>{sources}</ul>"
            f"<ul><li><a href='/news/a'>The quay</a> was closed for a week</li><li>b</li><li>c</li></ul>")
    markdown = article_markdown(html, here)
    assert "Most read" not in markdown and "Story number" not in markdown
    assert "Part 3" in markdown  # a table of contents: links within the page
    assert "Bug 3 fixed" in markdown  # a list of sources on another site
    assert "The quay was closed for a week" in markdown  # an item with its own words


def test_what_was_left_out_as_a_pointer_is_not_added_back_from_trafilaturas_reading() -> None:
    # trafilatura kept the "Read more" line; it is not added back where the two read different parts.
    builders = "The builders came from three towns along the coast and stayed in the old school all winter. "
    teaser = "Read more: Ferry fares rise again in the spring, the council says"
    extracted = f"{STORY * 2}\n\n{teaser}\n\n{QUAY * 3}"
    article = f"{STORY * 2}\n\n{builders * 2}"
    assert teaser in agreed_content(article, extracted)
    assert teaser not in agreed_content(article, extracted, ArticleNotes(pointers=[teaser]))
    page = f"<p>{STORY * 2}</p><p>{builders * 2}</p><p>Read more: <a href='/fares'>{teaser[11:]}</a></p>"
    chosen = main_content(RawSnapshot(url="http://127.0.0.1/t", title="T", html=f"<body>{page}</body>",
                                      article_html=page))
    assert "Read more" not in chosen.markdown and builders.strip() in chosen.markdown


def test_the_articles_formulas_are_kept_though_trafilatura_does_not_read_them() -> None:
    # trafilatura drops MathML: its reading lacks the formulas, which are no boilerplate for that.
    formula = "<math><mi>x</mi><mo>=</mo><mi>σ</mi><mo>(</mo><mi>y</mi><mo>−</mo><mi>x</mi><mo>)</mo></math>"
    html = f"<p>{STORY * 2}</p><h2>The Lorenz equations</h2><p>{formula}</p><p>{QUAY * 2}</p>"
    notes = ArticleNotes()
    article = article_markdown(html, "http://127.0.0.1/maths", notes)
    agreed = agreed_content(article, f"{STORY * 2}\n\n{QUAY * 2}", notes)
    assert "x=σ(y−x)" in agreed and "## The Lorenz equations" in agreed
    assert "σ" not in agreed_content(article, f"{STORY * 2}\n\n{QUAY * 2}")  # as trafilatura judges it


def test_a_heading_that_ends_the_article_over_nothing_is_left_out() -> None:
    # "Also on our site" stood over a box of teasers that is not in the article: it heads nothing.
    article = f"# The new terminal\n\n{STORY * 2}\n\n{QUAY * 2}\n\n## Also on our site"
    agreed = agreed_content(article, f"{STORY * 2}\n\n{QUAY * 2}\n\nAlso on our site")
    assert agreed.endswith(QUAY.strip()) and "Also on our site" not in agreed


def test_emphasis_split_by_the_page_leaves_no_asterisk_inside_a_word() -> None:
    # A page splits emphasis at will: Markdown would read "*b**y Your Name*" and "200»*personnes"
    # as asterisks inside words, not as emphasis. The words are kept, the marks are not.
    markdown = article_markdown("<p><em>Call Me</em> <em>b</em><em>y Your Name</em>, <em>«d’encore 200»</em>"
                                "personnes, <a href='/x'><em>iTunes</em></a><em>, and</em> <b>more</b>.</p>")
    assert "*" not in markdown
    assert markdown_text(markdown).split() == ["Call", "Me", "by", "Your", "Name,", "«d’encore", "200»personnes,",
                                               "iTunes,", "and", "more."]


def test_a_number_that_opens_a_paragraph_inside_bold_stays_text_not_a_list() -> None:
    # With no mark of its own, "<strong>37. What…</strong>" starts the paragraph's line: as "37. What…"
    # Markdown would read a list item numbered 37 and drop the number.
    markdown = article_markdown("<p><strong>37. What did one volcano say to the other?</strong></p>"
                                "<p>Text <b>2. not at the start</b></p>")
    assert markdown_text(markdown).split()[:2] == ["37.", "What"]
    assert "Text 2. not at the start" in markdown


def test_a_definition_is_a_paragraph_under_its_term_with_no_colon_before_it() -> None:
    # CommonMark has no definition lists: "Term\n:   Definition" would read a colon into the text.
    markdown = article_markdown("<dl><dt>White-box monitoring</dt><dd>Monitoring based on metrics exposed by the"
                                " internals.</dd><dt>Black-box</dt><dd><p>Testing behaviour.</p><p>As a user.</p>"
                                "</dd></dl>")
    assert markdown == ("White-box monitoring\n\nMonitoring based on metrics exposed by the internals.\n\n"
                        "Black-box\n\nTesting behaviour.\n\nAs a user.")


def test_the_pages_title_is_not_repeated_in_the_visible_text_outside_the_content() -> None:
    from jawad_desktop.core.tools.browser.reading import parse_snapshot

    paragraph = "A dry-stone wall stands without mortar, held by the weight of the stones above it. " * 4
    snapshot = RawSnapshot(url="https://walls.example/a", title="Walls of the north | Walls", article_title="Walls of "
                           "the north", html=f"<html><body><p>{paragraph}</p></body></html>",
                           article_html=f"<div><p>{paragraph}</p></div>",
                           text=f"Walls of the north\n{NOTICE}\n{paragraph}")
    reading = parse_snapshot(snapshot)
    assert reading.title == "Walls of the north"
    assert reading.other_text == NOTICE


def test_a_heading_inside_preformatted_text_is_a_line_of_that_text() -> None:
    # An RFC's sections are headings inside its <pre>: in the code block a "## " would be read as text.
    markdown = article_markdown("<pre>  1. Contents\n\n<span><h2>1.  Introduction</h2></span>\n\n"
                                "    Many services</pre>")
    assert markdown == "```\n  1. Contents\n\n1.  Introduction\n\n    Many services\n```"


def test_trafilaturas_paragraph_indented_by_the_sources_tabs_is_no_code_block() -> None:
    # The source's tabs before a paragraph's text (after an empty byline's span) would make it code.
    from jawad_desktop.core.tools.browser.content import trafilatura_markdown

    story = "".join(f"<p>Paragraph {i} of the story, long enough to be read as text by the extractor, and more.</p>"
                    for i in range(6))
    odd = ('<p>\n\t\t\t<span class="article-info">\n\t\t\t\t<span class="date"></span>\n\t\t\t\t\t<em class="byline"> '
           '</em>\n\t\t\t</span>\n\t\t\t\tMALCOLM Fraser: a paragraph after a span, indented with tabs.</p>')
    markdown = trafilatura_markdown(f"<html><body><article><h1>Title</h1>{story}{odd}</article></body></html>")
    assert markdown.endswith("and more.\n\nMALCOLM Fraser: a paragraph after a span, indented with tabs.")
