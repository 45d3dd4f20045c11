"""Options the voice commands share (``jawad transcribe``, ``listen``, ``talk``, ``wake``): the language,
and the audio file a command reads."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext

AUTOMATIC = "auto"


def audio_file_command(subparsers: Any, name: str, *, help: str, description: str, json_help: str,
                       handler: Callable[..., Any]) -> argparse.ArgumentParser:
    """The sub-command ``name`` that reads one audio file (its ``file`` argument) and can answer in JSON
    (``--json``, what it prints: ``json_help``), run by ``handler``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help, description=description)
    parser.add_argument("file", type=Path, help="the audio file (WAV, MP3, OGG, FLAC, M4A, WebM)")
    parser.add_argument("--json", action="store_true", help=f"print JSON: {json_help}")
    parser.set_defaults(handler=handler)
    return parser


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
