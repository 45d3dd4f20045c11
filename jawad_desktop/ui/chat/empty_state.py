"""What an empty conversation shows in place of the messages (``EmptyState``): what to do when
no provider is set, else example requests that fill the input.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from jawad_desktop.ui.look import theme

EXAMPLE_PROMPTS = (
    "Summarize the page I have open",
    "Compare three well-reviewed laptops under €600",
    "What does \"No module named 'numpy'\" mean?",
    "Plan a day in Lisbon by tram",
)


class EmptyState(QWidget):
    """What an empty conversation shows where the messages go. Without a provider: what to do,
    with a button that opens Settings → Providers (``settings_requested``). With one: a few
    example requests; a click puts one in the input (``prompt_chosen(text)``) to edit or send."""

    settings_requested = Signal()
    prompt_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatEmptyState")
        self.title = QLabel(self)
        self.title.setObjectName("emptyStateTitle")
        self.title.setProperty("role", "title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)
        self.text = QLabel(self)
        self.text.setObjectName("emptyStateText")
        self.text.setProperty("role", "muted")
        self.text.setTextFormat(Qt.TextFormat.MarkdownText)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setWordWrap(True)
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.settings_button = QPushButton("Open Settings → Providers", self)
        self.settings_button.setObjectName("emptyStateSettings")
        self.settings_button.setProperty("primary", True)
        self.settings_button.setAccessibleName("Open Settings, Providers")
        self.settings_button.clicked.connect(self.settings_requested)
        self.prompt_buttons: list[QPushButton] = []
        column = QVBoxLayout(self)
        column.setContentsMargins(*[theme.SPACE["xl"]] * 4)
        column.setSpacing(theme.SPACE["md"])
        column.addStretch(1)
        column.addWidget(self.title)
        column.addWidget(self.text)
        column.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignHCenter)
        for prompt in EXAMPLE_PROMPTS:
            button = QPushButton(prompt, self)
            button.setObjectName("emptyStatePrompt")
            button.setAccessibleName(f"Example request: {prompt}")
            button.setToolTip("Put this request in the input, to edit or send")
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setMaximumWidth(420)
            button.clicked.connect(lambda _=False, p=prompt: self.prompt_chosen.emit(p))
            column.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
            self.prompt_buttons.append(button)
        column.addStretch(2)
        self.set_provider_ready(True)

    def set_provider_ready(self, ready: bool, setup_text: str = "") -> None:
        """Examples when a provider is set; else ``setup_text`` (what to do) and the Settings button."""
        if ready:
            self.title.setText("What can I do for you?")
            self.text.setText("Ask anything, or try one of these. I can browse the page on the right "
                              "for you, and ask before I act.")
        else:
            self.title.setText("Set up a model to start")
            self.text.setText(setup_text)
        self.settings_button.setVisible(not ready)
        for button in self.prompt_buttons:
            button.setVisible(ready)

    def is_provider_ready(self) -> bool:
        return not self.settings_button.isVisibleTo(self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # A narrow column shortens the examples with "…" (the whole request still goes in the input).
        for prompt, button in zip(EXAMPLE_PROMPTS, self.prompt_buttons, strict=True):
            room = min(button.maximumWidth(), self.width() - 2 * theme.SPACE["xl"]) - theme.SPACE["xl"]
            button.setText(button.fontMetrics().elidedText(prompt, Qt.TextElideMode.ElideRight, max(40, room)))
