"""read_page speed on 2,000- and 10,000-element pages, against a plain innerText read, the element
list's own time (as served, and with a click listener on the document), and the longest GUI stall
while it runs.

The measurement runs in a child process (offscreen Qt, one qasync loop run once, PLATFORM.md),
so a benchmark run never shares a Qt application with another benchmark. Pages come from
``tests/pages/many.html`` served on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import Figure, serve_folder

ROOT = Path(__file__).resolve().parent.parent
GOALS_MS = {2000: 150.0, 10000: 600.0}
STALL_GOAL_MS = 50.0


def run(quick: bool) -> list[Figure]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_browser", "--child", "quick" if quick else "full"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the browser benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(line)
    figures: list[Figure] = []
    for size_text, result in data["sizes"].items():
        size = int(size_text)
        goal = GOALS_MS[size]
        median = float(result["read_page_ms"])
        figures.append(Figure(
            name=f"read_page, {size:,} elements (median of {result['runs']})", value=median, unit="ms",
            goal=f"<= {goal:.0f} ms", ok=median <= goal,
            note=f"script {result['script_ms']:.0f} ms + parsing {result['parse_ms']:.0f} ms; "
                 f"{result['elements_listed']} elements listed",
        ))
        figures.append(Figure(
            name=f"read_page / innerText, {size:,} elements", value=float(result["ratio"]), unit="x",
            note=f"document.body.innerText read: {result['inner_text_ms']:.1f} ms",
        ))
        figures.append(Figure(
            name=f"element list (J.elements), {size:,} elements", value=float(result["elements_ms"]), unit="ms",
            note=f"{float(result['elements_handled_ms']):.1f} ms with a click listener on the document "
                 "(cursor:pointer groups are looked for)",
        ))
    figures.append(Figure(
        name="longest GUI stall during read_page", value=float(data["max_stall_ms"]), unit="ms",
        goal=f"<= {STALL_GOAL_MS:.0f} ms", ok=float(data["max_stall_ms"]) <= STALL_GOAL_MS,
        note="5 ms timer on the GUI thread; the gap beyond its interval",
    ))
    return figures


async def _elements_ms(page: Any) -> float:
    """Milliseconds ``J.elements(150)`` takes inside the page (its isolated world)."""
    from jawad_desktop.browser.guarded_page import WORLD

    took = await page.run_js("(function () { var t = performance.now(); window.__jawad.elements(150); "
                             "return performance.now() - t; })()", world=WORLD, timeout=60)
    return float(took)


def _child(quick: bool) -> int:
    import asyncio

    from jawad_desktop.ui.app.application import create_application, end_process, run_loop

    create_application(headless=True)
    from PySide6.QtCore import QTimer

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import parse_snapshot

    base = serve_folder(ROOT / "tests" / "pages")
    page = offscreen_page(None, private=True)
    runs = 3 if quick else 7
    result: dict[str, Any] = {"sizes": {}}

    gaps: list[float] = []
    last = [time.perf_counter()]
    measuring = [False]

    def tick() -> None:
        now = time.perf_counter()
        if measuring[0]:
            gaps.append((now - last[0]) * 1000 - 5.0)
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()

    async def main() -> int:
        for size in (2000, 10000):
            await page.navigate(f"{base}/many.html?n={size}")
            await page.snapshot()  # warm up the library and the parsers
            await asyncio.to_thread(parse_snapshot, await page.snapshot())
            totals, scripts, parses, inner = [], [], [], []
            listed = 0
            for _ in range(runs):
                t0 = time.perf_counter()
                await page.run_js("document.body.innerText.length", world=0)
                inner.append((time.perf_counter() - t0) * 1000)
                last[0] = time.perf_counter()
                measuring[0] = True
                t0 = time.perf_counter()
                snap = await page.snapshot()
                t1 = time.perf_counter()
                reading = await asyncio.to_thread(parse_snapshot, snap)
                t2 = time.perf_counter()
                measuring[0] = False
                totals.append((t2 - t0) * 1000)
                scripts.append((t1 - t0) * 1000)
                parses.append((t2 - t1) * 1000)
                listed = len(reading.elements)
            med = statistics.median(totals)
            inner_med = statistics.median(inner)
            # The element list alone, timed inside the page: as served (no handlers), then with a
            # click listener on the document, as most sites have, which makes the list look for
            # cursor:pointer groups under it (core/tools/js/jawad_clicks.js marks <html>).
            plain = [await _elements_ms(page) for _ in range(runs)]
            await page.run_js("document.addEventListener('click', function () {});", world=0)
            handled = [await _elements_ms(page) for _ in range(runs)]
            result["sizes"][str(size)] = {
                "runs": runs, "read_page_ms": med, "script_ms": statistics.median(scripts),
                "parse_ms": statistics.median(parses), "inner_text_ms": inner_med,
                "ratio": med / max(inner_med, 0.001), "elements_listed": listed,
                "elements_ms": statistics.median(plain), "elements_handled_ms": statistics.median(handled),
            }
        result["max_stall_ms"] = max([0.0, *gaps])
        return 0

    try:
        run_loop(main)
    finally:
        timer.stop()
    print(json.dumps(result), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child(len(sys.argv) > 2 and sys.argv[2] == "quick"))
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
