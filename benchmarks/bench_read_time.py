"""How long the model waits to read a heavy page: ``navigate`` then ``read_page``, timed together, on
product pages whose HTML comes at once and whose images, scripts and advert iframe come seconds later
(one page in five also has an image that never comes), served on 127.0.0.1 by
``tests/servers/slow_pages.py``.

A read waits for DOMContentLoaded and a short quiet period (``browser/driver.py``), not for the load
event; for comparison, the load event of the same pages is timed too (what a read waited for before),
up to the 30 s after which ``navigate`` stopped a load (a page whose image never comes never fires it).
Each read must have the page's content (its heading, price and description) to count.

The measurement runs in a child process (offscreen Qt, one qasync loop run once, PLATFORM.md).
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

from benchmarks import Figure

ROOT = Path(__file__).resolve().parent.parent
PAGES, QUICK_PAGES = 20, 6
HANG_EVERY = 5  # every fifth page has an image that never comes
LOAD_CAP_S = 30.0  # navigate's timeout: before, a load still running then was stopped and read
GOAL_MEDIAN_MS = 1500.0
GOAL_P95_MS = 3000.0


def p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)] if ordered else 0.0


def run(quick: bool) -> list[Figure]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_read_time", "--child", "quick" if quick else "full"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False,
    )
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"the read-time benchmark failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    data: dict[str, Any] = json.loads(line)
    reads: list[float] = data["read_ms"]
    loads: list[float] = data["load_ms"]
    failed: list[str] = data["failed"]
    n = len(reads) + len(failed)
    note = f"{len(failed)} of {n} reads failed or missed content: {', '.join(failed)[:200]}" if failed else \
        f"{n} pages, {data['hung']} with an image that never comes"
    read_median, read_p95 = statistics.median(reads) if reads else float("nan"), p95(reads)
    return [
        Figure(name=f"heavy page: navigate + read_page, median ({n} pages)", value=read_median, unit="ms",
               goal=f"<= {GOAL_MEDIAN_MS:.0f} ms", ok=not failed and read_median <= GOAL_MEDIAN_MS, note=note),
        Figure(name=f"heavy page: navigate + read_page, p95 ({n} pages)", value=read_p95, unit="ms",
               goal=f"<= {GOAL_P95_MS:.0f} ms", ok=not failed and read_p95 <= GOAL_P95_MS),
        Figure(name="heavy page: load event, median (what a read waited for before)",
               value=statistics.median(loads) if loads else float("nan"), unit="ms",
               note=f"capped at {LOAD_CAP_S:.0f} s, when navigate stopped a load"),
        Figure(name="heavy page: load event, p95", value=p95(loads), unit="ms"),
    ]


def _child(quick: bool) -> int:
    from jawad_desktop.ui.app.application import create_application, end_process, run_loop

    create_application(headless=True)
    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page
    from jawad_desktop.core.tools.page import PageError
    from tests.servers.slow_pages import SlowPageServer

    server = SlowPageServer().start()
    page = offscreen_page(None, private=True)
    result: dict[str, Any] = {"read_ms": [], "load_ms": [], "failed": [], "hung": 0}

    async def main() -> int:
        await page.navigate(f"{server.base_url}/page/late-content?warm-up")  # the parsers and the library
        await read_page(page)
        for seed in range(QUICK_PAGES if quick else PAGES):
            hang = seed % HANG_EVERY == HANG_EVERY - 1
            result["hung"] += hang
            url = f"{server.base_url}/page/heavy?seed={seed}&hang={int(hang)}"
            started = time.perf_counter()
            try:
                try:
                    await page.navigate(url, timeout=LOAD_CAP_S)
                except PageError as exc:
                    if exc.code != "timeout":
                        raise
                reading = await read_page(page)
            except PageError as exc:
                result["failed"].append(f"seed {seed}: {exc.message}")
                continue
            read_ms = (time.perf_counter() - started) * 1000
            wanted = ("Alpine Trek 40 backpack", "$149.00", "hip belt carries most of the weight")
            if not all(w in reading.markdown or w in reading.text for w in wanted):
                result["failed"].append(f"seed {seed}: content missing")
                continue
            result["read_ms"].append(read_ms)
            finished = await page.wait_until_loaded(max(0.1, LOAD_CAP_S - (time.perf_counter() - started)))
            result["load_ms"].append((time.perf_counter() - started) * 1000 if finished else LOAD_CAP_S * 1000)
        return 0

    try:
        run_loop(main)
    finally:
        server.stop()
    print(json.dumps(result), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        sys.exit(_child(len(sys.argv) > 2 and sys.argv[2] == "quick"))
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
