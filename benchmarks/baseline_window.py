"""The baseline for start-up: a bare PySide6 window holding a QWebEngineView, nothing else.

Run as a script by bench_startup: ``python baseline_window.py REPORT_FILE``. It writes the
same report as ``jawad --startup-report`` (wall-clock shown / web_ready, the CPU time used when
shown, idle RSS, and the idle PSS of the process tree, all of it and its anonymous part).
"""

from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QMainWindow


def _load_procmem() -> object:
    """jawad_desktop/core/procmem.py by its path: the baseline imports nothing else of the app."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "jawad_desktop" / "core" / "procmem.py"
    spec = importlib.util.spec_from_file_location("procmem", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tree_pss_kb = _load_procmem().tree_pss_kb  # type: ignore[attr-defined]


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main() -> None:
    report_file = sys.argv[1]
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    view = QWebEngineView(window)
    window.setCentralWidget(view)
    window.resize(1280, 800)
    report: dict[str, float] = {}

    def ready(_ok: bool) -> None:
        report["web_ready"] = time.time()
        QTimer.singleShot(2000, finish)

    def finish() -> None:
        report["idle_rss_kb"] = rss_kb()
        report["idle_pss_kb"] = tree_pss_kb()
        report["idle_anon_kb"] = tree_pss_kb(part="Pss_Anon")
        with open(report_file, "w", encoding="utf-8") as fh:
            json.dump(report, fh)
        sys.stdout.flush()
        os._exit(0)

    view.loadFinished.connect(ready)
    window.show()
    app.processEvents()
    report["shown"], report["shown_cpu_s"] = time.time(), time.process_time()
    view.setHtml("<html><body><h1>baseline</h1></body></html>", QUrl("about:blank"))
    app.exec()


if __name__ == "__main__":
    main()
