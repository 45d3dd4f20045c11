"""A page's main content and its title.

Two extractors read every page and this module chooses between them:

- Mozilla's Readability (Firefox's reader view), run by the page script on a copy of the rendered
  document without what the browser hides (``RawSnapshot.article_html``). It picks the one subtree
  that holds the article and cleans it: precise on articles, and it keeps the article's structure.
- trafilatura on the whole visible document (``RawSnapshot.html``): line by line, so it also reads
  pages that are no article (a form, a listing) and it is the fallback when Readability finds nothing.

The article's HTML becomes Markdown here (ATX headings, lists, tables; no images; links as their
text). What the user sees outside the chosen content is kept apart (``other_text``).
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.lazy_pattern import LazyPattern
from jawad_desktop.core.tools.page import RawSnapshot

log = logging.getLogger("jawad.browser")

# Readability's article is trusted when it has at least this many characters of text: below it,
# Readability found no article (a form, a short notice) and kept whatever scored best.
ARTICLE_MIN_CHARS = 250
# trafilatura's extraction is trusted from this many characters (as html_to_markdown always did).
TRAFILATURA_MIN_CHARS = 80
# A page whose data tables trafilatura flattened is read whole (as Markdown with its tables) up to
# this much HTML; a larger one keeps trafilatura's reading.
TABLE_PAGE_MAX_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class MainContent:
    """The chosen main content as Markdown, and which extractor it came from."""

    markdown: str
    source: str  # "readability" | "trafilatura" | "body" | "none"


@dataclass(slots=True)
class ArticleNotes:
    """What ``article_markdown`` saw in the article that the choice of blocks needs: the texts it left
    out as pointing to other pages, and the texts of the article's formulas (MathML, which trafilatura
    does not read: it cannot judge them)."""

    pointers: list[str] = field(default_factory=list)
    formulas: list[str] = field(default_factory=list)


# -- Markdown ---------------------------------------------------------------------------------------


def article_markdown(html: str, url: str = "", notes: ArticleNotes | None = None) -> str:
    """Readability's article HTML as Markdown: ATX headings, lists and data tables kept, images
    dropped, links kept as their text (the element list gives the model what it can click).

    Left out: what only points to other pages of the site (``_drop_link_teasers``); ``url`` is the
    page's. ``notes``, when given, receives what was left out and the formulas' texts."""
    from bs4 import BeautifulSoup

    if not html.strip():
        return ""
    soup = BeautifulSoup(html, "lxml")
    for unread in soup.find_all(["head", "script", "style", "noscript", "template"]):  # a whole page's
        unread.decompose()
    # A ruby's reading (furigana over Japanese, pinyin over Chinese) is shown above its word, not in the
    # line: as text it would split every word it glosses ("子こども" for "子ども").
    for gloss in soup.find_all(["rt", "rp"]):
        gloss.decompose()
    # A preformatted text shows its headings as lines of its text (an RFC's sections): as code, a
    # heading's "## " would be read as part of the text.
    for heading in soup.select("pre h1, pre h2, pre h3, pre h4, pre h5, pre h6"):
        heading.unwrap()
    dropped = _drop_link_teasers(soup, url)
    if notes is not None:
        notes.pointers.extend(dropped)
        notes.formulas.extend(math.get_text(" ") for math in soup.find_all("math"))
    _escape_line_starts(soup)
    _plain_words(soup)
    for stray in soup.find_all(["tr", "td", "th"]):  # a cell Readability took out of its table
        if stray.find_parent("table") is None:
            stray.name = "div"
    for table in soup.find_all("table"):
        if not _is_data_table(table):
            _unwrap_layout_table(table)
    return _tidy(_converter().convert_soup(soup))


# A paragraph that is a short label and a link ("Read more: <a>…</a>", "VEA TAMBIÉN: <a>…</a>") points
# the reader to another article from inside this one: the label at most this many characters, the
# link at least this share of the paragraph's text.
TEASER_LABEL_MAX_CHARS = 40
TEASER_LINK_SHARE = 0.6
# A list of at least this many items, each item's text wholly a link to another page of the same
# site, is a list of the site's other pages ("most read", related articles) inside the article, not
# its text. (Links within the page are its table of contents; links to other sites, its sources.)
LINK_LIST_MIN_ITEMS = 3


def _drop_link_teasers(soup: Any, url: str) -> list[str]:
    """Remove from Readability's article the paragraphs that only point to another article (a label
    and a link) and the lists made only of links to other pages of the site, with the headings right
    above such a list; their texts."""
    dropped: list[str] = []
    for para in soup.find_all(["p", "blockquote"]):
        if _is_teaser(para):
            dropped.append(para.get_text(" "))
            para.decompose()
    for listing in soup.find_all(["ul", "ol"]):
        if listing.decomposed or not _is_link_list(listing, url):
            continue
        above = listing.find_previous_sibling()
        while above is not None and above.name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            nxt = above.find_previous_sibling()
            dropped.append(above.get_text(" "))
            above.decompose()
            above = nxt
        dropped.append(listing.get_text(" "))
        listing.decompose()
    return dropped


def _link_text(tag: Any) -> str:
    return " ".join(" ".join(a.get_text(" ").split()) for a in tag.find_all("a"))


def _is_teaser(para: Any) -> bool:
    text = " ".join(para.get_text(" ").split())
    linked = _link_text(para)
    if not linked or len(linked) < TEASER_LINK_SHARE * len(text) or not text.endswith(linked[-20:]):
        return False
    label = text[: len(text) - len(linked)].strip()
    return 0 < len(label) <= TEASER_LABEL_MAX_CHARS and label.endswith(":")


def _is_link_list(listing: Any, url: str) -> bool:
    items = listing.find_all("li", recursive=False)
    if len(items) < LINK_LIST_MIN_ITEMS:
        return False
    from urllib.parse import urldefrag, urljoin, urlsplit

    here = urldefrag(url)[0]
    for link in listing.find_all("a"):  # (Readability makes its links absolute; a copy's may not be)
        target = urldefrag(urljoin(url, link.get("href") or ""))[0]
        if not link.get("href") or not target or target == here or urlsplit(target).netloc != urlsplit(url).netloc:
            return False  # a table of contents (links within this page), or a list of sources elsewhere
    return all(_plain(item.get_text(" ")) and _plain(_link_text(item)) == _plain(item.get_text(" "))
               for item in items)


@functools.cache
def _converter() -> Any:
    """markdownify's converter with the options above, made on first use (markdownify loads bs4)."""
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):
        # Emphasis is left out: its words are kept, its marks not. Pages split emphasis at will
        # ("<em>b</em><em>y Your Name</em>", "<em>200»</em>personnes", "<em>, and</em>" after a link), and
        # Markdown reads such marks as asterisks inside the words ("b**y", "»*personnes"), not as emphasis.
        def convert_em(self: Any, el: Any, text: str, parent_tags: set[str]) -> str:
            return text

        convert_i = convert_strong = convert_b = convert_em

        # A definition is a paragraph under its term: CommonMark has no definition lists, and the
        # ":   " markdownify puts before it would be read as a colon in the text.
        def convert_dd(self: Any, el: Any, text: str, parent_tags: set[str]) -> str:
            # (its type hints do not name the converters it makes for each tag)
            return str(getattr(MarkdownConverter, "convert_div")(self, el, text, parent_tags))  # noqa: B009

    # ``wrap`` without a width: a line break in the HTML source is a space, as the browser shows it
    # (markdownify keeps it as one, and two of them between inline elements of pretty-printed HTML,
    # such as MathML's, split a sentence into paragraphs of a word each); <br> still breaks the line.
    return Converter(heading_style="ATX", bullets="-", strip=["img", "a"], escape_asterisks=False,
                     escape_underscores=False, wrap=True, wrap_width=None)


