"""``jawad listen``: record from the microphone until the speaker stops, print the transcript.

Live partial transcripts (local backend) go to stderr when it is a terminal, the final text
to stdout, and the language when the model detected it (``--language auto``, or Automatic in the
settings) to stderr. ``--list-devices`` prints the inputs to choose from. Ctrl+C stops the recording
and transcribes what was said; a second Ctrl+C gives up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from typing import Any

from jawad_desktop.cli.voice_options import add_language_option, apply_language
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.voice import VoiceSession, list_input_devices
from jawad_desktop.core.voice.languages import language_name


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "listen",
        help="record from the microphone until you stop speaking and print what you said",
        description="Record until silence (Settings → Voice: input, silence, maximum length) and transcribe.",
    )
    parser.add_argument("--backend", choices=["local", "api"], help="override the backend from the settings")
    parser.add_argument("--device", help="input device name (or part of it); default: the settings' input")
    parser.add_argument("--max-seconds", type=float, help="stop after this many seconds at most")
    parser.add_argument("--silence", type=float,
                        help="the longest silence that ends the recording (after an unfinished sentence;"
                             " a finished one ends after 0.5 s)")
    add_language_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON: text, language, duration_s, elapsed_s")
    parser.add_argument("--quiet", action="store_true", help="no status or partial transcripts on stderr")
    parser.add_argument("--list-devices", action="store_true", help="list the microphones and exit")
    parser.set_defaults(handler=run)
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    if args.list_devices:
        for device in list_input_devices():
            mark = "*" if device.is_default else " "
            print(f"{mark} {device.name}  ({device.channels} ch, {device.default_samplerate:.0f} Hz)")
        return 0
    voice = ctx.settings.voice
    if args.device is not None:
        voice.input_device = args.device
    if args.max_seconds is not None:
        voice.max_length_s = args.max_seconds
    if args.silence is not None:
        voice.silence_stop_s = args.silence
    apply_language(args, ctx)
    session = VoiceSession(ctx, backend=args.backend)
    errors: list[tuple[str, Remedy | None]] = []  # each error's text and where it is fixed
    status = sys.stderr if not args.quiet else None
    live = status is not None and status.isatty()

    def show(event: Event) -> None:
        if not isinstance(event, VoiceState):
            return
        if event.state == "error":
            errors.append((event.error, Remedy.from_json(event.remedy)))
        if status is None:
            return
        if event.state == "started":
            print("Listening… (speak now; Ctrl+C to stop)", file=status)
        elif event.state == "partial" and live:
            print(f"\r\x1b[2K… {event.transcript}", end="", file=status, flush=True)
        elif event.state == "transcribing":
            print("\r\x1b[2KTranscribing…" if live else "Transcribing…", file=status)

    ctx.bus.subscribe(show)
    loop = asyncio.get_running_loop()
    interrupts = 0

    def interrupt() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            session.stop()  # transcribe what was said so far
        else:
            session.cancel()
            raise KeyboardInterrupt

    # Windows event loops have no Unix signal handlers: there Ctrl+C ends the command outright.
    unix_signals = sys.platform != "win32"
    if unix_signals:
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        result = await session.listen()
    finally:
        if unix_signals:
            loop.remove_signal_handler(signal.SIGINT)
    if result is None:
        if interrupts > 1:
            raise KeyboardInterrupt
        detail, remedy = errors[-1] if errors else ("Nothing was transcribed.", None)
        kept = session.pending_audio
        raise JawadError(  # main() prints it with the terminal's words for the remedy
            detail,
            suggestions=[f"Your recording was kept: jawad transcribe {kept}"] if kept is not None else [],
            remedy=remedy,
        )
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        print(result.text)
    # Detected: the language was automatic and the model told it (an English-only model says English, sure).
    detected = result.language_probability < 1.0 or result.language != "en"
    if status is not None and not voice.language and result.language and detected:
        print(f"Heard {language_name(result.language)} (detected).", file=status)
    return 0
