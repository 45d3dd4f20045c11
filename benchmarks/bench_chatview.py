"""The chat view with long conversations (issue 7): open 5,000 messages to first paint,
cost of one streamed update, memory held for 5,000 messages.

Goals: first paint <= 300 ms; <= 5 ms per streamed update appended.
"""

from __future__ import annotations

import gc
import os
import statistics
import time
import tracemalloc

from benchmarks import Figure

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def sample_messages(n: int) -> list[tuple[str, str]]:
    """A realistic mix: short questions, long answers with markdown, code and lists."""
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append(("user", f"Question {i}: can you compare the prices of product {i} across shops?"))
        else:
            body = (
                f"Here is what I found for **product {i}**:\n\n"
                "- Shop A: $19.99 (in stock)\n- Shop B: $21.50\n- Shop C: $18.75 (2 days)\n\n"
                "```python\nprices = {'A': 19.99, 'B': 21.5, 'C': 18.75}\nprint(min(prices, key=prices.get))\n```\n\n"
                + "The cheapest is Shop C. " * (1 + i % 7)
            )
            out.append(("assistant", body))
    return out


def run(quick: bool) -> list[Figure]:
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    from jawad_desktop.ui.app import qt_env

    qt_env.prepare(headless=True)
    app = QApplication.instance() or QApplication([])
    from jawad_desktop.ui.chat.chat_model import ChatItem
    from jawad_desktop.ui.chat.chat_view import ChatPanel

    class PaintSpy(QObject):
        painted = 0.0

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and not self.painted:
                self.painted = time.perf_counter()
            return False

    messages = sample_messages(5000)
    opens: list[float] = []
    for _ in range(2 if quick else 5):
        panel = ChatPanel()
        panel.resize(700, 900)
        panel.show()
        app.processEvents()
        spy = PaintSpy()
        panel.view.viewport().installEventFilter(spy)
        start = time.perf_counter()
        panel.view.chat_model.extend([ChatItem(role=r, text=t) for r, t in messages])
        panel.view.scrollToBottom()
        deadline = time.perf_counter() + 10
        while not spy.painted and time.perf_counter() < deadline:
            app.processEvents()
        opens.append((spy.painted - start) * 1000)
        panel.close()
        panel.deleteLater()
        app.processEvents()

    # Streamed updates: append a token to the last row and let the view repaint each time.
    panel = ChatPanel()
    panel.resize(700, 900)
    panel.show()
    panel.view.chat_model.extend([ChatItem(role=r, text=t) for r, t in messages])
    app.processEvents()
    answer = panel.add_message("assistant", "", streaming=True)
    app.processEvents()
    costs: list[float] = []
    for i in range(150 if quick else 600):
        t0 = time.perf_counter()
        panel.view.chat_model.append_text(answer, f"token{i} ")
        panel.view.chat_model.flush()  # worst case: every delta flushed at once (no coalescing)
        app.processEvents()
        costs.append((time.perf_counter() - t0) * 1000)
    costs.sort()
    p50 = statistics.median(costs)
    p95 = costs[int(len(costs) * 0.95)]
    panel.close()
    panel.deleteLater()
    app.processEvents()

    gc.collect()
    tracemalloc.start()
    panel = ChatPanel()
    panel.view.chat_model.extend([ChatItem(role=r, text=t) for r, t in messages])
    panel.resize(700, 900)
    panel.show()
    app.processEvents()
    current, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    panel.close()

    first_paint = statistics.median(opens)
    return [
        Figure("chat view: open 5,000 messages to first paint (median)", first_paint, "ms",
               goal="<= 300 ms", ok=first_paint <= 300),
        Figure("chat view: streamed update, median", p50, "ms", goal="<= 5 ms", ok=p50 <= 5),
        Figure("chat view: streamed update, p95", p95, "ms", note="each delta flushed and repainted at once"),
        Figure("chat view: Python memory for 5,000 messages", current / 1e6, "MB",
               note="model, cached documents and sizes (tracemalloc)"),
    ]
