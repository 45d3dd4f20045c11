"""Python's collection of reference cycles on Qt's main thread only, in a process running Qt.

Python collects cycles on whichever thread allocates when a generation's count passes its threshold.
A cycle holding a PySide object whose signal is connected is then undone on that thread: PySide
disconnects it (a weak reference's callback) and, inside Qt's ``disconnect``, holding the sender's
connection lock, waits for the GIL to look for a Python ``disconnectNotify``; the main thread, holding
the GIL, waits for that lock to connect a signal, and neither moves. Seen in the test suite (PySide
6.11): a process frozen in ``QPushButton()`` on the main thread while a worker thread's ``os.stat``
had started a collection; no timeout can end it, the GIL being held. ``MainThreadCollector`` turns
automatic collection off and collects on the main thread, from a timer, each generation when its
count has passed the threshold Python would use.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

CHECK_MS = 500  # how often the main thread looks at the counts (twice a second: an idle app barely wakes)
# A whole collection at most this often: Python holds them back while few objects have survived since
# the last (its long-lived rule), which this cannot see; a whole collection of the idle app's heap
# takes tens of milliseconds.
FULL_EVERY_S = 10.0


class MainThreadCollector(QObject):
    """Automatic collection off while it lives; ``collect_due`` (its timer's slot) collects the oldest
    generation whose count passed its threshold, as Python would have at an allocation."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        self._last_full = time.monotonic()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()

    def collect_due(self) -> int:
        """Collect what is due; the generation collected, or -1 for none."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] <= self._threshold[generation]:
                continue
            if generation == 2:
                if time.monotonic() - self._last_full < FULL_EVERY_S:
                    continue
                self._last_full = time.monotonic()
            gc.collect(generation)
            return generation
        return -1


def collect_on_the_main_thread(app: QObject) -> MainThreadCollector:
    """The application's collector, made once."""
    existing = app.findChild(MainThreadCollector)
    return existing if isinstance(existing, MainThreadCollector) else MainThreadCollector(app)
