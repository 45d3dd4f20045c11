"""Main-content reading quality on the article dev corpus (../shared/corpora/articles/, 130 real pages
with the expected main content and metadata, Mozilla Readability's test pages).

Each ``source.html`` is served on 127.0.0.1 and read through the product's own path (offscreen
QtWebEngine page, the page script's snapshot, ``parse_snapshot``) in a child process. For comparison,
trafilatura on its own reads the same ``source.html`` (no browser) and is scored the same way.

Scoring, precisely:

* text of a page = for ``expected.html``, all its text nodes (``lxml`` ``text_content()`` of the parsed
  fragment, a ``<br>`` and a block's edges counted as line breaks); for the product, ``read_page``'s
  markdown rendered as CommonMark with tables (markdown-it, raw HTML shown as text) and then the text
  of that, so Markdown's marks (``#``, list bullets, ``**``, backticks, table pipes) are not counted
  as words: they are the content's structure, and a list item's bullet alone breaks three shingles
  (the figure with the marks left in as words is reported too, "markdown as is", and trafilatura
  alone is scored both ways); lower-cased, split on whitespace (so the text is whitespace-normalised);
* shingles = the multiset of consecutive 4-word tuples of that word list (a text under four words gives
  one shingle of all its words, an empty text none);
* F1 = 2·P·R / (P + R) with P = |got ∩ want| / |got| and R = |got ∩ want| / |want| over the multisets
  (0 when either side is empty, 1 when both are);
* corpus figure = the mean F1 over pages; the five worst pages are named in the note;
* title exact match = ``read_page``'s title, whitespace-normalised, equals ``expected-metadata.json``'s
  ``title`` (same normalisation); the rate over pages with an expected title;
* Readability alone = the text of the article HTML that Readability (run by the page script on the
  rendered page, ``RawSnapshot.article_html``) returns, scored like ``expected.html``;
* tokens per read = tokens of ``reading.for_model()`` (what the model reads on a first read_page:
  metadata, elements, the first part of the content, the visible text outside it), counted by
  ``core.tokens`` as GPT-4o counts them (o200k_base), median and mean.

The expected content is Readability's own output on ``source.html`` (these are its test pages, made
by the upstream version vendored in ``core/tools/js/vendor``, run on the raw file), so Readability
alone is expected to score near 1 here: the corpus says how close read_page comes to it, not how it
does on pages Readability reads badly. It differs where the rendered page differs from the raw file
(text the page's own style hides, which read_page leaves out).

Pages are served as UTF-8 (they are, and Readability's tests read them so; 16 declare no charset) and
navigated as the agent's action, so a page's alert() is answered and does not block the page.
``JAWAD_BENCH_SNAPSHOTS=DIR`` also writes each page's ``RawSnapshot`` there as JSON (as ``real_pages``).
``--quick`` reads the first 15 pages (sorted by folder name).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.real_pages import CORPORA, TOKENS_MODEL, tokens_of

ROOT = Path(__file__).resolve().parent.parent
CORPUS = CORPORA / "articles" / "pages"
QUICK_PAGES = 15
# A regression set: the figure before the real-page work (issue 27) must hold.
REGRESSION_F1 = 0.995


def words(text: str) -> list[str]:
    return text.lower().split()


def shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    w = words(text)
    if not w:
        return Counter()
    if len(w) < n:
        return Counter([tuple(w)])
    return Counter(tuple(w[i:i + n]) for i in range(len(w) - n + 1))


def f1(got: str, want: str) -> float:
    g, e = shingles(got), shingles(want)
    if not g and not e:
        return 1.0
    if not g or not e:
        return 0.0
    common = sum((g & e).values())
    if not common:
        return 0.0
    p, r = common / sum(g.values()), common / sum(e.values())
    return 2 * p * r / (p + r)


def html_text(html: str) -> str:
    import lxml.html

    if not html.strip():
        return ""
    tree = lxml.html.fromstring(html)
    # A line break and a block's edges separate words, as on the screen ("versions<br>+ Added",
    # "<p>end.</p><p>Next</p>"): text_content() alone would join them.
    for el in tree.iter(*BLOCK_TAGS):
        el.text = "\n" + (el.text or "")
        el.tail = "\n" + (el.tail or "")
    return str(tree.text_content())


BLOCK_TAGS = ("br", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
              "blockquote", "table", "tr", "td", "th", "thead", "tbody", "tfoot", "caption", "section",
              "article", "aside", "header", "footer", "nav", "main", "figure", "figcaption", "hr", "address",
              "details", "summary", "form", "fieldset")


def markdown_text(markdown: str) -> str:
    """The words of Markdown without its marks: rendered (CommonMark and tables, raw HTML as text)."""
    from markdown_it import MarkdownIt

    return html_text(MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown))


def norm_title(title: str) -> str:
    return " ".join(title.split())


def pages(quick: bool) -> list[Path]:
    found = sorted(p for p in CORPUS.iterdir() if (p / "source.html").is_file() and (p / "expected.html").is_file())
    return found[:QUICK_PAGES] if quick else found


def trafilatura_alone(folder: Path) -> str:
    import trafilatura

    html = (folder / "source.html").read_text(encoding="utf-8", errors="replace")
    return trafilatura.extract(html, output_format="markdown", include_links=False, include_comments=False,
                               include_tables=True, favor_recall=True) or ""


def summarise(scores: dict[str, float]) -> tuple[float, str]:
    mean = sum(scores.values()) / len(scores) if scores else 0.0
    worst = sorted(scores.items(), key=lambda kv: kv[1])[:5]
    return mean, "worst: " + ", ".join(f"{name} {value:.2f}" for name, value in worst)


def median(values: list[float]) -> float:
    import statistics

    return float(statistics.median(values)) if values else 0.0


def run(quick: bool) -> list[Figure]:
    if not CORPUS.is_dir():
        raise RuntimeError(f"the article corpus is missing: {CORPUS}")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    args = [sys.executable, "-m", "benchmarks.bench_articles", "--child"] + (["--quick"] if quick else [])
    # Saved pages name resources on the web that may never answer: a page can take its 30 s load timeout.
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300 if quick else 1800,
                          check=False)
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the reading benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(line)
    product: dict[str, float] = data["f1"]
    as_is: dict[str, float] = data["f1_as_is"]
    reader: dict[str, float] = data["f1_readability"]
    titles: dict[str, bool] = data["titles"]
    alone: dict[str, float] = {}
    alone_as_is: dict[str, float] = {}
    for folder in pages(quick):
        want = html_text((folder / "expected.html").read_text(encoding="utf-8", errors="replace"))
        extracted = trafilatura_alone(folder)
        alone[folder.name] = f1(markdown_text(extracted), want)
        alone_as_is[folder.name] = f1(extracted, want)
    mean, worst = summarise(product)
    alone_mean, alone_worst = summarise(alone)
    rate = sum(titles.values()) / len(titles) if titles else 0.0
    n = len(product)
    return [
        Figure(name=f"read_page main content F1, 4-shingles ({n} pages)", value=mean, unit="",
               goal=f">= {REGRESSION_F1}", ok=mean >= REGRESSION_F1, note=worst),
        Figure(name="read_page main content F1, markdown as is", value=summarise(as_is)[0], unit="",
               note=summarise(as_is)[1]),
        Figure(name="Readability alone (in the page), F1", value=summarise(reader)[0], unit="",
               note=summarise(reader)[1]),
        Figure(name="trafilatura alone on source.html, F1", value=alone_mean, unit="",
               note=f"{alone_worst}; markdown as is {summarise(alone_as_is)[0]:.3f}"),
        Figure(name=f"read_page title exact match ({len(titles)} pages)", value=rate, unit="",
               note="misses: " + ", ".join(k for k, v in sorted(titles.items()) if not v)[:300]),
        Figure(name=f"read_page tokens per read (text + element list, {TOKENS_MODEL}), median",
               value=float(data["median_tokens"]), unit="tokens", note=f"mean {data['mean_tokens']:.0f}"),
        Figure(name="read_page median time per article", value=float(data["median_ms"]), unit="ms"),
    ]


def _child(quick: bool) -> int:
    import contextlib
    import dataclasses
    import functools
    import threading
    import time
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page
    from jawad_desktop.core.tools.page import PageError
    from jawad_desktop.ui.app.application import end_process, run_loop

    class Quiet(SimpleHTTPRequestHandler):
        extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".html": "text/html; charset=utf-8"}

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(CORPUS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    page = offscreen_page(None, private=True)
    scores: dict[str, float] = {}
    as_is: dict[str, float] = {}
    reader: dict[str, float] = {}
    titles: dict[str, bool] = {}
    times: list[float] = []
    tokens: list[float] = []
    keep = os.environ.get("JAWAD_BENCH_SNAPSHOTS", "")

    async def main() -> int:
        for folder in pages(quick):
            want = html_text((folder / "expected.html").read_text(encoding="utf-8", errors="replace"))
            # Saved pages name resources on the web (here they fail or never answer): a page is read once its
            # document is usable; one that never gets there is stopped, and read as far as it came.
            with contextlib.suppress(PageError), page.agent_action():  # its dialogs answered, as for the agent
                await page.navigate(f"{base}/{folder.name}/source.html", timeout=30.0)
            start = time.perf_counter()
            try:
                reading = await read_page(page)
                if not reading.url:  # the page script failed: an error came back, not a snapshot
                    raise RuntimeError("the page script gave no snapshot")
            except Exception as exc:  # a page the product cannot read scores 0, and is named
                print(f"{folder.name}: read_page failed: {exc!r}", file=sys.stderr, flush=True)
                scores[folder.name] = as_is[folder.name] = reader[folder.name] = 0.0
                continue
            times.append((time.perf_counter() - start) * 1000)
            scores[folder.name] = f1(markdown_text(reading.markdown), want)
            as_is[folder.name] = f1(reading.markdown, want)
            tokens.append(float(tokens_of(reading.for_model())))
            try:
                snapshot = await page.snapshot()
                reader[folder.name] = f1(html_text(snapshot.article_html), want)
                if keep:  # to study a page without the browser
                    Path(keep).mkdir(parents=True, exist_ok=True)
                    (Path(keep) / f"{folder.name}.json").write_text(json.dumps(dataclasses.asdict(snapshot)))
            except Exception:
                reader[folder.name] = 0.0
            meta_file = folder / "expected-metadata.json"
            meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
            if meta.get("title"):
                titles[folder.name] = norm_title(reading.title) == norm_title(str(meta["title"]))
        return 0

    try:
        run_loop(main)
    finally:
        server.shutdown()
    print(json.dumps({"f1": scores, "f1_as_is": as_is, "f1_readability": reader, "titles": titles,
                      "median_ms": median(times), "median_tokens": median(tokens),
                      "mean_tokens": sum(tokens) / len(tokens) if tokens else 0.0}), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child("--quick" in sys.argv))
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
