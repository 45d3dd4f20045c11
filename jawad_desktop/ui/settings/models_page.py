"""Settings → Models: the recommended GGUF models for the built-in model, and Ollama's models.

The table lists the catalog (``core.llm.catalog``): size, the memory each needs, how well it
calls tools (the tooltip says why), and whether it is on this computer. Download runs on a
worker thread (``ui.base.background``) with a progress bar and Cancel; a cancelled download keeps
what arrived and the next Download resumes it (``core.store.hub_download``). Delete removes a model's
file; "Use this model" makes the local provider run it (``core.llm.local_models.use_model``):
the built-in server restarts with it on the next request. "Add a file…" adds a GGUF file already on
this computer (``core.llm.added_models``: checked by its header, used where it is, never copied); it
is listed after the catalog, used like a downloaded model, and Delete only takes it off the list.

The Ollama section lists the models of the first Ollama provider and pulls one by name with
progress and Cancel (``ui.settings.ollama_box``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QLabel,
    QProgressBar,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.added_models import AddedModel, add_model_file, added_models
from jawad_desktop.core.llm.catalog import CatalogModel, human_size
from jawad_desktop.core.llm.local_models import (
    ModelState,
    chosen_model,
    download_model,
    from_package,
    model_states,
    models_folder,
    remove_model,
    use_model,
)
from jawad_desktop.ui.base.background import run_in_thread
from jawad_desktop.ui.look.controls import (
    button,
    data_table,
    failure_text,
    row_of,
    set_status,
    status_line,
)
from jawad_desktop.ui.look.file_dialogs import file_dialog
from jawad_desktop.ui.settings.ollama_box import OllamaBox
from jawad_desktop.ui.settings.transfer import Transfer

log = logging.getLogger("jawad.ui.models")

COLUMNS = ("Model", "Size", "Memory", "Tool calls", "Status")
TOOL_WORDS = {"good": "Good", "fair": "Fair", "poor": "Poor"}


def _added_note(added: AddedModel) -> str:
    """An added file's description under the list."""
    where = str(added.path) if added.present else f"{added.path}, which is no longer there"
    return f"{added.name}: a GGUF file you added, used where it is ({where}). How well it calls tools is not known."


def _note(entry: CatalogModel) -> str:
    """A catalog row's description under the list: what it can do, the memory it needs, its source."""
    return (f"{entry.title} — tool calls: {entry.tools}. {entry.tools_why} "
            f"Needs about {human_size(entry.memory_bytes)} of memory. From {entry.repo}.")


