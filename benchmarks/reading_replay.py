"""Replaying saved reads of the reading benchmarks without the browser, page by page: for trying a change
to the parsing half of ``read_page`` (``parse_snapshot``: the choice of content, its Markdown, the
product, the element list) in seconds instead of a full ``python -m benchmarks reading``.

First save the snapshots once, with the browser::

    JAWAD_BENCH_SNAPSHOTS=DIR python -m benchmarks reading

then replay them as often as needed (the figures are the benchmarks' own scorers)::

    python -m benchmarks.reading_replay DIR [articles] [web_snippets] [products_fathom]

It prints each set's figure and tokens per read (median), and the pages whose score changed since the
last replay in the same DIR (kept in ``DIR/replay.json``). A change to the page script (``core/tools/js``)
needs new snapshots; read time is not measured here. The benchmark's run on the commit is what counts.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks import bench_articles, bench_products_fathom, bench_web_snippets
from benchmarks.real_pages import tokens_of

SETS = ("articles", "web_snippets", "products_fathom")


def _reading(folder: Path, name: str) -> Any:
    from jawad_desktop.core.tools.browser.reading import parse_snapshot
    from jawad_desktop.core.tools.page import RawSnapshot

    saved = folder / f"{name.replace('/', '_')}.json"
    return parse_snapshot(RawSnapshot(**json.loads(saved.read_text()))) if saved.is_file() else None


def replay(folder: Path, which: str) -> tuple[str, dict[str, Any]]:
    """One set replayed: its summary line, and each page's score (to compare with another replay)."""
    per_page: dict[str, Any] = {}
    tokens: list[int] = []
    if which == "articles":
        for page in bench_articles.pages(False):
            reading = _reading(folder, page.name)
            if reading is None:
                continue
            want = bench_articles.html_text((page / "expected.html").read_text(encoding="utf-8", errors="replace"))
            per_page[page.name] = round(bench_articles.f1(bench_articles.markdown_text(reading.markdown), want), 4)
            tokens.append(tokens_of(reading.for_model()))
        mean = statistics.mean(per_page.values()) if per_page else 0.0
        line = f"articles F1 {mean:.4f}"
    elif which == "web_snippets":
        counted: dict[str, dict[str, list[str]]] = {}
        wrongly = 0
        for name, entry in bench_web_snippets.pages(False):
            reading = _reading(folder, name)
            if reading is None:
                continue
            counted[name] = bench_web_snippets.counts(bench_articles.markdown_text(reading.markdown), entry)
            per_page[name] = [sorted(counted[name]["fn"]), sorted(counted[name]["fp"])]
            tokens.append(tokens_of(reading.for_model()))
            wrongly += bool(reading.product and not bench_web_snippets.declares_product(
                bench_web_snippets.CORPUS / "pages" / name))
        p, r, f = bench_web_snippets.prf(counted)
        line = f"web-snippets P {p:.4f} R {r:.4f} F1 {f:.4f}, products on pages declaring none {wrongly}"
    else:
        expected = json.loads((bench_products_fathom.CORPUS / "expected.json").read_text(encoding="utf-8"))
        for name in sorted(expected):
            reading = _reading(folder, name)
            if reading is None:
                continue
            per_page[name] = bench_products_fathom.verdict(reading.product, expected[name]["expected_prices"])
            tokens.append(tokens_of(reading.for_model()))
        verdicts = list(per_page.values())
        line = (f"products-fathom price right {verdicts.count('right')}, wrong {verdicts.count('wrong')}, "
                f"none {verdicts.count('none')}")
    median = statistics.median(tokens) if tokens else float("nan")
    return f"{line} ({len(per_page)} pages; tokens per read, median {median})", per_page


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    folder, chosen = Path(argv[0]), [a for a in argv[1:] if a in SETS] or list(SETS)
    last_file = folder / "replay.json"
    last: dict[str, dict[str, Any]] = json.loads(last_file.read_text()) if last_file.is_file() else {}
    for which in chosen:
        line, per_page = replay(folder, which)
        print(line)
        for name, score in per_page.items():
            before = last.get(which, {}).get(name)
            if before is not None and before != score:
                print(f"  {name}: {before} -> {score}")
        last[which] = per_page
    last_file.write_text(json.dumps(last))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
