"""The document library kept up to date while the app runs (``core.tools.files.watch``), on real
files: a file edited, added in a new folder or deleted is found (or no longer found) by search
within a few seconds, with no scan asked for; a source added while watching is watched too; what
changed while nothing watched is seen by the scan at start; and the window's assistant starts it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.tools.files.library import DocumentLibrary
from jawad_desktop.core.tools.files.watch import LibraryWatcher

SOON_S = 5.0


async def _until(check: Callable[[], Any], what: str) -> None:
    deadline = time.monotonic() + SOON_S
    while not await check():
        assert time.monotonic() < deadline, f"not within {SOON_S} s: {what}"
        await asyncio.sleep(0.05)


def test_edits_additions_and_deletions_are_found_within_seconds(tmp_path: Path, arun: Any) -> None:
    async def main() -> None:
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "boiler.md").write_text("The boiler is serviced every October.\n")
        (docs / "gone.md").write_text("Written while nothing watched: a zeppelin.\n")
        bus = ev.EventBus()
        progress: list[ev.LibraryProgress] = []
        bus.subscribe(lambda e: progress.append(e) if isinstance(e, ev.LibraryProgress) else None)
        library = DocumentLibrary.open(tmp_path / "config", tmp_path / "data", bus=bus)
        library.add(docs)

        async def found(words: str) -> list[str]:
            return [hit.citation() for hit in await library.search(words, 5)]

        watcher = LibraryWatcher(library)
        task = asyncio.create_task(watcher.run())
        try:
            await asyncio.wait_for(watcher.ready.wait(), 10)
            assert await found("zeppelin") == ["gone.md"]  # the scan at start
            assert watcher.watching == (str(docs.resolve()),)

            (docs / "boiler.md").write_text("The kettle needs descaling in May.\n")
            await _until(lambda: found("kettle"), "the edited file's new words")
            assert await found("boiler") == []  # its old words went with it
            (docs / "sub").mkdir()
            (docs / "sub" / "hangar.txt").write_text("The hangar door sticks.\n")
            await _until(lambda: found("hangar"), "a file added in a new folder")
            assert await found("hangar") == ["hangar.txt"]
            (docs / "gone.md").unlink()

            async def zeppelin_gone() -> bool:
                return not await found("zeppelin")

            await _until(zeppelin_gone, "a deleted file's pages leave the index")
            assert progress and progress[-1].finished and "1 removed" in progress[-1].summary

            other = tmp_path / "other"
            other.mkdir()
            library.add(other)  # a source added while watching is watched as well

            async def watching_both() -> bool:
                return watcher.ready.is_set() and len(watcher.watching) == 2

            await _until(watching_both, "the new source watched")
            (other / "walrus.md").write_text("A walrus on the beach.\n")
            await _until(lambda: found("walrus"), "a file in the new source")
        finally:
            task.cancel()
            await asyncio.wait({task})
            await library.aclose()

    arun(main(), timeout=120)


def test_a_file_written_as_the_first_scan_ends_is_not_missed(tmp_path: Path, arun: Any) -> None:
    # The window starts the watch with the library already listed: a file saved just as the scan at
    # start finishes must still be found (a scan before the watch began would miss it for good).
    async def main() -> None:
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "first.md").write_text("Indexed by the scan at start.\n")
        bus = ev.EventBus()

        def save_when_the_scan_ends(event: ev.Event) -> None:
            if isinstance(event, ev.LibraryProgress) and event.finished and not (docs / "late.md").exists():
                (docs / "late.md").write_text("Saved as the scan ended: a narwhal.\n")

        bus.subscribe(save_when_the_scan_ends)
        library = DocumentLibrary.open(tmp_path / "config", tmp_path / "data", bus=bus)
        library.add(docs)
        watcher = LibraryWatcher(library)
        task = asyncio.create_task(watcher.run())
        try:
            await _until(lambda: library.search("narwhal", 5), "the file saved as the first scan ended")
        finally:
            task.cancel()
            await asyncio.wait({task})
            await library.aclose()

    arun(main(), timeout=60)


_WATCH_THEN_EXIT = """
import asyncio, concurrent.futures, sys
from pathlib import Path
import qasync
from PySide6.QtCore import QCoreApplication, QEventLoop
from jawad_desktop.core.tools.files.library import DocumentLibrary
from jawad_desktop.core.tools.files.watch import LibraryWatcher

app = QCoreApplication([])
loop = qasync.QEventLoop(app, already_running=True)  # as the window runs it: inside Qt's event processing
loop.set_default_executor(concurrent.futures.ThreadPoolExecutor())  # as ui.app.application does
asyncio.set_event_loop(loop)
root = Path(sys.argv[1])
library = DocumentLibrary.open(root / "config", root / "data")
library.add(root / "docs")
watcher = LibraryWatcher(library)
task = loop.create_task(watcher.run())
ready = loop.create_task(watcher.ready.wait())
while not ready.done():
    app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
print("watched", flush=True)  # and the process ends with the watch still on, as after a crash or a quick quit
"""


def test_a_process_that_watches_the_library_can_exit(tmp_path: Path) -> None:
    # A thread of the watch that is not a daemon would keep the app from exiting (as AnyIO's worker
    # under watchfiles.awatch did, the whole test session hanging after its last test).
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("A note.\n")
    try:
        done = subprocess.run([sys.executable, "-c", _WATCH_THEN_EXIT, str(tmp_path)], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                              check=False)
    except subprocess.TimeoutExpired:
        raise AssertionError("the process did not exit while its library watch ran") from None
    assert done.returncode == 0 and done.stdout.strip() == "watched", done.stderr[-2000:]
