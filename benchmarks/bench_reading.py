"""Main-content reading quality on the article dev corpus (../shared/corpora/articles/, 130 real pages
with the expected main content and metadata, Mozilla Readability's test pages).

Each ``source.html`` is served on 127.0.0.1 and read through the product's own path (offscreen
QtWebEngine page, the page script's snapshot, ``parse_snapshot``) in a child process. For comparison,
trafilatura on its own reads the same ``source.html`` (no browser) and is scored the same way.

Scoring, precisely:

* text of a page = for ``expected.html``, all its text nodes (``lxml`` ``text_content()`` of the parsed
  fragment); for the product, ``read_page``'s markdown with Markdown syntax left in (it is rare in
  shingles of four words); lower-cased, split on whitespace (so the text is whitespace-normalised);
* shingles = the multiset of consecutive 4-word tuples of that word list (a text under four words gives
  one shingle of all its words, an empty text none);
* F1 = 2·P·R / (P + R) with P = |got ∩ want| / |got| and R = |got ∩ want| / |want| over the multisets
  (0 when either side is empty, 1 when both are);
* corpus figure = the mean F1 over pages; the five worst pages are named in the note;
* title exact match = ``read_page``'s title, whitespace-normalised, equals ``expected-metadata.json``'s
  ``title`` (same normalisation); the rate over pages with an expected title.

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

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpora" / "articles" / "pages"
QUICK_PAGES = 15


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
    return str(lxml.html.fromstring(html).text_content())


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


def run(quick: bool) -> list[Figure]:
    if not CORPUS.is_dir():
        raise RuntimeError(f"the article corpus is missing: {CORPUS}")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    args = [sys.executable, "-m", "benchmarks.bench_reading", "--child"] + (["--quick"] if quick else [])
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the reading benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(line)
    product: dict[str, float] = data["f1"]
    titles: dict[str, bool] = data["titles"]
    alone: dict[str, float] = {}
    for folder in pages(quick):
        want = html_text((folder / "expected.html").read_text(encoding="utf-8", errors="replace"))
        alone[folder.name] = f1(trafilatura_alone(folder), want)
    mean, worst = summarise(product)
    alone_mean, alone_worst = summarise(alone)
    rate = sum(titles.values()) / len(titles) if titles else 0.0
    n = len(product)
    return [
        Figure(name=f"read_page main content F1, 4-shingles ({n} pages)", value=mean, unit="",
               goal=f">= trafilatura alone ({alone_mean:.3f})", ok=mean >= alone_mean, note=worst),
        Figure(name=f"trafilatura alone on source.html, F1 ({n} pages)", value=alone_mean, unit="",
               note=alone_worst),
        Figure(name=f"read_page title exact match ({len(titles)} pages)", value=rate, unit="",
               note="misses: " + ", ".join(k for k, v in sorted(titles.items()) if not v)[:300]),
        Figure(name="read_page median time per article", value=float(data["median_ms"]), unit="ms"),
    ]


def _child(quick: bool) -> int:
    import contextlib
    import functools
    import statistics
    import threading
    import time
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page
    from jawad_desktop.core.tools.page import PageError, page_script
    from jawad_desktop.ui.app import end_process, run_loop

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(CORPUS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    page = offscreen_page(None, private=True)
    scores: dict[str, float] = {}
    titles: dict[str, bool] = {}
    times: list[float] = []

    async def main() -> int:
        for folder in pages(quick):
            want = html_text((folder / "expected.html").read_text(encoding="utf-8", errors="replace"))
            try:
                # Saved pages name resources on the web; one that never answers stops the load, and
                # the page is read as far as it came (as read_page would after a slow load).
                await page.navigate(f"{base}/{folder.name}/source.html", timeout=30.0)
            except PageError:
                # After a stopped load the page library can be missing from the isolated world and
                # page_driver.call() gets "" (not None) so does not re-inject it: inject it here.
                with contextlib.suppress(PageError):  # a frozen page: read_page below fails and scores 0
                    await page.run_js(page_script())
            start = time.perf_counter()
            try:
                try:
                    reading = await read_page(page)
                except Exception:
                    # The first script answer after a stopped load can come back empty (page_driver):
                    # read once more, as the agent would.
                    reading = await read_page(page)
            except Exception as exc:  # a page the product cannot read scores 0, and is named
                print(f"{folder.name}: read_page failed: {exc!r}", file=sys.stderr, flush=True)
                scores[folder.name] = 0.0
                continue
            times.append((time.perf_counter() - start) * 1000)
            scores[folder.name] = f1(reading.markdown, want)
            meta_file = folder / "expected-metadata.json"
            meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
            if meta.get("title"):
                titles[folder.name] = norm_title(reading.title) == norm_title(str(meta["title"]))
        return 0

    try:
        run_loop(main)
    finally:
        server.shutdown()
    print(json.dumps({"f1": scores, "titles": titles, "median_ms": statistics.median(times) if times else 0.0}),
          flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app.py)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child("--quick" in sys.argv))
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
