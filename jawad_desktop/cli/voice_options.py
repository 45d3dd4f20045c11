"""Options the voice commands share (``jawad transcribe``, ``listen``, ``talk``): the language."""

from __future__ import annotations

import argparse

from jawad_desktop.core.context import AppContext

AUTOMATIC = "auto"


def add_language_option(parser: argparse.ArgumentParser) -> None:
    """``--language CODE``: the language spoken (en, de, fr...), or ``auto`` to detect it."""
    parser.add_argument("--language", metavar="CODE",
                        help="the language you speak, a code such as en, de or fr, or 'auto' to detect it "
                             "(needs a multilingual model such as base); default: the settings")


def apply_language(args: argparse.Namespace, ctx: AppContext) -> None:
    """Put ``--language`` in this run's voice settings (not saved)."""
    language = getattr(args, "language", None)
    if language is not None:
        code = language.strip()
        ctx.settings.voice.language = "" if code.lower() in (AUTOMATIC, "") else code.lower()
