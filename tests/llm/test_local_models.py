"""GGUF models for the built-in server, downloaded from a server that answers as the Hugging Face hub.

The loopback hub (``tests.voice.hub_server``) serves a .gguf the way the hub serves LFS files: a
HEAD that redirects with ``X-Linked-Size`` and ``X-Linked-Etag`` (SHA-256), a CDN address that
honours Range. What must hold: a dropped connection resumes where it stopped, a wrong checksum is
refused and the file deleted, a cancelled download keeps what arrived and the next one resumes,
and a computer without network gets a message that says what to do.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.llm.catalog import CATALOG, GB, catalog_entry, recommended
from jawad_desktop.core.llm.local_models import (
    HubError,
    LocalModelError,
    chosen_model,
    download_model,
    model_file,
    model_states,
    remove_model,
    resolve_model_file,
    use_model,
)
from jawad_desktop.core.llm.local_server import bundled_model_path
from jawad_desktop.core.store import pins
from jawad_desktop.core.store.hub_download import INCOMPLETE_SUFFIX
from tests.voice.hub_server import HubServer, serve_hub

NAME = "qwen2.5-coder-0.5b-instruct"
ENTRY = catalog_entry(NAME)
assert ENTRY is not None
SIZE = 3_000_000


@pytest.fixture
def gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Random bytes as the model's file, which its pin names for the test (same repository and revision)."""
    folder = tmp_path / "repo"
    folder.mkdir()
    assert ENTRY is not None
    path = folder / ENTRY.file
    data = b"GGUF" + os.urandom(SIZE - 4)
    path.write_bytes(data)
    pinned = ENTRY.pin
    monkeypatch.setitem(pins.PINS, pinned.key, pins.Pin(pinned.key, pinned.repo, pinned.revision,
                                                         {ENTRY.file: hashlib.sha256(data).hexdigest()}))
    return path


@pytest.fixture
def hub(gguf: Path) -> Iterator[HubServer]:
    assert ENTRY is not None
    yield from serve_hub({ENTRY.repo: gguf.parent})


