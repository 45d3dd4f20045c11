"""The packaged app has the dev install's voice features (issue 33, point 5), shown from the tar.gz
unpacked elsewhere with its voice pack installed: the wake word ("Hey Jawad", Silero VAD and tiny.en
from the pack), the end-of-turn model (Smart Turn, carried by the pack and checked against its pin)
and the voice language (an English-only model says it cannot hear German; the multilingual ``base``
hears it and says so, and a German reply is read by espeak-ng, the bundle's voice for other languages).

The bundle is built by ``packaging/build`` unless the last build is still fresh (the ``built``
fixture of tests/packaging/conftest.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop import __version__
from tests.packaging.conftest import BUILD_TIMEOUT_S

# One worker builds the bundle and runs these (tests/fixtures/workers.py), as tests/packaging/test_bundle.py.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT_S + 600), pytest.mark.xdist_group("bundle")]

APP_ID = "jawad-desktop"
CLIPS = Path(__file__).resolve().parent.parent / "voice" / "clips"
TURN_MODEL = "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx"  # turns_model.PACK_FILE


@dataclass
class Packaged:
    """The unpacked bundle and a profile with its voice pack installed."""

    bundle: Path
    profile: Path
    home: Path

    def run(self, args: list[str], cwd: Path, *, profile: Path | None = None, timeout: float = 180,
            env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """The bundle run with a clean environment (``env -i`` plus a home, a headless screen and ``env``)."""
        clean = {"HOME": str(self.home), "QT_QPA_PLATFORM": "offscreen", **(env or {})}
        return subprocess.run([str(self.bundle / APP_ID), "--profile", str(profile or self.profile), *args],
                              cwd=cwd, env=clean, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def packaged(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Packaged]:
    where = tmp_path_factory.mktemp("voice-parity")
    subprocess.run(["tar", "-xzf", built.tar_gz, "-C", str(where)], check=True)
    home = where / "home"
    home.mkdir()
    app = Packaged(where / f"{APP_ID}-{built.version}", where / "profile", home)
    installed = app.run(["voice-pack", "install", built.pack_tar_gz], where, timeout=600)
    assert installed.returncode == 0, installed.stderr[-4000:]
    yield app
    shutil.rmtree(where, ignore_errors=True)


def test_the_voice_pack_carries_the_pinned_end_of_turn_model(built: Any) -> None:
    from jawad_desktop.core.store.pins import pin_for

    pin = pin_for("turn:smart-turn-v3.2")
    assert pin is not None
    model = Path(built.pack_dir) / TURN_MODEL
    assert model.is_file(), "the end-of-turn model is not in the voice pack"
    assert hashlib.sha256(model.read_bytes()).hexdigest() == pin.sha256("smart-turn-v3.2-cpu.onnx")
    assert not (Path(built.bundle_dir) / "_internal" / TURN_MODEL).exists(), "it belongs to the pack, not the bundle"


def test_the_packaged_app_hears_the_wake_word_with_its_voice_pack(packaged: Packaged, tmp_path: Path) -> None:
    """``jawad wake FILE`` as in a source install (tests/voice/test_wake.py): heard in "Hey Jawad, what
    time is it?", not in real speech without it; without the pack it says what to install."""
    wav = tmp_path / "wake.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), "Hey Jawad, what time is it?"], check=True)
    without = packaged.run(["wake", str(wav)], tmp_path, profile=tmp_path / "no-pack")
    assert without.returncode != 0 and "Offline speech is not installed" in without.stderr, without.stderr[-3000:]
    assert "jawad voice-pack install" in without.stderr and "Traceback" not in without.stderr
    heard = packaged.run(["wake", str(wav), "--json"], tmp_path)
    assert heard.returncode == 0, heard.stderr[-4000:]
    hits = json.loads(heard.stdout)["hits"]
    assert hits and "jawad" in hits[0]["text"].lower(), heard.stdout
    quiet = packaged.run(["wake", str(CLIPS / "jfk.flac")], tmp_path)
    assert quiet.returncode == 1 and "the wake word was not heard" in quiet.stderr, quiet.stderr[-3000:]
    assert "Traceback" not in quiet.stderr


def test_the_packaged_app_loads_the_end_of_turn_model_from_its_pack_after_checking_its_pin(
    packaged: Packaged, secret_service: dict[str, str], tmp_path: Path
) -> None:
    """The self-test's ``turn_model`` check: the pack's copy, loaded; a copy that is not the pinned file
    is refused with what happened (the end of a turn then falls back to its words)."""
    done = packaged.run(["--self-test"], tmp_path, env=secret_service)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"], done.stdout + done.stderr[-3000:]
    turn = report["checks"]["turn_model"]
    installed = packaged.profile.resolve() / "data" / "voice-pack" / __version__ / TURN_MODEL
    assert turn["loaded"] is True and turn["path"] == str(installed), turn

    # The same pack with the model file replaced (hard links: the fixture's pack stays whole).
    tampered = tmp_path / "tampered"
    subprocess.run(["cp", "-al", str(packaged.profile), str(tampered)], check=True)
    model = tampered / "data" / "voice-pack" / __version__ / TURN_MODEL
    data = bytearray(model.read_bytes())
    model.unlink()
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    done = packaged.run(["--self-test"], tmp_path, profile=tampered, env=secret_service)
    turn = json.loads(done.stdout)["checks"]["turn_model"]
    assert turn["ok"] is False and "is not the file Jawad trusts" in turn["detail"], turn
    assert "Traceback" not in done.stderr


