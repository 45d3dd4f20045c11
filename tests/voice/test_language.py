"""The language a transcript is in: given by the settings, fixed by an English-only model, or
detected by a multilingual one (the real multilingual Whisper base, from the two PyPI packages
that ship it, placed where the app keeps a downloaded model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import VoiceState
from jawad_desktop.core.voice import LocalWhisper, read_audio
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.models import is_multilingual


def speech(tmp_path: Path, text: str, voice: str) -> Path:
    raw, wav = tmp_path / f"{voice}.raw.wav", tmp_path / f"{voice}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", str(wav), "pad", "0.3", "0.2"], check=True)
    return wav


def test_an_english_only_model_hears_english_and_refuses_another_language(
    tmp_path: Path, arun: Callable[..., Any]
) -> None:
    assert is_multilingual("base") and is_multilingual("distil-large-v3") and not is_multilingual("small.en")
    model = LocalWhisper("tiny.en", cache_dir=tmp_path, language="", beam_size=2)
    arun(model.prepare(), timeout=60)
    assert not model.multilingual  # read from the loaded model, not from its name
    english = arun(model.transcribe(read_audio(speech(tmp_path, "open the calendar", "en-us"))), timeout=60)
    assert "calendar" in english.text.lower()
    assert english.language == "en" and english.language_probability == 1.0
    # Set to Spanish, it says so before anything is recorded, instead of hearing Spanish as English words.
    spanish = LocalWhisper("tiny.en", cache_dir=tmp_path, language="es", beam_size=2)
    with pytest.raises(VoiceError) as refused:
        arun(spanish.prepare(), timeout=60)
    error = refused.value
    assert error.code == "LANGUAGE_NOT_IN_MODEL"
    assert error.message == ("The speech model 'tiny.en' understands English only, and the voice language is set "
                             "to Spanish.")
    assert "Choose the model 'base'" in error.suggestions[0] and "English or Automatic" in error.suggestions[1]
    assert error.remedy is not None and error.remedy.place == "voice"
    with pytest.raises(VoiceError, match="understands English only"):
        arun(spanish.transcribe(read_audio(speech(tmp_path, "abre el calendario", "es"))), timeout=60)


def test_the_language_option_of_the_voice_commands(tmp_path: Path, profile_dir: Path) -> None:
    """``--language`` is the same option on transcribe, listen and talk: a code, or auto to detect."""
    import argparse

    from jawad_desktop.cli import build_parser
    from jawad_desktop.cli.voice_options import apply_language

    parser = build_parser()
    ctx = AppContext.open(profile_dir)
    for command in (["listen"], ["talk"], ["transcribe", "x.wav"]):
        args = parser.parse_args([*command, "--language", "DE"])
        apply_language(args, ctx)
        assert ctx.settings.voice.language == "de", command
        apply_language(parser.parse_args([*command, "--language", "auto"]), ctx)
        assert ctx.settings.voice.language == "", command
    ctx.settings.voice.language = "fr"
    apply_language(argparse.Namespace(language=None), ctx)
    assert ctx.settings.voice.language == "fr", "without the option the settings' language stays"
    # The English-only model asked for German by the option: the message and what to do, exit 1.
    wav = speech(tmp_path, "guten Morgen", "de")
    done = subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "transcribe", str(wav),
         "--language", "de"], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "understands English only" in done.stderr and "base" in done.stderr, done.stderr


def test_settings_page_says_an_english_only_model_cannot_hear_the_language(voice_ctx: AppContext,
                                                                           qtbot: Any) -> None:
    from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    page.model.setCurrentText("tiny.en")
    assert page.model_status.text().startswith("Ready")
    assert page.language.findData("ko") >= 0 and page.language.itemText(0) == "Automatic"
    page.language.setCurrentIndex(page.language.findData("de"))
    assert voice_ctx.settings.voice.language == "de"
    assert page.model_status.text().startswith("The speech model 'tiny.en' understands English only, and the voice "
                                               "language is set to German. Choose the model 'base'")
    page.language.setCurrentIndex(page.language.findData(""))
    assert page.model_status.text().startswith("Ready")


@pytest.mark.slow
def test_cli_json_reports_the_language(tmp_path: Path, profile_dir: Path) -> None:
    wav = speech(tmp_path, "water the plants", "en-us")
    done = subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "transcribe", str(wav), "--json",
         "--beam-size", "5"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["language"] == "en" and data["language_probability"] == 1.0 and data["text"]


def test_the_result_event_carries_the_language(voice_ctx: AppContext, tmp_path: Path,
                                               arun: Callable[..., Any]) -> None:
    from jawad_desktop.core.voice import VoiceSession

    events: list[VoiceState] = []
    voice_ctx.bus.subscribe(lambda e: events.append(e) if isinstance(e, VoiceState) else None)
    session = VoiceSession(voice_ctx)
    session.pending_audio = speech(tmp_path, "open the calendar", "en-us")  # a kept recording, transcribed again
    result = arun(session.retry(), timeout=60)
    assert result is not None and "calendar" in result.text.lower()
    final = [e for e in events if e.state == "result"]
    assert final and final[-1].language == "en"


@pytest.fixture(scope="module")
def multilingual_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding the multilingual Whisper ``base`` model where the app keeps a downloaded one
    (``models.model_folder``), made from the two PyPI packages that ship it (its model.bin split in two)."""
    from jawad_desktop.core.voice.models import model_folder
    from tests.voice.whisper_base import write_base_model

    cache = tmp_path_factory.mktemp("whisper-cache")
    write_base_model(model_folder("base", cache))
    return cache


