"""Main content on real pages nobody here wrote: ``../shared/corpora/web-snippets`` (300 pages of every
kind drawn from trafilatura's evaluation set, with its should-contain / should-not-contain snippets),
read by ``read_page`` and, in the same run, by plain trafilatura and plain Mozilla Readability.

Scoring, as trafilatura's own evaluation does: the extracted main text is whitespace-normalised; a
``with`` snippet found in it is a true positive (else a false negative), a ``without`` snippet found in
it a false positive. Precision, recall and F1 over all snippets of all pages. The text of each:

* ``read_page``: its ``markdown`` (the main content, not the other visible text) rendered as CommonMark
  and taken as text (``bench_articles.markdown_text``: Markdown's marks are structure, not words);
* trafilatura alone: ``trafilatura.extract`` with its defaults on the file as downloaded (plain text);
* Readability alone: the text of the article Readability.js returns on the file as downloaded, parsed
  by the browser (``real_pages``).

Also: the ten worst pages for ``read_page`` (most snippets wrong), each with why (a snippet missed or
leaked, which extractor gave the content, and what trafilatura did there); products given on pages that
declare no product (no schema.org Product or Offer in their markup, nor an og:type of product);
``read_page``'s time from the call (median, p95) and tokens per read (``for_model()``: the text and the
element list the model reads, counted by ``core.tokens`` as GPT-4o counts them).

``--quick`` reads the first 40 pages; ``JAWAD_BENCH_PAGES=001,017,...`` reads those pages only.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.bench_articles import html_text, markdown_text
from benchmarks.real_pages import CORPORA, TOKENS_MODEL, decoded, read_pages

CORPUS = CORPORA / "web-snippets"
QUICK_PAGES = 40
GOAL_F1 = 0.95


def norm(text: str) -> str:
    return " ".join(text.split())


def pages(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(file, its snippets) in file order: the pages to read."""
    entries = sorted(json.loads((CORPUS / "snippets.json").read_text(encoding="utf-8")).values(),
                     key=lambda e: e["file"])
    chosen = os.environ.get("JAWAD_BENCH_PAGES", "")
    if chosen:
        wanted = {f"{p.strip().removesuffix('.html')}.html" for p in chosen.split(",") if p.strip()}
        return [(e["file"], e) for e in entries if e["file"] in wanted]
    return [(e["file"], e) for e in (entries[:QUICK_PAGES] if quick else entries)]


def counts(text: str, entry: dict[str, Any]) -> dict[str, list[str]]:
    """The snippets found and missed in ``text``: tp (with, found), fn (with, missed), fp (without, found)."""
    got = norm(text)
    return {"tp": [s for s in entry["with"] if norm(s) in got], "fn": [s for s in entry["with"] if norm(s) not in got],
            "fp": [s for s in entry["without"] if norm(s) in got]}


def prf(per_page: dict[str, dict[str, list[str]]]) -> tuple[float, float, float]:
    tp = sum(len(c["tp"]) for c in per_page.values())
    fn = sum(len(c["fn"]) for c in per_page.values())
    fp = sum(len(c["fp"]) for c in per_page.values())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def trafilatura_alone(path: Path) -> str:
    import trafilatura

    return trafilatura.extract(decoded(path)) or ""


_DECLARES_PRODUCT = re.compile(r"schema\.org/(Product|Offer|IndividualProduct|ProductModel)\b|"
                               r"\"@type\"\s*:\s*\[?\s*\"(Product|Offer|IndividualProduct|ProductModel)\"|"
                               r"og:type\"?\s+content=\"(og:)?product", re.I)


def declares_product(path: Path) -> bool:
    """Whether the page says it shows a product, in its own markup (schema.org or Open Graph)."""
    return bool(_DECLARES_PRODUCT.search(decoded(path)))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)] if ordered else 0.0


def why(name: str, ours: dict[str, list[str]], theirs: dict[str, list[str]], record: dict[str, Any],
        reader: dict[str, list[str]] | None = None) -> str:
    """One worst page: which extractor gave the content and how long it is, the snippets missed and
    leaked (with how many trafilatura alone and Readability alone missed and leaked there)."""
    if "error" in record:
        return f"{name}: read failed ({record['error'][:60]})"
    saved = ", read as saved (its script left)" if record.get("as_saved") else ""
    parts = [f"{name} [{record.get('content_from', '?')}, {len(record.get('markdown', ''))} chars{saved}]"]

    def alone(kind: str) -> str:
        return f"trafilatura {len(theirs[kind])}" + (f", Readability {len(reader[kind])}" if reader else "")

    if ours["fn"]:
        parts.append(f"missed {len(ours['fn'])} ({alone('fn')}) e.g. {ours['fn'][0][:40]!r}")
    if ours["fp"]:
        parts.append(f"leaked {len(ours['fp'])} ({alone('fp')}) e.g. {ours['fp'][0][:40]!r}")
    return " ".join(parts)


