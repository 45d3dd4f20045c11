"""The end of a spoken turn on real recorded speech, part of ``python -m benchmarks voice``
(alone: ``python -m benchmarks.voice_turns [--quick]``).

Public recordings nobody here made (``tests/voice/clips``, see its NOTICE): a LibriSpeech
sentence, JFK's "ask not" with two pauses of about a second mid-sentence, a Spanish sentence
with pauses of 0.6 and 0.8 s, and one clip JOINED here (labelled so): the LibriSpeech sentence
with 1.0 s of its own room tone inserted after "...and we are glad to". Each is played into the
private PulseAudio's microphone as a person would speak in conversation mode (after Jawad says
it listens); the real path answers: the app's capture, the end-of-turn decision, tiny.en, the
Assistant on the loopback scripted model (first token at once, 30 tokens a second), espeak-ng.

Measured from the TRUE end of the voice, not from the detector's decision: the end of the last
window the voice activity model is sure of (probability >= 0.5) in the file itself, found
offline (within 0.15 s of the sources' word timings), placed on the clock by finding the file
in the microphone's signal (every block is kept with its arrival time, less the input latency
the stream reports), to the first reply audio (its first block left the output stream, plus
the output latency). A cut-off is a turn that ended before the speaker's last word.

The ways of ending a turn run in the same process on the same server, one after the other:
the energy detector with a fixed wait of ``voice.silence_stop_s`` (1.2 s, the old default); the
voice activity model with the end-of-turn wait decided by the words alone (0.5 s after a
finished sentence, the longest after an unfinished one) and the transcript made during the
pause, the answer asked for once the turn has ended; the same with the answer started
speculatively on the likely end, held until the turn ends and dropped if the speaker goes on
("before"); and that with the end-of-turn model (Smart Turn v3.2, ``core.voice.turns_model``)
judging each pause with the words ("after", ``core.voice.turns.end_of_turn_wait_s``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import Figure
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ConversationState, Event
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.voice import VoiceSession, read_audio, write_wav
from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples
from jawad_desktop.core.voice.conversation import Conversation
from jawad_desktop.core.voice.microphone import OpenMicrophone
from jawad_desktop.core.voice.turns_model import load_turn_model
from jawad_desktop.core.voice.vad import EndOfSpeechDetector, speech_end_in
from tests.fixtures.pulseaudio import PulseServer, private_pulseaudio
from tests.servers.scripted_model import ScriptedModel, text

CLIPS = Path(__file__).resolve().parent.parent / "tests" / "voice" / "clips"
REPLY = "Okay. I have done that for you."
AFTER_TO_S = 4.2  # quilter.flac: "...and we are glad to" ends at 4.16 s, "welcome" starts at 4.26 s


@dataclass
class Clip:
    label: str
    wav: Path
    true_end_s: float = 0.0  # the last voiced window's end, in the file


@dataclass
class Played:
    clip: Clip
    requested_at: float
    start_index: int | None = None  # where the file begins in the microphone's signal
    true_end_at: float | None = None  # monotonic


@dataclass
class Turn:
    ended_at: float  # the detector ended the turn
    last_voice_at: float  # the last voiced frame it heard
    first_audio_at: float | None
    transcript: str


@dataclass
class Run:
    label: str
    turns: list[Turn] = field(default_factory=list)
    played: list[Played] = field(default_factory=list)
    input_latency_s: float = 0.0
    speculations: str = ""  # answers started on a likely end: used, dropped
    decided_by_words: int = 0  # turns whose words set a wait shorter than the longest


@dataclass
class _Mouth:
    next: int = 0
    free_at: float = 0.0
    tapped: bool = False
    bye: bool = False


def clips(folder: Path) -> list[Clip]:
    quilter = read_audio(CLIPS / "quilter.flac")
    cut = int(AFTER_TO_S * SAMPLE_RATE)
    room = np.tile(quilter[: int(0.4 * SAMPLE_RATE)], 3)[:SAMPLE_RATE]
    joined = write_wav(folder / "quilter-joined-pause.wav", np.concatenate([quilter[:cut], room, quilter[cut:]]))
    found = [
        Clip("LibriSpeech sentence (en)", _wav(folder, "quilter.flac")),
        Clip("JFK, two ~1 s pauses mid-sentence (en)", _wav(folder, "jfk.flac")),
        Clip("Spanish sentence, pauses 0.6 and 0.8 s (es)", _wav(folder, "arenas_es.flac")),
        Clip("JOINED: LibriSpeech + 1.0 s pause after 'glad to' (en)", joined),
    ]
    for clip in found:
        end = speech_end_in(read_audio(clip.wav))
        if end is None:
            raise RuntimeError("the voice activity model is not available: the true end cannot be found")
        clip.true_end_s = end
    return found


def _wav(folder: Path, name: str) -> Path:
    """paplay plays WAV everywhere: the FLAC clip as 16 kHz WAV."""
    return write_wav(folder / f"{Path(name).stem}.wav", read_audio(CLIPS / name))


class _Tap:
    """Every microphone block with its arrival time (PortAudio's thread)."""

    def __init__(self) -> None:
        self.blocks: list[tuple[float, Samples]] = []
        self._lock = threading.Lock()

    def __call__(self, block: object) -> None:
        if isinstance(block, np.ndarray):
            with self._lock:
                self.blocks.append((time.monotonic(), block))

    def place(self, played: list[Played], latency_s: float) -> None:
        """Find each played file in the signal and put its true end on the clock."""
        with self._lock:
            blocks = list(self.blocks)
        signal = np.concatenate([b for _, b in blocks])
        ends = np.cumsum([b.size for _, b in blocks])  # the index after each block's last sample
        arrivals = np.array([t for t, _ in blocks])
        for index, item in enumerate(played):
            audio = read_audio(item.clip.wav)
            first = int(np.searchsorted(arrivals, item.requested_at))
            start = int(ends[first - 1]) if first > 0 else 0
            stop = start + int(12 * SAMPLE_RATE) + audio.size
            if index + 1 < len(played):  # not into the next clip: two clips may end alike
                following = int(np.searchsorted(arrivals, played[index + 1].requested_at))
                stop = min(stop, int(ends[following - 1]) if following > 0 else 0)
            window = signal[start:stop]
            # The last second of voice, found in the signal: a block lost earlier (the machine is
            # busy) does not move the end.
            tail = int(item.clip.true_end_s * SAMPLE_RATE)
            probe = audio[tail - SAMPLE_RATE : tail]
            if window.size < probe.size:
                continue
            offset = _find(window, probe)
            if offset is None:
                continue
            item.start_index = start + offset + SAMPLE_RATE - tail
            end_index = start + offset + SAMPLE_RATE
            block = int(np.searchsorted(ends, end_index, side="right"))
            if block >= len(blocks):
                continue
            item.true_end_at = float(arrivals[block]) - (int(ends[block]) - end_index) / SAMPLE_RATE - latency_s


def _find(window: Samples, probe: Samples) -> int | None:
    """Where ``probe`` starts in ``window`` (cross-correlation by FFT), None when it is not there."""
    n = 1 << int(np.ceil(np.log2(window.size + probe.size)))
    corr = np.fft.irfft(np.fft.rfft(window, n) * np.conj(np.fft.rfft(probe, n)), n)[: window.size - probe.size + 1]
    # Normalised by the window's energy under the probe at each lag: loud speech later on is no match.
    energy = np.concatenate(([0.0], np.cumsum(window.astype(np.float64) ** 2)))
    local = np.sqrt(np.maximum(energy[probe.size :] - energy[: -probe.size], 1e-12))[: corr.size]
    offset = int(np.argmax(corr / local))
    segment = window[offset : offset + probe.size]
    similarity = float(np.dot(segment, probe) / (np.linalg.norm(segment) * np.linalg.norm(probe) + 1e-9))
    return offset if similarity > 0.8 else None


async def _converse(pulse: PulseServer, model: ScriptedModel, plan: list[Clip], label: str, longest: float,
                    session_factory: Callable[[AppContext, OpenMicrophone], VoiceSession],
                    speculative: bool) -> Run:
    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(tempfile.mkdtemp(prefix="jawad-bench-turns-"), secrets=secrets)
    voice = ctx.settings.voice
    voice.tts_backend = "espeak"
    voice.silence_stop_s = longest
    voice.conversation_timeout_s = 20
    voice.barge_in = True
    voice.echo_cancel = False  # nothing is looped back here; the canceller would alter the signal to find
    model.script(*[text(REPLY, chunk_size=4, chunk_delay_s=1 / 30) for _ in range(3 * len(plan))])
    goodbye = pulse.speech_wav("goodbye")
    assistant = Assistant(ctx, client=LLMClient(model.provider()), save=False)
    conversation = Conversation(ctx, assistant, session_factory=lambda mic: session_factory(ctx, mic),
                                speculative=speculative)
    run = Run(label)
    tap = _Tap()
    loop = asyncio.get_running_loop()
    mouth = _Mouth()
    pending: set[asyncio.Task[None]] = set()

    async def speak_when_free() -> None:
        await asyncio.sleep(max(0.3, mouth.free_at - time.monotonic() + 0.3))
        if conversation.state != "listening":
            return
        if mouth.next < len(plan):
            clip = plan[mouth.next]
            mouth.next += 1
            run.played.append(Played(clip, time.monotonic()))
            mouth.free_at = time.monotonic() + read_audio(clip.wav).size / SAMPLE_RATE + 0.5
            pulse.play(clip.wav)
        elif not mouth.bye:
            mouth.bye = True
            pulse.play(goodbye)

    def on_event(event: Event) -> None:
        if not isinstance(event, ConversationState):
            return
        if event.state == "listening" and not mouth.tapped and conversation.microphone is not None:
            mouth.tapped = True
            conversation.microphone.attach(tap)
        if event.state == "listening" and not event.barge_in:
            pending.add(loop.create_task(speak_when_free()))
        if event.state == "thinking" and conversation.session is not None:
            session = conversation.session  # how the turn that just ended was decided
            run.decided_by_words += session.turn_wait_s < longest

    ctx.bus.subscribe(on_event)
    latency = 0.0
    try:
        task = conversation.start()
        while conversation.microphone is None or not conversation.microphone.is_open:
            await asyncio.sleep(0.05)
            if task.done():
                break
        latency = conversation.microphone.latency_s if conversation.microphone is not None else 0.0
        await task
    finally:
        await assistant.aclose()
    run.input_latency_s = latency
    if speculative:
        run.speculations = (f"speculative answers: {conversation.speculations_used} used, "
                            f"{conversation.speculations_dropped} dropped; ")
    tap.place(run.played, latency)
    for turn in conversation.turns:
        run.turns.append(Turn(turn.speech_end_at, turn.last_speech_at, turn.first_audio_at, turn.transcript))
    return run


def _figures(run: Run, goal: bool) -> list[Figure]:
    latencies: list[float] = []
    cut_offs: list[str] = []
    per_clip: dict[str, list[float]] = {}
    decided: list[float] = []
    waits: list[float] = []
    for index, item in enumerate(run.played):
        if item.true_end_at is None:
            cut_offs.append(f"{item.clip.label}: not found in the microphone signal")
            continue
        start, end = item.requested_at, item.true_end_at
        following = run.played[index + 1].requested_at if index + 1 < len(run.played) else float("inf")
        mine = [t for t in run.turns if start <= t.last_voice_at < following]
        early = [t for t in mine if t.ended_at < end]
        if early:
            cut_offs.append(f"{item.clip.label}: ended {end - early[0].ended_at:.1f} s before its last word, "
                            f"heard {early[0].transcript!r}")
            continue
        answered = [t.first_audio_at for t in mine if t.first_audio_at is not None]
        if not answered:
            cut_offs.append(f"{item.clip.label}: no reply")
            continue
        latency = answered[-1] - end
        latencies.append(latency)
        waits.append(mine[-1].ended_at - end)
        decided.extend(t.first_audio_at - t.ended_at for t in mine if t.first_audio_at is not None)
        per_clip.setdefault(item.clip.label.split(",")[0].split(":")[0], []).append(latency)
    figures: list[Figure] = []
    if latencies:
        median = statistics.median(latencies)
        p90 = float(np.percentile(latencies, 90))
        detail = "; ".join(f"{k} {statistics.median(v):.2f}" for k, v in per_clip.items())
        load = os.getloadavg()[0]
        figures.append(Figure(
            f"turns ({run.label}): true end of voice → first reply audio (median)", median, "s",
            goal="<= 0.8 s" if goal else "", ok=median <= 0.8 if goal else None,
            note=f"p90 {p90:.2f} s, max {max(latencies):.2f} s, {len(latencies)} turns on real speech, "
                 f"load average {load:.1f} on {os.cpu_count()} CPUs; "
                 f"per clip (median): {detail}"))
        figures.append(Figure(f"turns ({run.label}): true end of voice → first reply audio (p90)", p90, "s",
                              note=f"input latency the stream reports: {run.input_latency_s * 1000:.0f} ms "
                                   "(counted); detector's decision → first audio (median): "
                                   f"{statistics.median(decided):.2f} s; true end → turn ended (median): "
                                   f"{statistics.median(waits):.2f} s" if decided else ""))
    figures.append(Figure(
        f"turns ({run.label}): speakers cut off before their last word", len(cut_offs), "",
        goal="0" if goal else "", ok=len(cut_offs) == 0 if goal else None,
        note=f"of {len(run.played)} clips played; {run.decided_by_words} turns ended by their words "
             f"before the longest wait; {run.speculations}" + (" | ".join(cut_offs) if cut_offs else "none")))
    return figures


def _with_turn_model(ctx: AppContext, mic: OpenMicrophone) -> VoiceSession:
    if load_turn_model() is None:
        raise RuntimeError("the end-of-turn model is not installed: pip install --no-deps pipecat-ai")
    return VoiceSession(ctx, microphone=mic)


def measure(pulse: PulseServer, quick: bool, only: tuple[str, ...] = ()) -> list[Figure]:
    """Each clip ``repeats`` times through both ways of ending a turn (see the module docstring)."""
    folder = Path(tempfile.mkdtemp(prefix="jawad-bench-clips-"))
    found = clips(folder)
    repeats = 1 if quick else 3
    plan = [clip for _ in range(repeats) for clip in found]
    # The old default wait for the energy detector; the new default longest wait for the model.
    ways: list[tuple[str, bool, float, Callable[[AppContext, OpenMicrophone], VoiceSession], bool]] = [
        ("energy detector, fixed 1.2 s wait", False, 1.2,
         lambda ctx, mic: VoiceSession(ctx, microphone=mic, detector_factory=EndOfSpeechDetector,
                                       adaptive_wait=False), False),
        ("voice model + the words' end-of-turn wait, answer asked at the end", False, 1.5,
         lambda ctx, mic: VoiceSession(ctx, microphone=mic, turn_model=None), False),
        ("before: voice model + the words' end-of-turn wait + speculative answer", False, 1.5,
         lambda ctx, mic: VoiceSession(ctx, microphone=mic, turn_model=None), True),
        ("after: voice model + words and end-of-turn model (Smart Turn v3.2) + speculative answer", True, 1.5,
         _with_turn_model, True),
    ]
    if only:
        ways = [way for way in ways if any(word in way[0] for word in only)]
    figures: list[Figure] = []
    for label, goal, longest, factory, speculative in ways:
        model = ScriptedModel().start()
        try:
            run = asyncio.run(_converse(pulse, model, plan, label, longest, factory, speculative))
        finally:
            model.stop()
        figures.extend(_figures(run, goal))
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="*", default=[], help="the ways whose label has one of these words")
    args = parser.parse_args()
    with private_pulseaudio() as server:
        for figure in measure(server, args.quick, tuple(args.only)):
            ok = {True: "yes", False: "NO", None: "-"}[figure.ok]
            print(f"{figure.name}: {figure.value:.3f} {figure.unit}  goal {figure.goal or '-'}  ok {ok}")
            print(f"    {figure.note}")