# Text that begins a line and looks like Markdown's own marks ("+ Added slime", "1. Finland" after a
# <br>, "# 3" in a paragraph) would be read as a list or a heading: such a start is escaped.
_MARK_START = LazyPattern(r"^(\s*)([-+*]|#{1,6}|\d{1,9}[.)])(?=\s)")
_BLOCKS = {"p", "div", "li", "td", "th", "dd", "dt", "blockquote", "section", "article", "body",
           "figcaption", "caption"}


def _escape_line_starts(soup: Any) -> None:
    from bs4 import NavigableString, Tag

    for text in soup.find_all(string=_MARK_START.compiled):
        if type(text) is not NavigableString or text.find_parent(["pre", "code"]) is not None:
            continue
        before = text.previous_sibling
        while isinstance(before, NavigableString) and not before.strip():
            before = before.previous_sibling
        at_start = (before is None and _opens_block(text.parent)) or (isinstance(before, Tag) and before.name == "br")
        if at_start:
            text.replace_with(_MARK_START.sub(_escaped_mark, str(text), count=1))


# Inline elements that leave no mark in the Markdown: text at the start of one that opens a block
# starts the block's line ("<p><strong>37. What did…</strong></p>" reads "37. What did…").
_UNMARKED_INLINE = {"strong", "b", "em", "i", "span", "a", "u", "small", "big", "font", "mark", "abbr", "cite",
                    "q", "time", "label", "sup", "sub"}


