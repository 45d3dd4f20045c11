"""Real keyboard and mouse input for a ``QWebEngineView``: the events a person's keyboard and mouse
would send, delivered to the view's ``focusProxy()`` (the widget Chromium reads input from), so the
page sees trusted events (``isTrusted``), CSS ``:hover``, focus moves and default actions.

``key_events`` maps a ``core.tools.keys.KeyChord`` to Qt key events; ``send_key`` presses
and releases it; ``send_text`` types text, a key event per character, and commits what no key makes
(letters of other scripts, emoji) through the input method, as a keyboard layout or an IME does;
``send_mouse`` sends one mouse event at a point of the page's viewport (CSS pixels).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QInputMethodEvent, QKeyEvent, QMouseEvent
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QWidget

from jawad_desktop.core.tools.keys import KeyChord

_NAMED: dict[str, tuple[Qt.Key, str]] = {
    "Enter": (Qt.Key.Key_Return, "\r"),
    "Escape": (Qt.Key.Key_Escape, "\x1b"),
    "Tab": (Qt.Key.Key_Tab, "\t"),
    "Backspace": (Qt.Key.Key_Backspace, "\b"),
    "Delete": (Qt.Key.Key_Delete, "\x7f"),
    "Insert": (Qt.Key.Key_Insert, ""),
    "Space": (Qt.Key.Key_Space, " "),
    "ArrowUp": (Qt.Key.Key_Up, ""),
    "ArrowDown": (Qt.Key.Key_Down, ""),
    "ArrowLeft": (Qt.Key.Key_Left, ""),
    "ArrowRight": (Qt.Key.Key_Right, ""),
    "Home": (Qt.Key.Key_Home, ""),
    "End": (Qt.Key.Key_End, ""),
    "PageUp": (Qt.Key.Key_PageUp, ""),
    "PageDown": (Qt.Key.Key_PageDown, ""),
    **{f"F{n}": (Qt.Key(int(Qt.Key.Key_F1) + n - 1), "") for n in range(1, 13)},
}
_MODIFIERS: dict[str, Qt.KeyboardModifier] = {
    "Control": Qt.KeyboardModifier.ControlModifier,
    "Shift": Qt.KeyboardModifier.ShiftModifier,
    "Alt": Qt.KeyboardModifier.AltModifier,
    "Meta": Qt.KeyboardModifier.MetaModifier,
}


def input_widget(view: QWebEngineView) -> QWidget:
    """The widget that takes the page's input (Chromium's render widget, else the view)."""
    return view.focusProxy() or view


def has_key(char: str) -> bool:
    """Whether ``char`` is typed with a key event (printable ASCII); others are committed text."""
    return len(char) == 1 and 0x20 <= ord(char) < 0x7F


def key_events(chord: KeyChord) -> tuple[Qt.Key, Qt.KeyboardModifier, str]:
    """Qt's key code, modifiers and text for ``chord``; ``ValueError`` for a character no key makes."""
    modifiers = Qt.KeyboardModifier.NoModifier
    for name in chord.modifiers:
        modifiers |= _MODIFIERS[name]
    if chord.key in _NAMED:
        code, text = _NAMED[chord.key]
        if chord.key == "Tab" and "Shift" in chord.modifiers:
            code = Qt.Key.Key_Backtab  # what Qt sends for Shift+Tab
    else:
        char = chord.key
        if not has_key(char):
            raise ValueError(char)
        # Qt's codes for printable ASCII are the characters' codes, letters in upper case.
        code = Qt.Key(ord(char.upper()))
        text = char
        if char.isalpha() and char.isupper() and not chord.modifiers:
            modifiers |= Qt.KeyboardModifier.ShiftModifier  # "A" alone is Shift+a; Control+A is the A key
        elif chord.modifiers:
            text = char.lower() if "Shift" not in chord.modifiers else char.upper()
    if modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                    | Qt.KeyboardModifier.MetaModifier):
        # A shortcut types nothing: Chromium then reads it as a command (Control+A selects all).
        text = ""
    return code, modifiers, text


def send_key(view: QWebEngineView, chord: KeyChord) -> None:
    """Press and release ``chord`` in the page's focused element."""
    code, modifiers, text = key_events(chord)
    target = input_widget(view)
    # As Qt does for a real key: ShortcutOverride first, which is where QtWebEngine reads editing
    # shortcuts (Control+A selects all, Control+Z undoes), then the press and the release.
    for kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(target, QKeyEvent(kind, code, modifiers, text))


_MODIFIER_KEYS: dict[str, Qt.Key] = {"Control": Qt.Key.Key_Control, "Shift": Qt.Key.Key_Shift,
                                     "Alt": Qt.Key.Key_Alt, "Meta": Qt.Key.Key_Meta}


def send_modifiers(view: QWebEngineView, chord: KeyChord, *, down: bool) -> None:
    """Press (``down``) or release the chord's modifier keys one by one, as a keyboard sends them
    around the key: a page that watches keydown for "Shift" then "A" sees both."""
    target = input_widget(view)
    held = Qt.KeyboardModifier.NoModifier
    names = chord.modifiers if down else tuple(reversed(chord.modifiers))
    if not down:
        for name in chord.modifiers:
            held |= _MODIFIERS[name]
    for name in names:
        if down:
            held |= _MODIFIERS[name]
        else:
            held &= ~_MODIFIERS[name]
        kind = QEvent.Type.KeyPress if down else QEvent.Type.KeyRelease
        QApplication.sendEvent(target, QKeyEvent(kind, _MODIFIER_KEYS[name], held, ""))


def send_char(view: QWebEngineView, char: str) -> None:
    """Type one character: a key for printable ASCII, Enter for a new line, Tab for a tab, else
    an input-method commit (no key event, as an IME gives it)."""
    if char in ("\n", "\r"):
        send_key(view, KeyChord("Enter"))
    elif char == "\t":
        send_key(view, KeyChord("Tab"))
    elif has_key(char):
        send_key(view, KeyChord(char))
    else:
        commit(view, char)


def commit(view: QWebEngineView, text: str) -> None:
    """Insert ``text`` at the caret through the input method."""
    event = QInputMethodEvent("", [])
    event.setCommitString(text)
    QApplication.sendEvent(input_widget(view), event)


def send_mouse(view: QWebEngineView, zoom: float, kind: QEvent.Type, x: float, y: float,
               button: Qt.MouseButton = Qt.MouseButton.NoButton,
               buttons: Qt.MouseButton = Qt.MouseButton.NoButton) -> None:
    """One mouse event at ``(x, y)`` in the page's viewport (CSS pixels, scaled by ``zoom``)."""
    target = input_widget(view)
    local = QPointF(x * zoom, y * zoom)
    glob = QPointF(target.mapToGlobal(local.toPoint()))
    QApplication.sendEvent(target, QMouseEvent(kind, local, glob, button, buttons, Qt.KeyboardModifier.NoModifier))
