"""The files the user is about to send with a message, shown in the composer as chips.

``AttachmentBar`` holds the chosen paths (each once, in the order given) and shows one chip per
file with a button that removes it; it is hidden while empty. Files come from the composer's
attach button (``choose_files``), from a drop on the chat panel and from a paste into the input
(``files_in``: local files among a drag's or the clipboard's URLs; a pasted picture is saved as a
PNG by ``save_pasted_image`` first). What a file holds is read by the core when the message is
sent (``core.tools.files``): a file it cannot read is refused there, with the message kept.
"""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QToolButton, QWidget

from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.file_dialogs import file_dialog
from jawad_desktop.ui.look.icons import icon

log = logging.getLogger("jawad.ui.chat")

# What the attach button's dialog offers first; any file may still be chosen (the core says
# clearly which kinds it reads).
FILE_FILTER = ("Documents and pictures (*.pdf *.docx *.md *.markdown *.txt *.csv *.xlsx *.html *.htm *.json "
               "*.py *.js *.ts *.png *.jpg *.jpeg *.webp);;All files (*)")


def files_in(mime: QMimeData) -> list[Path]:
    """The local files among ``mime``'s URLs (a drop from a file manager, a copied file)."""
    if not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile() and Path(url.toLocalFile()).is_file()]


def save_pasted_image(image: QImage, folder: Path | None = None) -> Path | None:
    """A pasted picture as a PNG file to attach (in ``folder``, else a folder of this session's
    pastes under the system's temporary folder); None when it cannot be saved."""
    if image.isNull():
        return None
    where = folder or Path(tempfile.gettempdir()) / "jawad-pasted"
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError:
        log.warning("cannot keep a pasted picture in %s", where, exc_info=True)
        return None
    path = where / f"pasted-{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 1_000_000}.png"
    return path if image.save(str(path)) else None  # PNG, from the suffix


class AttachmentBar(QWidget):
    """The chips of the files to send with the next message. Emits ``changed`` after every change."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentBar")
        self.setAccessibleName("Files to send")
        self._files: list[Path] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, theme.SPACE["xs"])
        self._layout.setSpacing(theme.SPACE["sm"])
        self._layout.addStretch(1)
        self.hide()

    def files(self) -> list[Path]:
        return list(self._files)

    def add(self, paths: list[Path]) -> None:
        """Add files (a file already there is not added twice)."""
        added = False
        for path in paths:
            path = Path(path)
            if path in self._files:
                continue
            self._files.append(path)
            self._layout.insertWidget(self._layout.count() - 1, self._chip(path))
            added = True
        if added:
            self.setVisible(True)
            self.changed.emit()

    def remove(self, path: Path) -> None:
        if path not in self._files:
            return
        index = self._files.index(path)
        self._files.pop(index)
        item = self._layout.takeAt(index)
        chip = item.widget() if item is not None else None
        if chip is not None:
            chip.deleteLater()
        self.setVisible(bool(self._files))
        self.changed.emit()

    def take(self) -> list[Path]:
        """Empty the bar and return what it held (the message was accepted)."""
        files = self.files()
        for path in files:
            self.remove(path)
        return files

    def choose_files(self) -> QFileDialog:
        """Ask for files with a roomy file dialog and add the chosen ones (returns the dialog)."""
        return file_dialog(self.window(), "Attach files", filters=FILE_FILTER.split(";;"),
                           mode=QFileDialog.FileMode.ExistingFiles,
                           chosen=lambda paths: self.add([Path(p) for p in paths]))

    def _chip(self, path: Path) -> QWidget:
        chip = QWidget(self)
        chip.setObjectName("attachmentChip")
        chip.setProperty("card", True)
        row = QHBoxLayout(chip)
        row.setContentsMargins(theme.SPACE["sm"], theme.SPACE["xs"], theme.SPACE["xs"], theme.SPACE["xs"])
        row.setSpacing(theme.SPACE["xs"])
        name = QLabel(path.name, chip)
        name.setToolTip(str(path))
        name.setTextFormat(Qt.TextFormat.PlainText)
        remove = QToolButton(chip)
        remove.setIcon(icon("x"))
        remove.setAutoRaise(True)
        remove.setToolTip(f"Remove {path.name}")
        remove.setAccessibleName(f"Remove the attachment {path.name}")
        remove.clicked.connect(lambda: self.remove(path))
        row.addWidget(name)
        row.addWidget(remove)
        return chip
