"""The wake word in the window, on real components: the private PulseAudio, the VAD and tiny.en,
the real main window offscreen with a scripted model. Turned on in Settings → Voice, the tray
shows the open microphone; "Hey Jawad" said while the window is hidden shows it and starts a
turn through the push-to-talk path, whose words reach the chat; turned off, the microphone closes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox

from jawad_desktop import APP_NAME
from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.chat.voice_button import VoiceButton
from jawad_desktop.ui.desktop.tray import LISTENING_TIP, TrayMenu
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.window.main_window import MainWindow
from tests.fixtures.pulseaudio import PulseServer
from tests.servers.scripted_model import ScriptedModel, text

pytestmark = pytest.mark.slow


def test_hey_jawad_from_the_tray_starts_a_turn(
    pulse_server: PulseServer, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any,
) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.voice.partial_results = False
    ctx.settings.voice.silence_stop_s = 0.8
    ctx.settings.voice.auto_send = True
    ctx.save_settings()
    scripted_model.script(text("It is noon."))
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.desktop is not None, timeout=10_000)
    shell = window.desktop
    assert shell is not None
    tray: TrayMenu = shell.tray
    mic = window.voice_button
    assert isinstance(mic, VoiceButton)
    assert not shell.wake.listening and not tray.listening and tray.tooltip == APP_NAME  # off by default

    dialog = SettingsDialog(window.ctx, window)
    dialog.add_window_pages(None, window.bridge, shell)
    checkbox = next(box for box in dialog.findChildren(QCheckBox) if "Hey Jawad" in box.text())
    assert not checkbox.isChecked()
    checkbox.setChecked(True)  # Settings → Voice saves at once and tells the shell
    assert window.ctx.settings.voice.wake_word
    qtbot.waitUntil(lambda: tray.listening, timeout=30_000)
    assert tray.tooltip == LISTENING_TIP and "microphone is on" in tray.tooltip

    window.hide()  # to the tray
    qtbot.wait(2500)  # a PulseAudio input delivers sound about 2 s after it opens
    heard: list[str] = []
    shell.wake.woke.connect(heard.append)
    pulse_server.play(pulse_server.speech_wav("Hey Jawad")).wait(15)
    qtbot.waitUntil(lambda: bool(heard), timeout=20_000)
    assert window.isVisible()  # shown, where the live transcript is
    qtbot.waitUntil(lambda: mic.state == "listening", timeout=15_000)  # the push-to-talk path's turn
    assert not tray.listening  # the turn has the microphone
    pulse_server.play(pulse_server.speech_wav("what time is it")).wait(15)
    qtbot.waitUntil(lambda: any(item.role == "assistant" and item.text.startswith("It is noon")
                                for item in window.chat.view.chat_model.items()), timeout=40_000)
    user = [item.text.lower() for item in window.chat.view.chat_model.items() if item.role == "user"]
    assert user and "time" in user[-1], user
    qtbot.waitUntil(lambda: tray.listening, timeout=30_000)  # listening again after the turn

    checkbox.setChecked(False)
    qtbot.waitUntil(lambda: not tray.listening, timeout=10_000)
    assert tray.tooltip == APP_NAME and not shell.wake.listening
    dialog.close()