def test_download_resumes_a_dropped_connection(hub: HubServer, gguf: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    hub.drop_after[gguf.name] = 1_000_000
    seen: list[tuple[int, int]] = []
    path = download_model(NAME, models, endpoint=hub.base_url, progress=lambda d, t: seen.append((d, t)))
    assert path == models / gguf.name and path.read_bytes() == gguf.read_bytes()
    assert [g for g in hub.gets if g[0] == gguf.name] == [(gguf.name, 0), (gguf.name, 1_000_000)]
    assert seen[-1] == (SIZE, SIZE) and all(t == SIZE for _, t in seen)
    assert not (models / (gguf.name + INCOMPLETE_SUFFIX)).exists()
    [state] = [s for s in model_states(models) if s.entry.name == NAME]
    assert state.installed and state.partial == 0
    requests = len(hub.gets), hub.heads
    assert download_model(NAME, models, endpoint=hub.base_url) == path  # already there: no request
    assert (len(hub.gets), hub.heads) == requests


def test_a_wrong_checksum_is_refused_and_the_file_deleted(hub: HubServer, gguf: Path, tmp_path: Path) -> None:
    hub.corrupt.add(gguf.name)
    models = tmp_path / "models"
    with pytest.raises(HubError) as caught:
        download_model(NAME, models, endpoint=hub.base_url)
    assert caught.value.code == "HUB_CORRUPT" and "SHA-256" in caught.value.message
    assert "deleted" in caught.value.message and caught.value.suggestions
    assert list(models.iterdir()) == []
    hub.corrupt.clear()
    assert download_model(NAME, models, endpoint=hub.base_url).read_bytes() == gguf.read_bytes()


def test_cancel_keeps_what_arrived_and_the_next_download_resumes(
    hub: HubServer, gguf: Path, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    cancel = threading.Event()

    def stop_midway(done: int, total: int) -> None:
        if done >= 500_000:
            cancel.set()

    with pytest.raises(HubError) as caught:
        download_model(NAME, models, endpoint=hub.base_url, progress=stop_midway, cancel=cancel)
    assert caught.value.code == "HUB_CANCELLED" and "Start it again" in caught.value.suggestions[0]
    [state] = [s for s in model_states(models) if s.entry.name == NAME]
    assert not state.installed and 500_000 <= state.partial < SIZE
    kept = state.partial
    hub.gets.clear()
    path = download_model(NAME, models, endpoint=hub.base_url)
    assert hub.gets == [(gguf.name, kept)] and path.read_bytes() == gguf.read_bytes()


def test_offline_says_what_to_do(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once it is closed
    with pytest.raises(HubError) as caught:
        download_model(NAME, tmp_path / "models", endpoint=f"http://127.0.0.1:{port}")
    error = caught.value
    assert error.code == "HUB_OFFLINE" and "offline" in error.message and "ConnectError" in error.message
    assert any("resumes where it stopped" in tip for tip in error.suggestions)


def test_a_missing_file_on_the_hub(hub: HubServer, tmp_path: Path) -> None:
    with pytest.raises(HubError) as caught:
        download_model("smollm2", tmp_path / "models", endpoint=hub.base_url)  # a repository it does not hold
    assert caught.value.code == "HUB_NOT_FOUND"


def test_unknown_names_and_the_bundled_model(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError) as caught:
        download_model("gpt-17", tmp_path)
    assert caught.value.code == "UNKNOWN_MODEL" and NAME in caught.value.suggestions[0]
    assert not remove_model("smollm2", tmp_path)  # nothing downloaded: the package's copy is not touched
    packaged = model_file(CATALOG[0], tmp_path)
    assert packaged is not None and packaged == bundled_model_path() and packaged.is_file()


def test_use_and_remove(hub: HubServer, gguf: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    settings = Settings(providers=[ProviderConfig(name="Cloud", kind=ProviderKind.OPENAI, model="gpt-4o")])
    with pytest.raises(LocalModelError) as caught:
        use_model(settings, NAME, models)
    assert caught.value.code == "NOT_DOWNLOADED"
    path = download_model(NAME, models, endpoint=hub.base_url)
    local = use_model(settings, NAME, models)
    assert (local.kind, local.model, local.model_file) == (ProviderKind.LOCAL, NAME, str(path))
    assert settings.provider("Built-in") == local and chosen_model(settings) == NAME
    again = use_model(settings, "smollm2", models)  # the same provider, back to the bundled model
    assert len(settings.providers) == 2 and (again.model, again.model_file) == ("smollm2", "")
    assert chosen_model(settings) == "smollm2"
    assert remove_model(NAME, models) and not path.exists() and not remove_model(NAME, models)


def test_an_edited_local_provider_keeps_its_model_file() -> None:
    chosen = ProviderConfig(name="Built-in", kind=ProviderKind.LOCAL, model=NAME, model_file="/m/q.gguf")
    edited = ProviderConfig(name="Local", kind=ProviderKind.LOCAL, model=NAME, context_window=4096)
    assert edited.keeping_model_file(chosen).model_file == "/m/q.gguf"
    other = ProviderConfig(name="Local", kind=ProviderKind.LOCAL, model="smollm2")
    assert other.keeping_model_file(chosen).model_file == ""  # another model: not that file
    assert edited.keeping_model_file(None).model_file == ""


def test_a_catalog_name_typed_as_the_model_runs_that_models_file(hub: HubServer, tmp_path: Path) -> None:
    models = tmp_path / "models"
    typed = ProviderConfig(name="Mine", kind=ProviderKind.LOCAL, model=NAME)
    with pytest.raises(LocalModelError) as caught:  # not downloaded: said, not the bundled model under its name
        resolve_model_file(typed, models)
    assert caught.value.code == "NOT_DOWNLOADED" and "Settings → Models" in caught.value.suggestions[0]
    path = download_model(NAME, models, endpoint=hub.base_url)
    assert resolve_model_file(typed, models).model_file == str(path)
    for unchanged in (ProviderConfig(name="Mine", kind=ProviderKind.LOCAL, model="smollm2"),
                      ProviderConfig(name="Mine", kind=ProviderKind.LOCAL, model="my-own"),
                      ProviderConfig(name="Far", kind=ProviderKind.OLLAMA, base_url="http://127.0.0.1:11434/v1",
                                     model=NAME)):
        assert resolve_model_file(unchanged, models) == unchanged


def test_the_catalog() -> None:
    names = [m.name for m in CATALOG]
    assert len(names) == len(set(names)) and CATALOG[0].bundled and len(CATALOG) >= 2
    for model in CATALOG:
        assert model.file.endswith(".gguf") and model.tools in ("good", "fair", "poor") and model.tools_why
        assert model.memory_bytes > model.size_bytes > 0
        assert model.pin.fully_pinned, f"{model.name} is offered without a revision and a SHA-256 (issue 28)"
    bundled = bundled_model_path()
    assert bundled is not None and CATALOG[0].size_bytes == bundled.stat().st_size


def test_the_first_start_recommends_what_this_computer_can_run() -> None:
    """Issue 31: a capable small model for this computer, never the test model, none when it does not fit."""
    small, capable = catalog_entry("qwen2.5-coder-0.5b-instruct"), catalog_entry("qwen2.5-coder-1.5b-instruct")
    assert capable is not None and small is not None
    assert recommended(8 * GB, 20 * GB) == capable, "the 1.5B model where memory and disk allow"
    assert recommended(4 * GB, capable.size_bytes + GB) == capable
    assert recommended(3 * GB, 20 * GB) == small, "less memory: the 0.5B model"
    assert recommended(8 * GB, 2 * GB) == small, "less disk: the 0.5B model"
    assert recommended(8 * GB, GB) is None, "no room on the disk"
    assert recommended(GB, 20 * GB) is None, "not enough memory"
    assert all(m.bundled is False for m in CATALOG if recommended(64 * GB, 100 * GB) == m)
