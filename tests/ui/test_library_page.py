"""Settings → Documents, offscreen, on real files: adding a folder indexes it in the background with
progress, the counts and the files that could not be read (an encrypted PDF) show on the page, a
search shows file, page and text; an unreadable folder is an error on the page; Cancel stops a long
indexing while the page stays responsive; Remove takes a folder's files out; the window has the
page, and its assistant watches the library (a new file is found without a scan)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.tools.files.library import BATCH_FILES, DocumentLibrary
from jawad_desktop.ui.settings.library_page import LibraryPage
from tests.files.samples import make_pdf
from tests.ui.page_checks import assert_named_and_labelled


def _page(tmp_path: Path, qtbot: Any) -> tuple[LibraryPage, DocumentLibrary, ev.EventBus]:
    bus = ev.EventBus()
    library = DocumentLibrary.open(tmp_path / "config", tmp_path / "data", bus=bus)
    page = LibraryPage(library, bus)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitSignal(page.refreshed, timeout=10_000)
    return page, library, bus


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "handbook.pdf", ["Welcome to the handbook.", "Expense claims need a receipt within thirty days."])
    make_pdf(docs / "locked.pdf", ["Salaries."], password="s3cret")
    (docs / "notes.md").write_text("# Notes\n\nThe boiler is serviced every October.\n")
    return docs


def test_add_index_search_and_remove(tmp_path: Path, qtbot: Any, aio_loop: Any, arun: Any) -> None:
    page, library, _ = _page(tmp_path, qtbot)
    assert_named_and_labelled(page)
    assert page.empty.isVisibleTo(page) and not page.reindex_button.isEnabled()
    docs = _docs(tmp_path)
    with qtbot.waitSignal(page.refreshed, timeout=30_000):
        page.add_paths([docs])
        assert not page.cancel_button.isHidden() and not page.add_folder_button.isEnabled()
    qtbot.waitUntil(lambda: page.indexing is None and page.table.rowCount() == 1, timeout=30_000)
    qtbot.waitUntil(lambda: page.table.item(0, 1) is not None and page.table.item(0, 1).text() == "3",
                    timeout=10_000)
    cells = [page.table.item(0, c).text() for c in range(4)]
    assert cells == [str(docs.resolve()), "3", "3", "1"]  # 3 files, 3 pages (2 + 1), 1 not readable
    assert page.cancel_button.isHidden() and page.bar.isHidden()
    assert "2 added" not in page.status.text() and "3 added" in page.status.text()
    assert not page.failed.isHidden()
    assert "locked.pdf" in page.failed.item(0).text() and "password" in page.failed.item(0).text()

    page.query.setText("expense receipts")
    with qtbot.waitSignal(page.searched, timeout=10_000):
        page.search_button.click()
    assert [page.results.item(0, c).text() for c in range(2)] == ["handbook.pdf", "page 2"]
    assert "receipt within thirty days" in page.results.item(0, 2).text()

    page.table.selectRow(0)
    assert page.remove_button.isEnabled()
    with qtbot.waitSignal(page.refreshed, timeout=30_000):
        page.remove_button.click()
    qtbot.waitUntil(lambda: page.indexing is None and page.table.rowCount() == 0, timeout=30_000)
    assert "Removed" in page.status.text() and "3 removed" in page.status.text() and library.sources == []
    assert arun(library.search("boiler", 5)) == []
    arun(library.aclose())


def test_an_unreadable_folder_is_an_error_on_the_page(tmp_path: Path, qtbot: Any, aio_loop: Any,
                                                      arun: Any) -> None:
    page, library, _ = _page(tmp_path, qtbot)
    page.add_paths([tmp_path / "missing"])
    assert "does not exist" in page.status.text() and library.sources == [] and page.indexing is None
    if os.geteuid() != 0:  # root reads any folder
        closed = tmp_path / "closed"
        closed.mkdir()
        closed.chmod(0)
        try:
            page.add_paths([closed])
            assert "permission denied" in page.status.text() and library.sources == []
        finally:
            closed.chmod(0o700)
    arun(library.aclose())


def test_cancel_stops_a_long_indexing_and_the_page_stays_responsive(tmp_path: Path, qtbot: Any, aio_loop: Any,
                                                                    arun: Any) -> None:
    page, library, _ = _page(tmp_path, qtbot)
    docs = tmp_path / "many"
    docs.mkdir()
    for i in range(600):
        make_pdf(docs / f"doc{i:04}.pdf", [f"Page one of document {i}.", f"Page two of document {i}."])
    library.progress_every_s = 0.0
    page.add_paths([docs])
    # Past the first batch (one transaction): what was indexed before Cancel stays, however loaded the machine.
    qtbot.waitUntil(lambda: page.bar.maximum() == 600 and page.bar.value() > BATCH_FILES, timeout=30_000)
    # The GUI thread is free while it indexes: a timer fires on time.
    ticks: list[float] = []
    started = time.monotonic()
    from PySide6.QtCore import QTimer

    timer = QTimer(page)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    qtbot.wait(300)
    timer.stop()
    assert len(ticks) >= 5, f"the GUI thread was blocked: {len(ticks)} ticks in {time.monotonic() - started:.2f} s"
    with qtbot.waitSignal(page.refreshed, timeout=30_000):  # the counts are read again once it stopped
        page.cancel_button.click()
        qtbot.waitUntil(lambda: page.indexing is None, timeout=30_000)
    assert "stopped" in page.status.text().lower()
    done = int(page.table.item(0, 1).text()) if page.table.item(0, 1) else 0
    assert 0 < done < 600
    arun(library.aclose())


def test_the_window_has_the_documents_page(tmp_path: Path, make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window = make_window(profile_dir)
    window.open_settings()
    dialog = window._settings_dialog
    assert dialog is not None
    dialog.show_page("Documents")
    page = dialog.current_page()
    assert isinstance(page, LibraryPage) and page.library is window.presenter.assistant.library
    dialog.close()


def test_the_windows_assistant_watches_the_library(tmp_path: Path, make_window: Any, profile_dir: Path,
                                                   arun: Any) -> None:
    window = make_window(profile_dir)
    assistant = window.presenter.assistant
    docs = tmp_path / "docs"
    docs.mkdir()
    assistant.library.add(docs)

    async def main() -> None:
        (docs / "note.md").write_text("Remember the quokka.\n")

        async def found() -> bool:
            return bool(await assistant.library.search("quokka", 5))

        deadline = time.monotonic() + 30  # a scan of the library comes first; a busy machine is slow
        while not await found():
            task = assistant._watch_task
            assert time.monotonic() < deadline, (
                "the window's watcher did not index the new file: its task "
                f"{'is missing' if task is None else task!r}, sources {assistant.library.sources}")
            await asyncio.sleep(0.1)

    arun(main(), timeout=60)