def _opens_block(parent: Any) -> bool:
    """Whether text that is the first child of ``parent`` starts a block's line."""
    from bs4 import NavigableString, Tag

    while isinstance(parent, Tag) and parent.name in _UNMARKED_INLINE:
        before = parent.previous_sibling
        while isinstance(before, NavigableString) and not before.strip():
            before = before.previous_sibling
        if before is not None:
            return isinstance(before, Tag) and before.name == "br"
        parent = parent.parent
    return isinstance(parent, Tag) and parent.name in _BLOCKS


# Characters the browser does not show: a soft hyphen (a word's break points, "auto\xadnome") and a
# zero-width space. In the text they split a word the reader sees whole.
_UNSHOWN = LazyPattern("[\u00ad\u200b]")
# An asterisk between letters is a word's own ("Schüler*innen", "Kund*innen": German's gender star);
# two of them in a paragraph would read as emphasis and lose the asterisks, so it is escaped.
_WORD_STAR = LazyPattern(r"(?<=\w)\*(?=\w)")


def _plain_words(soup: Any) -> None:
    from bs4 import NavigableString

    for text in soup.find_all(string=re.compile("[\u00ad\u200b]|\\w\\*\\w")):
        if type(text) is not NavigableString:
            continue
        shown = _UNSHOWN.sub("", str(text))
        if text.find_parent(["pre", "code"]) is None:
            shown = _WORD_STAR.sub(r"\\*", shown)
        text.replace_with(shown)


def _escaped_mark(match: re.Match[str]) -> str:
    mark = match.group(2)
    if mark[0].isdigit():  # "1\." (a backslash before a digit is no escape in Markdown)
        return match.group(1) + mark[:-1] + "\\" + mark[-1]
    return match.group(1) + "\\" + mark


# Tables used for layout hold the article's paragraphs in their cells; as a Markdown table each would
# become one line of cells. Readability tells them from data tables this way (_getReadabilityDataTable)
# but does not mark the tables it returns, so the same test is made again here.
def _is_data_table(table: Any) -> bool:
    if table.get("role") == "presentation" or table.get("datatable") == "0":
        return False
    if table.find("table"):
        return False
    if table.get("summary") or table.find(["caption", "thead", "tfoot", "col", "colgroup", "th"]):
        return True
    rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    columns = max((len(tr.find_all(["td", "th"], recursive=False)) for tr in rows), default=0)
    if len(rows) <= 1 or columns <= 1:
        return False
    return len(rows) >= 10 or columns > 4 or len(rows) * columns > 10


def _unwrap_layout_table(table: Any) -> None:
    """Turn a layout table into blocks: each row and cell a <div>, so its content reads as text."""
    own = [part for part in table.find_all(["thead", "tbody", "tfoot", "tr", "td", "th"])
           if part.find_parent("table") is table]
    for part in [table, *own]:
        part.name = "div"
        part.attrs = {}


