"""Conversation mode's figures, part of ``python -m benchmarks voice``.

The real path end to end: espeak-ng "user" speech played into the private PulseAudio's
microphone sink; the app's capture, VAD and tiny.en; the Assistant on a loopback model
streaming at 30 tokens a second (``tests/servers/scripted_model.py``); espeak-ng speaking the
reply to the separate speaker sink, which is also looped back into the microphone at 30 %
(the speakers heard by the microphone, as on a laptop), so barge-in must tell the app's own
voice from the user's.

Fifty turns (ten with ``--quick``) on the raised-threshold path, then ten more with the sound
server's echo canceller: every fifth utterance is said over the previous reply (barge-in)
instead of after it. Measured:

- end of speech → first audio of the reply: from the VAD's end-of-speech decision (the
  trailing silence it waits for, 0.8 s here, comes before and is a setting) to the moment the
  reply's first block left the output stream plus the stream's reported output latency;
- barge-in stop latency: from the onset of the user's speech in the microphone signal (the
  first block of the loud run that decided it) to the first silent output block plus latency;
- utterances lost: said by the user but never a turn (no transcript), barge-ins included;
- false barge-ins: a reply cut off although the user said nothing over it.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ConversationState, Event
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.voice.conversation import Conversation
from tests.fixtures.pulseaudio import PulseServer
from tests.servers.scripted_model import ScriptedModel, text

UTTERANCES = [
    ("find me a cheaper alternative to this product", ["alternative", "product", "cheaper"]),
    ("open the settings and turn on dark mode", ["settings", "dark mode"]),
    ("what is the weather like in Paris today", ["weather", "paris"]),
    ("summarize this page for me and list the three main points", ["page", "main points", "summar"]),
    ("read this article aloud please", ["article", "aloud"]),
]
SHORT_REPLY = "Okay. I have done that for you."
LONG_REPLY = " ".join(f"Here is point number {n} of a rather long answer that goes on." for n in range(1, 10))
BARGE_EVERY = 5
BARGE_AFTER_S = 1.0  # into the reply the user starts talking over it
ECHO_PERCENT = 30


class _Mouth:
    """Plays WAV files into the microphone sink after a delay, from a small shell started early
    (forking paplay from this big process would stall its audio threads)."""

    def __init__(self, env: dict[str, str]) -> None:
        self._shell = subprocess.Popen(
            ["sh", "-c", 'while read -r d f; do (sleep "$d"; paplay -d virt "$f") & done'],
            stdin=subprocess.PIPE, env=env, text=True,
        )

    def say(self, wav: Path, delay_s: float) -> None:
        assert self._shell.stdin is not None
        self._shell.stdin.write(f"{delay_s} {wav}\n")
        self._shell.stdin.flush()

    def close(self) -> None:
        assert self._shell.stdin is not None
        self._shell.stdin.close()
        self._shell.wait(timeout=20)


async def _converse(pulse: PulseServer, model: ScriptedModel, turns: int,
                    echo_cancel: bool) -> tuple[Conversation, list[bool]]:
    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(tempfile.mkdtemp(prefix="jawad-bench-talk-"), secrets=secrets)
    voice = ctx.settings.voice
    voice.silence_stop_s = 0.8
    voice.partial_results = False
    voice.tts_backend = "espeak"
    voice.conversation_timeout_s = 20
    voice.echo_cancel = echo_cancel
    plan = [(i % BARGE_EVERY == BARGE_EVERY - 1) and i > 0 for i in range(turns)]  # said over the reply
    # Turn i's reply is long when the user will speak over it (turn i + 1 is a barge-in).
    replies = [LONG_REPLY if i + 1 < turns and plan[i + 1] else SHORT_REPLY for i in range(turns)]
    model.script(*[text(r, chunk_size=4, chunk_delay_s=1 / 30) for r in replies])
    wavs = [pulse.speech_wav(UTTERANCES[i % len(UTTERANCES)][0]) for i in range(turns)]
    goodbye = pulse.speech_wav("goodbye")
    mouth = _Mouth(pulse.env)
    said = 0
    assistant = Assistant(ctx, client=LLMClient(model.provider()), save=False)
    conversation = Conversation(ctx, assistant)

    def on_event(event: Event) -> None:
        nonlocal said
        if not isinstance(event, ConversationState):
            return
        if event.state == "listening" and not event.barge_in:
            if said < turns and not plan[said]:
                mouth.say(wavs[said], 0.2)
                said += 1
            elif said >= turns:
                mouth.say(goodbye, 0.2)
        elif event.state == "speaking" and said < turns and plan[said]:
            mouth.say(wavs[said], BARGE_AFTER_S)
            said += 1

    ctx.bus.subscribe(on_event)
    try:
        await conversation.run()
    finally:
        mouth.close()
        await assistant.aclose()
    return conversation, plan


def measure(pulse: PulseServer, quick: bool) -> list[Figure]:
    """Fifty turns on the raised-threshold path (no echo canceller: the harder case), then ten
    with the sound server's echo canceller (``core.voice.echo``)."""
    figures = _measure(pulse, 10 if quick else 50, echo_cancel=False)
    return figures + _measure(pulse, 10, echo_cancel=True)


