"""Small builders for the window's controls: a button, a field or a list of choices with the
name a screen reader says for it, a help line saying what a setting does, a status line and
its colours, and the words for a failure.

Every control needs an accessible name (screen readers and the tests find controls by it);
building them here keeps each page to one line a control. Validation messages from pydantic and
failures of background work are turned into plain words here too, the same way on every page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import ValidationError
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from jawad_desktop.core.errors import JawadError
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.theme import current, notifier

ERROR_STYLE = "color: #c01c28;"  # an error's colour before any theme is applied; use error_style()


def error_style() -> str:
    """The style sheet of a line of text that reports a problem, in the theme in use (a fixed red
    was 2.8:1 on the dark theme's window). Lines styled so follow a later theme change."""
    _follow_theme()
    return f"color: {current().colours.danger};"


def success_style() -> str:
    """The style sheet of a line of text that reports a success, in the theme in use."""
    _follow_theme()
    return f"color: {current().colours.success};"


_following = False


def _follow_theme() -> None:
    global _following
    if not _following:
        _following = True
        notifier().changed.connect(_retint_status_lines)


def _retint_status_lines() -> None:
    """A theme change: every label coloured as a problem or a success takes the new theme's shade."""
    from jawad_desktop.ui.look.theme import THEMES, resolve

    themes = [resolve(name, system_dark=dark) for name in THEMES for dark in (False, True)]
    dangers = {ERROR_STYLE, *(f"color: {t.colours.danger};" for t in themes)}
    successes = {f"color: {t.colours.success};" for t in themes}
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    danger, success = error_style(), success_style()
    for widget in app.allWidgets():
        if isinstance(widget, QLabel) and (sheet := widget.styleSheet()):
            if sheet in dangers and sheet != danger:
                widget.setStyleSheet(danger)
            elif sheet in successes and sheet != success:
                widget.setStyleSheet(success)


def button(text: str, accessible_name: str, parent: QWidget, *, tooltip: str = "") -> QPushButton:
    """A push button with the name a screen reader says for it."""
    made = QPushButton(text, parent)
    made.setAccessibleName(accessible_name)
    if tooltip:
        made.setToolTip(tooltip)
    return made


def line_edit(accessible_name: str, parent: QWidget, *, hint: str = "", tooltip: str = "") -> QLineEdit:
    """A one-line text field; ``hint`` shows, greyed, what to type (or what an empty field means)."""
    field = QLineEdit(parent)
    field.setAccessibleName(accessible_name)
    field.setPlaceholderText(hint)
    if tooltip:
        field.setToolTip(tooltip)
    return field


def combo(accessible_name: str, parent: QWidget, choices: Iterable[tuple[str, object]] = ()) -> QComboBox:
    """A list of choices, each a (label, value) pair; ``currentData()`` is the chosen value."""
    box = QComboBox(parent)
    box.setAccessibleName(accessible_name)
    for label, value in choices:
        box.addItem(label, value)
    return box


def field_row(field: QWidget, *beside: QWidget) -> QHBoxLayout:
    """``field`` taking the width, with small controls beside it ("Fetch models", "Show")."""
    row = QHBoxLayout()
    row.addWidget(field, 1)
    for widget in beside:
        row.addWidget(widget)
    return row


def add_form_row(form: QFormLayout, label: str, field: QWidget | QLayout) -> None:
    """``form.addRow(label, field)``, with the label's mnemonic ("&Model") moving to the field
    even when ``field`` is a row of controls: QFormLayout gives such a label no buddy, and a
    label without a buddy shows its "&" instead of underlining the letter."""
    if not isinstance(field, QLayout):
        form.addRow(label, field)
        return
    named = QLabel(label, form.parentWidget())
    item = field.itemAt(0)
    first = item.widget() if item is not None else None
    if first is not None:
        named.setBuddy(first)
    form.addRow(named, field)


def help_line(text: str, parent: QWidget, *, describes: QWidget) -> QLabel:
    """A short line under a setting saying what it does; the control it ``describes`` gets the
    same words as its tool tip and its accessible description (what a screen reader adds)."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    # At the top of its row: a wrapped label given more height than its lines (QFormLayout asks
    # its height at another width) centred them, far from the setting it explains.
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # quieter than the setting itself
    describes.setToolTip(text)
    describes.setAccessibleDescription(text)
    return label


STATUS_LINE = "jawadStatusLine"  # the property that marks a status line


class _RoomKeepingLine(QLabel):
    """A status line that keeps the height of the longest news it showed (at least two lines): a
    message going or a shorter one coming moves nothing below it. The room grows when the text is
    set, not later when the layout next measures it, so the page moves once, with the news."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setMinimumHeight(2 * self.fontMetrics().lineSpacing())

    def setText(self, text: str) -> None:
        super().setText(text)
        if text and self.width() > 0:
            self.setMinimumHeight(max(self.minimumHeight(), self.heightForWidth(self.width())))


def status_line(accessible_name: str, parent: QWidget, *, keep_room: bool = False) -> QLabel:
    """A wrapped, selectable line for results and problems (the user may copy an error);
    ``keep_room``: the line keeps the height of its longest message (``_RoomKeepingLine``)."""
    label = _RoomKeepingLine(parent) if keep_room else QLabel(parent)
    label.setWordWrap(True)
    label.setAccessibleName(accessible_name)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setProperty(STATUS_LINE, True)
    return label


def clear_status_lines(root: QWidget) -> None:
    """Empty every status line under ``root`` (a dialog opened again starts without old news)."""
    for label in root.findChildren(QLabel):
        if label.property(STATUS_LINE):
            label.clear()


def set_status(label: QLabel, text: str, *, error: bool = False) -> None:
    """Show ``text`` on a status line, red for a problem, green otherwise (the theme's shades)."""
    label.setStyleSheet(error_style() if error else success_style())
    label.setText(text)


def validation_message(exc: ValidationError) -> str:
    """The first problem of a pydantic error, in plain words."""
    first = exc.errors()[0]
    message = str(first.get("msg", "Invalid value"))
    return message.removeprefix("Value error, ")


def failure_text(what: str, exc: BaseException) -> str:
    """What a failed background job tells the user: a ``JawadError`` says what to do itself;
    anything else is named, so that it can be reported."""
    if isinstance(exc, JawadError):
        return error_text(exc)
    return f"{what[:1].upper()}{what[1:]} failed: {type(exc).__name__}: {exc}"


def claims_escape(event: QEvent, asking: Callable[[], bool]) -> bool:
    """Whether a panel takes Escape for its own answer (deny, reject) while ``asking()``: Qt runs
    the window's Esc shortcut (Stop the whole run) first unless the focus claims the key. Call it
    from the panel's ``event`` (also called while the panel is being made, so ``asking`` is only
    called for an Escape); True means the event was accepted there."""
    if (event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape and asking()):
        event.accept()
        return True
    return False
