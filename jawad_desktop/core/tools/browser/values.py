"""Values for inputs that take one fixed format: what ``fill_form`` types into a date, time,
datetime-local, month, week, colour, range or number input.

A browser refuses "07/26/2017" in a date input (its value stays empty): such inputs take
``yyyy-mm-dd``, ``hh:mm``, ``#rrggbb``... whatever the page shows. ``for_input(kind, text)`` turns
the common ways people write these (07/26/2017, 26.07.2017, "July 26, 2017", 3:45 PM, "red", 50 %)
into the input's format and says what it set; text it cannot read is typed as it is, and the field
read back afterwards says whether the page took it (``changes.field_sentence``). Dates are read with
python-dateutil (installed with trafilatura); dotted dates are day first (26.07.2017), slashed ones
month first unless the first number cannot be a month (26/07/2017).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from jawad_desktop.core.lazy_pattern import LazyPattern

# The format each kind of input takes, in the words the model reads.
FORMATS: dict[str, str] = {
    "date": "yyyy-mm-dd",
    "time": "hh:mm, 24-hour",
    "datetime-local": "yyyy-mm-ddThh:mm",
    "month": "yyyy-mm",
    "week": "yyyy-Www (ISO week)",
    "color": "#rrggbb",
    "range": "a number",
    "number": "a number",
}

# The colour names whose value nobody disputes.
_COLOURS = {
    "black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000", "lime": "#00ff00",
    "blue": "#0000ff", "yellow": "#ffff00", "cyan": "#00ffff", "aqua": "#00ffff", "magenta": "#ff00ff",
    "fuchsia": "#ff00ff", "silver": "#c0c0c0", "gray": "#808080", "grey": "#808080", "maroon": "#800000",
    "olive": "#808000", "purple": "#800080", "teal": "#008080", "navy": "#000080", "orange": "#ffa500",
}

_ISO = {
    "date": LazyPattern(r"^\d{4}-\d{2}-\d{2}$"),
    "time": LazyPattern(r"^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$"),
    "datetime-local": LazyPattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$"),
    "month": LazyPattern(r"^\d{4}-\d{2}$"),
    "week": LazyPattern(r"^\d{4}-W\d{2}$"),
    "color": LazyPattern(r"^#[0-9a-f]{6}$"),
}

# Two defaults far apart: a part of a date the text does not give comes out different under each.
_DEFAULT_A = datetime(2001, 1, 1, 0, 0, 0)
_DEFAULT_B = datetime(2002, 2, 2, 13, 13, 13)


@dataclass(frozen=True, slots=True)
class Entry:
    """What to type: ``value``, and ``note`` saying how it came from what was asked ("" when as asked)."""

    value: str
    note: str = ""


def format_hint(kind: str) -> str:
    """'A date field takes yyyy-mm-dd.' for a kind of input with a fixed format, else ""."""
    fmt = FORMATS.get(kind)
    return f"A {_name(kind)} field takes {fmt}." if fmt else ""


def for_input(kind: str, text: str) -> Entry:
    """``text`` in the format an input of type ``kind`` takes (see the module's docstring)."""
    kind = kind.lower()
    raw = text.strip()
    if kind not in FORMATS or not raw:
        return Entry(text)
    if kind in _ISO and _ISO[kind].match(raw):
        return Entry(raw) if raw == text else Entry(raw, f'Entered as {raw} (spaces dropped).')
    value, said = _convert(kind, raw)
    if value is None or value == text:
        return Entry(text)
    return Entry(value, f'A {_name(kind)} field takes {FORMATS[kind]}: "{text}" was entered as {value}'
                        + (f" ({said})" if said else "") + ".")


def _name(kind: str) -> str:
    return {"datetime-local": "date and time", "color": "colour", "range": "slider"}.get(kind, kind)


def _convert(kind: str, raw: str) -> tuple[str | None, str]:
    """The value for ``kind`` and how it reads in words; (None, "") when ``raw`` cannot be read."""
    if kind == "color":
        return _colour(raw), ""
    if kind in ("range", "number"):
        return _number(raw), ""
    if kind == "week":
        week = re.fullmatch(r"(?:week\s*|w)?(\d{1,2})[,/\s]+(\d{4})|(\d{4})[-\s]*w(?:eek)?\s*(\d{1,2})", raw, re.I)
        if week:
            number, year = (week.group(1), week.group(2)) if week.group(1) else (week.group(4), week.group(3))
            return (f"{int(year):04d}-W{int(number):02d}", "") if 1 <= int(number) <= 53 else (None, "")
        day = _parse(raw, need=("year", "month", "day"))
        if day is None:
            return None, ""
        iso = day.date().isocalendar()
        return f"{iso.year:04d}-W{iso.week:02d}", f"the week of {_words(day.date())}"
    need = {"date": ("month", "day"), "time": ("hour",), "datetime-local": ("month", "day", "hour"),
            "month": ("year", "month")}[kind]
    when = _parse(raw, need=need)
    if when is None:
        return None, ""
    if kind == "date":
        return when.strftime("%Y-%m-%d"), _words(when.date())
    if kind == "month":
        return when.strftime("%Y-%m"), when.strftime("%B %Y")
    clock = when.strftime("%H:%M") + (when.strftime(":%S") if when.second else "")
    if kind == "time":
        return clock, ""
    return f"{when.strftime('%Y-%m-%d')}T{clock}", f"{_words(when.date())}, {clock}"


def _parse(raw: str, *, need: tuple[str, ...]) -> datetime | None:
    """``raw`` as a date and time, or None when it is not one or lacks a part in ``need`` (a missing
    year is this year)."""
    from dateutil import parser as date_parser  # on the first date typed, not with the app

    dayfirst = bool(re.search(r"\d{1,2}\.\d{1,2}\.\d{2,4}", raw))  # 26.07.2017: day first
    try:
        first = date_parser.parse(raw, dayfirst=dayfirst, default=_DEFAULT_A)
        second = date_parser.parse(raw, dayfirst=dayfirst, default=_DEFAULT_B)
    except (ValueError, OverflowError):
        return None
    for part in need:
        if getattr(first, part) != getattr(second, part):
            return None
    if first.year != second.year:  # no year given: this year
        first = first.replace(year=date.today().year)
    return first


def _words(day: date) -> str:
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B %Y')}"


def _colour(raw: str) -> str | None:
    text = raw.strip().lower()
    if text in _COLOURS:
        return _COLOURS[text]
    short = re.fullmatch(r"#?([0-9a-f])([0-9a-f])([0-9a-f])", text)
    if short:
        return "#" + "".join(c * 2 for c in short.groups())
    full = re.fullmatch(r"#?([0-9a-f]{6})", text)
    if full:
        return "#" + full.group(1)
    rgb = re.fullmatch(r"rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)", text)
    if rgb and all(int(c) <= 255 for c in rgb.groups()):
        return "#" + "".join(f"{int(c):02x}" for c in rgb.groups())
    return None


def _number(raw: str) -> str | None:
    text = raw.strip().rstrip("%").strip()
    text = re.sub(r"^(?:about|around|approx\.?)\s+", "", text, flags=re.I)
    if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", text):  # 1,250 or 1,250.5
        text = text.replace(",", "")
    match = re.fullmatch(r"-?\d+(?:\.\d+)?", text)
    return match.group(0) if match else None
