"""Reference cycles are collected on Qt's main thread, never on the thread that happened to allocate:
undone on another thread, a cycle holding a connected PySide object froze a test process (GIL and
Qt's connection lock taken in opposite orders; ``ui.app.garbage_collection``)."""

from __future__ import annotations

import gc
import threading
from typing import Any

from jawad_desktop.ui.app.application import create_application
from jawad_desktop.ui.app.garbage_collection import MainThreadCollector


class _Cycle:
    collected_on: list[int] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.collected_on.append(threading.get_ident())


def test_cycles_dropped_on_another_thread_are_collected_on_the_main_thread(qapp: Any, qtbot: Any) -> None:
    assert create_application() is qapp and len(qapp.findChildren(MainThreadCollector)) == 1
    assert not gc.isenabled()
    _Cycle.collected_on.clear()

    def drop_cycles() -> None:
        for _ in range(20_000):  # far past the threshold of every generation
            _Cycle()

    worker = threading.Thread(target=drop_cycles)
    worker.start()
    worker.join()
    assert _Cycle.collected_on == [], "a collection ran on the thread that allocated"
    qtbot.waitUntil(lambda: len(_Cycle.collected_on) >= 10_000, timeout=5_000)
    assert set(_Cycle.collected_on) == {threading.main_thread().ident}


def test_the_collector_collects_the_oldest_generation_due(qapp: Any) -> None:
    collector = qapp.findChild(MainThreadCollector)
    gc.collect()
    assert collector.collect_due() == -1
    for _ in range(gc.get_threshold()[0] + 1):
        _Cycle()
    assert collector.collect_due() == 0