# A list item's line, after the indentation that nests it.
_LIST_ITEM = LazyPattern(r"\s*([-+*]|\d{1,9}[.)])\s")


def _tidy(markdown: str) -> str:
    """Markdown without the spacing of the HTML source: outside code, runs of spaces are one (the
    browser shows them so), and a paragraph does not start indented (four spaces would make it code:
    markdownify writes code fenced, so an indent is the source's, or a list's nesting, kept)."""
    lines: list[str] = []
    fenced = in_list = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.strip():
            indent = len(line) - len(line.lstrip(" "))
            if _LIST_ITEM.match(line):
                in_list = True
            elif not indent:
                in_list = False
            elif not in_list and (not lines or not lines[-1]):  # no list item's paragraph
                indent = 0
            line = " " * indent + re.sub(r" {2,}", " ", line.strip())
        lines.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def trafilatura_markdown(html: str, url: str = "", *, fast: bool = False) -> str:
    """trafilatura's main content of ``html`` as Markdown ("" when it finds none).

    ``fast``: without trafilatura's second pass (its own Readability port and jusText, compared with
    its reading), for a page Readability.js has already read: on web-snippets the same F1 (0.925
    against 0.924), in less time."""
    import trafilatura

    try:
        # trafilatura's own balance between precision and recall (no favour_recall): it reads real
        # pages better so (web-snippets: F1 0.928 against 0.925).
        text = trafilatura.extract(html, url=url or None, output_format="markdown", include_links=False,
                                   include_tables=True, include_comments=False, deduplicate=False, fast=fast)
    except Exception:
        log.debug("trafilatura failed on %s", url, exc_info=True)
        return ""
    return _tidy(text or "")


def body_markdown(html: str) -> str:
    """The whole body as Markdown: what a page without any main content still shows."""
    from markdownify import markdownify

    cleaned = re.sub(r"<(script|style|noscript|template)\b.*?</\1>", "", html, flags=re.S | re.I)
    return _tidy(markdownify(cleaned, heading_style="ATX", strip=["img"]))


# -- the choice -------------------------------------------------------------------------------------


def main_content(snapshot: RawSnapshot) -> MainContent:
    """The page's main content: Readability's article when it found one, checked against
    trafilatura's extraction (``agreed_content``) and with its standfirst (``_with_standfirst``),
    unless trafilatura read more text in another part of the page (``_read_elsewhere``); else
    trafilatura's extraction of the whole document (the whole visible document with its tables when
    trafilatura flattened them); on a page with little text, the longer of the two, else the whole body.

    Each extractor errs its own way on real pages (``benchmarks/bench_web_snippets.py``, 300 pages
    nobody here wrote): Readability takes one subtree whole, with the captions, teasers and "more on
    this" lines inside it, and misses what lies outside it; trafilatura judges line by line and drops
    those, but loses the article's structure and some of its paragraphs. Readability's article, less
    its short blocks trafilatura judged boilerplate, plus the blocks only trafilatura kept, reads
    those pages better than either alone.
    """
    notes = ArticleNotes()
    article = article_markdown(snapshot.article_html, snapshot.url, notes) if snapshot.article_html else ""
    extracted = trafilatura_markdown(snapshot.html, snapshot.url, fast=bool(article))
    if len(_plain(article)) >= ARTICLE_MIN_CHARS:
        if _read_elsewhere(article, extracted):
            return MainContent(extracted, "trafilatura")
        return MainContent(_with_standfirst(agreed_content(article, extracted, notes), snapshot), "readability")
    if _flattened_tables(snapshot.html, extracted):
        return MainContent(article_markdown(snapshot.html), "body")
    if len(extracted) >= TRAFILATURA_MIN_CHARS:
        return MainContent(extracted, "trafilatura")
    if article or extracted:  # a page with little text: the more of it
        if len(_plain(extracted)) > len(_plain(article)):
            return MainContent(extracted, "trafilatura")
        return MainContent(article, "readability")
    body = body_markdown(snapshot.html)
    return MainContent(body, "body" if body else "none")


