"""The "Take over" banner above the browser: the agent hands the page to the user.

When the agent needs the user on the page (signing in, a CAPTCHA, a two-factor code, payment
details) the core emits ``HandOverRequested`` and waits (``core.tools.browser.hand_over``). This
banner says why ("Jawad needs you: sign in. Use the page, then press Continue."), gives the
browser the keyboard, and answers with Continue (Ctrl+Return, also while typing in the page) or
Cancel. Whatever ends the hand-over (an answer, Stop) comes back as ``HandOverFinished`` and
closes it; the banner keeps no state of its own beyond the request shown.

Wiring: ``bridge.hand_over_requested -> banner.show_request``, ``bridge.hand_over_finished ->
banner.finish`` and ``banner.answered -> hand_over.respond``.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSizePolicy, QWidget

from jawad_desktop.core.events import HandOverFinished, HandOverRequested
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE
from jawad_desktop.ui.prompts.prompt_panel import YesNoPanel, panel_text

CONTINUE_KEYS = "Ctrl+Return"


class TakeOverBanner(YesNoPanel[HandOverRequested]):
    """Shows one hand-over and emits ``answered(request_id, continued)``.

    ``focus_page``: gives the keyboard to the page shown when the banner opens (the browser's view
    of the tab shown), so the user can type into the page at once.
    """

    ANSWERS = ("continue", "cancel")

    def __init__(self, parent: QWidget | None = None, *, focus_page: Callable[[], None] | None = None) -> None:
        # Window-wide Continue: the user is typing in the page, not in the banner, when they are done.
        super().__init__(parent, name="takeOverBanner", accessible_name="Jawad needs you to take over the page",
                         height_policy=QSizePolicy.Policy.Maximum, yes_keys=CONTINUE_KEYS,
                         on_yes=lambda: self.answer(True), shortcut_parent=parent)
        # Its colours are the theme's (ui.theme: the notice background, a warning-coloured border).
        # The banner never widens the browser's column: its text wraps instead.
        self.focus_page = focus_page

        self.message = panel_text(self, "takeOverMessage", rich=True)
        self.continue_button = QPushButton("Continue", self)
        self.continue_button.setObjectName("takeOverContinue")
        self.continue_button.setAccessibleName("Continue: I am done on the page")
        self.continue_button.setToolTip(f"Let Jawad go on from the page as it is now ({CONTINUE_KEYS})")
        self.continue_button.setIcon(icon("play"))
        self.continue_button.clicked.connect(lambda: self.answer(True))
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("takeOverCancel")
        self.cancel_button.setAccessibleName("Cancel the hand-over")
        self.cancel_button.setToolTip("Tell Jawad you will not do it; it stops trying this step")
        self.cancel_button.setIcon(icon("x"))
        self.cancel_button.clicked.connect(lambda: self.answer(False))

        row = QHBoxLayout(self)
        row.setContentsMargins(SPACE["sm"], SPACE["xs"], SPACE["sm"], SPACE["xs"])
        row.addWidget(self.message, 1)
        row.addWidget(self.continue_button)
        row.addWidget(self.cancel_button)
        self.hide()

    def show_request(self, request: HandOverRequested) -> None:
        """Show the hand-over (one at a time: the agent waits on it) and give the page the keyboard."""
        self.message.setText(f"<b>Jawad needs you:</b> {html.escape(request.reason.strip().rstrip('.'))}. "
                             f"Use the page, then press <b>Continue</b> ({CONTINUE_KEYS}).")
        self.open_prompt(request)
        if self.focus_page is not None:
            self.focus_page()

    def finish(self, event: HandOverFinished) -> None:
        """The hand-over ended (answered here, or the run was stopped): close it."""
        if self.current is not None and self.current.id == event.id:
            self.close_prompt()
