"""The one base class for failures the user is shown.

Every error that reaches a person carries what happened (``message``) and what to do
(``suggestions``). The CLI prints them to stderr; the window shows them inline.
"""

from __future__ import annotations


class JawadError(Exception):
    """A failure with a message for the user and suggestions of what to do next."""

    def __init__(self, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = list(suggestions or [])

    def user_text(self) -> str:
        """The message and its suggestions, as one block of text for a person."""
        if not self.suggestions:
            return self.message
        return self.message + "\n" + "\n".join(f"  - {s}" for s in self.suggestions)
