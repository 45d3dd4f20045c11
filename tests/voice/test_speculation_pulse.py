"""Conversation mode's speculative answer on real recorded speech (``clips/NOTICE``) played into the
private PulseAudio's microphone, through the app's capture, the voice activity model, tiny.en, the
Assistant on the loopback scripted model and espeak-ng: an answer started on a pause after a
finished sentence is dropped when the speaker goes on (never heard, never saved), and a pause
mid-sentence does not cut the speaker off. The joined clips are labelled where they are made."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ConversationState, Event
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.voice import VoiceSession, read_audio, write_wav
from jawad_desktop.core.voice.audio import SAMPLE_RATE
from jawad_desktop.core.voice.conversation import Conversation
from jawad_desktop.core.voice.microphone import OpenMicrophone
from tests.fixtures.pulseaudio import SPOKEN_IN_REAL_TIME, PulseServer
from tests.servers.scripted_model import ScriptedModel, text

pytestmark = SPOKEN_IN_REAL_TIME

CLIPS = Path(__file__).parent / "clips"
AFTER_TO = int(4.2 * SAMPLE_RATE)  # quilter.flac: "...and we are glad to" ends at 4.16 s, "welcome" at 4.26 s


def room_tone(audio: np.ndarray, seconds: float) -> np.ndarray:
    """The clip's own quiet start, repeated: a pause that sounds like the room it was recorded in."""
    return np.tile(audio[: int(0.4 * SAMPLE_RATE)], int(seconds / 0.4) + 1)[: int(seconds * SAMPLE_RATE)]


class Speaker:
    """Plays the clip when Jawad first listens, "goodbye" when it listens again."""

    def __init__(self, ctx: AppContext, pulse: PulseServer, clip: Path) -> None:
        self.pulse, self.lines = pulse, [clip, pulse.speech_wav("goodbye")]
        self.states: list[str] = []
        ctx.bus.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        if isinstance(event, ConversationState):
            self.states.append(event.state)
            if event.state == "listening" and not event.barge_in and self.lines:
                self.pulse.play(self.lines.pop(0), delay_s=0.2)


def converse(ctx: AppContext, scripted_model: ScriptedModel, pulse: PulseServer, clip: Path,
             arun: Callable[..., Any], *, finished_wait_s: float | None = None,
             ) -> tuple[Conversation, Assistant, list[str]]:
    """One conversation through to "goodbye"; also what the store saved of it (read before it closes)."""
    voice = ctx.settings.voice
    voice.partial_results = False
    voice.tts_backend = "espeak"
    voice.conversation_timeout_s = 10
    voice.echo_cancel = False

    def session(microphone: OpenMicrophone) -> VoiceSession:
        if finished_wait_s is None:
            return VoiceSession(ctx, microphone=microphone)
        # A raised finished wait is the words' alone: the end-of-turn model would end the turn sooner.
        made = VoiceSession(ctx, microphone=microphone, turn_model=None)
        made.finished_wait_s = finished_wait_s
        return made

    assistant = Assistant(ctx, client=LLMClient(scripted_model.provider()))  # saving on
    conversation = Conversation(ctx, assistant, session_factory=session)
    Speaker(ctx, pulse, clip)
    stored: list[str] = []
    try:
        arun(conversation.run(), timeout=150)
        if assistant.store is not None and assistant.recorder is not None and assistant.recorder.conversation_id:
            stored = [m.message.content for m in assistant.store.messages(assistant.recorder.conversation_id)]
    finally:
        arun(assistant.aclose())
    assert conversation.error is None, conversation.error
    return conversation, assistant, stored


def test_an_answer_started_in_a_pause_is_dropped_when_the_speaker_goes_on(
    pulse_server: PulseServer, voice_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any],
    tmp_path: Path,
) -> None:
    # Joined, not recorded so: the LibriSpeech sentence (a finished one), 4 s of its room tone, then
    # JFK's "And so my fellow Americans...". The finished-sentence wait is raised above the pause so
    # the answer started in it is surely dropped: the speaker goes on before the turn may end.
    quilter, jfk = read_audio(CLIPS / "quilter.flac"), read_audio(CLIPS / "jfk.flac")
    joined = write_wav(tmp_path / "quilter-pause-jfk.wav", np.concatenate([quilter, room_tone(quilter, 4.0), jfk]))
    voice_ctx.settings.voice.silence_stop_s = 6.0
    # How many answers are started in pauses depends on how fast the pauses are transcribed: every
    # request gets the same reply, and only one may be heard (a dropped answer that played would be a
    # second entry of ``spoken``).
    scripted_model.script(*(text("Here is my answer to all of it.", chunk_size=4, chunk_delay_s=0.03)
                            for _ in range(6)))
    conversation, assistant, stored = converse(voice_ctx, scripted_model, pulse_server, joined, arun,
                                               finished_wait_s=5.5)
    assert conversation.speculations_dropped >= 1, "no answer was started in the pause"
    [turn] = conversation.turns
    said = turn.transcript.lower()
    assert "gospel" in said and "country" in said, said  # one turn: the speaker was not cut off
    assert turn.spoken == ["Here is my answer to all of it."]  # the dropped answer was never heard
    assert conversation.end_reason == "stop-word"
    assert scripted_model.requests[-1]["messages"][-1]["content"] == turn.transcript
    # Nothing of the dropped answer was kept or saved.
    assert [m.content for m in assistant.session.history.messages] == [turn.transcript, turn.answer]
    assert stored == [turn.transcript, "Here is my answer to all of it."]


def test_a_pause_mid_sentence_does_not_cut_the_speaker_off_with_speculative_answers(
    pulse_server: PulseServer, voice_ctx: AppContext, scripted_model: ScriptedModel, arun: Callable[..., Any],
    tmp_path: Path,
) -> None:
    # Joined, not recorded so: the LibriSpeech sentence with 1.0 s of its room tone after "...glad to"
    # (the benchmark's clip), at the default waits (0.5 s after a finished sentence, 1.5 s at most).
    quilter = read_audio(CLIPS / "quilter.flac")
    joined = write_wav(tmp_path / "quilter-joined-pause.wav",
                       np.concatenate([quilter[:AFTER_TO], room_tone(quilter, 1.0), quilter[AFTER_TO:]]))
    voice_ctx.settings.voice.silence_stop_s = 1.5
    scripted_model.script(text("Okay. I have done that for you.", chunk_size=4, chunk_delay_s=0.03),
                          text("Okay. I have done that for you.", chunk_size=4, chunk_delay_s=0.03))
    conversation, _, _ = converse(voice_ctx, scripted_model, pulse_server, joined, arun)
    [turn] = conversation.turns
    said = turn.transcript.lower()
    assert "glad" in said and "gospel" in said, said
    assert turn.spoken and turn.first_audio_at is not None
