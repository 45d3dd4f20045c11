"""Finding an element by the words a person sees on it, for ``click_text`` and Harbor's inspector.

The page library's ``J.findText`` looks for the visible elements that show the words (their text,
an aria-label, a title, an image's alt text, a button's value): those whose whole text they are
first, then those containing them, uncovered ones before covered ones, then in page order. Each
is taken as the smallest clickable element around it (a control, an element with a handler, a
label, the outermost element of a cursor:pointer group). ``find_by_text`` turns the ``nth`` of
them into a selector ``Target``, so the click goes through the same path as ``click_element``
(describe, highlight, the trusted click) and Harbor sees the element it will hit.
"""

from __future__ import annotations

from dataclasses import dataclass

from jawad_desktop.core.tools.page import Page, PageError, Target


@dataclass(frozen=True, slots=True)
class TextMatch:
    """The element ``click_text`` will click, and how it was chosen."""

    target: Target
    role: str
    label: str
    exact: bool  # its whole text is the words (else it contains them)
    count: int  # how many visible elements show the words
    nth: int
    others: tuple[str, ...] = ()  # the labels of the first matches, for the model
    on_words: Target | None = None  # the element the words are on (``target`` may be a control around it)

    def note(self, text: str) -> str:
        """What the model should know when the choice was not the only one, or not exact."""
        if self.count > 1:
            shown = "; ".join(f'{n}: "{label}"' for n, label in enumerate(self.others, 1))
            return (f'It was match {self.nth} of {self.count} for "{text}" ({shown}); '
                    "give nth to click another.")
        if not self.exact:
            return f'Its text only contains "{text}".'
        return ""


async def find_by_text(page: Page, text: str, nth: int = 1) -> TextMatch:
    """The ``nth`` visible element showing ``text`` (PageError ``not_found`` when there is none)."""
    words = " ".join(text.split())
    result = await page.call("findText", words, nth)
    if not isinstance(result, dict):
        raise PageError("script_error", "The page script could not look for the text (is a page loaded?).")
    if not result.get("ok"):
        count = int(result.get("count") or 0)
        if count:
            raise PageError("not_found", f'Only {count} visible element{"s" * (count != 1)} show "{words}", so '
                            f"there is no match number {nth}. Give an nth from 1 to {count}.")
        raise PageError("not_found", f'No visible element shows the text "{words}". Check the words against '
                        "read_page, scroll_page to reveal more of the page, or use click_element with an index.")
    return TextMatch(target=Target(selector=str(result["selector"])), role=str(result.get("role", "")),
                     label=str(result.get("label", "")), exact=bool(result.get("exact")),
                     count=int(result.get("count") or 1), nth=nth,
                     others=tuple(str(o) for o in result.get("others") or ()),
                     on_words=Target(selector=str(result["wordsSelector"])) if result.get("wordsSelector") else None)
