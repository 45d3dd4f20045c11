"""The check before a final answer: after an action changed the page, the page must confirm it.

A model that clicked "Place order" may answer "Your order is placed" while the page shows an error.
When an acting tool changed the page (``ToolResult.changed_page``) and the model answers without
having looked at the page since (no ``ToolResult.observed_page`` after it), the agent holds that
answer back (it is not streamed), reads the page once with the registry's ``read_page``, and gives
the reading to the model with ``confirmation_message``; the model's next reply, a final answer or
more steps, takes its place. This happens at most once per turn.
"""

from __future__ import annotations

from dataclasses import dataclass

CONFIRM_TOOL = "read_page"
# The first line of the check's message: a model (or a test's scripted one) can tell it apart.
CONFIRM_HEADER = "[Jawad checked the page before your answer]"


@dataclass(slots=True)
class PageConfirmation:
    """Whether this turn's next answer must first be checked against the page."""

    changed: bool = False  # an action changed the page and the model has not looked at it since
    done: bool = False  # the check has been made this turn

    def saw(self, *, changed_page: bool, observed_page: bool) -> None:
        """A tool ran: it acted on the page, or showed the model the page as it is now."""
        if changed_page:
            self.changed = True
        elif observed_page:
            self.changed = False

    @property
    def due(self) -> bool:
        """The next answer is held back and checked (when it is a final answer)."""
        return self.changed and not self.done


def confirmation_message(reading: str) -> str:
    """What the model is told with the page's reading, in place of showing its draft answer."""
    return (
        f"{CONFIRM_HEADER}\nYour last action changed the page and you have not looked at it since, so before "
        "your answer goes to the user, here is the page as it is now (read_page):\n\n"
        f"{reading}\n\n"
        "Check that the page confirms what you did (a confirmation message, the new value, the next step). "
        "If it does, give your final answer to the user. If it does not, continue the task, or tell the user "
        "plainly what the page shows instead."
    )