# A line that begins as Readability's excerpt (the page's description) does, for this many characters
# of words (a sentence, not a label), shown above the article, is the article's standfirst.
STANDFIRST_MIN_CHARS = 80


def _with_standfirst(markdown: str, snapshot: RawSnapshot) -> str:
    """The content with its standfirst (the lead under the headline: "Damit Mitarbeiter gesund bleiben,
    müssen sich Unternehmen einiges einfallen lassen...") where neither extractor kept it: the line the
    page shows above the content's first long paragraph that begins as Readability's excerpt (the
    page's description) does, whole (a site may cut its description short, mid-word, or run it on
    into the article's first words). Put under the content's opening heading, else first."""
    described = _plain(snapshot.excerpt).split()[:-1]  # its last word may be cut
    if len(" ".join(described)) < STANDFIRST_MIN_CHARS:
        return markdown
    lead = next((" ".join(line.split()) for line in snapshot.text.splitlines()
                 if len(_common_start(_plain(line).split(), described)) >= STANDFIRST_MIN_CHARS), "")
    if not lead or _held(lead, set(_shingles(_tokens(markdown)))):
        return markdown
    first = next((block for block in _blocks(markdown) if len(_plain(block)) > AGREED_SHORT_CHARS), "")
    page = _plain(snapshot.text)
    if not first or not 0 <= page.find(_plain(lead)) < page.find(_plain(first)[:60]):
        return markdown
    head, _, rest = markdown.partition("\n\n")
    if _is_heading(head):
        return f"{head}\n\n{lead}\n\n{rest}".rstrip()
    return f"{lead}\n\n{markdown}"


def _common_start(words: list[str], others: list[str]) -> str:
    """The words both lists begin with, when one begins the other ("" else)."""
    shorter = min(len(words), len(others))
    return " ".join(words[:shorter]) if words[:shorter] == others[:shorter] else ""


# A block of Readability's article this short (in characters of its words) that trafilatura did not
# keep is taken as the page's boilerplate inside the article (a caption, a teaser, "Read more", an
# author box); a longer one as text trafilatura missed; the same length decides which of trafilatura's
# blocks that Readability lacks are added. Measured on web-snippets: dropping longer
# blocks loses more article than boilerplate. Characters, not words: Chinese and Japanese write a
# paragraph as one "word".
AGREED_SHORT_CHARS = 120
# trafilatura's reading is used to check Readability's only when it has this many characters, and
# at least this share of the article's length: reading less, it saw another part of the page or next
# to nothing of it (formulas, a gallery's captions), and judges none of the article's short blocks.
AGREED_MIN_CHARS = 80
AGREED_MIN_SHARE = 0.1
# A block of trafilatura's the article lacks is not added when it is longer than this many times the
# whole article: it is another kind of content beside it (a slideshow's list, a thread of comments).
AGREED_ADD_MAX_TIMES = 2.0
# Where trafilatura holds less than this share of the article's 3-grams, the two read different parts
# of the page (Readability took too narrow a subtree: one section, the intro of a product), and
# trafilatura's blocks from AGREED_APART_CHARS on are added (a heading, a short paragraph of that part),
# when it read at least AGREED_APART_MIN_SHARE of the article's length (not a page it barely read).
AGREED_APART_BELOW = 0.9
AGREED_APART_CHARS = 40
AGREED_APART_MIN_SHARE = 0.3
# Where trafilatura holds at least this share, both read the same article: what Readability's article
# has after the last long paragraph trafilatura holds, that trafilatura does not, is the article's tail
# (an author's box, "More on this topic", a newsletter's sign-up), whatever its length.
AGREED_TAIL_FROM = 0.7
# Below this share of Readability's article held by trafilatura, while trafilatura read more text,
# the two read different parts of the page and trafilatura's is the content (Readability took a box
# of teasers, a notice or a caption beside it).
AGREED_ELSEWHERE_BELOW = 0.5


