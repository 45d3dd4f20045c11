"""What each Settings page says about itself, and the arranging that makes a page read like a
guided form (Cherry Studio's settings, not a wall of controls): an icon and a one-line summary at
its top, its rows grouped under headings with icons, the rarely changed ones folded under
"More options", and each term explained in plain words where it appears.

The pages build their controls as they always have; ``arrange(title, page)`` (called by the
dialog for each page it adds) regroups them from ``GUIDES``: rows are found by the attribute
names of their fields (``page.compute`` ...), so a page keeps its own code and a missing
attribute is skipped (logged) rather than breaking the dialog.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.ui.look.controls import help_line
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE, TYPE_SCALE

log = logging.getLogger("jawad.ui.settings")

HEADING = "settingsHeading"  # object name of a section heading
SUMMARY = "settingsSummary"  # object name of a page's summary line
FOLD_TEXT = "More options"


class Section(NamedTuple):
    """A group of rows: its ``title`` and ``icon``, starting at the row of field ``first`` (an
    attribute of the page); ``about`` says what the group is for; ``folded`` rows (attribute
    names) go under "More options" at the group's end."""

    title: str
    icon: str
    first: str
    about: str = ""
    folded: tuple[str, ...] = ()


class Guide(NamedTuple):
    """A page's icon, its summary, its sections and the plain words for its terms (field
    attribute -> words shown under the field)."""

    icon: str
    summary: str
    sections: tuple[Section, ...] = ()
    explain: tuple[tuple[str, str], ...] = ()


