"""What a language model knows, for the WebGames policy (``tests/servers/webgames_policy.py``): the
common facts a riddle note asks for (the legs of a spider, the keys of a piano, the year of the first
moon landing), and the arithmetic a clue puts them through.

The policy stands in for a real model, which brings its general knowledge to a page; the benchmark
checks our tools (that the note could be downloaded and read, the lock's lists set), not this table.
The facts are general knowledge, looked up by the words a clue uses; the note itself comes only from
what the tools returned.
"""

from __future__ import annotations

import re
from datetime import date, datetime

# (words a clue uses, the number): common knowledge, as any model has it.
FACTS: list[tuple[str, int]] = [
    (r"legs? of an? alpaca|alpaca'?s? legs", 4),
    (r"legs? of an? spider|spider'?s? legs", 8),
    (r"legs? of an? (?:dog|cat|horse|cow)", 4),
    (r"legs? of an? (?:insect|ant|bee)", 6),
    (r"planets in (?:our|the) solar system", 8),
    (r"colou?rs (?:in|of) (?:a|the) rainbow", 7),
    (r"sides on a (?:standard |regular )?(?:die|dice)", 6),
    (r"states in the United States|states of the United States|US states", 50),
    (r"first (?:set foot|landed|walked) on the moon|moon landing", 1969),
    (r"keys\b.{0,50}\bpiano", 88),
    (r"atomic number of (?:the element )?(?:gold|Aurum)", 79),
    (r"wheels (?:are )?(?:on|of) a (?:standard )?bicycle", 2),
    (r"days (?:are )?(?:in|of) a week", 7),
    (r"months (?:are )?(?:in|of) a year", 12),
    (r"hours (?:are )?(?:in|of) a day", 24),
    (r"minutes (?:are )?(?:in|of) an hour", 60),
    (r"continents", 7),
]

# Events a clue dates a note by: the day they happened (general knowledge).
EVENTS: list[tuple[str, date]] = [
    (r"opening (?:day|ceremony) of the Sydney Olympics", date(2000, 9, 15)),
    (r"Y2K|the millennium|New Year'?s Day 2000", date(2000, 1, 1)),
    (r"first moon landing|first set foot on the moon", date(1969, 7, 20)),
]

_NUMBER_WORDS = {"nineteen hundred": 1900, "two thousand": 2000, "eighteen hundred": 1800}


def _born(clue: str) -> date | None:
    m = re.search(r"born on (?:the )?(\d{1,2})(?:st|nd|rd|th)? (\w+),? (\d{4})", clue)
    if not m:
        return None
    return datetime.strptime(" ".join(m.groups()), "%d %B %Y").date()


def _age(clue: str) -> int | None:
    """"born on 1st January 1960, and I wrote this on the opening day of the Sydney Olympics": 40."""
    born = _born(clue)
    when = next((day for words, day in EVENTS if re.search(words, clue, re.I)), None)
    if born is None or when is None:
        return None
    return when.year - born.year - ((when.month, when.day) < (born.month, born.day))


def _numbers_in_order(clue: str) -> list[int]:
    """The facts a clue names and the numbers it spells out, in the order it names them."""
    found: list[tuple[int, int]] = []
    for words, value in FACTS:
        for m in re.finditer(words, clue, re.I):
            found.append((m.start(), value))
    for words, value in _NUMBER_WORDS.items():
        for m in re.finditer(words, clue, re.I):
            found.append((m.start(), value))
    found.sort()
    out: list[int] = []
    last = -10
    for at, value in found:
        if at - last > 3:  # one fact, not two patterns for the same words
            out.append(value)
        last = at
    return out


def clue_number(clue: str) -> int | None:
    """The number one clue of a note asks for, or None when it is not one this knowledge answers."""
    if re.search(r"\bage\b|how old", clue, re.I) and (age := _age(clue)) is not None:
        return age
    values = _numbers_in_order(clue)
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    a, b = values[0], values[1]
    if re.search(r"multipl|times|product", clue, re.I):
        return a * b
    if re.search(r"subtract|minus|take away|difference", clue, re.I):
        return a - b
    if re.search(r"\badd|combine|plus|sum|total|together", clue, re.I):
        return a + b
    return None


def note_numbers(note: str) -> list[int | None]:
    """The numbers of a note's numbered clues ("1. The first number is ..."), in order."""
    clues = re.split(r"(?m)^\s*\d+\.\s+", note)[1:]
    if clues:  # the last clue ends where the note's closing words begin
        clues[-1] = re.split(r"\n\s*\n", clues[-1].strip(), maxsplit=1)[0]
    return [clue_number(" ".join(c.split())) for c in clues]
