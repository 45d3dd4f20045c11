"""What every Settings page owes keyboard and screen-reader users, checked the same way on each:
every control has an accessible name and says what it does (a tool tip), every field has a
label whose mnemonic (Alt+letter) moves to it, and no two mnemonics of a page share a letter."""

from __future__ import annotations

import re

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

_FIELDS = (QLineEdit, QAbstractSpinBox, QComboBox, QPlainTextEdit)


def _mnemonic(text: str) -> str | None:
    found = re.search(r"&([^&])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def _controls(page: QWidget) -> list[QWidget]:
    """The page's own controls (not the line edit inside a spin box or an editable combo box)."""
    found: list[QWidget] = []
    for widget in page.findChildren(QWidget):
        if not isinstance(widget, (*_FIELDS, QAbstractButton)):
            continue
        if isinstance(widget.parent(), (QAbstractSpinBox, QComboBox)):
            continue
        if widget.window() is not page.window():  # a file chooser the page opened
            continue
        found.append(widget)
    return found


def assert_named_and_labelled(page: QWidget) -> None:
    controls = _controls(page)
    assert controls, "the page has no controls"
    mnemonics: dict[str, str] = {}
    for control in controls:
        assert control.accessibleName(), f"{type(control).__name__} {control.objectName()!r} has no accessible name"
        if isinstance(control, QAbstractButton) and (letter := _mnemonic(control.text())):
            assert letter not in mnemonics, f"Alt+{letter} is both {mnemonics[letter]!r} and {control.text()!r}"
            mnemonics[letter] = control.text()
    buddies = {}
    for label in page.findChildren(QLabel):
        letter = _mnemonic(label.text())
        if letter is None:
            continue
        assert label.buddy() is not None, f"the label {label.text()!r} has a mnemonic but moves nowhere"
        assert letter not in mnemonics, f"Alt+{letter} is both {mnemonics[letter]!r} and {label.text()!r}"
        mnemonics[letter] = label.text()
        buddies[id(label.buddy())] = label.text()
    for field in (c for c in controls if isinstance(c, _FIELDS)):
        assert id(field) in buddies, f"the field {field.accessibleName()!r} has no label with a mnemonic"
        assert field.toolTip(), f"the field {field.accessibleName()!r} does not say what it does"
