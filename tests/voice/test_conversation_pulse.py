"""Conversation mode end to end on real components: espeak-ng speech played into the private
PulseAudio's microphone sink, the app's capture and VAD, tiny.en, the Assistant on a loopback
model streaming at 30 tokens a second, espeak-ng speaking the reply to the separate speaker
sink, whose monitor is recorded and transcribed to check what was said aloud."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ConversationState, Event
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.voice import LocalWhisper
from jawad_desktop.core.voice.audio import Samples, resample, rms
from jawad_desktop.core.voice.conversation import Conversation
from jawad_desktop.core.voice.turns import BargeInDetector, is_stop_phrase
from tests.fixtures.pulseaudio import SPOKEN_IN_REAL_TIME, PulseServer
from tests.servers.scripted_model import Reply, ScriptedModel, text

pytestmark = SPOKEN_IN_REAL_TIME

TOKENS_PER_S = 30


def streamed(content: str) -> Reply:
    """A reply streamed as a model does it: about 4 characters a token, 30 tokens a second."""
    return text(content, chunk_size=4, chunk_delay_s=1 / TOKENS_PER_S)


class User:
    """Says the next line into the microphone each time Jawad starts listening (not after a barge-in)."""

    def __init__(self, ctx: AppContext, pulse: PulseServer, lines: list[str]) -> None:
        self.pulse = pulse
        self.lines = list(lines)
        self.players: list[subprocess.Popen[bytes]] = []
        self.states: list[ConversationState] = []
        ctx.bus.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        if not isinstance(event, ConversationState):
            return
        self.states.append(event)
        if event.state == "listening" and not event.barge_in and self.lines:
            self.say(self.lines.pop(0))

    def say(self, line: str, delay_s: float = 0.2) -> None:
        self.players.append(self.pulse.play(self.pulse.speech_wav(line), delay_s=delay_s))

    def names(self) -> list[str]:
        return [s.state for s in self.states]


@pytest.fixture
def talk_ctx(voice_ctx: AppContext) -> AppContext:
    voice = voice_ctx.settings.voice
    voice.partial_results = False
    voice.tts_backend = "espeak"
    voice.announce_tools = False
    voice.conversation_timeout_s = 8
    voice.echo_cancel = False  # the raised-threshold path; the echo canceller has its own test
    return voice_ctx


@pytest.fixture
def assistant(talk_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any]) -> Iterator[Assistant]:
    made = Assistant(talk_ctx, client=LLMClient(scripted_model.provider()), save=False)
    yield made
    arun(made.aclose())


@pytest.fixture
def speaker(pulse_server: PulseServer, tmp_path: Path) -> Iterator[Path]:
    """What the app says, recorded from the speaker's monitor (raw s16le 24 kHz)."""
    target = tmp_path / "speaker.raw"
    recorder = pulse_server.record_speaker(target)
    time.sleep(0.3)
    yield target
    recorder.terminate()
    recorder.wait(5)