class ModelsPage(QWidget):
    """Settings → Models."""

    changed = Signal()  # the local provider's model changed (saved)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, endpoint: str | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.endpoint = endpoint  # the hub to download from; None: JAWAD_MODEL_ENDPOINT, HF_ENDPOINT or huggingface.co
        self.folder: Path = models_folder(ctx.paths.data)
        self._states: list[ModelState] = []
        self._added: list[AddedModel] = []  # GGUF files added from the disk: the rows after the catalog's
        self._downloading = ""
        self.file_dialog: QFileDialog | None = None
        self._build_catalog()
        self._build_ollama()
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.why)
        layout.addLayout(row_of(self.download, self.cancel, self.delete, self.use, self.add_file))
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.ollama_box)
        self._connect()
        self.refresh()
        self.table.selectRow(0)

    def _build_catalog(self) -> None:
        self.table = data_table("Recommended models", COLUMNS, self, rows_of="models")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setCornerButtonEnabled(False)
        self.why = QLabel(self)
        self.why.setWordWrap(True)
        self.why.setAccessibleName("About the selected model")
        self.download = button("&Download", "Download the selected model", self,
                               tooltip="Download the model from Hugging Face; a stopped download resumes")
        self.cancel = button("Cancel", "Cancel the download", self,
                             tooltip="Stop the download; what arrived is kept for the next Download")
        self.cancel.hide()
        self.delete = button("De&lete", "Delete the selected model's file", self,
                             tooltip="Delete the downloaded file (and any unfinished download); a file you added "
                                     "is only taken off the list")
        self.use = button("&Use this model", "Use the selected model for the built-in provider", self,
                          tooltip="The built-in local provider runs this model from its next request")
        self.add_file = button("&Add a file…", "Add a GGUF model file from this computer", self,
                               tooltip="A .gguf file you already have: it is used where it is, not copied")
        self.progress = QProgressBar(self)
        self.progress.setAccessibleName("Model download progress")
        self.progress.hide()
        self.status = status_line("Models status", self, keep_room=True)  # news coming and going moves nothing
        self.transfer = Transfer(self.cancel, self.progress, self.status, sizes=True)

    def _build_ollama(self) -> None:
        box = self.ollama_box = OllamaBox(self.ctx, self)
        self.ollama_where, self.ollama_models, self.ollama_status = box.where, box.models, box.status
        self.ollama_refresh, self.pull_name, self.pull = box.refresh_button, box.pull_name, box.pull
        self.cancel_pull, self.pull_progress = box.cancel_pull, box.pull_progress
        self.refresh_ollama, self.start_pull, self.stop_pull = box.refresh, box.start_pull, box.stop_pull

    def _connect(self) -> None:
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.itemSelectionChanged.connect(self._forget_other_rows_news)
        self.download.clicked.connect(self.start_download)
        self.delete.clicked.connect(self.delete_selected)
        self.use.clicked.connect(self.use_selected)
        self.add_file.clicked.connect(self.choose_file)
        QShortcut(QKeySequence(Qt.Key.Key_Delete), self.table, self.delete_selected,
                  context=Qt.ShortcutContext.WidgetShortcut)

    # --- the catalog and the added files ------------------------------------------------------------

    def refresh(self) -> None:
        """Read again what is on disk and which model the local provider runs."""
        selected = self.selected_name()
        self._states, self._added = model_states(self.folder), added_models(self.folder)
        chosen = chosen_model(self.ctx.settings)
        self.table.setRowCount(len(self._states) + len(self._added))
        for row, state in enumerate(self._states):
            entry = state.entry
            if state.installed:
                status = "In use" if entry.name == chosen else (
                    "Installed (package)" if from_package(state.path) else "Downloaded")
            elif state.partial:
                status = f"Paused at {state.partial * 100 // max(entry.size_bytes, 1)}%"
            else:
                status = "Not downloaded"
            self._fill_row(row, entry.name, (entry.title, human_size(entry.size_bytes),
                                             human_size(entry.memory_bytes), TOOL_WORDS[entry.tools], status),
                           entry.tools_why)
        for row, added in enumerate(self._added, start=len(self._states)):
            status = "In use" if added.name == chosen else "Added" if added.present else "File missing"
            self._fill_row(row, added.name, (added.name, human_size(added.size_bytes), "", "", status),
                           "Not measured: a file you added")
        if selected:
            self.select(selected)
        self._update_buttons()

    def _fill_row(self, row: int, name: str, cells: tuple[str, ...], tools_why: str) -> None:
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, name)
            if column == 3:
                item.setToolTip(tools_why)
            self.table.setItem(row, column, item)

    def select(self, name: str) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == name:
                self.table.selectRow(row)
                return

    def _selected_row(self) -> int:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return rows[0].row() if rows else -1

    def selected(self) -> CatalogModel | None:
        """The selected catalog model (None for an added file)."""
        row = self._selected_row()
        return self._states[row].entry if 0 <= row < len(self._states) else None

    def selected_added(self) -> AddedModel | None:
        """The selected added file (None for a catalog model)."""
        row = self._selected_row() - len(self._states)
        return self._added[row] if 0 <= row < len(self._added) else None

    def selected_name(self) -> str:
        entry, added = self.selected(), self.selected_added()
        return entry.name if entry else added.name if added else ""

    def _state(self, name: str) -> ModelState | None:
        return next((s for s in self._states if s.entry.name == name), None)

    def _forget_other_rows_news(self) -> None:
        """Another row chosen: what happened to the last one (a red error, "deleted") goes, unless a
        download is running, whose progress stays in view. The line keeps its room, so nothing below
        it moves."""
        if not self.transfer.running:
            self.status.clear()

    def _update_buttons(self) -> None:
        entry, added = self.selected(), self.selected_added()
        state = self._state(entry.name) if entry else None
        busy, chosen = self.transfer.running, chosen_model(self.ctx.settings)
        self.download.setEnabled(bool(state and not state.installed and not busy))
        self.delete.setEnabled(bool(added) or bool(state and not from_package(state.path) and
                                                   (state.installed or state.partial) and
                                                   self._downloading != state.entry.name))
        self.use.setEnabled(bool(state and state.installed and state.entry.name != chosen) or
                            bool(added and added.present and added.name != chosen))
        if entry is None and added is None:
            self.why.clear()
            return
        self.why.setText(_note(entry) if entry else _added_note(added) if added else "")
        self._keep_why_room()

    def _keep_why_room(self) -> None:
        """The description line takes the room of the tallest row's at its width: choosing another
        row moves nothing below it (measured again when the page's width changes)."""
        shown, width, tallest = self.why.text(), self.why.width(), 0
        for note in [_note(s.entry) for s in self._states] + [_added_note(m) for m in self._added]:
            self.why.setText(note)
            tallest = max(tallest, self.why.heightForWidth(width))
        self.why.setText(shown)
        self.why.setMinimumHeight(tallest)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width() and self.why.text():
            self._keep_why_room()

    def choose_file(self) -> None:
        """Ask for a GGUF file on this computer (a non-blocking dialog), then add it."""
        self.file_dialog = file_dialog(self, "Add a GGUF model file", filters=["GGUF models (*.gguf)", "All files (*)"],
                                       chosen=lambda paths: self.add_model_file(paths[0]))

    def add_model_file(self, path: str) -> None:
        """Add the GGUF file ``path`` to the list (checked by its header, not copied) and select it."""
        try:
            added = add_model_file(Path(path), self.folder)
        except (JawadError, OSError) as exc:
            set_status(self.status, failure_text(f"adding {Path(path).name}", exc), error=True)
            return
        self.refresh()
        self.select(added.name)
        set_status(self.status, f"{added.path.name} is added as {added.name!r} and used where it is (not copied). "
                                "Choose “Use this model” to run it.")

    def start_download(self) -> None:
        """Download the selected model on a worker thread, with progress and Cancel."""
        entry = self.selected()
        if entry is None or self.transfer.running:
            return
        cancel = self.transfer.begin(f"Downloading {entry.title}…")
        self._downloading = entry.name
        self._update_buttons()
        folder, endpoint, what = self.folder, self.endpoint, f"downloading {entry.title}"
        network, report = self.ctx.settings.network, self.transfer.reporter()

        def work() -> Path:
            return download_model(entry.name, folder, endpoint=endpoint, progress=report, cancel=cancel,
                                  network=network)

        run_in_thread(work, what=what, bus=self.ctx.bus, on_done=lambda _: self._download_done(entry, None),
                      on_error=lambda exc: self._download_done(entry, exc))

    def cancel_download(self) -> None:
        self.transfer.stop()

    def _download_done(self, entry: CatalogModel, exc: BaseException | None) -> None:
        self._downloading = ""
        self.transfer.end()
        self.refresh()
        if exc is None:
            set_status(self.status, f"{entry.title} is downloaded and checked. Choose “Use this model” to run it.")
            return
        if not isinstance(exc, JawadError):
            log.warning("downloading %s failed", entry.name, exc_info=exc)
        cancelled = getattr(exc, "code", "") == "HUB_CANCELLED"
        text = failure_text(f"downloading {entry.title}", exc)
        if cancelled:
            self.status.setStyleSheet("")
            self.status.setText(text)
        else:
            set_status(self.status, text, error=True)

    def delete_selected(self) -> None:
        """Delete the selected model's file, or take an added file off the list (the file stays)."""
        entry, added = self.selected(), self.selected_added()
        state = self._state(entry.name) if entry else None
        if added is None and (entry is None or state is None or from_package(state.path)
                              or self._downloading == entry.name):
            return
        name = added.name if added else state.entry.name if state else ""
        title = state.entry.title if state and not added else name
        try:
            remove_model(name, self.folder)
        except (JawadError, OSError) as exc:
            set_status(self.status, failure_text(f"deleting {title}", exc), error=True)
            return
        if chosen_model(self.ctx.settings) == name:  # what the local provider ran is gone: the test model
            try:
                use_model(self.ctx.settings, "smollm2", self.folder)
            except JawadError:  # not on this computer either (the packaged app): choose another one
                pass
            else:
                self.ctx.save_settings()
                self.changed.emit()
        self.refresh()
        set_status(self.status, f"{title} was deleted." if added is None else
                   f"{title} is off the list; its file stays at {added.path}.")

    def use_selected(self) -> None:
        name = self.selected_name()
        if not name:
            return
        entry = self.selected()
        title = entry.title if entry else name
        try:
            provider = use_model(self.ctx.settings, name, self.folder)
            self.ctx.save_settings()
        except JawadError as exc:
            set_status(self.status, failure_text(f"choosing {title}", exc), error=True)
            return
        self.refresh()
        self.changed.emit()
        set_status(self.status, f"The provider {provider.name!r} now runs {title} (from its next request).")