GUIDES: dict[str, Guide] = {
    "Providers": Guide(
        "sparkles",
        "Where Jawad's answers come from: an AI service you have an account with (your key stays in "
        "the system keyring), or a model running on this computer. Jawad uses the one marked “in use”.",
        explain=(
            ("forget_button",
             "Jawad remembers how this model behaved (how it calls tools, whether it sees images, how much "
             "text it takes). “Forget what was learned” clears that, for a model that was updated; the "
             "next request finds out again."),
        ),
    ),
    "Appearance": Guide("palette", "How Jawad looks: light, dark or high contrast, the accent colour, the text size."),
    "Network": Guide(
        "globe",
        "How Jawad reaches AI services and downloads models: a proxy, your company's certificates, "
        "how long to wait. Most people change nothing here.",
        sections=(
            Section("Connection", "globe", "proxy", "For networks that reach the internet through a proxy."),
            Section("Waiting and retrying", "clock", "connect_timeout", "How patient Jawad is with a slow service."),
        ),
    ),
    "Agent": Guide(
        "wrench",
        "How Jawad works through a request: how many steps it may take, how much it may spend, whether "
        "it shows a plan first, and your standing instructions.",
        sections=(
            Section("Limits", "shield-check", "max_steps",
                    "So that one message never runs long or costs more than you expect.",
                    folded=("max_tokens",)),
            Section("How Jawad works", "list-checks", "library_embeddings",
                    "Documents, plans and your own instructions.", folded=("tool_format", "temperature")),
        ),
        explain=(
            ("tool_format",
             "“Tools” are what Jawad can do besides writing: read the page, click, calculate."),
            ("library_embeddings",
             "“By meaning” finds passages that say the same thing in other words (“price” finds “costs "
             "$48”), not only the exact words you typed."),
        ),
    ),
    "Models": Guide(
        "download",
        "Models that run on this computer: nothing you type leaves it, and they work offline. Bigger "
        "ones answer better and need more memory. Ollama's models are listed too, if you use it."),
    "Site permissions": Guide(
        "shield-check",
        "Harbor is Jawad's guard: before the agent clicks, types, submits or downloads on a site, Harbor "
        "asks you. What you allowed for good is listed here; Revoke makes it ask again."),
    "Documents": Guide(
        "scroll-text",
        "Your own files and folders that Jawad may search when you ask about them; they stay on this "
        "computer."),
    "Memory": Guide(
        "list-checks",
        "Facts Jawad keeps about you between conversations (“I live in Lyon”), so you need not repeat "
        "them. You can read, change or delete each one."),
    "Projects": Guide(
        "list-checks",
        "A project groups the conversations, files, instructions and remembered facts of one piece of "
        "work (“Kitchen renovation”): chats started in it get its instructions, and search only its files."),
    "Tasks": Guide(
        "clock",
        "Prompts Jawad runs on a schedule while its window or tray icon is open (“every weekday at 8, "
        "check the kettle's price”). Each may only do what you allow here; anything else stops it."),
    "MCP servers": Guide(
        "mouse-pointer-click",
        "Extra tools from programs that speak MCP (the Model Context Protocol, a common way for apps to "
        "offer tools to AI assistants): a calendar, a file store, a database."),
    "Voice": Guide(
        "mic",
        "Talk to Jawad and hear its answers. Everything works on this computer once offline speech is "
        "installed; the defaults suit most people.",
        sections=(
            Section("Microphone", "mic", "device", "The microphone Jawad listens to; speak and the bar moves."),
            Section("Understanding your speech", "audio-lines", "backend",
                    "Turning what you say into text: on this computer (private, offline) or by an online service.",
                    folded=("compute", "beam", "language", "api_provider", "api_model")),
            Section("Listening", "clock", "silence", "When Jawad stops listening and what it does then.",
                    folded=("max_length",)),
            Section("Spoken replies", "volume-2", "speak_replies", "Jawad reading its answers aloud.",
                    folded=("tts_provider", "tts_model", "tts_voice", "piper_voices", "piper_voice",
                            "espeak_voice")),
            Section("Hands-free conversation", "audio-lines", "conversation_timeout",
                    "Conversation mode (Ctrl+Shift+Space): talk back and forth without pressing a key.",
                    folded=("echo_cancel",)),
        ),
        explain=(
            ("backend",
             "On this computer, your voice never leaves it. An online service (Whisper API) may hear better "
             "on a slow computer and uses your provider's account."),
            ("model",
             "A bigger speech model hears better and is slower: tiny or base suit most computers; "
             "“.en” models understand English only, and better."),
            ("compute",
             "How precisely the speech model calculates: int8 is fastest and works on any processor; "
             "float16 needs a graphics card."),
            ("beam",
             "How many guesses the model keeps while listening: 1 is fastest, 2 to 5 may hear better."),
            ("language", "The language you speak; Automatic works it out (a little slower). Other than English "
                         "needs a multilingual model such as base; replies are read in it where a voice exists."),
            ("api_provider", "Which of your providers transcribes, when the online service is used."),
            ("api_model", "The service's speech model: whisper-1 at OpenAI, whisper-large-v3 at Groq."),
            ("silence", "How long a pause ends what you are saying."),
            ("max_length", "A recording stops after this long, whatever happens."),
            ("tts_backend",
             "The voice that reads answers: Piper sounds natural and works offline; espeak-ng is robotic "
             "but always there; a speech API sounds best and needs the internet."),
            ("tts_model", "The online voice model, e.g. tts-1 (fast) or tts-1-hd (clearer)."),
            ("tts_voice", "The online voice's name, e.g. alloy, nova or onyx."),
            ("piper_voices", "A Piper voice installed on this computer (a language and a speaker)."),
            ("espeak_voice", "espeak-ng's voice for your language, e.g. en-us, fr or ar."),
            ("speech_rate", "How fast replies are read: 1 is normal, 1.25 a little faster."),
            ("conversation_timeout", "Conversation mode ends after this long without you speaking."),
            ("echo_cancel",
             "Stops the microphone hearing Jawad's own voice through your speakers (needs PulseAudio or "
             "PipeWire)."),
            ("wake_word",
             "Say “Hey Jawad” to start talking, even with the window closed to the tray. The microphone "
             "stays open while this is on (the tray icon shows a red microphone); what it hears stays on "
             "this computer."),
        ),
    ),
    "Tray and hotkeys": Guide(
        "keyboard",
        "Jawad from anywhere on your desktop: a key that asks it a question, notifications, and the "
        "tray icon that keeps it running when the window is closed."),
}


def page_icon(title: str) -> str:
    guide = GUIDES.get(title)
    return guide.icon if guide else "settings"


