"""The terminal's words for where a failure is fixed: the ``jawad`` command that fixes it.

Core errors carry neutral suggestions and a ``Remedy`` (``core.errors``); this module says,
for each place, which command and flags get the user there. The window has its own words
(``ui.base.remedies``). Every place the CLI prints a ``JawadError``, an error ``ChatResponse`` or a
voice error goes through ``error_text`` or ``with_remedy``.

The settings that have no command (the network, the agent) are named as the window's, since
the terminal shares its settings file.
"""

from __future__ import annotations

import shlex
from typing import assert_never

from jawad_desktop.core.errors import JawadError, Remedy

__all__ = ["error_text", "remedy_text", "with_remedy"]


def remedy_text(remedy: Remedy | None) -> str:
    """The terminal's words for ``remedy``; "" for none."""
    if remedy is None:
        return ""
    # Quoted for a POSIX shell, so the command can be pasted: 'Work OpenAI'.
    name = shlex.quote(remedy.provider) if remedy.provider else "NAME"
    match remedy.place:
        case "add-provider":
            if remedy.provider:
                return (f"`jawad providers list` shows the saved providers; "
                        f"`jawad providers add {name} --kind KIND` adds one by that name.")
            text = ("Add one with `jawad providers add NAME --kind KIND`, "
                    "e.g. `jawad providers add Ollama --kind ollama --model llama3.2`.")
            from jawad_desktop.core.llm.local_server import local_available

            if local_available():
                text += " Or use the built-in model: `jawad providers add Built-in --kind local`."
            return text
        case "provider":
            return (f"Change it with `jawad providers edit {name}` (e.g. --base-url URL or --model M; --help "
                    f"lists the rest), and check it with `jawad providers test {name}`.")
        case "provider-key":
            return (f"Store the key with `jawad providers edit {name} --api-key-env VARIABLE` (the key is read "
                    "from VARIABLE) or with --ask-key, or pass --api-key-env VARIABLE to `jawad ask` or "
                    "`jawad research`.")
        case "provider-model":
            return (f"`jawad providers models {name}` lists the models; "
                    f"`jawad providers edit {name} --model M` sets one.")
        case "network":
            return ("Set the proxy or the certificates with the environment (HTTPS_PROXY, SSL_CERT_FILE), or "
                    "the proxy, CA bundle and timeouts in the window's network settings.")
        case "agent":
            return ("Change the step limit, the budget or the tool format in the window's agent settings "
                    "(the \"agent\" section of settings.json: max_iterations, max_run_tokens, max_run_cost_usd, "
                    "tool_format).")
        case "voice":
            return ("`jawad listen --list-devices` lists the microphones and `--device NAME` picks one; "
                    "`--backend local` or `--backend api` chooses the transcription (`jawad listen`, "
                    "`jawad transcribe --model MODEL`); `jawad voice-pack install [FILE]` installs offline "
                    "speech and `jawad voice-pack model MODEL` downloads a speech model.")
        case "mcp":
            return ("`jawad mcp list --tools` checks the MCP servers; `jawad mcp add NAME --command CMD` "
                    "(or --url URL) sets one again; `jawad mcp remove NAME` deletes one.")
        case "plan-first":
            return ("Run `jawad ask` from an interactive terminal to approve the plan (y or Enter), or without "
                    "--plan-first (and with \"plan_first\": false in the \"agent\" section of settings.json if "
                    "it is on there).")
        case _:
            assert_never(remedy.place)


def error_text(exc: JawadError) -> str:
    """``exc`` as the terminal prints it: its message, suggestions and the command that fixes it."""
    return exc.user_text(remedy_text(exc.remedy))


def with_remedy(text: str, remedy: Remedy | None) -> str:
    """``text`` (an error already made text: a turn's answer, a voice event) with the terminal's
    words for ``remedy`` as its last suggestion, in ``JawadError.user_text``'s layout."""
    return JawadError(text).user_text(remedy_text(remedy))
