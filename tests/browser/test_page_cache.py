"""The page cache: spec 001's API on the app's SQLite database, persisted and bounded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.store.page_cache import MAX_MARKDOWN_CHARS, CachedPageSnapshot, PageCache


def _snap(n: int, *, product: bool = False, ts: int | None = None) -> CachedPageSnapshot:
    return CachedPageSnapshot(url=f"https://shop.test/p/{n}#reviews", title=f"Product {n}", markdown="x" * 20_000,
                              product={"name": f"P{n}", "price": f"{n}.00"} if product else None,
                              interactive_elements=f"[1] BUTTON \"Buy {n}\" -> #b", timestamp=ts or 1000 + n)


def test_spec_api_round_trip_and_persistence(tmp_path: Path, arun: Callable[..., Any]) -> None:
    cache = PageCache.open(tmp_path)
    arun(cache.cache_page_snapshot(_snap(1, product=True)))
    arun(cache.cache_page_snapshot(_snap(2)))
    got = arun(cache.get_cached_snapshot("https://shop.test/p/1"))  # the #fragment does not matter
    assert got is not None and got.title == "Product 1" and got.product == {"name": "P1", "price": "1.00"}
    assert len(got.markdown) == MAX_MARKDOWN_CHARS  # each text is capped
    assert arun(cache.get_cached_snapshot()).title == "Product 2"  # no url: the latest
    assert arun(cache.get_cached_snapshot("https://other.test/")) is None
    last = arun(cache.get_last_product_context())
    assert last == {"name": "P1", "price": "1.00", "url": "https://shop.test/p/1", "title": "Product 1"}
    assert arun(cache.get_last_product_context(exclude_url="https://shop.test/p/1")) is None
    cache.close()
    again = PageCache.open(tmp_path)  # persisted in jawad.db
    assert [s.title for s in arun(again.get_recent_snapshots(10))] == ["Product 2", "Product 1"]
    again.close()


def test_bounded_oldest_evicted_and_revisit_refreshes(tmp_path: Path, arun: Callable[..., Any]) -> None:
    cache = PageCache.open(tmp_path, max_entries=5)
    for n in range(8):
        arun(cache.cache_page_snapshot(_snap(n)))
    assert [s.title for s in arun(cache.get_recent_snapshots(10))] == [f"Product {n}" for n in (7, 6, 5, 4, 3)]
    arun(cache.cache_page_snapshot(_snap(3, ts=5000)))  # visited again: one row, now the newest
    assert [s.title for s in arun(cache.get_recent_snapshots(2))] == ["Product 3", "Product 7"]
    assert len(arun(cache.get_recent_snapshots(100))) == 5
    cache.clear()
    assert arun(cache.get_recent_snapshots()) == []
    cache.close()
