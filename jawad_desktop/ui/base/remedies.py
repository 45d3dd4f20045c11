"""The window's words for where a failure is fixed: the page of Settings that fixes it.

Core errors carry neutral suggestions and a ``Remedy`` (``core.errors``); this module says,
for each place, where in the window the user goes. The terminal has its own words
(``cli.remedies``). Every place the window shows a ``JawadError``, an error answer or a voice
error goes through ``error_text`` or ``with_remedy``.

Plain text, no Markdown: the same words land in the chat, in status lines and in the banner.
Each place named is a page of the Settings dialog (``ui.settings.dialog``: Network and Agent are
``ui.settings.network_page`` and ``ui.settings.agent_page``).
"""

from __future__ import annotations

from typing import assert_never

from jawad_desktop.core.errors import JawadError, Remedy

__all__ = ["error_text", "remedy_text", "with_remedy"]

_PROVIDERS = "Settings → Providers (Ctrl+,)"


def remedy_text(remedy: Remedy | None) -> str:
    """The window's words for ``remedy``; "" for none."""
    if remedy is None:
        return ""
    name = f"'{remedy.provider}'" if remedy.provider else "the provider"
    match remedy.place:
        case "add-provider":
            if remedy.provider:
                return f"Open {_PROVIDERS}: choose one of the saved providers, or add {name}."
            text = f"Add one in {_PROVIDERS}."
            from jawad_desktop.core.llm.local_server import local_available

            if local_available():
                text += " The built-in model there needs no key."
            return text
        case "provider":
            return f"Open {_PROVIDERS} and check {name}."
        case "provider-key":
            return f"Open {_PROVIDERS} and check the key of {name}."
        case "provider-model":
            return f"Open {_PROVIDERS} and choose another model for {name} (Fetch models lists them)."
        case "network":
            return "Check the proxy, the CA bundle and the timeouts in Settings → Network."
        case "agent":
            return "Change the step limit, the budgets or the tool format in Settings → Agent."
        case "voice":
            return "Open Settings → Voice: the microphone, the transcription and offline speech are set there."
        case "mcp":
            return "Check the server in Settings → MCP servers."
        case "plan-first":
            return "Approve the plan when it is shown, or turn off Plan first in Settings → Agent."
        case _:
            assert_never(remedy.place)


def error_text(exc: JawadError) -> str:
    """``exc`` as the window shows it: its message, suggestions and the page that fixes it."""
    return exc.user_text(remedy_text(exc.remedy))


def with_remedy(text: str, remedy: Remedy | None) -> str:
    """``text`` (an error already made text: a turn's answer, a voice event, a connection test)
    with the window's words for ``remedy`` as its last suggestion, in ``JawadError.user_text``'s
    layout."""
    return JawadError(text).user_text(remedy_text(remedy))
