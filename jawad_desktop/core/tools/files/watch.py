"""The document library kept up to date while the app runs: a watcher of its folders and files.

Owns ``LibraryWatcher``, an asyncio task the app starts (``Assistant.watch_library``; it imports
nothing of Qt): the library's sources are watched with ``watchfiles`` (inotify, FSEvents,
ReadDirectoryChangesW) and, once the watch runs, a scan compares every file's time and size with
the index (what changed while the app was closed; scanning before the watch began would miss a
file saved in between), and what changed, was added or removed is given to
``DocumentLibrary.update_paths`` a moment after the changes settle. When the user adds or removes
a source, the watch starts again on the new list within a second. What was indexed is announced
on the bus by the library (``LibraryProgress``), which the window's Documents page observes.

A source that cannot be watched (gone, no permission, too many watches) is logged; a scan at the
next search (``DocumentLibrary.refresh``) still sees its changes.

The watch itself (``watchfiles.watch``, blocking in Rust) runs in a daemon thread of its own that
hands each batch of changes to the loop; stopping sets its stop event, and it ends within
``CHECK_MS``. (``watchfiles.awatch`` would run it in AnyIO's worker thread, which is not a daemon
and is only let go when AnyIO's root task ends: under qasync that is never, so the process could
not exit.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.tools.files.library import DocumentLibrary

log = logging.getLogger("jawad.files.watch")

__all__ = ["LibraryWatcher"]

DEBOUNCE_MS = 300  # changes that come together (an editor's save) are one update
CHECK_MS = 1000  # how often the list of sources is looked at again


class LibraryWatcher:
    """Watches ``library``'s sources; ``await run()`` until cancelled."""

    def __init__(self, library: DocumentLibrary, *, scan_first: bool = True, debounce_ms: int = DEBOUNCE_MS,
                 force_polling: bool | None = None) -> None:
        self.library = library
        self.scan_first = scan_first
        self.debounce_ms = debounce_ms
        self.force_polling = force_polling
        self.watching: tuple[str, ...] = ()  # the roots watched now (for tests and the log)
        self.ready = asyncio.Event()  # set once the watch of the current sources runs (cleared while it restarts)

    async def run(self) -> None:
        scan = self.scan_first
        while True:
            sources = tuple(self.library.sources)
            roots = tuple(s for s in sources if Path(s).exists())
            if not roots:
                if scan:
                    await self._scan()
                self.watching = ()
                self.ready.set()
                while tuple(self.library.sources) == sources:
                    await asyncio.sleep(CHECK_MS / 1000)
                scan = True
                continue
            await self._watch(sources, roots, scan=scan)
            # The sources changed: what the new list holds is indexed by whoever changed it (the
            # Documents page, `jawad docs add`); the scan once the next watch runs catches the rest.
            scan = True

    async def _watch(self, sources: tuple[str, ...], roots: tuple[str, ...], *, scan: bool) -> None:
        """Watch ``roots`` until the sources change. ``scan``: once the watch runs, compare every
        file with the index: a file written before the watch began is found by the scan, one
        written after by the watch (scanning first would miss what changed in between)."""
        self.ready.clear()
        self.watching = roots
        log.info("watching %d library sources", len(roots))
        stop = threading.Event()
        batches: asyncio.Queue[set[str] | BaseException | None] = asyncio.Queue()
        thread = threading.Thread(target=self._watch_in_thread, args=(roots, stop, batches, asyncio.get_running_loop()),
                                  name="jawad-library-watch", daemon=True)
        thread.start()
        try:
            while (batch := await batches.get()) is not None:
                if isinstance(batch, BaseException):
                    raise batch
                if scan:  # the first round (changes or a second without): the watch runs
                    scan = False
                    await self._scan()
                    batch = set()  # the scan saw them
                self.ready.set()
                if tuple(self.library.sources) != sources:
                    break
                if batch:
                    await self._update(batch)
        except (OSError, RuntimeError) as exc:  # a root that went away, no more inotify watches
            log.warning("the library's folders could not be watched (%s); they are scanned at each search", exc)
            self.watching = ()
            if scan:
                await self._scan()
            while tuple(self.library.sources) == sources:
                await asyncio.sleep(CHECK_MS / 1000)
        finally:
            stop.set()  # the thread ends at its next round (within CHECK_MS)

    def _watch_in_thread(self, roots: tuple[str, ...], stop: threading.Event,
                         batches: asyncio.Queue[set[str] | BaseException | None],
                         loop: asyncio.AbstractEventLoop) -> None:
        """The watch thread: each round's changed paths (empty after a quiet second) go to the loop."""

        def hand(item: set[str] | BaseException | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting any more
                loop.call_soon_threadsafe(batches.put_nowait, item)

        from watchfiles import watch  # with the first folder watched, not with the app

        try:
            for changes in watch(*roots, debounce=self.debounce_ms, step=50, stop_event=stop,
                                 rust_timeout=CHECK_MS, yield_on_timeout=True, ignore_permission_denied=True,
                                 force_polling=self.force_polling, raise_interrupt=False):
                hand({path for _, path in changes})
        except Exception as exc:  # raised on the loop's side
            hand(exc)
        else:
            hand(None)

    async def _scan(self) -> None:
        try:
            await self.library.reindex()
        except JawadError as exc:
            log.warning("the library scan failed: %s", exc.message)

    async def _update(self, paths: set[str]) -> None:
        try:
            await self.library.update_paths(paths)
        except JawadError as exc:
            log.warning("the library update failed: %s", exc.message)
