"""Failures the user is told about: no microphone, a missing model, unreadable files, PortAudio errors."""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sounddevice as sd

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import VoiceState
from jawad_desktop.core.voice import (
    LocalWhisper,
    VoiceError,
    VoiceSession,
    list_input_devices,
    read_audio,
    reinitialize_portaudio,
    resolve_model,
)
from jawad_desktop.core.voice.capture import resolve_device
from jawad_desktop.core.voice.errors import from_portaudio
from tests.fixtures.pulseaudio import PulseServer


@pytest.fixture
def no_sound_server(pulse_server: PulseServer, tmp_path: Path) -> Iterator[None]:
    """PortAudio with no reachable sound server (as on a machine without any), then back to ours."""
    saved = os.environ["PULSE_SERVER"]
    os.environ["PULSE_SERVER"] = f"unix:{tmp_path / 'nobody-listens.sock'}"
    reinitialize_portaudio()
    try:
        yield
    finally:
        os.environ["PULSE_SERVER"] = saved
        reinitialize_portaudio()


def test_no_input_device(no_sound_server: None, voice_ctx: AppContext, voice_events: list[VoiceState],
                         arun: Callable[..., Any]) -> None:
    assert list_input_devices() == []
    with pytest.raises(VoiceError) as caught:
        resolve_device("")
    assert caught.value.code == "NO_INPUT_DEVICE" and "No microphone was found" in caught.value.message
    assert arun(VoiceSession(voice_ctx).listen()) is None
    assert [e.state for e in voice_events] == ["error", "end"]
    assert "No microphone was found" in voice_events[0].error and "Plug in" in voice_events[0].error


def test_unknown_device_name(pulse_server: PulseServer) -> None:
    with pytest.raises(VoiceError) as caught:
        resolve_device("USB Headset 3000")
    assert caught.value.code == "NO_INPUT_DEVICE" and "'USB Headset 3000'" in caught.value.message
    assert resolve_device("PULSE").name == "pulse"  # a part of the name, any case, is enough


def test_portaudio_errors_are_translated() -> None:
    busy = from_portaudio(sd.PortAudioError("Device unavailable", -9985), "USB mic")
    assert busy.code == "DEVICE_BUSY" and "another program" in busy.message
    denied = from_portaudio(sd.PortAudioError("Unanticipated host error", -9999, (-1, -errno.EACCES, "")))
    assert denied.code == "PERMISSION_DENIED" and "privacy settings" in denied.user_text()
    missing = from_portaudio(sd.PortAudioError("Error querying device -1"))
    assert missing.code == "NO_INPUT_DEVICE"
    other = from_portaudio(sd.PortAudioError("Internal PortAudio error", -9986))
    assert other.code == "AUDIO_DEVICE_FAILED" and "Internal PortAudio error" in other.message


def test_model_not_downloaded_says_how_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(VoiceError) as caught:
        resolve_model("base", tmp_path)
    assert caught.value.code == "MODEL_NOT_DOWNLOADED"
    assert "Download it" in caught.value.user_text() and "'tiny.en'" in caught.value.user_text()
    assert caught.value.remedy is not None and caught.value.remedy.place == "voice"


def test_model_download_offline_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    progress: list[tuple[int, int]] = []
    with pytest.raises(VoiceError) as caught:
        resolve_model("base", tmp_path, download=True, progress=lambda a, b: progress.append((a, b)),
                      endpoint=f"http://127.0.0.1:{port}")
    assert caught.value.code == "MODEL_MISSING_OFFLINE"
    assert "offline" in caught.value.message and "Connect to the internet" in caught.value.user_text()


def test_unknown_model_name(tmp_path: Path) -> None:
    with pytest.raises(VoiceError) as caught:
        resolve_model("gigantic", tmp_path)
    assert "tiny.en" in caught.value.user_text()


def test_missing_model_is_reported_before_the_user_speaks(
    pulse_server: PulseServer, voice_ctx: AppContext, voice_events: list[VoiceState], arun: Callable[..., Any]
) -> None:
    voice_ctx.settings.voice.model_size = "base"
    session = VoiceSession(voice_ctx)
    with pytest.raises(VoiceError) as caught:
        arun(session.warm_up())
    assert caught.value.code == "MODEL_NOT_DOWNLOADED"
    assert arun(session.listen(), timeout=20) is None
    assert [e.state for e in voice_events] == ["error", "end"], "the mic went live for a model that is missing"
    assert "'base' is not on this computer" in voice_events[0].error
    assert "Download it" in voice_events[0].error and voice_events[0].remedy == {"place": "voice", "provider": ""}


def test_bundled_model_loads_once(voice_ctx: AppContext, arun: Callable[..., Any]) -> None:
    a = LocalWhisper("tiny.en", cache_dir=voice_ctx.paths.cache)
    b = LocalWhisper("tiny.en", cache_dir=voice_ctx.paths.cache)
    arun(a.prepare())
    arun(b.prepare())
    assert a._engine is b._engine and a.load_s > 0


def test_unreadable_audio_file(tmp_path: Path) -> None:
    bad = tmp_path / "notes.wav"
    bad.write_text("this is not audio")
    with pytest.raises(VoiceError) as caught:
        read_audio(bad)
    assert caught.value.code == "BAD_AUDIO_FILE" and "notes.wav" in caught.value.message
    with pytest.raises(VoiceError) as caught:
        read_audio(tmp_path / "missing.wav")
    assert "does not exist" in caught.value.message


def test_alsa_lib_complaints_go_to_the_log_not_the_terminal() -> None:
    # alsa-lib prints "ALSA lib pcm.c:...: underrun occurred" to stderr by itself; once the app has
    # loaded sounddevice, its messages go to the log instead (a busy `jawad talk` printed dozens).
    import subprocess
    import sys

    probe = ("import ctypes\nfrom jawad_desktop.core.voice.capture import sounddevice_module\n"
             "{load}\npcm = ctypes.c_void_p()\n"
             "ctypes.CDLL('libasound.so.2').snd_pcm_open(ctypes.byref(pcm), b'no_such_device_jawad', 0, 0)\n")
    raw = subprocess.run([sys.executable, "-c", probe.format(load="")], capture_output=True, text=True, timeout=60)
    quiet = subprocess.run([sys.executable, "-c", probe.format(load="sounddevice_module()")],
                           capture_output=True, text=True, timeout=60)
    assert "ALSA lib" in raw.stderr and "no_such_device_jawad" in raw.stderr
    assert "ALSA lib" not in quiet.stderr and quiet.returncode == 0, quiet.stderr
