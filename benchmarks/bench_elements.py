"""Tokens per read: the element list and the whole text the model reads (``PageReading.for_model()``),
before and after the lean element list (issue 17, point 3), on shop pages.

Pages: the shop pages (``tests/pages/shop``), the product dev set (``tests/pages/products``) and the
generated big shop page (``tests/pages/shop/big.html``: 45 header links, mega-menus, a product with
variants, related products, 62 footer links) in four variants. They go through the real read path
(offscreen QtWebEngine, the page script, ``parse_snapshot``) in a child process.

"Before" is the listing of the page library as it was (``[n] ROLE "label" -> selector`` for the first
150 visible elements in document order), recorded per page in ``benchmarks/elements_before.json``
(``--record-before`` writes it; it was run once, on the code before the change). The whole text
before is today's reading with that listing put back in place of the new one, so the figure
measures the element list alone even while the page's content reading changes. Tokens are
characters / 4.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks import Figure, serve_folder

ROOT = Path(__file__).resolve().parent.parent
BEFORE = Path(__file__).resolve().parent / "elements_before.json"
PAGES = ROOT / "tests" / "pages"
BIG = ["shop/big.html", "shop/big.html?landmarks=0", "shop/big.html?menu=1", "shop/big.html?cookie=1"]
GOAL_RATIO = 0.5  # half of the tokens per read on heavy pages
NUMBERED = re.compile(r"\[\d+\] ")
FOLD_LINE = re.compile(r"(\d+) navigation (?:links|elements): ")


def pages() -> list[str]:
    """Every page measured, as paths under ``tests/pages``."""
    shop = sorted(f"shop/{p.name}" for p in (PAGES / "shop").glob("*.html") if p.name != "big.html")
    products = sorted(f"products/{p.name}" for p in (PAGES / "products").glob("*.html"))
    return BIG + real_shops() + shop + products


def real_shops() -> list[str]:
    """The product pages built after real shop templates (``tests/pages/products/real``)."""
    return sorted(f"products/real/{p.name}" for p in (PAGES / "products" / "real").glob("*.html"))


def tokens(chars: float) -> float:
    return chars / 4


def run(quick: bool) -> list[Figure]:
    data = _measure(record=False)
    before: dict[str, Any] = json.loads(BEFORE.read_text(encoding="utf-8"))
    figures: list[Figure] = []
    groups = {"heavy (big shop page, 4 variants)": BIG,
              "shop templates (products/real)": real_shops(),
              "shop pages": [p for p in data if p.startswith("shop/") and p not in BIG],
              "product pages": [p for p in data if p.startswith("products/") and not p.startswith("products/real/")]}
    heavy_groups = {"heavy (big shop page, 4 variants)", "shop templates (products/real)"}
    for group, names in groups.items():
        names = [n for n in names if n in before and n in data]
        if not names:
            continue
        old_el = statistics.mean(len(before[n]["elements"]) for n in names)
        new_el = statistics.mean(data[n]["elements_chars"] for n in names)
        old_all = statistics.mean(data[n]["for_model_before_chars"] for n in names)
        new_all = statistics.mean(data[n]["for_model_chars"] for n in names)
        heavy = group in heavy_groups
        figures.append(Figure(
            name=f"element list tokens per read, {group}", value=tokens(new_el), unit="tok",
            goal=f"<= {GOAL_RATIO:.0%} of before" if heavy else "",
            ok=(new_el <= GOAL_RATIO * old_el) if heavy else None,
            note=f"before {tokens(old_el):.0f} tok ({old_el:.0f} chars), after {new_el:.0f} chars: "
                 f"{new_el / max(old_el, 1):.0%} of before; {len(names)} pages"))
        figures.append(Figure(
            name=f"whole read tokens (for_model), {group}", value=tokens(new_all), unit="tok",
            goal=f"<= {GOAL_RATIO:.0%} of before" if heavy else "",
            ok=(new_all <= GOAL_RATIO * old_all) if heavy else None,
            note=f"before {tokens(old_all):.0f} tok, after {new_all / max(old_all, 1):.0%} of before"))
    for name in BIG:
        if name in before and name in data:
            d = data[name]
            figures.append(Figure(
                name=f"  {name}: element list / whole read", value=tokens(d["elements_chars"]), unit="tok",
                note=f"was {tokens(len(before[name]['elements'])):.0f} tok; whole read "
                     f"{tokens(d['for_model_chars']):.0f} tok (was {tokens(d['for_model_before_chars']):.0f}); "
                     f"{d['listed']} listed, {d['folded_navigation']} navigation links folded"))
    return figures


def _measure(*, record: bool) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    args = [sys.executable, "-m", "benchmarks.bench_elements", "--child"] + (["record"] if record else [])
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the element benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(line)
    return result


def _child(record: bool) -> int:
    import dataclasses

    from jawad_desktop.ui.app.application import create_application, end_process, run_loop

    create_application(headless=True)

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page

    base = serve_folder(PAGES)
    page = offscreen_page(None, private=True)
    before: dict[str, Any] = {} if record else json.loads(BEFORE.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}

    async def main() -> int:
        for name in pages():
            await page.navigate(f"{base}/{name}")
            reading = await read_page(page)
            if record:
                out[name] = {"elements": reading.interactive_elements, "for_model_chars": len(reading.for_model())}
                continue
            old = before.get(name, {}).get("elements", reading.interactive_elements)
            replaced = dataclasses.replace(reading, interactive_elements=old)
            if hasattr(replaced, "folded"):
                replaced.folded = {}
            folded = getattr(reading, "folded", {}) or {}
            lines = reading.interactive_elements.splitlines()
            fold = next((m for m in map(FOLD_LINE.match, lines) if m), None)
            out[name] = {
                "elements_chars": len(reading.interactive_elements),
                "for_model_chars": len(reading.for_model()),
                "for_model_before_chars": len(replaced.for_model()),
                "listed": sum(1 for line in lines if NUMBERED.match(line)),
                "folded_navigation": int(fold.group(1)) if fold else 0,
                "navigation_chars": len(folded.get("navigation", "")),
            }
        return 0

    run_loop(main)
    print(json.dumps(out), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child(len(sys.argv) > 2 and sys.argv[2] == "record"))
    if "--record-before" in sys.argv:
        BEFORE.write_text(json.dumps(_measure(record=True), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        sys.exit(0)
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
