"""``jawad transcribe FILE``: speech in an audio file to text, with the app's voice settings.

Any format PyAV reads (WAV, MP3, OGG, FLAC, M4A, WebM). ``--backend`` overrides the
settings' backend (and turns the fallback off); ``--json`` prints the transcript with its
language (detected by a multilingual model when the language is automatic), audio length and
transcription time.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jawad_desktop.cli.voice_options import add_language_option, apply_language, audio_file_command
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice import build_transcriber, read_audio


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser = audio_file_command(
        subparsers, "transcribe", help="print the speech in an audio file as text",
        description="Transcribe an audio file with local Whisper or the Whisper API (Settings → Voice).",
        json_help="text, language, language_probability, duration_s, elapsed_s", handler=run)
    parser.add_argument("--backend", choices=["local", "api"], help="override the backend from the settings")
    parser.add_argument("--model", help="local model (e.g. tiny.en, base, small, or a model folder)")
    add_language_option(parser)
    parser.add_argument("--beam-size", type=int, choices=range(1, 11), metavar="N",
                        help="local Whisper's beam search width, 1 to 10 (default: the settings)")
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    if args.model:
        ctx.settings.voice.model_size = args.model
    apply_language(args, ctx)
    if args.beam_size is not None:
        ctx.settings.voice.beam_size = args.beam_size
    transcriber = build_transcriber(ctx, args.backend)
    audio = read_audio(args.file)
    result = await transcriber.transcribe(audio)
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        print(result.text)
        if not result.text:
            print("jawad: no speech was found in the file", file=sys.stderr)
    return 0