def run(quick: bool) -> list[Figure]:
    if not CORPUS.is_dir():
        raise RuntimeError(f"the web-snippets corpus is missing: {CORPUS}")
    chosen = pages(quick)
    records = read_pages(CORPUS / "pages", [name for name, _ in chosen])
    ours: dict[str, dict[str, list[str]]] = {}
    traf: dict[str, dict[str, list[str]]] = {}
    reader: dict[str, dict[str, list[str]]] = {}
    for name, entry in chosen:
        record = records.get(name, {})
        ours[name] = counts(markdown_text(record.get("markdown", "")), entry)
        traf[name] = counts(trafilatura_alone(CORPUS / "pages" / name), entry)
        reader[name] = counts(html_text(record.get("readability", "")), entry)
    p, r, f = prf(ours)
    tp, tr, tf = prf(traf)
    rp, rr, rf = prf(reader)
    badness = {name: len(c["fn"]) + len(c["fp"]) for name, c in ours.items()}
    worst = sorted((n for n in badness if badness[n]), key=lambda n: (-badness[n], n))[:10]
    read = [rec for rec in records.values() if "read_ms" in rec]
    times = [rec["read_ms"] for rec in read]
    tokens = [rec["tokens"] for rec in read]
    no_product = [name for name, _ in chosen if not declares_product(CORPUS / "pages" / name)]
    wrongly = [name for name in no_product if records.get(name, {}).get("product")]
    failed = [name for name, rec in records.items() if "error" in rec]
    n = len(chosen)
    if os.environ.get("JAWAD_BENCH_DUMP"):  # per page, for study
        Path(os.environ["JAWAD_BENCH_DUMP"]).write_text(json.dumps(
            {name: {"ours": ours[name], "trafilatura": traf[name], "readability": reader[name],
                    "from": records.get(name, {}).get("content_from", "")} for name, _ in chosen}, indent=1))
    return [
        Figure(name=f"web-snippets read_page F1 ({n} pages)", value=f, unit="", goal=f">= {GOAL_F1}",
               ok=f >= GOAL_F1 and f >= tf, note=f"precision {p:.3f}, recall {r:.3f}" +
               (f"; {len(failed)} reads failed: {', '.join(failed)[:120]}" if failed else "")),
        Figure(name="web-snippets read_page precision", value=p, unit=""),
        Figure(name="web-snippets read_page recall", value=r, unit=""),
        Figure(name="web-snippets trafilatura alone F1", value=tf, unit="",
               note=f"precision {tp:.3f}, recall {tr:.3f}"),
        Figure(name="web-snippets trafilatura alone precision", value=tp, unit=""),
        Figure(name="web-snippets trafilatura alone recall", value=tr, unit=""),
        Figure(name="web-snippets Readability alone F1", value=rf, unit="",
               note=f"precision {rp:.3f}, recall {rr:.3f}"),
        Figure(name="web-snippets Readability alone precision", value=rp, unit=""),
        Figure(name="web-snippets Readability alone recall", value=rr, unit=""),
        Figure(name="web-snippets ten worst pages (snippets wrong)", value=float(sum(badness[w] for w in worst)),
               unit="", note=" | ".join(why(w, ours[w], traf[w], records.get(w, {}), reader[w]) for w in worst)),
        Figure(name=f"web-snippets products on pages declaring none ({len(no_product)} pages)",
               value=float(len(wrongly)), unit="pages", goal="0", ok=not wrongly,
               note=", ".join(f"{w} {records[w]['product'].get('price', '')}" for w in wrongly)[:300]),
        Figure(name="web-snippets read_page time from the call, median", value=statistics.median(times) if times
               else float("nan"), unit="ms"),
        Figure(name="web-snippets read_page time from the call, p95", value=p95(times), unit="ms"),
        Figure(name=f"web-snippets tokens per read (text + element list, {TOKENS_MODEL}), median",
               value=statistics.median(tokens) if tokens else float("nan"), unit="tokens",
               note=f"mean {statistics.mean(tokens):.0f}" if tokens else ""),
    ]


if __name__ == "__main__":
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
