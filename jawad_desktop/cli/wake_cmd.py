"""``jawad wake FILE``: is "Hey Jawad" said in this recording? The wake word's detector on a file.

The same spotter the tray's wake word uses (``core.voice.wake``: Silero VAD, then the bundled
tiny.en on the start of each voiced stretch), fed the file in blocks as the microphone would.
Prints each time the wake word was heard; exit code 0 when it was, 1 when it was not (with a
line on stderr saying so), so scripts and the benchmark can use it. ``--json`` prints every
stretch heard and the hits.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from jawad_desktop.cli.voice_options import audio_file_command
from jawad_desktop.core.context import AppContext


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser = audio_file_command(
        subparsers, "wake", help='say whether "Hey Jawad" is spoken in an audio file',
        description='Run the wake-word detector ("Hey Jawad", Settings → Voice) on an audio file, offline.',
        json_help="hits (start_s, end_s, text) and every stretch heard", handler=run)
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.core.voice.wake import scan_file

    hits, spotter = await scan_file(ctx, args.file)
    if args.json:
        print(json.dumps({"hits": [asdict(hit) for hit in hits], "heard": spotter.heard}, ensure_ascii=False))
    else:
        for hit in hits:
            print(f"{hit.start_s:7.2f} s  {hit.text}")
    if not hits:
        print(f"jawad: the wake word was not heard in {args.file}", file=sys.stderr)
        return 1
    return 0
