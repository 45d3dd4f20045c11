"""Product field accuracy of ``read_page``'s product on the two product dev sets, each reported on
its own: "simple" (tests/pages/products/, one pattern per small page) and "real"
(tests/pages/products/real/, full-size pages built the way real shops render them): price F1, SKU
accuracy, availability accuracy, and MPN/GTIN accuracy (reported, no goal).

The pages go through the real read path (offscreen QtWebEngine, the page script, ``parse_snapshot``)
in a child process, served on 127.0.0.1; scoring is ``tests/browser/product_score.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks import Figure, serve_folder

ROOT = Path(__file__).resolve().parent.parent
# Measured on the dev set before this work: price F1 0.727, SKU 0.667, availability 0.333.
# The real set is held to the goals on real pages (issue 17).
# Measured on the real set (29 pages) with the code before its fixes: price F1 0.552, SKU 0.565,
# availability 0.679, MPN/GTIN 0.294 (the simple set was at 1.0).
GOALS = {"simple": {"price_f1": 0.95, "sku_accuracy": 0.95, "availability_accuracy": 0.9},
         "real": {"price_f1": 0.92, "sku_accuracy": 0.85, "availability_accuracy": 0.96, "mpn_gtin_accuracy": 0.0}}
NAMES = {"price_f1": "product price F1", "sku_accuracy": "product SKU accuracy",
         "availability_accuracy": "product availability accuracy", "mpn_gtin_accuracy": "product MPN/GTIN accuracy"}


def run(quick: bool) -> list[Figure]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_products", "--child"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the product benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(line)
    figures = []
    for which, goals in GOALS.items():
        result = data[which]
        misses = "; ".join(result["misses"][:6])
        for key, goal in goals.items():
            value = float(result["figures"][key])
            figures.append(Figure(name=f"{NAMES[key]} ({which} set, {result['pages']} pages)", value=value, unit="",
                                  goal=f">= {goal}" if goal else "", ok=value >= goal if goal else None,
                                  note=misses))
    return figures


def _child() -> int:
    from jawad_desktop.ui.app.application import create_application, end_process, run_loop

    create_application(headless=True)

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page
    from tests.browser.product_score import Score, devset

    base = serve_folder(ROOT / "tests" / "pages")
    page = offscreen_page(None, private=True)
    out: dict[str, Any] = {}

    async def main() -> int:
        for which in GOALS:
            score, pages = Score(), devset(which)
            for name, expected in pages:
                await page.navigate(f"{base}/products/{name}")
                reading = await read_page(page)
                score.add(name, expected, reading.product)
            out[which] = {"pages": len(pages), "figures": score.figures(), "misses": score.misses}
        return 0

    run_loop(main)
    print(json.dumps(out), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child())
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