def agreed_content(article: str, extracted: str, notes: ArticleNotes | None = None) -> str:
    """Readability's article (Markdown) without its short blocks that trafilatura's extraction does
    not hold, followed by the blocks of trafilatura's extraction the article does not hold.

    A block is a Markdown paragraph (text between blank lines: a paragraph, a list, a table, a
    heading); it is held by a text when half its 3-grams of words (of characters, in scripts written
    without spaces) are in it; a block of one or two words, too short for that, when trafilatura has it
    between the same words (``_held_in_place``: a line of dialogue, "Step 2"), up to the article's last
    long paragraph trafilatura holds (after it, a short line is the page's: "By:", "Already read?").
    Kept besides: a heading that opens the article (trafilatura often leaves the title out), and a
    heading over text that is kept (trafilatura drops headings a page styles as its own). Dropped
    besides: the article's tail trafilatura does not hold, where both read the same article
    (``AGREED_TAIL_FROM``), and a heading that ends the article (over nothing: "Also
    on our site" above a box of teasers Readability left out). Added: trafilatura's blocks longer than
    ``AGREED_SHORT_CHARS`` (its short ones are "Read more", a list of chapters), or from
    ``AGREED_APART_CHARS`` where the two read different parts of the page (``AGREED_APART_BELOW``),
    but none longer than ``AGREED_ADD_MAX_TIMES`` the article, nor one the ``notes``' pointers hold
    (what was left out of the article as pointing to other pages). A block of the article's formulas
    (the ``notes``' formulas hold it) is kept: trafilatura does not read MathML. Where trafilatura read next to nothing
    of it (``AGREED_MIN_SHARE``), the article stands as it is.
    """
    if len(_plain(extracted)) < max(AGREED_MIN_CHARS, AGREED_MIN_SHARE * len(_plain(article))):
        return article
    theirs = set(_shingles(_tokens(extracted)))
    ours = set(_shingles(_tokens(article)))
    blocks = _blocks(article)
    held = [_held(block, theirs) for block in blocks]
    last = max((n for n, block in enumerate(blocks) if held[n] and len(_plain(block)) > AGREED_SHORT_CHARS),
               default=len(blocks))
    in_place = _held_in_place(blocks, theirs)
    notes = notes or ArticleNotes()
    formulas = set(_shingles(_tokens(" ".join(notes.formulas))))
    keep = [(n == 0 and block.startswith("#")) or len(_plain(block)) > AGREED_SHORT_CHARS or held[n]
            or (in_place[n] and n < last) or bool(formulas and _held(block, formulas))
            for n, block in enumerate(blocks)]
    for n, block in enumerate(blocks):  # a heading over kept text: up to the next heading
        if not keep[n] and _is_heading(block):
            below = next((m for m in range(n + 1, len(blocks)) if _is_heading(blocks[m])), len(blocks))
            keep[n] = any(keep[n + 1:below])
    share = _held_share(article, theirs)
    if share >= AGREED_TAIL_FROM:
        keep = [k and (n <= last or held[n]) for n, k in enumerate(keep)]
    apart = share < AGREED_APART_BELOW and len(_plain(extracted)) >= AGREED_APART_MIN_SHARE * len(_plain(article))
    longer = AGREED_APART_CHARS if apart else AGREED_SHORT_CHARS
    most = AGREED_ADD_MAX_TIMES * len(_plain(article))
    elsewhere = set(_shingles(_tokens("\n\n".join(notes.pointers))))
    missed = [block for block in _blocks(extracted)
              if longer < len(_plain(block)) <= most and not _held(block, ours) and not _held(block, elsewhere)]
    chosen = [block for block, k in zip(blocks, keep, strict=True) if k]
    while chosen and _is_heading(chosen[-1]):  # a heading over nothing: the article ended above it
        chosen.pop()
    return "\n\n".join(chosen + missed)