def _measure(pulse: PulseServer, turns: int, *, echo_cancel: bool) -> list[Figure]:
    model = ScriptedModel().start()
    echo = pulse.echo_into_mic(ECHO_PERCENT)
    try:
        started = time.monotonic()
        conversation, plan = asyncio.run(_converse(pulse, model, turns, echo_cancel))
        elapsed = time.monotonic() - started
    finally:
        pulse.unload(echo)
        model.stop()
    path = " (echo canceller)" if conversation.echo_cancelled else ""
    if echo_cancel and not conversation.echo_cancelled:
        return [Figure("conversation: echo canceller", 0, "", note="module-echo-cancel could not be loaded")]
    done = conversation.turns
    first_audio = [t.first_audio_at - t.speech_end_at for t in done
                   if t.first_audio_at is not None and t.barge_in_at is None]
    to_transcript = [t.transcript_at - t.speech_end_at for t in done]
    to_token = [t.first_token_at - t.speech_end_at for t in done if t.first_token_at is not None]
    # A barge-in is expected over turn i when turn i + 1 was planned to be said over it.
    expected = [i + 1 < len(plan) and plan[i + 1] for i in range(len(done))]
    stops = [t.playback_stopped_at - t.barge_in_at for t in done
             if t.barge_in_at is not None and t.playback_stopped_at is not None]
    false_barge = sum(1 for t, want in zip(done, expected, strict=False) if t.barge_in_at is not None and not want)
    missed_barge = sum(1 for t, want in zip(done, expected, strict=False) if want and t.barge_in_at is None)
    heard = 0
    for i, turn in enumerate(done):
        keywords = UTTERANCES[i % len(UTTERANCES)][1]
        heard += any(k in turn.transcript.lower() for k in keywords)
    lost = turns - len([t for t in done if t.transcript])
    figures: list[Figure] = []
    if first_audio:
        median = statistics.median(first_audio)
        figures.append(Figure(
            f"conversation{path}: end of speech → first audio of the reply (median)", median, "s", goal="<= 1.2 s",
            ok=median <= 1.2,
            note=f"{len(first_audio)} turns, max {max(first_audio):.2f} s; model 30 tok/s, espeak-ng; "
                 f"→ transcript {statistics.median(to_transcript):.2f} s, "
                 f"→ first token {statistics.median(to_token):.2f} s (medians)"))
    if stops:
        worst = max(stops)
        figures.append(Figure(
            f"conversation{path}: barge-in stop latency (max)", worst * 1000, "ms", goal="<= 200 ms", ok=worst <= 0.2,
            note=f"{len(stops)} barge-ins, median {statistics.median(stops) * 1000:.0f} ms, from the onset in "
                 f"the mic signal (incl. 120 ms to decide) to silence at the speaker; "
                 f"{missed_barge} missed; echo of the reply into the mic at {ECHO_PERCENT} %"))
    figures.append(Figure(
        f"conversation{path}: utterances lost across {turns} turns", lost, "", goal="0", ok=lost == 0,
        note=f"{sum(plan)} said over the reply; keywords heard in {heard}/{len(done)}; "
             f"ended by {conversation.end_reason!r} after {elapsed:.0f} s"))
    figures.append(Figure(f"conversation{path}: false barge-ins (the app's own voice)", false_barge, "", goal="0",
                          ok=false_barge == 0, note=f"the reply looped back into the mic at {ECHO_PERCENT} %"))
    return figures
