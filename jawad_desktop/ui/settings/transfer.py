"""The controls of a long transfer on a Settings page: a model's download (Models, Voice) or the
voice pack's installation. Cancel, a progress bar and a status line are driven the same way
everywhere: ``begin`` shows them busy and returns the event the worker thread watches for a
cancel, ``reporter`` is the worker's progress callback (queued to the GUI thread; it cancels the
work when the page is gone), ``stop`` asks the work to stop, ``end`` hides them again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from jawad_desktop.core.llm.catalog import human_size


class Transfer(QObject):
    """Cancel, a progress bar and a status line of one transfer at a time."""

    progressed = Signal(object, object)  # (done, total) bytes, from any thread

    def __init__(self, cancel: QPushButton, bar: QProgressBar, status: QLabel, *,
                 show_bar: Callable[[bool], None] | None = None, sizes: bool = False) -> None:
        """``show_bar``: how the bar is shown and hidden (default: the bar itself; a form hides its
        row); ``sizes``: the bar says "12 MB of 98 MB"."""
        super().__init__(bar)
        self.cancel_button, self.bar, self.status = cancel, bar, status
        self._show_bar = show_bar or bar.setVisible
        self._sizes = sizes
        self._cancel: threading.Event | None = None
        self.progressed.connect(self.show_progress)
        cancel.clicked.connect(self.stop)

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def begin(self, text: str) -> threading.Event:
        """Show the transfer started ("Downloading …"), busy until its size is known."""
        cancel = self._cancel = threading.Event()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        self.bar.setRange(0, 0)
        self._show_bar(True)
        self.status.setStyleSheet("")
        self.status.setText(text)
        return cancel

    def reporter(self) -> Callable[[int, int], None]:
        """The progress callback for the worker thread of the transfer just begun."""
        signal: SignalInstance = self.progressed
        cancel = self._cancel

        def report(done: int, total: int) -> None:
            try:
                signal.emit(done, total)
            except RuntimeError:  # the page was closed: stop, keeping what arrived
                if cancel is not None:
                    cancel.set()

        return report

    def show_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setRange(0, 1000)  # per mille: sizes exceed int32
            self.bar.setValue(int(done * 1000 / total))
            if self._sizes:
                self.bar.setFormat(f"{human_size(done)} of {human_size(total)}")

    def stop(self) -> None:
        """Ask the work to stop (between chunks); what arrived is kept."""
        if self._cancel is not None:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling…")

    def end(self) -> None:
        self._cancel = None
        self.cancel_button.hide()
        self._show_bar(False)