def _held_in_place(blocks: list[str], theirs: set[tuple[str, ...]]) -> list[bool]:
    """For each block of under three words (too short for a 3-gram of its own), whether ``theirs`` has
    it where the article has it: half the 3-grams from the words before it through its words into the
    words after it. Longer blocks: False (``_held`` judges them by their own 3-grams)."""
    words = [_tokens(block) for block in blocks]
    stream = [word for block in words for word in block]
    found: list[bool] = []
    start = 0
    for block in words:
        end = start + len(block)
        grams = {tuple(stream[i:i + 3]) for i in range(max(0, start - 2), min(end, len(stream) - 2))}
        found.append(len(block) < 3 and bool(grams) and len(grams & theirs) >= 0.5 * len(grams))
        start = end
    return found


def _is_heading(block: str) -> bool:
    return block.lstrip().startswith("#")


def _held_share(article: str, theirs: set[tuple[str, ...]]) -> float:
    """The share of the article's 3-grams (counted with repeats) that are in ``theirs``."""
    ours = _shingles(_tokens(article))
    return sum(count for gram, count in ours.items() if gram in theirs) / max(1, sum(ours.values()))


def _read_elsewhere(article: str, extracted: str) -> bool:
    """Whether trafilatura read more text than Readability's article, and another part of the page:
    it holds under ``AGREED_ELSEWHERE_BELOW`` of the article's 3-grams."""
    if len(_plain(extracted)) <= max(AGREED_MIN_CHARS, len(_plain(article))):
        return False
    return _held_share(article, set(_shingles(_tokens(extracted)))) < AGREED_ELSEWHERE_BELOW


# Scripts written without spaces between words (Chinese, Japanese, Korean syllables): a character each,
# letters only (their block also holds the ideographic space and "。", "、", "「": no words).
_TOKEN = LazyPattern(r"(?=\w)[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _blocks(markdown: str) -> list[str]:
    """The Markdown's blocks, each with its indent: a list item's second paragraph is indented under
    it, and joined again without that indent it would end the list (and read as another item). A
    fenced code block is one block, its blank lines included (a code's end is never judged apart)."""
    blocks: list[list[str]] = [[]]
    fence = ""
    for line in markdown.split("\n"):
        if not fence and not line.strip(" \t"):
            blocks.append([])
            continue
        blocks[-1].append(line)
        mark = re.match(r"\s*(`{3,}|~{3,})", line)
        if mark and not fence:
            fence = mark.group(1)
        elif mark and mark.group(1).startswith(fence) and not line.strip()[len(mark.group(1)):].strip():
            fence = ""
    return [text.rstrip() for text in ("\n".join(lines) for lines in blocks) if _plain(text)]


def _held(block: str, shingles: set[tuple[str, ...]]) -> bool:
    grams = set(_shingles(_tokens(block)))
    return len(grams & shingles) >= 0.5 * len(grams)


def _flattened_tables(html: str, extracted: str) -> bool:
    """Whether trafilatura read a page's data tables cell by cell, a line each: when it finds no
    main content it falls back to reading every line, and a table's rows and columns are lost (a
    staff directory whose "City of Ana Ruiz" can no longer be read). Only pages up to
    ``TABLE_PAGE_MAX_CHARS`` of HTML are looked at: their whole body is short enough to give."""
    if "|---" in extracted or len(html) > TABLE_PAGE_MAX_CHARS or "<table" not in html.lower():
        return False
    from bs4 import BeautifulSoup

    return any(_is_data_table(table) for table in BeautifulSoup(html, "lxml").find_all("table"))


def page_title(snapshot: RawSnapshot) -> str:
    """Readability's title (from JSON-LD, Open Graph or the document's title, without the site's
    name), else the document's title."""
    return " ".join((snapshot.article_title or snapshot.title).split())


# -- words and 3-grams -------------------------------------------------------------------------------


def _plain(text: str) -> str:
    """Lower-case words only: Markdown marks, punctuation and spacing do not count as text."""
    return " ".join(re.findall(r"\w+", text.lower()))


def _shingles(words: list[str], n: int = 3) -> Counter[tuple[str, ...]]:
    if len(words) < n:
        return Counter([tuple(words)]) if words else Counter()
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