def test_a_multilingual_model_detects_the_language_spoken(multilingual_cache: Path, tmp_path: Path,
                                                         arun: Callable[..., Any]) -> None:
    model = LocalWhisper("base", cache_dir=multilingual_cache, language="", beam_size=2)
    arun(model.prepare(), timeout=120)
    assert model.multilingual
    english = arun(model.transcribe(read_audio(speech(tmp_path, "open the calendar for tomorrow", "en-us"))),
                   timeout=120)
    # espeak-ng's voices are hard on the detector: a short Spanish phrase comes out as Thai, a long
    # sentence is recognised (0.96).
    spanish = arun(model.transcribe(read_audio(speech(
        tmp_path, "Buenos días. Quiero reservar una mesa para dos personas esta noche en el restaurante.", "es"))),
        timeout=120)
    assert (english.language, spanish.language) == ("en", "es"), (english, spanish)
    assert "calendar" in english.text.lower() and "restaurante" in spanish.text.lower()
    assert spanish.language_probability > 0.8


def test_the_mic_button_shows_the_language_it_heard(voice_ctx: AppContext, qtbot: Any) -> None:
    from tests.voice.test_widgets import make_button

    button = make_button(voice_ctx, qtbot)
    with qtbot.waitSignal(button.transcript_ready):
        voice_ctx.bus.emit(VoiceState(state="result", transcript="Guten Morgen", is_final=True, language="de"))
    assert button.toolTip().endswith("Last time Jawad heard German."), button.toolTip()
    voice_ctx.settings.voice.language = "fr"  # set, not detected: nothing to tell
    with qtbot.waitSignal(button.transcript_ready):
        voice_ctx.bus.emit(VoiceState(state="result", transcript="Bonjour", is_final=True, language="fr"))
    assert "Last time" not in button.toolTip()


@pytest.mark.slow  # 8-10 s in CI: first, not at the end of a parallel run (tests/fixtures/workers.py)
def test_real_speech_in_other_languages_is_detected_or_heard_in_the_language_given(
    multilingual_cache: Path, arun: Callable[..., Any]
) -> None:
    """Public recordings nobody here made (Picovoice Leopard's test clips, tests/voice/clips/languages)."""
    clips = Path(__file__).parent / "clips" / "languages"
    listed = {c["language"]: c for c in json.loads((clips / "languages.json").read_text(encoding="utf-8"))["clips"]}
    detecting = LocalWhisper("base", cache_dir=multilingual_cache, language="", beam_size=2)
    for language, word in (("de", "portal"), ("fr", "consulat"), ("pt", "raposa")):
        heard = arun(detecting.transcribe(read_audio(clips / listed[language]["file"])), timeout=120)
        assert heard.language == language and heard.language_probability > 0.9, heard
        assert word in heard.text.lower().replace(" ", ""), heard
    given = LocalWhisper("base", cache_dir=multilingual_cache, language="ja", beam_size=2)
    japanese = arun(given.transcribe(read_audio(clips / listed["ja"]["file"])), timeout=120)
    assert japanese.language == "ja" and japanese.language_probability == 1.0 and "判断的知識" in japanese.text


@pytest.mark.slow
def test_listen_hears_german_through_the_microphone_and_says_it_detected_it(
    pulse_server: Any, profile_dir: Path
) -> None:
    """``jawad listen --language auto`` with the multilingual model, a real German recording (Picovoice's
    public clip) played into the microphone of a private PulseAudio server."""
    from jawad_desktop.core.voice import write_wav
    from jawad_desktop.core.voice.models import model_folder
    from tests.voice.whisper_base import write_base_model

    ctx = AppContext.open(profile_dir)
    write_base_model(model_folder("base", ctx.paths.cache))
    ctx.settings.voice.model_size, ctx.settings.voice.language = "base", "fr"  # --language auto overrides it
    ctx.save_settings()
    clip = write_wav(Path(pulse_server.root) / "de.wav",
                     read_audio(Path(__file__).parent / "clips" / "languages" / "de.flac"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "listen", "--language", "auto",
         "--max-seconds", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "Listening" in line, line + proc.stderr.read()
    player = pulse_server.play(clip)
    out, err = proc.communicate(timeout=90)
    player.wait(timeout=5)
    assert proc.returncode == 0, err
    assert "raum" in out.lower() and "genutzt" in out.lower(), out
    assert "Heard German (detected)." in err, err
