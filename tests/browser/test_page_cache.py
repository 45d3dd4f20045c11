"""The page cache: what the browser tools store and read back, persisted and bounded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.store.page_cache import MAX_MARKDOWN_CHARS, CachedPageSnapshot, PageCache


def _snap(n: int, *, product: bool = False, ts: int | None = None) -> CachedPageSnapshot:
    return CachedPageSnapshot(url=f"https://shop.test/p/{n}#reviews", title=f"Product {n}", markdown="x" * 20_000,
                              product={"name": f"P{n}", "price": f"{n}.00"} if product else None,
                              interactive_elements=f"[1] BUTTON \"Buy {n}\" -> #b", timestamp=ts or 1000 + n)


def cached_titles(cache: PageCache) -> list[str]:
    """The titles the cache holds, newest first, read from its table (the app never lists them)."""
    with cache.db.read() as conn:
        rows = conn.execute("SELECT title FROM page_cache ORDER BY timestamp DESC, rowid DESC").fetchall()
    return [row["title"] for row in rows]


def test_round_trip_and_persistence(tmp_path: Path, arun: Callable[..., Any]) -> None:
    cache = PageCache.open(tmp_path)
    arun(cache.cache_page_snapshot(_snap(1, product=True)))
    arun(cache.cache_page_snapshot(_snap(2)))
    with cache.db.read() as conn:
        row = conn.execute("SELECT url, markdown FROM page_cache WHERE title = 'Product 1'").fetchone()
    assert row["url"] == "https://shop.test/p/1"  # stored without its #fragment
    assert len(row["markdown"]) == MAX_MARKDOWN_CHARS  # each text is capped
    last = arun(cache.get_last_product_context())
    assert last == {"name": "P1", "price": "1.00", "url": "https://shop.test/p/1", "title": "Product 1"}
    assert arun(cache.get_last_product_context(exclude_url="https://shop.test/p/1#specs")) is None
    cache.close()
    again = PageCache.open(tmp_path)  # persisted in jawad.db
    assert cached_titles(again) == ["Product 2", "Product 1"]
    assert arun(again.get_last_product_context()) == last
    again.close()


def test_bounded_oldest_evicted_and_revisit_refreshes(tmp_path: Path, arun: Callable[..., Any]) -> None:
    cache = PageCache.open(tmp_path, max_entries=5)
    for n in range(8):
        arun(cache.cache_page_snapshot(_snap(n)))
    assert cached_titles(cache) == [f"Product {n}" for n in (7, 6, 5, 4, 3)]
    arun(cache.cache_page_snapshot(_snap(3, ts=5000)))  # visited again: one row, now the newest
    assert cached_titles(cache) == ["Product 3", "Product 7", "Product 6", "Product 5", "Product 4"]
    cache.close()
