"""Small builders for the window's controls: a button, a field or a list of choices with the
name a screen reader says for it, a help line saying what a setting does, a status line and
its colours, and the words for a failure.

Every control needs an accessible name (screen readers and the tests find controls by it);
building them here keeps each page to one line a control. Validation messages from pydantic and
failures of background work are turned into plain words here too, the same way on every page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
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


def _described(box: QSpinBox | QDoubleSpinBox, accessible_name: str, suffix: str, special: str,
               tooltip: str) -> None:
    box.setAccessibleName(accessible_name)
    box.setSuffix(suffix)
    box.setSpecialValueText(special)  # shown for the lowest value ("No limit")
    if tooltip:
        box.setToolTip(tooltip)


def whole_number(accessible_name: str, parent: QWidget, low: int, high: int, *, step: int = 1, suffix: str = "",
                 special: str = "", tooltip: str = "") -> QSpinBox:
    """A field for a whole number from ``low`` to ``high``; ``special`` names the lowest value."""
    box = QSpinBox(parent)
    box.setRange(low, high)
    box.setSingleStep(step)
    _described(box, accessible_name, suffix, special, tooltip)
    return box


def decimal_number(accessible_name: str, parent: QWidget, low: float, high: float, *, step: float = 0.1,
                   decimals: int = 2, suffix: str = "", prefix: str = "", special: str = "",
                   tooltip: str = "") -> QDoubleSpinBox:
    """A field for a number with ``decimals`` decimals from ``low`` to ``high`` (seconds: ``suffix=" s"``)."""
    box = QDoubleSpinBox(parent)
    box.setDecimals(decimals)  # before the range: the range is rounded to the decimals
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setPrefix(prefix)
    _described(box, accessible_name, suffix, special, tooltip)
    return box


def data_table(accessible_name: str, columns: Iterable[str], parent: QWidget, *, stretch: int = 0,
               tooltip: str = "", rows_of: str = "") -> QTableWidget:
    """A read-only table chosen by rows: Tab leaves it (the arrows move in it: no keyboard trap), no
    row numbers; column ``stretch`` takes the width (-1: every column shares it), the others fit their
    contents. ``rows_of`` names what the rows are, for Qt's "select all" corner button's name."""
    headers = list(columns)
    table = QTableWidget(0, len(headers), parent)
    table.setAccessibleName(accessible_name)
    for corner in table.findChildren(QAbstractButton):  # hidden with the row numbers, still in the tree
        corner.setAccessibleName(f"Select all {rows_of or accessible_name.casefold()}")
    if tooltip:
        table.setToolTip(tooltip)
    table.setHorizontalHeaderLabels(headers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setTabKeyNavigation(False)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    for column in range(len(headers)):
        fills = stretch in (-1, column)
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if fills else
                                    QHeaderView.ResizeMode.ResizeToContents)
    return table


def fill_list(widget: QListWidget, rows: Iterable[tuple[str, object]], *, chosen: object = None, empty: str = "",
              editable: bool = False) -> None:
    """Show ``rows`` (text, the id kept as the item's data) in ``widget``, the ``chosen`` id selected
    again, each item ``editable`` in place or not; ``empty`` says what to do when there are none (a
    line that cannot be chosen; none when empty)."""
    widget.clear()
    for text, key in rows:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, key)
        if editable:
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        widget.addItem(item)
        if chosen is not None and key == chosen:
            item.setSelected(True)
            widget.setCurrentItem(item)
    if widget.count() == 0 and empty:
        widget.addItem(QListWidgetItem(empty))
        widget.item(0).setFlags(Qt.ItemFlag.NoItemFlags)


Field = QComboBox | QCheckBox | QSpinBox | QDoubleSpinBox | QLineEdit | QPlainTextEdit  # a setting's control


def show_value(field: Field, value: object) -> None:
    """Show a setting's ``value`` in its control (a list of choices gains a value it does not offer)."""
    if isinstance(field, QComboBox):
        index = field.findData(value)
        if index < 0:
            field.addItem(str(value), value)
            index = field.count() - 1
        field.setCurrentIndex(index)
    elif isinstance(field, QCheckBox):
        field.setChecked(bool(value))
    elif isinstance(field, QSpinBox):
        field.setValue(int(value))  # type: ignore[call-overload]
    elif isinstance(field, QDoubleSpinBox):
        field.setValue(float(value))  # type: ignore[arg-type]
    elif isinstance(field, QPlainTextEdit):
        field.setPlainText(str(value))
    else:
        field.setText(str(value))


def value_of(field: Field) -> object:
    """The value a control holds: the chosen item's data, a number rounded to the decimals shown,
    text without surrounding spaces."""
    if isinstance(field, QComboBox):
        return field.currentData()
    if isinstance(field, QCheckBox):
        return field.isChecked()
    if isinstance(field, QDoubleSpinBox):
        return round(field.value(), field.decimals())
    if isinstance(field, QSpinBox):
        return field.value()
    if isinstance(field, QPlainTextEdit):
        return field.toPlainText().strip()
    return field.text().strip()


def show_values(fields: Mapping[str, Field], values: object) -> None:
    """Each control of ``fields`` shows the attribute of ``values`` it is named after."""
    for name, field in fields.items():
        show_value(field, getattr(values, name))


def values_of(fields: Mapping[str, Field]) -> dict[str, Any]:
    """What the controls of ``fields`` hold, by name."""
    return {name: value_of(field) for name, field in fields.items()}


def on_change(fields: Iterable[Field], slot: Callable[[], object]) -> None:
    """Call ``slot`` when the user changes any of ``fields`` (a text field once its editing ends)."""
    for field in fields:
        if isinstance(field, QComboBox):
            field.currentIndexChanged.connect(slot)
        elif isinstance(field, QCheckBox):
            field.toggled.connect(slot)
        elif isinstance(field, QSpinBox | QDoubleSpinBox):
            field.valueChanged.connect(slot)
        elif isinstance(field, QPlainTextEdit):
            field.textChanged.connect(slot)
        else:
            field.editingFinished.connect(slot)


def field_row(field: QWidget, *beside: QWidget) -> QHBoxLayout:
    """``field`` taking the width, with small controls beside it ("Fetch models", "Show")."""
    row = QHBoxLayout()
    row.addWidget(field, 1)
    for widget in beside:
        row.addWidget(widget)
    return row


def row_of(*widgets: QWidget, stretch: bool = True) -> QHBoxLayout:
    """``widgets`` side by side (a row of buttons), the room left after them when ``stretch``."""
    row = QHBoxLayout()
    for widget in widgets:
        row.addWidget(widget)
    if stretch:
        row.addStretch(1)
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


def add_rows(form: QFormLayout, rows: Iterable[tuple[str, QWidget | QLayout]]) -> None:
    """Each (label, field) of ``rows`` as a row of ``form`` (``add_form_row``)."""
    for label, field in rows:
        add_form_row(form, label, field)


def add_explained_rows(form: QFormLayout, page: QWidget, rows: Iterable[tuple[str, QWidget, str]]) -> None:
    """Each (label, field, what it does) of ``rows`` as a row of ``form`` on ``page``, with its help
    line under it."""
    for label, field, text in rows:
        add_form_row(form, label, field)
        form.addRow("", help_line(text, page, describes=field))


def section_heading(text: str, parent: QWidget) -> QLabel:
    """The heading of a group of settings inside a page, in the theme's type scale (``role`` "section")."""
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setProperty("role", "section")
    return label


def label_for(text: str, field: QWidget, parent: QWidget) -> QLabel:
    """A label whose mnemonic ("&Results:") moves the focus to ``field``."""
    label = QLabel(text, parent)
    label.setBuddy(field)
    return label


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
        if text and self.isVisible():  # laid out: its width is the one it shows the text at
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