def said_aloud(raw: Path, arun: Callable[..., Any], cache: Path) -> str:
    pcm = np.frombuffer(raw.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    model = LocalWhisper("tiny.en", cache_dir=cache)
    return str(arun(model.transcribe(resample(pcm, 24_000)), timeout=60).text).lower()


def test_stop_phrases() -> None:
    assert is_stop_phrase("Stop.") and is_stop_phrase(" Stop listening!") and is_stop_phrase("Goodbye.")
    assert not is_stop_phrase("Stop the music in the kitchen") and not is_stop_phrase("what is the time")


def test_barge_in_detector_needs_sustained_sound_well_above_the_echo() -> None:
    detector = BargeInDetector()
    played = 0.2
    echo = np.full(480, 0.12, dtype=np.float32)  # the app's own voice back through the mic, at 60 %
    # Before the echo gain is learnt the threshold is strict; once learnt it stays above the echo.
    assert all(detector.feed(echo, 1.0 + i * 0.03, playing_level=played) is None for i in range(40))
    assert detector.echo_gain() == pytest.approx(0.6)
    # A click: one loud block.
    loud = np.full(480, 0.5, dtype=np.float32)
    assert detector.feed(loud, 2.0, played) is None and detector.feed(echo, 2.03, played) is None
    # Speech over it: 120 ms well above the echo; the onset is where it began.
    results = [detector.feed(loud, 3.0 + i * 0.03, played) for i in range(4)]
    assert results[:3] == [None, None, None] and results[3] == pytest.approx(2.97)
    # Nothing playing: the raised fixed threshold alone.
    quiet = BargeInDetector()
    assert all(quiet.feed(np.full(480, 0.01, dtype=np.float32), i * 0.03, 0.0) is None for i in range(10))
    assert [quiet.feed(np.full(480, 0.03, dtype=np.float32), 1 + i * 0.03, 0.0) for i in range(4)][3] is not None


def test_a_spoken_turn_is_answered_aloud_then_goodbye_ends_it(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, scripted_model: ScriptedModel,
    speaker: Path, arun: Callable[..., Any], tmp_path: Path,
) -> None:
    scripted_model.script(streamed("The capital of France is Paris. It is a large city on the river Seine."))
    user = User(talk_ctx, pulse_server, ["what is the capital of france", "goodbye"])
    conversation = Conversation(talk_ctx, assistant)
    arun(conversation.run(), timeout=90)
    assert conversation.error is None, conversation.error
    assert conversation.end_reason == "stop-word"
    assert user.names() == ["listening", "thinking", "speaking", "listening", "idle"]
    assert user.states[-1].reason == "stop-word"
    [turn] = conversation.turns
    assert "capital" in turn.transcript.lower() and "france" in turn.transcript.lower()
    assert scripted_model.requests[0]["messages"][-1]["content"] == turn.transcript
    assert turn.answer.startswith("The capital of France is Paris.")
    assert turn.spoken == ["The capital of France is Paris.", "It is a large city on the river Seine."]
    assert turn.first_token_at is not None and turn.first_audio_at is not None
    assert turn.speech_end_at < turn.transcript_at and turn.first_token_at < turn.first_audio_at
    assert turn.speech_end_at < turn.first_audio_at  # even an answer started in the pause is heard after it
    if not turn.speculative:  # an answer started on a likely end streams before the turn's end is decided
        assert turn.speech_end_at < turn.transcript_at < turn.first_token_at
    # The first sentence is spoken while the rest still streams (the whole reply takes 2.3 s to stream).
    assert turn.first_audio_at - turn.speech_end_at < 2.0, turn.as_dict()
    timings = turn.as_dict()["timings_s"]
    assert set(timings) == {"speech_end_to_transcript", "speech_end_to_first_token", "speech_end_to_first_audio",
                            "voice_end_to_first_audio"}
    assert timings["voice_end_to_first_audio"] > timings["speech_end_to_first_audio"]  # the pause came first
    time.sleep(0.3)
    heard = said_aloud(speaker, arun, tmp_path)
    # What the speaker played, heard back by tiny.en: the reply's words (Whisper may hear "Seine" as
    # "scene" or "sane").
    assert "paris" in heard or "large city" in heard, heard


def test_speaking_over_the_reply_stops_it_and_becomes_the_next_turn(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, scripted_model: ScriptedModel,
    arun: Callable[..., Any],
) -> None:
    long_answer = " ".join(f"This is sentence number {n} of a long answer about the weather." for n in range(1, 9))
    scripted_model.script(streamed(long_answer), streamed("Sure, I will summarize it."))
    user = User(talk_ctx, pulse_server, ["what is the weather like", "goodbye"])
    barged: list[float] = []

    def interrupt_while_speaking(event: Event) -> None:
        if isinstance(event, ConversationState) and event.state == "speaking" and not barged:
            barged.append(time.monotonic())
            user.say("summarize this page for me", delay_s=1.2)

    talk_ctx.bus.subscribe(interrupt_while_speaking)
    conversation = Conversation(talk_ctx, assistant)
    arun(conversation.run(), timeout=120)
    assert conversation.error is None, conversation.error
    assert len(conversation.turns) == 2, (user.states, conversation.turns)
    first, second = conversation.turns
    relative = {k: round(v - first.speech_end_at, 3) for k, v in vars(first).items() if isinstance(v, float)}
    assert first.barge_in_at is not None and first.playback_stopped_at is not None, relative
    latency = first.playback_stopped_at - first.barge_in_at
    assert first.barge_in_decided_at is not None
    breakdown = (f"decided {(first.barge_in_decided_at - first.barge_in_at) * 1000:.0f} ms after the onset, "
                 f"silent {(first.playback_stopped_at - first.barge_in_decided_at) * 1000:.0f} ms later")
    print(breakdown)
    assert latency <= 0.25, f"playback stopped {latency * 1000:.0f} ms after the user began ({breakdown})"
    assert len(first.spoken) < 3, first.spoken  # cut off: the rest of the long answer was not said
    # Nothing the user said was lost: the turn starts with the audio from the onset. Over the reply's
    # echo tiny.en sometimes mishears the words ("Someone I've listened to for me." on one CI machine),
    # so the check is on the shape: all five words are there and the first is still "s…", not "this page".
    heard = re.findall(r"[a-z']+", second.transcript.lower())
    assert "summarize this page" in second.transcript.lower() or (
        len(heard) >= 5 and heard[-2:] == ["for", "me"] and heard[0].startswith("s")), second.transcript
    assert any(s.state == "listening" and s.barge_in for s in user.states)
    assert second.spoken == ["Sure, I will summarize it."]
    assert conversation.end_reason == "stop-word"


def test_jawads_own_voice_heard_by_the_microphone_never_barges_in(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, scripted_model: ScriptedModel,
    arun: Callable[..., Any],
) -> None:
    sentences = [f"Here is sentence number {n}, spoken loudly by Jawad itself." for n in range(1, 5)]
    scripted_model.script(streamed(" ".join(sentences)))
    user = User(talk_ctx, pulse_server, ["what is the weather like", "goodbye"])
    echo: list[float] = []

    def listen_to_the_echo(block: Samples | Exception) -> None:
        if not isinstance(block, Exception) and conversation.state == "speaking":
            echo.append(rms(block))

    def on_event(event: Event) -> None:
        if isinstance(event, ConversationState) and event.state == "thinking" and conversation.microphone:
            conversation.microphone.attach(listen_to_the_echo)

    talk_ctx.bus.subscribe(on_event)
    module = pulse_server.echo_into_mic(60)  # the speakers are heard loudly by the microphone
    try:
        conversation = Conversation(talk_ctx, assistant)
        arun(conversation.run(), timeout=120)
    finally:
        pulse_server.unload(module)
    assert conversation.error is None, conversation.error
    [turn] = conversation.turns
    assert turn.barge_in_at is None
    assert " ".join(turn.spoken) == " ".join(sentences)  # all of it (the first piece is an early clause)
    # The microphone did hear the reply, louder than the fixed barge-in threshold alone:
    # the comparison with what is playing is what kept it from cutting itself off.
    assert echo and max(echo) > BargeInDetector().min_rms, max(echo, default=0)
    assert user.names().count("speaking") == 1


def test_silence_ends_the_conversation_and_stop_ends_it_at_once(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, arun: Callable[..., Any],
) -> None:
    talk_ctx.settings.voice.conversation_timeout_s = 3
    states: list[ConversationState] = []
    talk_ctx.bus.subscribe(lambda e: states.append(e) if isinstance(e, ConversationState) else None)
    conversation = Conversation(talk_ctx, assistant)
    started = time.monotonic()
    arun(conversation.run(), timeout=30)
    assert conversation.end_reason == "silence" and states[-1].state == "idle"
    assert time.monotonic() - started < 10

    async def stop_soon() -> tuple[float, float]:
        task = conversation.start()
        while conversation.state != "listening":
            await asyncio.sleep(0.02)
        asked = time.monotonic()
        conversation.stop()
        while conversation.state != "idle":
            await asyncio.sleep(0.005)
        idle = time.monotonic() - asked
        await task
        return idle, time.monotonic() - asked

    idle_after, ended_after = arun(stop_soon(), timeout=30)
    assert idle_after < 0.3 and ended_after < 5, (idle_after, ended_after)
    assert conversation.end_reason == "stopped" and states[-1] == ConversationState(state="idle", reason="stopped")


def test_the_sound_servers_echo_canceller_takes_the_reply_out_of_the_microphone(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, scripted_model: ScriptedModel,
    arun: Callable[..., Any],
) -> None:
    sentences = [f"Here is sentence number {n}, spoken loudly by Jawad itself." for n in range(1, 4)]
    echo_levels: dict[bool, list[float]] = {False: [], True: []}
    volume_before = _mic_volume(pulse_server)
    module = pulse_server.echo_into_mic(60)
    try:
        for cancel in (False, True):
            talk_ctx.settings.voice.echo_cancel = cancel
            scripted_model.script(streamed(" ".join(sentences)))
            User(talk_ctx, pulse_server, ["what is the weather like", "goodbye"])
            conversation = Conversation(talk_ctx, assistant)
            levels = echo_levels[cancel]

            def on_block(block: Samples | Exception, levels: list[float] = levels,
                         conversation: Conversation = conversation) -> None:
                if not isinstance(block, Exception) and conversation.state == "speaking":
                    levels.append(rms(block))

            def attach(event: Event, conversation: Conversation = conversation,
                       on_block: Callable[..., None] = on_block) -> None:
                if isinstance(event, ConversationState) and event.state == "thinking" and conversation.microphone:
                    conversation.microphone.attach(on_block)

            unsubscribe = talk_ctx.bus.subscribe(attach)
            arun(conversation.run(), timeout=120)
            unsubscribe()
            assert conversation.error is None, conversation.error
            assert conversation.echo_cancelled is cancel
            [turn] = conversation.turns
            assert turn.barge_in_at is None and " ".join(turn.spoken) == " ".join(sentences)
    finally:
        pulse_server.unload(module)
    plain, cancelled = (float(np.percentile(echo_levels[c], 90)) for c in (False, True))
    assert plain > BargeInDetector().min_rms, plain  # the reply was loud in the microphone
    print(f"echo in the microphone (90th percentile RMS): {plain:.4f} plain, {cancelled:.4f} cancelled")
    assert cancelled < plain / 4, (plain, cancelled)  # and mostly taken out by the canceller
    assert "module-echo-cancel" not in pulse_server.pactl("list", "short", "modules")  # unloaded afterwards
    assert _mic_volume(pulse_server) == volume_before  # the user's microphone volume was left alone


def _mic_volume(pulse: PulseServer) -> str:
    source = pulse.pactl("list", "sources").split("Name: virt.monitor", 1)[1]
    return source.split("Volume:", 1)[1].splitlines()[0]


def test_a_tool_the_agent_starts_is_announced_briefly(
    pulse_server: PulseServer, talk_ctx: AppContext, assistant: Assistant, scripted_model: ScriptedModel,
    arun: Callable[..., Any],
) -> None:
    from tests.servers.scripted_model import call

    talk_ctx.settings.voice.announce_tools = True
    # Answered by the conversation itself: an answer started on a likely end and dropped when it reached
    # the tool asks the model again, and a model asked again calls the tool again.
    scripted_model.answer_with(lambda body: streamed("It is forty-two.") if body["messages"][-1]["role"] == "tool"
                               else call("calculate", {"expression": "6*7"}))
    User(talk_ctx, pulse_server, ["what is six times seven"])
    conversation = Conversation(talk_ctx, assistant, once=True)
    arun(conversation.run(), timeout=90)
    assert conversation.error is None and conversation.end_reason == "once"
    [turn] = conversation.turns
    assert turn.spoken == ["Calculating 6*7.", "It is forty-two."]
