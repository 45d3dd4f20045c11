"""The Settings page "Documents": the user's document library (``core.tools.files.library``).

Lists the library's folders and files with what the index holds of each (files, pages, files that
could not be read), and offers Add folder…, Add files…, Remove and Re-index. Indexing runs on the
app's loop and the library's worker threads (``ui.base.background``), never on the GUI thread: a
progress bar and Cancel show while it runs, and the page stays usable. The files that could not
be read (an encrypted PDF, a damaged file) are listed with why. A search box tries a query on the
index as ``search_documents`` would (file, page, snippet).

The page observes the library's ``LibraryProgress`` events on the bus, wherever the indexing was
started (this page, the watcher that re-indexes changed files, ``jawad docs``), so what it shows
follows the index. Add it with ``dialog.add_page("Documents", LibraryPage(library, bus, dialog))``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QListWidget,
    QProgressBar,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.tools.files.library import DocumentHit, DocumentLibrary, IndexReport, SourceCounts
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.look.controls import (
    button,
    data_table,
    failure_text,
    field_row,
    label_for,
    line_edit,
    row_of,
    set_status,
    status_line,
)
from jawad_desktop.ui.look.file_dialogs import file_dialog

log = logging.getLogger("jawad.ui.library")

__all__ = ["LibraryPage"]

SOURCE_COLUMNS = ("Folder or file", "Files", "Pages", "Not readable")
RESULT_COLUMNS = ("File", "Page", "Text")
SEARCH_LIMIT = 10


class LibraryPage(QWidget):
    """See the module docstring."""

    progress = Signal(object)  # ev.LibraryProgress, queued to the GUI thread whatever thread emitted it
    refreshed = Signal()  # the lists were filled again (tests wait on it)
    searched = Signal()  # search results are shown

    def __init__(self, library: DocumentLibrary, bus: ev.EventBus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.bus = bus
        self.indexing: asyncio.Task[IndexReport] | None = None
        self.hits: list[DocumentHit] = []
        self._status_error = False
        self._kept: tuple[str, bool] = ("", False)  # a status line kept above the indexing's result
        self.setAccessibleName("Documents")
        self._build_sources()
        self._build_search()
        self._lay_out()
        self._connect()
        self._unsubscribe: Callable[[], None] = bus.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())
        self._set_indexing(False)
        self.refresh()

    def _build_sources(self) -> None:
        self.table = data_table("Library folders and files", SOURCE_COLUMNS, self, rows_of="folders and files",
                                tooltip="The folders and files in the library: files and pages indexed, "
                                        "files not readable")
        self.table.setObjectName("librarySources")
        self.empty = QLabel("No documents yet: add a folder or files.", self)
        self.add_folder_button = button("Add &folder…", "Add a folder to the library", self)
        self.add_files_button = button("Add f&iles…", "Add files to the library", self)
        self.remove_button = button("&Remove", "Remove the selected folder or file from the library", self,
                                    tooltip="Remove from the library (Delete). Your files are not touched.")
        self.reindex_button = button("Re-inde&x", "Re-index the library", self, tooltip="Re-index now (F5)")
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Indexing progress")
        self.bar.setTextVisible(True)
        self.cancel_button = button("&Cancel", "Cancel the indexing", self)
        self.status = status_line("Library status", self)
        self.failed = QListWidget(self)
        self.failed.setAccessibleName("Files that could not be read")
        self.failed.setMaximumHeight(90)
        self.failed.setToolTip("Each file the index could not read, and why")
        self.failed_label = label_for("Could not be rea&d:", self.failed, self)

    def _build_search(self) -> None:
        self.query = line_edit("Search the documents", self, hint="Try a search, e.g. invoice total",
                               tooltip="Words to look for, as search_documents looks for them (Enter searches)")
        self.search_button = button("&Search", "Search the documents", self)
        self.results = data_table("Search results", RESULT_COLUMNS, self, stretch=2,
                                  tooltip="The pages found: file, page and the text around the words")
        self.results.setObjectName("libraryResults")
        self.results.setWordWrap(True)

    def _lay_out(self) -> None:
        intro = QLabel(
            "Folders and files Jawad can search when you ask about your documents (the search_documents "
            "tool). They are indexed on this computer and re-indexed when they change; answers cite the "
            "file and page.", self)
        intro.setWordWrap(True)
        progress = field_row(self.bar, self.cancel_button)
        search = row_of(label_for("&Try a search:", self.query, self), self.query, self.search_button, stretch=False)
        search.setStretchFactor(self.query, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(label_for("&Library:", self.table, self))
        layout.addWidget(self.table, 2)
        layout.addWidget(self.empty)
        layout.addLayout(row_of(self.add_folder_button, self.add_files_button, self.remove_button,
                                self.reindex_button))
        layout.addLayout(progress)
        layout.addWidget(self.status)
        layout.addWidget(self.failed_label)
        layout.addWidget(self.failed)
        layout.addLayout(search)
        layout.addWidget(label_for("Res&ults:", self.results, self))
        layout.addWidget(self.results, 3)

    def _connect(self) -> None:
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.add_files_button.clicked.connect(self.choose_files)
        self.remove_button.clicked.connect(self.remove_selected)
        self.reindex_button.clicked.connect(lambda: self.reindex())
        self.table.itemSelectionChanged.connect(self._update_buttons)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table, self.remove_selected,
                  Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence("F5"), self, lambda: self.reindex(), Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.cancel_button.clicked.connect(self.cancel)
        self.query.returnPressed.connect(self.search)
        self.search_button.clicked.connect(self.search)
        self.progress.connect(self._show_progress)

    # -- the lists ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Fill the lists again from the index (off the GUI thread)."""

        async def read() -> tuple[list[SourceCounts], list[tuple[str, str]]]:
            return await self.library.source_counts(), await self.library.failures()

        run_async(read(), what="reading the document library", bus=self.bus, on_done=self._fill,
                  on_error=self._failed)

    def _fill(self, found: tuple[list[SourceCounts], list[tuple[str, str]]]) -> None:
        counts, failures = found
        selected = self.selected_source()
        self.table.setRowCount(len(counts))
        for row, item in enumerate(counts):
            name = item.source if item.exists else f"{item.source} (missing)"
            cells = (name, str(item.files), str(item.pages), str(item.failed) if item.failed else "")
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, item.source)
                if column:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, cell)
            if item.source == selected:
                self.table.selectRow(row)
        self.empty.setVisible(not counts)
        self.failed.clear()
        for path, why in failures:
            self.failed.addItem(f"{Path(path).name}: {why}  ({path})")
        self.failed.setVisible(bool(failures))
        self.failed_label.setVisible(bool(failures))
        self._update_buttons()
        self.refreshed.emit()

    def selected_source(self) -> str:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 and self.table.selectionModel().hasSelection() else None
        value = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return value if isinstance(value, str) else ""

    def _update_buttons(self) -> None:
        self.remove_button.setEnabled(bool(self.selected_source()) and self.indexing is None)
        self.reindex_button.setEnabled(bool(self.library.sources) and self.indexing is None)

    # -- adding and removing --------------------------------------------------------------------

    def choose_folder(self) -> QFileDialog:
        return file_dialog(self, "Add a folder to the library", mode=QFileDialog.FileMode.Directory,
                           chosen=lambda folders: self.add_paths(folders[:1]))

    def choose_files(self) -> QFileDialog:
        return file_dialog(self, "Add files to the library", mode=QFileDialog.FileMode.ExistingFiles,
                           filters=["Documents (*.pdf *.docx *.md *.txt *.csv *.xlsx *.html *.htm)", "All files (*)"],
                           chosen=self.add_paths)

    def add_paths(self, paths: Sequence[str | Path]) -> None:
        """Add folders or files (what cannot be added is said on the page), then index them."""
        problems: list[str] = []
        added = 0
        for path in paths:
            try:
                self.library.add(path)
                added += 1
            except JawadError as exc:
                problems.append(exc.user_text())
        if problems:
            self._set_status("\n".join(problems), error=True)
        if added:
            self.reindex(keep_status=bool(problems))
        else:
            self.refresh()

    def remove_selected(self) -> None:
        source = self.selected_source()
        if not source or self.indexing is not None:
            return
        try:
            self.library.remove(source)
        except JawadError as exc:
            self._set_status(exc.user_text(), error=True)
            return
        self._set_status(f"Removed {source} from the library (your files are not touched).")
        self.reindex(keep_status=True)

    # -- indexing --------------------------------------------------------------------------------

    def reindex(self, *, keep_status: bool = False) -> None:
        """Bring the index up to date, in the background (Cancel stops it)."""
        if self.indexing is not None:
            return
        self._kept = (self.status.text(), self._status_error) if keep_status else ("", False)
        if not keep_status:
            self._set_status("Indexing…")
        self._set_indexing(True)
        self.indexing = run_async(self.library.reindex(), what="indexing the documents", bus=self.bus,
                                  on_done=self._indexed, on_error=self._failed)
        self.indexing.add_done_callback(lambda _: self._indexing_ended())

    def cancel(self) -> None:
        if self.indexing is not None:
            self.indexing.cancel()

    def _indexed(self, report: IndexReport) -> None:
        text = f"Indexed in {report.seconds:.1f} s: {report.summary()}."
        kept, error = self._kept
        self._set_status(f"{kept}\n{text}" if kept else text, error=error or bool(report.failed))

    def _indexing_ended(self) -> None:
        self.indexing = None
        self._set_indexing(False)
        self.refresh()

    def _set_indexing(self, running: bool) -> None:
        self.bar.setVisible(running)
        self.cancel_button.setVisible(running)
        if running:
            self.bar.setRange(0, 0)  # busy until the first progress says how many
            self.cancel_button.setFocus()
        self.add_folder_button.setEnabled(not running)
        self.add_files_button.setEnabled(not running)
        self._update_buttons()

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.LibraryProgress):
            self.progress.emit(event)

    def _show_progress(self, event: ev.LibraryProgress) -> None:
        if event.finished:
            if event.cancelled:
                self._set_status(f"Indexing stopped: {event.summary}.")
            if self.indexing is None:  # the watcher or another face indexed: show the new counts
                self.refresh()
            return
        if event.total:
            self.bar.setRange(0, event.total)
            self.bar.setValue(event.done)
            self.bar.setFormat(f"%v of %m files — {Path(event.current).name}" if event.current else "%v of %m files")

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self._status_error = error
        set_status(self.status, text, error=error)

    def _failed(self, exc: BaseException) -> None:
        self._set_status(failure_text("the document library", exc), error=True)

    # -- trying a search -------------------------------------------------------------------------

    def search(self) -> None:
        query = self.query.text().strip()
        if not query:
            self._set_status("Type words to look for first.", error=True)
            self.query.setFocus()
            return
        run_async(self.library.search(query, SEARCH_LIMIT), what="searching the documents", bus=self.bus,
                  on_done=self._show_hits, on_error=self._failed)

    def _show_hits(self, hits: list[DocumentHit]) -> None:
        self.hits = hits
        self.results.setRowCount(len(hits))
        for row, hit in enumerate(hits):
            for column, text in enumerate((Path(hit.path).name, hit.label, hit.snippet)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(hit.path if column == 0 else text)
                self.results.setItem(row, column, cell)
        self.results.resizeRowsToContents()
        if not hits:
            self._set_status("No page matches those words.")
        self.searched.emit()
