"""File dialogs that open roomy: big enough for the detail view's columns (name, size, type,
date) to show whole, and never bigger than the screen.

Qt's own file dialog (the one used where the desktop offers none) opens at about 520x360 with
its name column a hundred pixels wide: in a working folder the names were cut off. Every file
dialog of the app is made by ``file_dialog`` (or passed through ``make_roomy``) and opened with
``open()``: a non-blocking dialog, as qasync needs (``exec()`` inside a coroutine breaks it).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog, QHeaderView, QTreeView, QWidget

SIZE = (960, 620)  # the size it opens at, when the screen has room
SCREEN_SHARE = 0.9  # at most this share of the screen's width and height


def make_roomy(dialog: QFileDialog) -> QFileDialog:
    """Size ``dialog`` for its columns: ``SIZE`` or 90% of the screen, whichever is smaller; the
    detail view, its name column taking the width the others leave."""
    screen = (dialog.parentWidget() or dialog).screen()
    width, height = SIZE
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, int(room.width() * SCREEN_SHARE))
        height = min(height, int(room.height() * SCREEN_SHARE))
    dialog.resize(width, height)
    dialog.setViewMode(QFileDialog.ViewMode.Detail)
    for view in dialog.findChildren(QTreeView):
        header = view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, header.count()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    return dialog


def file_dialog(parent: QWidget, title: str, *, filters: list[str] | None = None,
                mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
                chosen: Callable[[list[str]], None] | None = None) -> QFileDialog:
    """A roomy, non-blocking dialog for choosing files (or a folder, by ``mode``); ``chosen`` gets
    the chosen paths. It deletes itself once closed. Returns it, opened."""
    dialog = QFileDialog(parent, title)
    dialog.setFileMode(mode)
    if mode == QFileDialog.FileMode.Directory:
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if filters:
        dialog.setNameFilters(filters)
    dialog.setAccessibleName(title)
    if chosen is not None:
        dialog.filesSelected.connect(chosen)
    make_roomy(dialog)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
