"""What a screen-reader and keyboard user needs from every widget tree, checked by walking it.

The rule for a name: a control is named when its ``accessibleName()`` is set; a button (push,
tool, check, radio) is also named by its own text when that text has a letter or a digit in it
(Qt gives a button's text, without the "&", to screen readers; "✕" or "▶" alone says nothing);
a field (line/text edit, combo box, spin box, slider, list/tree view) is also named by a
``QLabel`` whose buddy it is (on Linux that label is the field's accessible "labelled by");
a tab bar is also named by its tab widget's name. The parts Qt builds inside a compound
control (the line edit of a spin box, a combo box or a key sequence edit, the clear button of a
line edit, the scroll arrows of a tab bar, a combo box's popup list) are the compound control's
business.

The rule for Tab: a table moves Tab from cell to cell and round again by default, so Tab never
leaves it; every item view lets Tab go on to the next control (arrows move inside it).

The rule for Alt+letter: Qt gives a window's mnemonics (its menus', its buttons', its labels')
to whichever is shown; when two shown at once share a letter, Alt+letter only moves the focus
between them and presses neither, so each letter shown must be one control's.

The rule for an ampersand: Qt turns "&x" into a mnemonic only on buttons, group boxes, tabs,
menus and labels that have a buddy; a plain-text label without a buddy shows "&Model" as it is,
and a rich-text label shows a "&" that starts no entity as it is too. Either is a stray "&".
"""

from __future__ import annotations

import re

from PySide6.QtGui import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDial,
    QGroupBox,
    QHeaderView,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QSlider,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

FIELDS = (QLineEdit, QTextEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox, QKeySequenceEdit, QSlider, QDial,
          QAbstractItemView)
CONTROLS = (QAbstractButton, QTabBar, *FIELDS)
# Compound controls: what Qt builds inside them is named through them.
_COMPOUND = (QAbstractSpinBox, QComboBox, QKeySequenceEdit, QLineEdit, QTabBar)
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")


def without_mnemonics(text: str) -> str:
    """The text Qt shows for a mnemonic text: "&&" is one "&", a lone "&" goes."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _says_something(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _inside_compound(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, _COMPOUND):
            return True
        parent = parent.parentWidget()
    return False


def controls(root: QWidget) -> list[QWidget]:
    """The interactive controls of ``root``'s window, shown or not (a panel that is hidden now
    is shown later), without the parts of compound controls and other windows' widgets."""
    found: list[QWidget] = [root] if isinstance(root, CONTROLS) else []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or isinstance(widget, QHeaderView):
            continue
        if widget.window() is not root.window() or _inside_compound(widget):
            continue
        if widget.isHidden() and widget.objectName().startswith("qt_"):
            continue  # Qt's own spare parts (a scroll area's hidden corner buttons)
        found.append(widget)
    return found


def _buddy_names(root: QWidget) -> dict[int, str]:
    names: dict[int, str] = {}
    for label in root.window().findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and _says_something(without_mnemonics(label.text())):
            names[id(buddy)] = without_mnemonics(label.text())
    return names


def name_of(widget: QWidget, buddies: dict[int, str]) -> str:
    """The name a screen reader gets for ``widget`` under the rule above ("" when none)."""
    if widget.accessibleName().strip():
        return widget.accessibleName().strip()
    if isinstance(widget, QAbstractButton):
        text = without_mnemonics(widget.text()).strip()
        return text if _says_something(text) else ""
    if isinstance(widget, QTabBar):
        tabs = widget.parentWidget()
        return tabs.accessibleName() if isinstance(tabs, QTabWidget) else ""
    return buddies.get(id(widget), "")


def describe(widget: QWidget) -> str:
    """Enough to find the widget in the code: its class, object name, text and where it sits."""
    text = widget.text() if isinstance(widget, QAbstractButton) else ""
    path = []
    parent = widget.parentWidget()
    while parent is not None and len(path) < 4:
        path.append(parent.objectName() or parent.accessibleName() or type(parent).__name__)
        parent = parent.parentWidget()
    where = " < ".join(path)
    return f"{type(widget).__name__} objectName={widget.objectName()!r} text={text!r} in {where}"


def unnamed_controls(root: QWidget) -> list[str]:
    """Every control under ``root`` a screen reader could not name."""
    buddies = _buddy_names(root)
    return [describe(w) for w in controls(root) if not name_of(w, buddies)]


def stray_ampersands(root: QWidget) -> list[str]:
    """Every label under ``root`` that would show a "&" meant as a mnemonic (or a bare one in
    rich text)."""
    found: list[str] = []
    labels = [root] if isinstance(root, QLabel) else []
    for label in [*labels, *root.findChildren(QLabel)]:
        text = label.text()
        if "&" not in text:
            continue
        fmt = label.textFormat()
        rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and Qt.mightBeRichText(text))
        if rich:
            if "&" in _ENTITY.sub("", text):
                found.append(f"the rich-text label {text!r} shows a bare '&'")
        elif fmt != Qt.TextFormat.MarkdownText and label.buddy() is None and "&" in text.replace("&&", ""):
            found.append(f"the label {text!r} has no buddy, so it shows its '&'")
    return found


def tab_traps(root: QWidget) -> list[str]:
    """Every list, tree or table under ``root`` that Tab would go round inside instead of leaving."""
    return [describe(view) for view in controls(root)
            if isinstance(view, QAbstractItemView) and view.tabKeyNavigation()]


def mnemonic(text: str) -> str | None:
    """The Alt letter of a text ("Allow on this &site" -> "s"), None when it has none."""
    found = re.search(r"&([^&\s])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def mnemonic_clashes(window: QWidget) -> list[str]:
    """Alt letters that two things shown at once in ``window`` share (its menu bar's menus,
    buttons, group boxes and labels with a buddy, as they are shown now)."""
    owners: dict[str, list[str]] = {}

    def add(text: str) -> None:
        letter = mnemonic(text)
        if letter is not None:
            owners.setdefault(letter, []).append(text)

    if isinstance(window, QMainWindow):
        for action in window.menuBar().actions():
            if action.isVisible():
                add(action.text())
    for button in window.findChildren(QAbstractButton):
        if button.isVisible() and button.window() is window:
            add(button.text())
    for box in window.findChildren(QGroupBox):
        if box.isVisible() and box.window() is window:
            add(box.title())
    for label in window.findChildren(QLabel):
        if label.isVisible() and label.window() is window and label.buddy() is not None:
            add(label.text())
    return [f"Alt+{letter.upper()} is {' and '.join(repr(t) for t in texts)}"
            for letter, texts in sorted(owners.items()) if len(texts) > 1]
