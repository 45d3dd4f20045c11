"""Cold start: process start to main window shown and to web view ready, against a bare
PySide6 window holding a QWebEngineView measured in the same run; idle memory after start: the
main process's RSS and the PSS of the whole process tree (Chromium's helpers included, shared pages
counted once), which is what the app costs the machine. The libraries' share of PSS moves with
whatever else on the machine maps them (other Qt programs, the other runs): the tree's anonymous
PSS (its heaps) is reported beside it, a figure only the app's own work moves.

The app shows its window's frame first and builds the chat, log and browser into it right
after: "window shown" is the frame on screen, "window built" the whole window painted.
Each app run is a user's first start: the ``jawad`` command, no ``--profile``, a new home.
"CPU to window shown" is the CPU time the process had used when its window was on screen
(interpreter start included): on a machine other work keeps busy, it moves far less than the
wall clock, so it says better whether the app's own start grew.

Goal (issue 29): window shown and idle tree PSS each within 1.2x of the baseline.
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import Figure

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _env(home: Path | None = None) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if home is not None:
        # A user's start: no --profile, the platform's folders (platformdirs) under a new home.
        env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
                "XDG_STATE_HOME": str(home / ".local/state")}
    if os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    return env


# Chromium's helper processes of the run before end within about 0.8 s of it: each start is
# measured on a machine they have left.
SETTLE_S = 1.5


def _measure(command: list[str], report: Path, home: Path | None = None) -> dict[str, float]:
    report.unlink(missing_ok=True)
    time.sleep(SETTLE_S)
    start = time.time()
    subprocess.run(command, env=_env(home), check=True, timeout=120,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = json.loads(report.read_text())
    return {
        "shown_ms": (data["shown"] - start) * 1000,
        "shown_cpu_ms": data["shown_cpu_s"] * 1000,
        "built_ms": (data.get("built", data["shown"]) - start) * 1000,
        "web_ready_ms": (data["web_ready"] - start) * 1000,
        "idle_rss_mb": data["idle_rss_kb"] / 1024,
        "idle_pss_mb": data.get("idle_pss_kb", 0) / 1024,
        "idle_anon_mb": data.get("idle_anon_kb", 0) / 1024,
    }


def _jawad_command() -> list[str]:
    """The ``jawad`` command a user runs (the console script), else ``python -m``."""
    script = Path(sys.executable).parent / "jawad"
    return [str(script)] if script.exists() else [sys.executable, "-m", "jawad_desktop"]


def measure_pair(runs: int) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """Alternate app and baseline runs so both see the same machine state."""
    app_runs: list[dict[str, float]] = []
    base_runs: list[dict[str, float]] = []
    # As installed: pip and the bundle run compiled bytecode. Without this, a checkout under
    # PYTHONDONTWRITEBYTECODE would compile every module of the app from source at each start.
    compileall.compile_dir(str(ROOT / "jawad_desktop"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="jawad-bench-") as tmp:
        report = Path(tmp) / "report.json"
        for i in range(runs + 1):  # the first pair warms the disk cache and is dropped
            home = Path(tmp) / f"home{i}"
            home.mkdir()
            app = _measure([*_jawad_command(), "--startup-report", str(report)], report, home)
            base = _measure([sys.executable, str(HERE / "baseline_window.py"), str(report)], report)
            if i:
                app_runs.append(app)
                base_runs.append(base)
    return app_runs, base_runs


def run(quick: bool) -> list[Figure]:
    app_runs, base_runs = measure_pair(2 if quick else 9)

    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    shown, base_shown = med(app_runs, "shown_ms"), med(base_runs, "shown_ms")
    ready, base_ready = med(app_runs, "web_ready_ms"), med(base_runs, "web_ready_ms")
    ratio = shown / base_shown
    pss, base_pss = med(app_runs, "idle_pss_mb"), med(base_runs, "idle_pss_mb")
    pss_ratio = pss / base_pss if base_pss else 0.0
    # Each pair ran back to back on the same machine state: the median of the pairs' ratios is
    # less swayed by the machine's drift over the run than the ratio of the two medians.
    paired = statistics.median(a["shown_ms"] / b["shown_ms"] for a, b in zip(app_runs, base_runs, strict=True))
    cpu, base_cpu = med(app_runs, "shown_cpu_ms"), med(base_runs, "shown_cpu_ms")
    paired_pss = statistics.median(a["idle_pss_mb"] / b["idle_pss_mb"] for a, b in zip(app_runs, base_runs, strict=True)
                                   if b["idle_pss_mb"])
    anon, base_anon = med(app_runs, "idle_anon_mb"), med(base_runs, "idle_anon_mb")
    return [
        Figure("startup: app to window shown (median)", shown, "ms"),
        Figure("startup: baseline to window shown (median)", base_shown, "ms"),
        Figure("startup: window shown, app / baseline", ratio, "x", goal="<= 1.2x", ok=ratio <= 1.2),
        Figure("startup: window shown, median of paired ratios", paired, "x"),
        Figure("startup: app CPU to window shown (median)", cpu, "ms"),
        Figure("startup: baseline CPU to window shown (median)", base_cpu, "ms"),
        Figure("startup: CPU to window shown, app / baseline", cpu / base_cpu, "x"),
        Figure("startup: app to window built and painted (median)", med(app_runs, "built_ms"), "ms"),
        Figure("startup: app to web view ready (median)", ready, "ms"),
        Figure("startup: baseline to web view ready (median)", base_ready, "ms"),
        Figure("startup: web view ready, app / baseline", ready / base_ready, "x"),
        Figure("startup: app idle RSS", med(app_runs, "idle_rss_mb"), "MB"),
        Figure("startup: baseline idle RSS", med(base_runs, "idle_rss_mb"), "MB"),
        Figure("startup: app idle PSS, process tree", pss, "MB"),
        Figure("startup: baseline idle PSS, process tree", base_pss, "MB"),
        Figure("startup: idle PSS, app / baseline", pss_ratio, "x", goal="<= 1.2x", ok=0 < pss_ratio <= 1.2),
        Figure("startup: idle PSS, median of paired ratios", paired_pss, "x"),
        Figure("startup: app idle anonymous PSS, process tree", anon, "MB"),
        Figure("startup: baseline idle anonymous PSS, process tree", base_anon, "MB"),
        Figure("startup: idle anonymous PSS, app / baseline", anon / base_anon if base_anon else 0.0, "x"),
    ]
