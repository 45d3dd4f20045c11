"""Settings → Voice's "Offline speech" row: the packaged app's voice pack (``core.voice.pack``).

In the packaged app without its voice pack, the row offers to install it: from the release's
download or from a file, with progress and Cancel, on a worker thread (``ui.base.background``).
The row (and its progress bar and status line) is hidden once the pack is installed, and never
shown in a source install. ``installed`` fires when an installation ends well.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QHBoxLayout, QProgressBar, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice import VoiceError, VoicePack
from jawad_desktop.ui.base.background import run_in_thread
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import button, error_style, failure_text, status_line
from jawad_desktop.ui.look.file_dialogs import file_dialog
from jawad_desktop.ui.settings.transfer import Transfer

log = logging.getLogger("jawad.ui.voice")


class VoicePackRow(QWidget):
    """The buttons of the "Offline speech" row; the progress bar and status line under it."""

    installed = Signal()

    def __init__(self, ctx: AppContext, pack: VoicePack, page: QWidget) -> None:
        super().__init__(page)
        self.ctx, self.pack = ctx, pack
        self._form: QFormLayout | None = None
        self.file_dialog: QFileDialog | None = None
        self.install = button("Install offline speech…", "Download and install offline speech (the voice pack)",
                              self)
        self.install_file = button("Install from file…", "Install offline speech from a voice pack file", self)
        self.cancel = button("Cancel", "Cancel the voice pack installation", self)
        self.cancel.hide()
        self.progress = QProgressBar(page)
        self.progress.setAccessibleName("Voice pack installation progress")
        self.status = status_line("Offline speech status", page)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.install, self.install_file, self.cancel):
            row.addWidget(widget)
        row.addStretch(1)
        self.transfer = Transfer(self.cancel, self.progress, self.status,
                                 show_bar=lambda shown: self._show(self.progress, shown))
        self.install.clicked.connect(lambda: self.install_pack())
        self.install_file.clicked.connect(self.choose_file)

    def add_to(self, form: QFormLayout) -> None:
        """Put the row, its progress bar and its status line into ``form`` (shown only while needed)."""
        self._form = form
        for label, widget in (("Offline speech", self), ("", self.progress), ("", self.status)):
            form.addRow(label, widget)
        form.setRowVisible(self.progress, False)  # while installing
        self.update_row()

    def _show(self, widget: QWidget, visible: bool) -> None:
        if self._form is not None:
            self._form.setRowVisible(widget, visible)

    @property
    def missing(self) -> bool:
        """True in a packaged app whose offline speech is not installed yet."""
        return self.pack.required and not self.pack.status().installed

    def update_row(self) -> None:
        missing = self.missing
        for widget in (self, self.status):
            self._show(widget, missing)
        if missing and not self.transfer.running:
            status = self.pack.status()
            size = f" (~{status.download_bytes / 1e6:.0f} MB download)" if status.download_bytes else ""
            self.status.setStyleSheet("")
            self.status.setText(f"Transcribing on this computer needs the voice pack{size}. "
                                "Until then, choose the Whisper API above.")

    def install_pack(self, source: str | None = None) -> None:
        """Install the voice pack on a worker thread (``source``: a URL or a file; default: the
        release's download), with progress and Cancel."""
        if self.transfer.running:
            return
        cancel = self.transfer.begin("Installing offline speech…")
        self.install.setEnabled(False)
        self.install_file.setEnabled(False)
        pack, what, network = self.pack, "installing offline speech", self.ctx.settings.network
        report = self.transfer.reporter()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, VoiceError):
                self._on_done(exc.code, error_text(exc))
                return
            log.warning("%s failed", what, exc_info=exc)
            self._on_done("VOICE_PACK_DOWNLOAD_FAILED", failure_text(what, exc))

        def work() -> None:
            pack.install(source, progress=report, cancel=cancel, network=network)

        run_in_thread(work, what=what, bus=self.ctx.bus, on_done=lambda _: self._on_done("", ""), on_error=failed)

    def choose_file(self) -> None:
        """Ask for a voice pack file (a non-blocking dialog), then install it."""
        self.file_dialog = file_dialog(self, "Install offline speech from a voice pack file",
                                       filters=["Voice pack (*.tar.gz)"],
                                       chosen=lambda paths: self.install_pack(paths[0]))

    def cancel_install(self) -> None:
        self.transfer.stop()

    def _on_done(self, code: str, error: str) -> None:
        self.transfer.end()
        self.install.setEnabled(True)
        self.install_file.setEnabled(True)
        self.update_row()
        if code:
            self.status.setStyleSheet("" if code == "VOICE_PACK_CANCELLED" else error_style())
            self.status.setText(error)
            return
        self.installed.emit()
