"""The one base class for failures the user is shown, and where the user fixes them.

Every error that reaches a person carries what happened (``message``) and what to do
(``suggestions``). Suggestions are neutral: they name what to change, never a window's menu
or a command's flag. Where the fix is a setting, ``remedy`` names it (``Remedy``), and each face
words it its own way: the window says "Settings → Providers", the terminal names the
``jawad`` command (``cli.remedies`` and ``ui.base.remedies``). The CLI prints errors to stderr; the
window shows them inline.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

RemedyPlace = Literal[
    "add-provider",  # no provider is set up yet
    "provider",  # the provider's settings: base URL, model, reasoning level
    "provider-key",  # the provider's API key
    "provider-model",  # the provider's model name (the list of models helps)
    "network",  # proxy, certificates, timeouts
    "agent",  # the step limit, the tool format
    "voice",  # microphone, transcription model, backend
    "mcp",  # the MCP servers
    "plan-first",  # plan-first mode: a plan nobody approved (approve it, or turn the mode off)
]


class Remedy(NamedTuple):
    """Where the user fixes a failure: a place in the settings, and the provider it concerns.

    A named tuple, not a dataclass: this module is on the way to the window's first frame.
    """

    place: RemedyPlace
    provider: str = ""

    def as_json(self) -> dict[str, str]:
        """Plain JSON, for what carries a remedy past an exception: a turn's ``ChatResponse``
        metadata, a ``VoiceState`` or ``TestResult`` event (events sit beside this module)."""
        return {"place": self.place, "provider": self.provider}

    @classmethod
    def from_json(cls, data: object) -> Remedy | None:
        """The remedy ``as_json`` wrote; None for anything else (an old saved response)."""
        if not isinstance(data, dict) or data.get("place") not in get_args(RemedyPlace):
            return None
        provider = data.get("provider")
        return cls(data["place"], provider if isinstance(provider, str) else "")


class JawadError(Exception):
    """A failure with a message for the user, neutral suggestions, and where to fix it."""

    def __init__(self, message: str, *, suggestions: list[str] | None = None, remedy: Remedy | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestions = list(suggestions or [])
        self.remedy = remedy

    def user_text(self, remedy_text: str = "") -> str:
        """The message and its suggestions, as one block of text for a person; ``remedy_text``
        is the face's words for ``remedy`` (added as the last suggestion)."""
        tips = [*self.suggestions, *([remedy_text] if remedy_text else [])]
        if not tips:
            return self.message
        return self.message + "\n" + "\n".join(f"  - {s}" for s in tips)