@contextlib.contextmanager
def voice_settings(profile: Path, **voice: Any) -> Iterator[None]:
    """The profile's settings file holding these voice settings for the block (then as it was)."""
    settings = profile / "config" / "settings.json"
    before = settings.read_text(encoding="utf-8") if settings.exists() else None
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"voice": voice}), encoding="utf-8")
    try:
        yield
    finally:
        if before is None:
            settings.unlink(missing_ok=True)
        else:
            settings.write_text(before, encoding="utf-8")


@pytest.fixture(scope="module")
def base_model(packaged: Packaged, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The multilingual ``base`` downloaded on demand by the packaged app (``jawad voice-pack model
    base``) from a loopback hub serving its real files, checked against its pin on arrival."""
    from tests.voice.hub_server import serve_hub
    from tests.voice.whisper_base import write_base_model

    where = tmp_path_factory.mktemp("base-hub")
    repos = {"Systran/faster-whisper-base": write_base_model(where / "repo")}
    with contextlib.contextmanager(serve_hub)(repos) as hub:
        done = packaged.run(["voice-pack", "model", "base", "--endpoint", hub.base_url], where, timeout=600)
    assert done.returncode == 0 and "The speech model base is ready" in done.stdout, done.stderr[-4000:]
    shutil.rmtree(where / "repo", ignore_errors=True)


def test_the_packaged_app_hears_the_voice_language_set(packaged: Packaged, tmp_path: Path,
                                                       request: pytest.FixtureRequest) -> None:
    """Settings → Voice → language German: the pack's English-only tiny.en says it cannot hear it and
    what to choose; with the multilingual ``base`` downloaded by the app, Picovoice's German clip is heard in
    German."""
    clip = CLIPS / "languages" / "de.flac"
    with voice_settings(packaged.profile, language="de"):
        refused = packaged.run(["transcribe", str(clip)], tmp_path)
        assert refused.returncode != 0, refused.stdout
        assert "understands English only, and the voice language is set to German" in refused.stderr, refused.stderr
        assert "Choose the model 'base'" in refused.stderr and "Traceback" not in refused.stderr

        request.getfixturevalue("base_model")
        heard = packaged.run(["transcribe", str(clip), "--model", "base", "--json"], tmp_path)
        assert heard.returncode == 0, heard.stderr[-4000:]
        result = json.loads(heard.stdout)
        assert result["language"] == "de" and {"raum", "genutzt."} <= set(result["text"].lower().split()), result
        detected = packaged.run(["transcribe", str(clip), "--model", "base", "--language", "auto", "--json"], tmp_path)
        assert detected.returncode == 0, detected.stderr[-4000:]
        assert json.loads(detected.stdout)["language"] == "de", detected.stdout


def test_the_packaged_app_answers_german_speech_in_german_with_espeak_ng(
    packaged: Packaged, base_model: None, pulse_server: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """``jawad talk`` from the bundle: Picovoice's German clip played into a private PulseAudio
    microphone, base detecting German, the scripted model's answer read aloud. Piper (GPL-3.0) is not
    in the bundle, so the reply is read with the system's espeak-ng in German (a Depends of the .deb),
    and the app says so."""
    from jawad_desktop.core.voice import read_audio, write_wav
    from tests.servers.scripted_model import text

    clip = write_wav(Path(pulse_server.root) / "de-parity.wav", read_audio(CLIPS / "languages" / "de.flac"))
    scripted_model.script(text("Die Halle wurde als Leichenhalle genutzt.", chunk_size=4, chunk_delay_s=1 / 30))
    env = {"HOME": str(packaged.home), "QT_QPA_PLATFORM": "offscreen", "PULSE_SERVER": pulse_server.env["PULSE_SERVER"]}
    command = [str(packaged.bundle / APP_ID), "--profile", str(packaged.profile), "talk", "--once", "--no-save",
               "--kind", "openai-compatible", "--base-url", scripted_model.base_url, "--model", "scripted"]
    with voice_settings(packaged.profile, model_size="base", language="", tts_backend="auto", partial_results=False,
                        announce_tools=False, echo_cancel=False, conversation_timeout_s=8):
        talk = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        assert talk.stderr is not None
        status: list[str] = []
        try:
            for line in talk.stderr:  # the clip is played once the app listens
                status.append(line)
                if line.startswith("Listening"):
                    pulse_server.play(clip, delay_s=0.2)
                    break
            out, rest = talk.communicate(timeout=240)
        finally:
            if talk.poll() is None:
                talk.kill()
                talk.wait()
    said = "".join(status) + rest
    assert talk.returncode == 0, said[-4000:]
    assert "raum" in out.lower() and "Jawad: Die Halle" in out, out
    assert ("You spoke German: replies are read with espeak-ng's German voice (Piper, which has German voices, "
            "is not installed here).") in said, said[-4000:]
    assert "Traceback" not in said
