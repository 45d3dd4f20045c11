"""The keys ``press_key`` understands, in the model's words: ``Enter``, ``Escape``, ``Tab``,
``ArrowDown``, ``PageUp``, one character, and combinations like ``Control+A`` or ``Shift+Tab``.

``parse_keys`` turns what the model wrote into a ``KeyChord`` (modifiers and one key with its
canonical name, the DOM's ``KeyboardEvent.key``), or a ``ValueError`` whose sentence lists what
is understood. The engine (the page driver) maps a chord to its own key codes; this module knows
no engine.
"""

from __future__ import annotations

from dataclasses import dataclass

# Canonical names (the DOM's KeyboardEvent.key values) and the spellings models use for them.
NAMED_KEYS: tuple[str, ...] = (
    "Enter", "Escape", "Tab", "Backspace", "Delete", "Insert", "Space",
    "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown",
    *(f"F{n}" for n in range(1, 13)),
)
_KEY_ALIASES: dict[str, str] = {
    "return": "Enter", "esc": "Escape", "del": "Delete", "ins": "Insert", "bksp": "Backspace",
    "back_space": "Backspace", "spacebar": "Space", " ": "Space",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "arrow_up": "ArrowUp", "arrow_down": "ArrowDown", "arrow_left": "ArrowLeft", "arrow_right": "ArrowRight",
    "page_up": "PageUp", "page_down": "PageDown", "pgup": "PageUp", "pgdn": "PageDown", "pagedn": "PageDown",
}
MODIFIERS: tuple[str, ...] = ("Control", "Shift", "Alt", "Meta")
_MODIFIER_ALIASES: dict[str, str] = {
    "control": "Control", "ctrl": "Control", "ctl": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt",
    "meta": "Meta", "cmd": "Meta", "command": "Meta", "super": "Meta", "win": "Meta",
}


@dataclass(frozen=True, slots=True)
class KeyChord:
    """One key press: the modifiers held (canonical names, in ``MODIFIERS`` order) and the key,
    a name of ``NAMED_KEYS`` or one character (as typed: ``a`` and ``A`` differ)."""

    key: str
    modifiers: tuple[str, ...] = ()

    @property
    def is_character(self) -> bool:
        return self.key not in NAMED_KEYS

    def __str__(self) -> str:
        return "+".join((*self.modifiers, self.key))


def _canonical_key(word: str) -> str | None:
    if len(word) == 1:
        return "Space" if word == " " else word
    for name in NAMED_KEYS:
        if word.casefold() == name.casefold():
            return name
    return _KEY_ALIASES.get(word.casefold().replace(" ", "_").replace("-", "_"))


def parse_keys(text: str) -> KeyChord:
    """``"Control+Shift+Tab"`` -> ``KeyChord("Tab", ("Control", "Shift"))``; ``ValueError`` with a
    sentence for the model when a part is not a key. ``+`` alone (or at the end, ``Shift++``)
    is the plus key."""
    raw = text.strip() if text.strip() else text
    if not raw:
        raise ValueError("Say which key to press, such as Enter, Escape, Tab, ArrowDown or Control+A.")
    if raw == "+" or raw.endswith("++"):  # "+" or "Control++": the key is the plus sign itself
        parts = [*raw[:-2].split("+"), "+"] if len(raw) > 1 else ["+"]
    else:
        parts = raw.split("+")
    *mods, last = [p.strip() if p.strip() else p for p in parts]
    if not last or any(not m for m in mods):
        raise ValueError(f"'{text}' is not a whole key combination: write it as Control+A or Shift+Tab.")
    modifiers: list[str] = []
    for word in mods:
        name = _MODIFIER_ALIASES.get(word.casefold())
        if name is None:
            raise ValueError(f"'{word}' in '{text}' is not a modifier key: use Control, Shift, Alt or Meta "
                             "before the key, such as Control+A or Shift+Tab.")
        if name not in modifiers:
            modifiers.append(name)
    alone = _MODIFIER_ALIASES.get(last.casefold()) if len(last) > 1 else None
    if alone is not None and not mods:
        raise ValueError(f"'{text}' is a modifier alone: say the key it goes with, such as {alone}+A.")
    key = _canonical_key(last)
    if key is None:
        raise ValueError(f"'{last}' is not a key press_key knows. Use one character, or one of: "
                         + ", ".join(NAMED_KEYS[:15]) + ", F1 to F12; combine with Control, Shift, Alt "
                         "or Meta as in Control+A. To type words, use type_text.")
    ordered = tuple(m for m in MODIFIERS if m in modifiers)
    return KeyChord(key=key, modifiers=ordered)