def heading(title: str, icon_name: str, about: str, parent: QWidget) -> QWidget:
    """A section heading: an icon, the title in the heading size, and a line saying what the group is for."""
    box = QWidget(parent)
    box.setObjectName(HEADING)
    box.setAccessibleName(title)
    column = QVBoxLayout(box)
    column.setContentsMargins(0, SPACE["lg"], 0, SPACE["xs"])
    column.setSpacing(SPACE["xxs"])
    row = QHBoxLayout()
    row.setSpacing(SPACE["sm"])
    picture = QLabel(box)
    size = TYPE_SCALE["heading"]
    picture.setPixmap(icon(icon_name, "accent").pixmap(QSize(size, size)))
    row.addWidget(picture)
    text = QLabel(title, box)
    text.setProperty("role", "heading")
    row.addWidget(text, 1)
    column.addLayout(row)
    if about:
        line = QLabel(about, box)
        line.setWordWrap(True)
        line.setProperty("role", "muted")
        column.addWidget(line)
    return box


def page_header(title: str, parent: QWidget) -> QWidget:
    """The top of a page: its icon and title, and what the page is for."""
    guide = GUIDES.get(title)
    box = QWidget(parent)
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, SPACE["sm"])
    column.setSpacing(SPACE["xs"])
    row = QHBoxLayout()
    row.setSpacing(SPACE["sm"])
    picture = QLabel(box)
    size = TYPE_SCALE["title"]
    picture.setPixmap(icon(page_icon(title), "accent").pixmap(QSize(size, size)))
    row.addWidget(picture)
    name = QLabel(title, box)
    name.setProperty("role", "title")
    row.addWidget(name, 1)
    column.addLayout(row)
    if guide is not None:
        summary = QLabel(guide.summary, box)
        summary.setObjectName(SUMMARY)
        summary.setWordWrap(True)
        summary.setProperty("role", "muted")
        summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        column.addWidget(summary)
    return box


