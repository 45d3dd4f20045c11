"""``jawad talk`` run as the user runs it: a real process on the private PulseAudio, the
loopback model streaming at 30 tokens a second, the answer spoken to the speaker sink."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures.pulseaudio import PulseServer
from tests.servers.scripted_model import ScriptedModel
from tests.voice.test_conversation_pulse import streamed

pytestmark = pytest.mark.slow


def talk(profile: Path, model: ScriptedModel, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "talk", "--kind", "openai-compatible",
         "--base-url", model.base_url, "--model", "scripted", "--tts", "espeak", "--no-save", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or dict(os.environ),
    )


def wait_for_listening(proc: subprocess.Popen[str]) -> None:
    """Read stderr up to the "Listening" line (ALSA may say something about the stream first: on a
    loaded machine, many lines of it)."""
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen.append(line)
        if "Listening" in line or not line:
            break
    if "Listening" not in seen[-1]:
        rest = proc.stderr.read()
        raise AssertionError(f"jawad talk did not start listening (exit code {proc.wait(timeout=30)}):\n"
                             + "".join(seen) + rest)


def test_talk_once_json(pulse_server: PulseServer, profile_dir: Path, scripted_model: ScriptedModel,
                        tmp_path: Path) -> None:
    scripted_model.script(streamed("The capital of France is Paris. It is on the Seine."))
    raw = tmp_path / "speaker.raw"
    recorder = pulse_server.record_speaker(raw)
    proc = talk(profile_dir, scripted_model, "--once", "--json")
    wait_for_listening(proc)
    player = pulse_server.play(pulse_server.speech_wav("what is the capital of france"), delay_s=0.3)
    out, err = proc.communicate(timeout=90)
    player.wait(timeout=5)
    time.sleep(0.3)
    recorder.terminate()
    recorder.wait(5)
    assert proc.returncode == 0, err
    [turn] = [json.loads(line) for line in out.splitlines()]
    assert "capital" in turn["transcript"].lower()
    assert turn["answer"] == "The capital of France is Paris. It is on the Seine."
    timings = turn["timings_s"]
    assert timings["speech_end_to_transcript"] > 0
    # An answer started in the pause is heard after the turn's end all the same.
    assert 0 < timings["speech_end_to_first_audio"] < 5
    assert timings["speech_end_to_first_token"] < timings["speech_end_to_first_audio"]
    if not turn.get("speculative"):  # that answer's first token may come before the turn's end is decided
        assert timings["speech_end_to_transcript"] < timings["speech_end_to_first_token"]
    assert "Thinking" in err and "Speaking" in err and "Traceback" not in err
    pcm = np.frombuffer(raw.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    frames = pcm[: pcm.size - pcm.size % 480].reshape(-1, 480)
    assert (np.sqrt((frames**2).mean(axis=1)) > 0.01).sum() * 0.02 > 1.5, "the answer was not heard on the speaker"


def test_talk_without_a_microphone(profile_dir: Path, scripted_model: ScriptedModel, tmp_path: Path) -> None:
    env = dict(os.environ, PULSE_SERVER=f"unix:{tmp_path / 'none.sock'}")
    proc = talk(profile_dir, scripted_model, "--once", env=env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert "No microphone was found" in err and "Plug in a microphone" in err
    assert out == ""


def test_talk_once_prints_the_exchange(pulse_server: PulseServer, profile_dir: Path,
                                       scripted_model: ScriptedModel) -> None:
    scripted_model.script(streamed("Paris is the capital. Anything else?"))
    proc = talk(profile_dir, scripted_model, "--once")
    wait_for_listening(proc)
    pulse_server.play(pulse_server.speech_wav("what is the capital of france"), delay_s=0.3)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    you, jawad = out.strip().splitlines()
    assert you.startswith("You: ") and "capital" in you.lower()
    assert jawad == "Jawad: Paris is the capital. Anything else?"
