"""What the panels that ask the user mid-turn share (permission, plan, take-over).

One request is shown at a time (``current``). Escape, while the panel has the focus, gives the
safe answer (deny, reject) where the panel has one, instead of the window's Esc (Stop the whole
run). A window-wide key may give the yes answer (Ctrl+Return: approve, continue). A timed
request shows the time left from its own deadline; the clock that decides is the core's, and
whatever settles the request comes back as an event that closes the panel, or, after a timeout,
says so for a moment (``expire``). A yes-or-no panel (plan, take-over: ``YesNoPanel``) answers
with ``answered(request id, yes)``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, cast

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QSizePolicy, QWidget

from jawad_desktop.ui.look.controls import claims_escape

log = logging.getLogger("jawad.ui.prompts")

EXPIRED_SHOWN_MS = 1500  # how long "No answer in time" stays before the panel closes


class Prompt(Protocol):
    """A request a panel shows: its id, when it was made (ms) and how long the core waits (s)."""

    @property
    def id(self) -> str: ...


class TimedPrompt(Prompt, Protocol):
    @property
    def timestamp(self) -> int: ...
    @property
    def timeout_s(self) -> float: ...


R = TypeVar("R", bound=Prompt)


def panel_text(parent: QWidget, name: str = "", *, rich: bool = False, selectable: bool = False) -> QLabel:
    """A wrapped text of a panel (its title, its details, a message): ``name`` its object name
    (the theme styles some); ``rich``: the text is HTML; ``selectable``: the user may copy it."""
    label = QLabel(parent)
    if name:
        label.setObjectName(name)
    label.setWordWrap(True)
    if rich:
        label.setTextFormat(Qt.TextFormat.RichText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class PromptPanel(QFrame, Generic[R]):
    """The frame, the request shown, the safe answer on Escape, the yes key and the countdown.

    ``name``: the object name (the theme styles it); ``yes_keys`` with ``on_yes``: a window-wide
    shortcut (on ``shortcut_parent``) enabled while a request is shown; ``countdown``: the label
    ``countdown`` (``<name>Countdown``) says each second what ``countdown_text`` makes of the
    time left before the request's deadline.
    """

    def __init__(self, parent: QWidget | None, *, name: str, accessible_name: str,
                 height_policy: QSizePolicy.Policy = QSizePolicy.Policy.Preferred,
                 yes_keys: str = "", on_yes: Callable[[], None] | None = None,
                 shortcut_parent: QWidget | None = None, countdown: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(accessible_name)
        # The column's width whatever the request's lines want: opening it never moves the splitter.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, height_policy)
        self.current: R | None = None
        self.yes_shortcut: QShortcut | None = None
        if yes_keys and on_yes is not None:
            self.yes_shortcut = QShortcut(QKeySequence(yes_keys), shortcut_parent or self)
            self.yes_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            self.yes_shortcut.setEnabled(False)
            self.yes_shortcut.activated.connect(on_yes)
        self.timed = countdown
        self.countdown = QLabel(self)  # the panel lays it out where it wants it
        self.countdown.setObjectName(f"{name}Countdown")
        self.countdown.setVisible(countdown)
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.update_countdown)

    # -- what a panel says ------------------------------------------------------------------------

    def safe_answer(self) -> bool:
        """Give the safe answer to the request shown (Escape); False where there is none."""
        return False

    def countdown_text(self, request: R, left_s: int) -> str:
        return f"{left_s} s left."

    # -- showing and closing ----------------------------------------------------------------------

    def open_prompt(self, request: R) -> None:
        """Show ``request``: the yes key works, the countdown runs."""
        self.current = request
        if self.yes_shortcut is not None:
            self.yes_shortcut.setEnabled(True)
        self.show()
        if self.timed:
            self.update_countdown()
            self._tick.start()

    def release(self) -> R | None:
        """Forget the request shown (its answer is given or it was settled); returns it."""
        request, self.current = self.current, None
        if self.yes_shortcut is not None:
            self.yes_shortcut.setEnabled(False)
        self._tick.stop()
        return request

    def close_prompt(self) -> None:
        self.release()
        self.hide()

    def expire(self, text: str, buttons: list[QPushButton], then: Callable[[], None]) -> None:
        """No answer in time: say ``text`` with the buttons off for a moment, then ``then()``."""
        self.release()
        self.countdown.setText(text)
        for button in buttons:
            button.setEnabled(False)
        QTimer.singleShot(EXPIRED_SHOWN_MS, then)

    def update_countdown(self) -> None:
        request = self.current
        if request is None or not self.timed:
            return
        timed = cast(TimedPrompt, request)  # a panel with a countdown shows timed requests
        left = max(0.0, timed.timestamp / 1000 + timed.timeout_s - time.time())
        self.countdown.setText(self.countdown_text(request, int(left + 0.999)))

    # -- Escape -----------------------------------------------------------------------------------

    def event(self, event: QEvent) -> bool:
        # Escape here must reach keyPressEvent (the safe answer), not the window's Esc (Stop the run).
        return claims_escape(event, self._has_safe_answer) or super().event(event)

    def _has_safe_answer(self) -> bool:
        return self.current is not None and type(self).safe_answer is not PromptPanel.safe_answer

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.current is not None and self.safe_answer():
            event.accept()
            return
        super().keyPressEvent(event)


class YesNoPanel(PromptPanel[R]):
    """A panel answered yes or no (approve or reject a plan, continue or cancel a hand-over):
    ``answer`` closes the request shown and emits ``answered(request id, yes)``. ``ANSWERS``:
    how the log names the two answers."""

    answered = Signal(str, bool)
    ANSWERS = ("yes", "no")

    def answer(self, yes: bool) -> None:
        """Give the answer to the request shown (nothing when none is)."""
        request = self.current
        if request is None:
            return
        log.info("%s %s: %s", self.objectName(), request.id, self.ANSWERS[0] if yes else self.ANSWERS[1])
        self.close_prompt()
        self.answered.emit(request.id, yes)