class Fold(QWidget):
    """Rows folded away under "More options": a button opens and closes them."""

    def __init__(self, about: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.button = QToolButton(self)
        self.button.setText(FOLD_TEXT)
        self.button.setAccessibleName(f"{FOLD_TEXT}: {about}")
        self.button.setToolTip(f"Show or hide the less used settings of {about}")
        self.button.setCheckable(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.body = QWidget(self)
        self.form = QFormLayout(self.body)
        self.form.setContentsMargins(SPACE["lg"], 0, 0, 0)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.body)
        self.button.toggled.connect(self.set_open)
        self.set_open(False)

    def set_open(self, shown: bool) -> None:
        self.button.setChecked(shown)
        self.button.setIcon(icon("chevron-down" if shown else "chevron-right"))
        self.body.setVisible(shown)

    def is_open(self) -> bool:
        return self.button.isChecked()


def _holds(item: QLayoutItem | None, widget: QWidget) -> bool:
    if item is None:
        return False
    if item.widget() is widget:
        return True
    inner = item.layout()
    return inner is not None and any(_holds(inner.itemAt(i), widget) for i in range(inner.count()))


def form_row(form: QFormLayout, widget: QWidget) -> int:
    """The row of ``form`` whose field is (or holds) ``widget``, or -1."""
    for row in range(form.rowCount()):
        if _holds(form.itemAt(row, QFormLayout.ItemRole.FieldRole), widget) or _holds(
                form.itemAt(row, QFormLayout.ItemRole.SpanningRole), widget):
            return row
    return -1


def _forms(page: QWidget) -> list[QFormLayout]:
    return [f for f in page.findChildren(QFormLayout) if isinstance(f, QFormLayout)]


def _find(page: QWidget, widget: QWidget) -> tuple[QFormLayout | None, int]:
    for form in _forms(page):
        row = form_row(form, widget)
        if row >= 0:
            return form, row
    return None, -1


def _box_position(layout: QLayout | None, widget: QWidget) -> tuple[QVBoxLayout | None, int]:
    """The innermost column (a vertical box layout) under ``layout`` with an item holding
    ``widget``, and that item's index: a line inserted after it shows under the widget's row."""
    if layout is None:
        return None, -1
    for index in range(layout.count()):
        item = layout.itemAt(index)
        if not _holds(item, widget):
            continue
        inner = item.layout() if item is not None else None
        if inner is not None:
            deeper = _box_position(inner, widget)
            if deeper[0] is not None:
                return deeper
        return (layout, index) if isinstance(layout, QVBoxLayout) else (None, -1)
    return None, -1


def _widget(page: QWidget, attribute: str) -> QWidget | None:
    found = getattr(page, attribute, None)
    if not isinstance(found, QWidget):
        log.warning("settings guide: %s has no control %r", type(page).__name__, attribute)
        return None
    return found


def explain(page: QWidget, field: QWidget, text: str) -> QLabel | None:
    """Plain words under ``field``: a help line after its form row (or after it in its box)."""
    form, row = _find(page, field)
    if form is not None and (existing := _help_after(form, row)) is not None:
        # The page says what the setting does already: the plain words of its term go first.
        existing.setText(f"{text} {existing.text()}")
        field.setToolTip(existing.text())
        field.setAccessibleDescription(existing.text())
        return existing
    line = help_line(text, page, describes=field)
    if form is not None:
        form.insertRow(row + 1, "", line)
        return line
    box, index = _box_position(page.layout(), field)
    if box is None:
        line.deleteLater()
        return None
    box.insertWidget(index + 1, line)
    return line


def _help_after(form: QFormLayout, row: int) -> QLabel | None:
    """The help line under ``row`` of ``form`` (a row without a label holding only a wrapped text
    that is not a status line), or None."""
    after = row + 1
    if after >= form.rowCount():
        return None
    label = form.itemAt(after, QFormLayout.ItemRole.LabelRole)
    named = label.widget() if label is not None else None
    if label is not None and (not isinstance(named, QLabel) or named.text()):
        return None
    field = form.itemAt(after, QFormLayout.ItemRole.FieldRole) or form.itemAt(after, QFormLayout.ItemRole.SpanningRole)
    found = field.widget() if field is not None else None
    if isinstance(found, QLabel) and not found.property("jawadStatusLine") and found.wordWrap():
        return found
    return None


def _fold_rows(page: QWidget, section: Section, following: Section | None) -> Fold | None:
    fields = [w for w in (_widget(page, name) for name in section.folded) if w is not None]
    placed = [(form, row, w) for w in fields for form, row in [_find(page, w)] if form is not None]
    if not placed:
        return None
    form = placed[0][0]
    fold = Fold(section.title.lower(), page)
    rows = sorted({row for f, row, _ in placed if f is form})
    for row in reversed(rows):  # with the help line under each
        if _help_after(form, row) is not None:
            _move(form, row + 1, fold.form, 0)
        _move(form, row, fold.form, 0)
    # The fold closes its section: before the next section's first row, or at the form's end.
    end = form.rowCount()
    if following is not None and (first := _widget(page, following.first)) is not None:
        row = form_row(form, first)
        end = row if row >= 0 else end
    form.insertRow(end, fold)
    return fold


def _move(source: QFormLayout, row: int, target: QFormLayout, at: int) -> None:
    taken = source.takeRow(row)
    label = taken.labelItem.widget() if taken.labelItem is not None else None
    field_item = taken.fieldItem
    field: QWidget | QLayout | None = None
    if field_item is not None:
        field = field_item.widget() or field_item.layout()
    if field is None:
        return
    if label is not None:
        target.insertRow(at, label, field)
    else:
        target.insertRow(at, "", field)


def arrange(title: str, page: QWidget) -> list[Fold]:
    """Regroup ``page`` (the Settings page called ``title``) as its guide says: plain words under
    its terms, rows folded under "More options", headings over its sections. Returns the folds."""
    guide = GUIDES.get(title)
    if guide is None:
        return []
    for attribute, text in guide.explain:
        field = _widget(page, attribute)
        if field is not None and explain(page, field, text) is None:
            log.warning("settings guide: %s.%s is in no layout", type(page).__name__, attribute)
    sections = guide.sections
    folds = [fold for index, section in enumerate(sections)
             if (fold := _fold_rows(page, section, sections[index + 1] if index + 1 < len(sections) else None))
             is not None]
    for section in guide.sections:
        first = _widget(page, section.first)
        if first is None:
            continue
        form, row = _find(page, first)
        if form is None:
            log.warning("settings guide: %s.%s is in no form", type(page).__name__, section.first)
            continue
        form.insertRow(row, heading(section.title, section.icon, section.about, page))
    return folds
