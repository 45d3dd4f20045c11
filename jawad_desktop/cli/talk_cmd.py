"""``jawad talk``: a spoken conversation from the default microphone to the default speaker.

Jawad listens, answers aloud while the answer streams, and listens again until you say
"stop" or "goodbye", stay silent (Settings → Voice: conversation timeout) or press Ctrl+C;
``--once`` ends after one answer. Speaking over an answer stops it and is the next turn.
The state goes to stderr; what you said and the answer to stdout (``You:``/``Jawad:``), or
with ``--json`` one JSON line per turn: transcript, answer and the timings from the end of
your speech to the transcript, to the first token and to the first audio of the answer.
Failures (no microphone, no speech engine, the provider) are friendly text on stderr, exit 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from typing import Any

from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.cli.terminal import printable
from jawad_desktop.cli.voice_options import add_language_option, apply_language
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ChatDelta, ConversationState, Event, Notice, VoiceState

_STATUS = {"listening": "Listening… (speak now; say “goodbye” or press Ctrl+C to end)",
           "thinking": "Thinking…", "speaking": "Speaking… (talk to interrupt)"}


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "talk",
        help="talk with Jawad: spoken questions, spoken answers, until you say goodbye",
        description="A hands-free conversation from the default microphone to the default speaker "
                    "(Settings → Voice: input, output, voice and rate).",
    )
    parser.add_argument("--once", action="store_true", help="one question and its spoken answer, then exit")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON line per turn: transcript, answer, timings_s")
    parser.add_argument("--tts", choices=["auto", "api", "piper", "espeak"],
                        help="the speech engine (default: the settings')")
    parser.add_argument("--device", help="input device name (or part of it); default: the settings' input")
    add_language_option(parser)
    parser.add_argument("--no-barge-in", action="store_true", help="do not stop the answer when you speak over it")
    parser.add_argument("--no-save", action="store_true", help="do not save this conversation in the history")
    parser.add_argument("--quiet", action="store_true", help="no status lines on stderr")
    add_provider_selection(parser)
    parser.set_defaults(handler=run)
    return parser


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.voice.conversation import Conversation

    voice = ctx.settings.voice
    if args.tts:
        voice.tts_backend = args.tts
    if args.device is not None:
        voice.input_device = args.device
    apply_language(args, ctx)
    assistant = Assistant(ctx, client=client_from_args(ctx=ctx, args=args), ask=False, save=not args.no_save)
    conversation = Conversation(ctx, assistant, once=args.once, barge_in=False if args.no_barge_in else None)
    status = None if args.quiet else sys.stderr
    answering = False

    def show(event: Event) -> None:
        nonlocal answering
        if isinstance(event, ConversationState):
            if answering and event.state in ("listening", "idle"):  # the answer's line ends
                print(flush=True)
                answering = False
            if status is not None and event.state in _STATUS:
                print(_STATUS[event.state], file=status, flush=True)
        elif isinstance(event, VoiceState) and event.state == "result" and not args.json:
            print(f"You: {event.transcript}", flush=True)
        elif isinstance(event, ChatDelta) and not args.json:
            if not answering:
                print("Jawad: ", end="", flush=True)
                answering = True
            print(printable(event.text), end="", flush=True)
        elif isinstance(event, Notice) and status is not None:  # errors, and the reply voice's language
            print(f"jawad: {printable(event.text)}", file=status, flush=True)

    ctx.bus.subscribe(show)
    printed = 0

    def print_turns() -> None:
        nonlocal printed
        if args.json:
            for turn in conversation.turns[printed:]:
                if turn.first_audio_at is not None or turn.error or turn.barge_in_at is not None:
                    print(json.dumps(turn.as_dict(), ensure_ascii=False), flush=True)
                    printed += 1

    ctx.bus.subscribe(lambda event: print_turns() if isinstance(event, ConversationState)
                      and event.state == "listening" else None)
    loop = asyncio.get_running_loop()
    interrupts = 0

    def interrupt() -> None:
        nonlocal interrupts
        interrupts += 1
        conversation.stop()
        if interrupts > 1:
            raise KeyboardInterrupt

    unix_signals = sys.platform != "win32"
    if unix_signals:
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        await conversation.run()
    finally:
        if unix_signals:
            loop.remove_signal_handler(signal.SIGINT)
        await assistant.aclose()
    if args.json:
        for turn in conversation.turns[printed:]:
            print(json.dumps(turn.as_dict(), ensure_ascii=False), flush=True)
    if conversation.error is not None:
        raise conversation.error
    if args.once and not conversation.turns and conversation.end_reason != "stopped":
        raise JawadError("No question was heard.",
                         suggestions=["Speak after “Listening…” appears, a little louder or closer to the microphone.",
                                      "Check the input and its level with `jawad listen`."])
    if status is not None and conversation.end_reason == "silence":
        print("Ended after a silence.", file=status)
    return 0
