"""Two models side by side in the window: the panel with both answers, and its controller.

``SideBySidePanel`` shows the message and two columns, one per model (its label, its answer
streaming in, Keep this answer), with Stop and Close. ``SideBySideController`` holds no logic of
its own: it asks ``core.compare.Comparison`` to run the message with the model in use and the
provider the user chose, follows its events (``ComparisonDelta``, ``ComparisonFinished``, through
the bridge's ``other`` signal) and, on Keep, asks it to make that answer the conversation's — the
chat then shows it as an ordinary turn (the presenter follows the core's turn events).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, SignalInstance
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.compare import Comparison

log = logging.getLogger("jawad.ui.compare")


class SideBySidePanel(QFrame):
    """The two answers (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sideBySide")
        self.setAccessibleName("Two models side by side")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.labels = [QLabel(self), QLabel(self)]
        self.answers = [QTextBrowser(self), QTextBrowser(self)]
        self.keep_buttons = [QPushButton("&Keep this answer", self), QPushButton("K&eep this answer", self)]
        self.stop_button = QPushButton("&Stop both", self)
        self.close_button = QPushButton("&Close", self)
        self.close_button.setToolTip("Close without keeping either answer")
        grid = QGridLayout()
        for side in (0, 1):
            self.labels[side].setTextFormat(Qt.TextFormat.PlainText)
            self.answers[side].setAccessibleName(f"Answer {side + 1}")
            self.answers[side].setOpenExternalLinks(True)
            self.answers[side].setMinimumHeight(140)
            self.keep_buttons[side].setEnabled(False)
            grid.addWidget(self.labels[side], 0, side)
            grid.addWidget(self.answers[side], 1, side)
            grid.addWidget(self.keep_buttons[side], 2, side, Qt.AlignmentFlag.AlignLeft)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.stop_button)
        row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addLayout(row)
        self.hide()

    def begin(self, text: str, labels: tuple[str, str]) -> None:
        self.title.setText(f"Side by side: {' '.join(text.split())[:200]}")
        for side in (0, 1):
            self.labels[side].setText(labels[side])
            self.labels[side].setAccessibleName(f"Model {side + 1}: {labels[side]}")
            self.keep_buttons[side].setAccessibleName(f"Keep {labels[side]}'s answer")
            self.answers[side].setPlainText("")
            self.keep_buttons[side].setEnabled(False)
        self.stop_button.setEnabled(True)
        self.show()

    def stream(self, side: int, text: str) -> None:
        self.answers[side].setMarkdown(text)

    def finished(self, side: int, response: ev.ChatResponse) -> None:
        if response.is_error:
            self.answers[side].setPlainText(response.content)
        elif response.content:
            self.answers[side].setMarkdown(response.content)
        self.keep_buttons[side].setEnabled(not response.is_error and bool(response.content))

    def all_done(self) -> None:
        self.stop_button.setEnabled(False)


class SideBySideController(QObject):
    """Runs a comparison for the window and keeps the panel in step (see the module docstring)."""

    def __init__(self, assistant: Assistant, panel: SideBySidePanel, events: SignalInstance,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.assistant = assistant
        self.panel = panel
        self.comparison: Comparison | None = None
        self._texts = ["", ""]
        self._done = 0
        events.connect(self._event)
        panel.keep_buttons[0].clicked.connect(lambda: self.keep(0))
        panel.keep_buttons[1].clicked.connect(lambda: self.keep(1))
        panel.stop_button.clicked.connect(self.stop)
        panel.close_button.clicked.connect(self.close)

    @property
    def busy(self) -> bool:
        return self.comparison is not None and self._done < 2

    def start(self, text: str, provider_name: str) -> str:
        """Compare the model in use with ``provider_name``'s on ``text``; "" when started, else why not."""
        from jawad_desktop.core.compare import Comparison

        if self.busy:
            return "A comparison is still running: stop it first."
        try:
            comparison = Comparison.against(self.assistant, provider_name)
        except JawadError as exc:
            return error_text(exc)
        self.comparison = comparison
        self._texts = ["", ""]
        self._done = 0
        self.panel.begin(text, (comparison.sides[0].label, comparison.sides[1].label))
        run_async(comparison.run(text), what="comparing two models", bus=self.assistant.bus)
        return ""

    def _event(self, event: Any) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        if isinstance(event, ev.ComparisonDelta) and event.compare_id == comparison.id:
            self._texts[event.side] += event.text
            self.panel.stream(event.side, self._texts[event.side])
        elif isinstance(event, ev.ComparisonFinished) and event.compare_id == comparison.id:
            self.panel.finished(event.side, event.response)
            self._done += 1
            if self._done == 2:
                self.panel.all_done()

    def keep(self, side: int) -> None:
        if self.comparison is None:
            return
        try:
            self.comparison.keep(side)
        except JawadError as exc:
            self.panel.title.setText(error_text(exc))
            return
        self.comparison = None
        self.panel.hide()

    def stop(self) -> None:
        if self.comparison is not None:
            self.comparison.stop()

    def close(self) -> None:
        self.stop()
        self.comparison = None
        self.panel.hide()
