"""File dialogs open roomy (issue 32): Attach files in a working folder of long names shows the
detail view at a size its columns fit, the name column taking the width, never bigger than the
screen; choosing files adds them without a blocking dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QTreeView, QWidget

from jawad_desktop.ui.chat.attachments_bar import AttachmentBar
from jawad_desktop.ui.look.file_dialogs import SIZE


def test_attach_files_opens_roomy_with_whole_names(tmp_path: Path, qtbot: Any) -> None:
    names = [f"quarterly report for the northern region {n} (final, reviewed).txt" for n in range(3)]
    for name in names:
        (tmp_path / name).write_text("figures")
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(1000, 700)
    bar = AttachmentBar(window)
    window.show()
    dialog = bar.choose_files()
    dialog.setDirectory(str(tmp_path))
    qtbot.waitUntil(dialog.isVisible, timeout=3000)
    room = window.screen().availableGeometry()
    assert dialog.width() == min(SIZE[0], int(room.width() * 0.9))
    assert dialog.height() == min(SIZE[1], int(room.height() * 0.9))
    assert dialog.height() <= room.height() and dialog.width() <= room.width()
    assert dialog.viewMode() == QFileDialog.ViewMode.Detail
    views = [v for v in dialog.findChildren(QTreeView) if v.isVisible()]
    assert views, "the detail view shows"
    view = views[0]
    qtbot.waitUntil(lambda: view.model() is not None and view.model().rowCount(view.rootIndex()) == 3, timeout=5000)
    header = view.header()
    others = sum(header.sectionSize(c) for c in range(1, header.count()) if not header.isSectionHidden(c))
    assert header.sectionSize(0) >= view.viewport().width() - others - 2, "the name column takes what is left"
    assert header.sectionSize(0) > max(header.sectionSize(c) for c in range(1, header.count())), "the widest"
    assert header.sectionSize(0) >= 0.35 * view.viewport().width()

    dialog.filesSelected.emit([str(tmp_path / names[0])])
    assert bar.files() == [tmp_path / names[0]]
    dialog.reject()
