"""The page cache (spec 001): recent page snapshots, kept for context injection.

Snapshots live in the ``page_cache`` table of the app's SQLite database (``database.py``,
migration 2), one row per URL (the #fragment dropped), bounded to ``max_entries`` rows and
each text capped, oldest evicted first. The browser tools use two calls: ``cache_page_snapshot``
after reading a page and ``get_last_product_context`` to compare with the previous product;
database work runs in a worker thread so the window never waits on the disk.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urldefrag

from jawad_desktop.core.store.database import Database

log = logging.getLogger("jawad.store.page_cache")
T = TypeVar("T")

MAX_ENTRIES = 50

# One worker for the database calls, independent of the loop's default executor (qasync's
# QThread pool aborts the process when its threads outlive the loop).
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-page-cache")


async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(_WORKER, functools.partial(fn, *args, **kwargs))
MAX_MARKDOWN_CHARS = 12_000
MAX_ELEMENTS_CHARS = 8_000


@dataclass(slots=True)
class CachedPageSnapshot:
    """One page as it was read (spec 001 CachedPageSnapshot)."""

    url: str
    title: str = ""
    markdown: str = ""
    product: dict[str, Any] | None = None
    interactive_elements: str = ""
    timestamp: int = field(default_factory=lambda: int(time.time() * 1000))


def _key(url: str) -> str:
    return urldefrag(url.strip())[0]


def _row(row: sqlite3.Row) -> CachedPageSnapshot:
    product: dict[str, Any] | None = None
    if row["product"]:
        try:
            loaded = json.loads(row["product"])
            product = loaded if isinstance(loaded, dict) else None
        except ValueError:
            product = None
    return CachedPageSnapshot(url=row["url"], title=row["title"], markdown=row["markdown"], product=product,
                              interactive_elements=row["elements"], timestamp=int(row["timestamp"]))


class PageCache:
    """Recent page snapshots in the database, bounded in rows and in size."""

    def __init__(self, db: Database, *, max_entries: int = MAX_ENTRIES, owns_db: bool = False) -> None:
        self.db = db
        self.max_entries = max_entries
        self._owns_db = owns_db

    @classmethod
    def open(cls, data_dir: Path, *, max_entries: int = MAX_ENTRIES) -> PageCache:
        """The cache in the app's database in ``data_dir`` (``ctx.paths.data``)."""
        return cls(Database.in_folder(data_dir), max_entries=max_entries, owns_db=True)

    def close(self) -> None:
        if self._owns_db:
            self.db.close()

    # -- synchronous core ----------------------------------------------------------------------

    def put(self, snapshot: CachedPageSnapshot) -> None:
        product = json.dumps(snapshot.product, ensure_ascii=False) if snapshot.product else ""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO page_cache (url, title, markdown, product, elements, timestamp) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (_key(snapshot.url), snapshot.title[:500], snapshot.markdown[:MAX_MARKDOWN_CHARS], product,
                 snapshot.interactive_elements[:MAX_ELEMENTS_CHARS], int(snapshot.timestamp)),
            )
            conn.execute(
                "DELETE FROM page_cache WHERE url NOT IN "
                "(SELECT url FROM page_cache ORDER BY timestamp DESC, rowid DESC LIMIT ?)",
                (self.max_entries,),
            )

    def last_product(self, *, exclude_url: str = "") -> dict[str, Any] | None:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM page_cache WHERE product != '' ORDER BY timestamp DESC, rowid DESC LIMIT 5"
            ).fetchall()
        for row in rows:
            if exclude_url and row["url"] == _key(exclude_url):
                continue
            snap = _row(row)
            if snap.product:
                return {**snap.product, "url": snap.url, "title": snap.title}
        return None

    # -- spec 001 API (async) -------------------------------------------------------------------

    async def cache_page_snapshot(self, snapshot: CachedPageSnapshot) -> None:
        try:
            await _run(self.put, snapshot)
        except sqlite3.Error as exc:  # a cache that cannot write must not fail the page read
            log.warning("could not cache %s: %s", snapshot.url, exc)

    async def get_last_product_context(self, *, exclude_url: str = "") -> dict[str, Any] | None:
        """The product of the most recent page that had one (its url and title added)."""
        return await _run(self.last_product, exclude_url=exclude_url)
