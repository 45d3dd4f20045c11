"""The document library on real files: indexed into SQLite FTS5, re-indexed on change, searched with
file and page; its progress on the bus, its indexing stopped by cancelling; ``jawad docs`` and the
``search_documents`` tool as a user and the model use them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.tools.files.library import DocumentLibrary
from tests.files.samples import make_pdf, make_sample, planted
from tests.servers.reader_model import ReaderModel
from tests.servers.scripted_model import call


def _library(tmp_path: Path, bus: ev.EventBus | None = None) -> DocumentLibrary:
    return DocumentLibrary.open(tmp_path / "config", tmp_path / "data", bus=bus)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "deeper").mkdir(parents=True)
    (docs / ".hidden").mkdir()
    make_pdf(docs / "handbook.pdf", ["Welcome to the handbook.", "Holidays: 25 days.",
                                     "Expense claims need a receipt within thirty days."])
    (docs / "deeper" / "notes.md").write_text("# Notes\n\nThe boiler is serviced every October.\n")
    (docs / ".hidden" / "secret.md").write_text("The boiler key is under the mat.\n")
    make_sample(docs, "docx")
    (docs / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # pictures are not indexed
    return docs


def test_index_search_and_cite_pages(tmp_path: Path, arun: Any) -> None:
    async def main() -> None:
        bus = ev.EventBus()
        seen: list[ev.LibraryProgress] = []
        bus.subscribe(lambda e: seen.append(e) if isinstance(e, ev.LibraryProgress) else None)
        library = _library(tmp_path, bus)
        library.add(_docs(tmp_path))
        report = await library.reindex()
        assert (report.added, report.updated, report.removed, report.failed) == (3, 0, 0, [])
        assert seen[-1].finished and "3 added" in seen[-1].summary and not seen[-1].cancelled
        hits = await library.search("expense receipts", 5)
        assert [h.citation() for h in hits] == ["handbook.pdf, page 3"]
        assert "Expense claims need a receipt within thirty days." in hits[0].snippet
        assert [h.citation() for h in await library.search("boiler", 5)] == ["notes.md"]  # the hidden one is not
        assert (await library.search(planted("docx").lower(), 5))[0].citation() == "sample.docx"
        # Any of the words, when no page has them all: the best page first.
        hits = await library.search("holidays spaceship", 5)
        assert hits and hits[0].citation() == "handbook.pdf, page 2"
        stats = await library.stats()
        assert (stats.documents, stats.chunks) == (3, 5)
        await library.aclose()

    arun(main(), timeout=120)


def test_reindex_sees_changes_and_deletions(tmp_path: Path, arun: Any) -> None:
    async def main() -> None:
        docs = _docs(tmp_path)
        library = _library(tmp_path)
        library.add(docs)
        await library.reindex()
        notes = docs / "deeper" / "notes.md"
        notes.write_text("# Notes\n\nThe chimney is swept in spring.\n")
        os.utime(notes, ns=(time.time_ns(), time.time_ns() + 10**9))  # a later time, whatever the clock's grain
        (docs / "handbook.pdf").unlink()
        (docs / "new.txt").write_text("A new file about the garden shed.\n")
        report = await library.reindex()
        assert (report.added, report.updated, report.removed, report.unchanged) == (1, 1, 1, 1)
        assert await library.search("boiler", 5) == [] and await library.search("holidays", 5) == []
        assert [h.citation() for h in await library.search("chimney", 5)] == ["notes.md"]
        assert [h.citation() for h in await library.search("shed", 5)] == ["new.txt"]
        again = await library.reindex()
        assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 3)
        # A file that cannot be read is reported, and the rest is indexed.
        make_pdf(docs / "locked.pdf", ["locked words"], password="pw")
        report = await library.reindex()
        assert [(Path(p).name, "password" in why) for p, why in report.failed] == [("locked.pdf", True)]
        assert [Path(p).name for p, _ in await library.failures()] == ["locked.pdf"]
        library.remove(docs)
        report = await library.reindex()
        assert report.removed == 4 and (await library.stats()).documents == 0
        await library.aclose()
        # The list of sources is kept in the profile.
        assert _library(tmp_path).sources == []

    arun(main(), timeout=120)


def test_indexing_is_off_the_loop_and_stops_when_cancelled(tmp_path: Path, arun: Any) -> None:
    docs = tmp_path / "many"
    docs.mkdir()
    for n in range(400):
        (docs / f"file{n:03}.txt").write_text(f"File number {n} talks about topic{n % 7}.\n" * 40)

    async def main() -> None:
        bus = ev.EventBus()
        seen: list[ev.LibraryProgress] = []
        bus.subscribe(lambda e: seen.append(e) if isinstance(e, ev.LibraryProgress) else None)
        library = _library(tmp_path, bus)
        library.add(docs)
        library.progress_every_s = 0.0  # every file, so the test can stop it early
        loop_thread = threading.get_ident()
        ticks = 0

        async def ticker() -> None:  # the loop keeps running while the library indexes
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick = asyncio.create_task(ticker())
        task = asyncio.create_task(library.reindex())
        while not any(e.done >= 60 for e in seen):
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert seen[-1].finished and seen[-1].cancelled
        stopped_at = (await library.stats()).documents
        assert 0 < stopped_at < 400  # stopped part-way, with whole batches written
        assert seen[-1].done == stopped_at and "(stopped)" in seen[-1].summary  # says what the index holds
        seen.clear()
        started = time.monotonic()
        report = await library.reindex()
        took = time.monotonic() - started
        tick.cancel()
        assert report.added == 400 - stopped_at and report.unchanged == stopped_at
        assert (await library.stats()).documents == 400
        assert ticks >= max(3, took / 0.01 * 0.2), (ticks, took)  # the loop was not blocked
        assert all(e.done <= e.total for e in seen) and seen[-1].finished
        assert threading.get_ident() == loop_thread
        assert (await library.search("number 123", 3))[0].citation() == "file123.txt"
        await library.aclose()

    arun(main(), timeout=120)


def _jawad(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=90, env=dict(os.environ),
                          stdin=subprocess.DEVNULL, check=False)


def test_docs_command_and_the_search_documents_tool(tmp_path: Path, profile_dir: Path,
                                                   reader_model: ReaderModel) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "policy.pdf", ["Contents.", f"Refunds are approved with code {planted('refund')}."])
    empty = _jawad(profile_dir, "docs", "search", "refund")
    assert empty.returncode == 1 and "The library is empty" in empty.stderr
    added = _jawad(profile_dir, "docs", "add", str(docs))
    assert added.returncode == 0, added.stderr
    assert "1 added" in added.stderr
    listed = _jawad(profile_dir, "docs", "list")
    assert listed.stdout.strip() == str(docs.resolve()) and "1 files, 2 pages or parts indexed" in listed.stderr
    found = _jawad(profile_dir, "docs", "search", "refunds", "approved")
    assert found.returncode == 0 and found.stdout.startswith("policy.pdf, page 2")
    missing = _jawad(profile_dir, "docs", "add", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr

    reader_model.script(call("search_documents", {"query": "refund code"}))
    asked = _jawad(profile_dir, "ask", "What is the refund code?", "--kind", "openai-compatible",
                   "--base-url", reader_model.base_url, "--model", "scripted", "--no-save")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.strip() == f"I read: {planted('refund')}."
    first, second = reader_model.requests
    assert "search_documents" in [t["function"]["name"] for t in first["tools"]]
    assert "read_attachment" not in [t["function"]["name"] for t in first["tools"]]  # nothing attached
    result = second["messages"][-1]
    assert result["role"] == "tool" and "(policy.pdf, page 2)" in result["content"]


def test_what_the_files_tools_read_is_the_users_data_for_the_data_flow_check() -> None:
    # Their results are recorded as read in "your files", so a value from them going to any website asks.
    from jawad_desktop.core.config.settings import Settings
    from jawad_desktop.core.events import EventBus
    from jawad_desktop.core.harbor.dataflow import DataFlow
    from jawad_desktop.core.tools.files.file_tools import FILES_SITE, files_registry
    from jawad_desktop.core.tools.tool_context import ToolContext

    ctx = ToolContext(settings=Settings(), bus=EventBus(), site="shop.example")
    registry = files_registry()
    for name, args in (("search_documents", {"query": "refund"}), ("read_attachment", {"name": "a.pdf"})):
        tool = registry.get(name)
        assert tool is not None and tool.site_for(ctx, tool.validate(args)) == FILES_SITE
    flow = DataFlow()
    flow.record("Refunds are approved with code RF-88213.", FILES_SITE)
    (leak,) = flow.leaks(["https://shop.example/refund?code=RF-88213"], "shop.example")
    assert leak.value == "RF-88213" and leak.source == FILES_SITE
