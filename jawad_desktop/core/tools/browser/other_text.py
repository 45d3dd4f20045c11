"""The visible text outside a page's main content, in short: a notice above the article, an
instruction by a form. The model reads it after the content (``PageReading.other_text``), never as
part of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from jawad_desktop.core.tools.browser.content import _plain, _shingles

OTHER_TEXT_MAX_CHARS = 1500  # the most visible text outside the main content given to the model
OTHER_LINE_MAX_CHARS = 200  # each line of it, clipped
# A line this long (in letters) found in the element labels with their spaces taken out is their labels
# shown side by side ("Custom UpholsterySofas & SectionalsTV Stands": a menu's links without spaces).
JOINED_LABELS_MIN_CHARS = 20


def other_visible_text(text: str, content: str, *, skip: Iterable[str] = (),
                       limit: int = OTHER_TEXT_MAX_CHARS) -> str:
    """Visible lines of the page (``text``: its innerText) that the main content does not hold,
    in page order, each once and clipped, at most ``limit`` characters in all.

    ``skip``: texts the model is given elsewhere (the labels of the interactive elements, in page
    order), left out: a line that is one of them or lies within them (part of a link's label, or a row
    of buttons' labels one after the other) is left out as the content's lines are.
    """
    covered = f" {_plain(content)} "
    given = f" {' '.join(_plain(s) for s in skip if s)} "
    given_joined = given.replace(" ", "")  # links side by side, shown without a space between their labels
    held = set(_shingles(covered.split())) | set(_shingles(given.split()))
    seen: set[str] = set()
    out: list[str] = []
    size = 0
    for raw in text.splitlines():
        line = " ".join(raw.split())
        key = _plain(line)
        if not key or key in seen:
            continue
        seen.add(key)
        if f" {key} " in covered or f" {key} " in given:
            continue
        joined = key.replace(" ", "")
        if len(joined) >= JOINED_LABELS_MIN_CHARS and joined in given_joined:
            continue
        words = key.split()
        if len(words) >= 6:
            grams = _shingles(words)
            inside = sum(1 for g in grams if g in held)
            if inside >= 0.6 * len(grams):
                continue
        if len(line) > OTHER_LINE_MAX_CHARS:
            line = line[:OTHER_LINE_MAX_CHARS - 1].rstrip() + "…"
        if size + len(line) + 1 > limit:
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)
