"""The document library kept up to date while the app runs: a watcher of its folders and files.

Owns ``LibraryWatcher``, an asyncio task the app starts (``Assistant.watch_library``; it imports
nothing of Qt): first a scan that compares every file's time and size with the index (what changed
while the app was closed), then the library's sources are watched with ``watchfiles`` (inotify,
FSEvents, ReadDirectoryChangesW), and what changed, was added or removed is given to
``DocumentLibrary.update_paths`` a moment after the changes settle. When the user adds or removes
a source, the watch starts again on the new list within a second. What was indexed is announced
on the bus by the library (``LibraryProgress``), which the window's Documents page observes.

A source that cannot be watched (gone, no permission, too many watches) is logged; a scan at the
next search (``DocumentLibrary.refresh``) still sees its changes.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from watchfiles import awatch

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
        if self.scan_first and self.library.sources:
            await self._scan()
        while True:
            sources = tuple(self.library.sources)
            roots = tuple(s for s in sources if Path(s).exists())
            if not roots:
                self.watching = ()
                self.ready.set()
                while tuple(self.library.sources) == sources:
                    await asyncio.sleep(CHECK_MS / 1000)
                await self._scan()
                continue
            await self._watch(sources, roots)

    async def _watch(self, sources: tuple[str, ...], roots: tuple[str, ...]) -> None:
        self.ready.clear()
        self.watching = roots
        log.info("watching %d library sources", len(roots))
        stop = asyncio.Event()
        try:
            changes_seen = awatch(*roots, debounce=self.debounce_ms, step=50, stop_event=stop,
                                  rust_timeout=CHECK_MS, yield_on_timeout=True, ignore_permission_denied=True,
                                  force_polling=self.force_polling)
            async for changes in changes_seen:
                self.ready.set()  # the first round (changes or a second without) means the watch runs
                if tuple(self.library.sources) != sources:
                    stop.set()
                    break
                if changes:
                    await self._update({path for _, path in changes})
        except (OSError, RuntimeError) as exc:  # a root that went away, no more inotify watches
            log.warning("the library's folders could not be watched (%s); they are scanned at each search", exc)
            self.watching = ()
            while tuple(self.library.sources) == sources:
                await asyncio.sleep(CHECK_MS / 1000)
        # The sources changed: what the new list holds is indexed by whoever changed it (the
        # Documents page, `jawad docs add`); a scan here catches what nobody indexed.
        await self._scan()

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
