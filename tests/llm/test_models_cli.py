"""``jawad models``: download from a loopback hub (``JAWAD_MODEL_ENDPOINT``), list, use, remove;
``jawad models ollama list|pull`` against a loopback server speaking Ollama's API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from tests.servers.ollama_models import OllamaModels, serve_ollama
from tests.voice.hub_server import HubServer, serve_catalog_model

NAME = "smollm2"  # the test model: its real file (98 MB), checked against its pin in the subprocess
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubServer]:
    yield from serve_catalog_model(tmp_path, NAME)


def jawad(profile: Path, *args: str, endpoint: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAWAD_MODEL_ENDPOINT": endpoint} if endpoint else dict(os.environ)
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "models", *args],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL, check=False)


def test_download_list_use_remove(hub: HubServer, profile_dir: Path) -> None:
    hub.drop_after[FILE] = 700_000
    done = jawad(profile_dir, "download", NAME, endpoint=hub.base_url)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.name == FILE and path.stat().st_size == 98_362_432 and path.parent.name == "models"
    assert "(100%)" in done.stderr
    assert [g[1] for g in hub.gets] == [0, 700_000]  # the dropped connection resumed

    listed = {m["name"]: m for m in json.loads(jawad(profile_dir, "list", "--json").stdout)}
    assert listed[NAME]["installed"] and not listed["qwen2.5-coder-0.5b-instruct"]["installed"]
    used = jawad(profile_dir, "use", NAME)
    assert used.returncode == 0 and "'Built-in' runs" in used.stderr
    assert "in use" in next(line for line in jawad(profile_dir, "list").stdout.splitlines() if NAME in line)
    edited = subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "providers",
                             "edit", "Built-in", "--context-window", "4096"], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert edited.returncode == 0, edited.stderr  # an edit keeps the chosen model file
    assert "in use" in next(line for line in jawad(profile_dir, "list").stdout.splitlines() if NAME in line)

    typed = subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "providers",
                            "add", "Typed", "--kind", "local", "--model", NAME], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert typed.returncode == 0, typed.stderr  # the catalog name typed: its downloaded file is run
    saved = json.loads((profile_dir / "config" / "settings.json").read_text())
    assert next(p for p in saved["providers"] if p["name"] == "Typed")["model_file"] == str(path)

    assert jawad(profile_dir, "remove", NAME).returncode == 0 and not path.exists()
    again = jawad(profile_dir, "remove", NAME)
    assert again.returncode == 1 and "not downloaded" in again.stderr
    unknown = jawad(profile_dir, "download", "gpt-17")
    assert unknown.returncode == 1
    assert "Use one of: smollm2, qwen2.5-coder-0.5b-instruct, qwen2.5-coder-1.5b-instruct" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_download_offline(profile_dir: Path) -> None:
    result = jawad(profile_dir, "download", NAME, endpoint="http://127.0.0.1:9")
    assert result.returncode == 1 and "offline" in result.stderr and "Traceback" not in result.stderr


def test_ollama_list_and_pull(profile_dir: Path, secret_store: SecretStore) -> None:
    none = jawad(profile_dir, "ollama", "list")
    assert none.returncode == 1 and "No Ollama provider" in none.stderr
    for ollama in serve_ollama({"qwen2.5:0.5b": [300_000_000]}, installed={"llama3.2:1b": 1_321_098_329}):
        _add_ollama(profile_dir, secret_store, ollama)
        listed = jawad(profile_dir, "ollama", "list", "--json")
        assert [m["name"] for m in json.loads(listed.stdout)] == ["llama3.2:1b"]
        pulled = jawad(profile_dir, "ollama", "pull", "qwen2.5:0.5b")
        assert pulled.returncode == 0, pulled.stderr
        assert "pulling manifest" in pulled.stderr and "(100%)" in pulled.stderr and "ready" in pulled.stderr
        assert "qwen2.5:0.5b" in jawad(profile_dir, "ollama", "list").stdout
        missing = jawad(profile_dir, "ollama", "pull", "no-such-model")
        assert missing.returncode == 1 and "no model called 'no-such-model'" in missing.stderr


def _add_ollama(profile: Path, secrets: SecretStore, server: OllamaModels) -> None:
    ctx = AppContext.open(str(profile), secrets=secrets)
    ctx.settings.providers = [ProviderConfig(name="Home Ollama", kind=ProviderKind.OLLAMA_NATIVE,
                                             base_url=server.base_url)]
    ctx.save_settings()


def test_add_a_gguf_file_use_it_and_remove_it(profile_dir: Path, tmp_path: Path) -> None:
    """`jawad models add PATH`: a GGUF already on the disk is checked by its header, named, listed and
    run by `use` where it lies (not copied); `remove` forgets it and leaves the file; a file that is
    not a GGUF, or a taken name, is refused with exit code 1 and what to do."""
    gguf = tmp_path / "My-Model.Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(64))
    added = jawad(profile_dir, "add", str(gguf))
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "my-model.q4_k_m" and "not copied" in added.stderr
    assert not any(p.name == gguf.name for p in (profile_dir / "data" / "models").glob("*.gguf"))
    assert jawad(profile_dir, "add", str(gguf)).stdout.strip() == "my-model.q4_k_m"  # again: the same record
    listed = {m["name"]: m for m in json.loads(jawad(profile_dir, "list", "--json").stdout)}
    assert listed["my-model.q4_k_m"]["added"] and listed["my-model.q4_k_m"]["path"] == str(gguf)

    used = jawad(profile_dir, "use", "My-Model.Q4_K_M")
    assert used.returncode == 0 and "'Built-in' runs" in used.stderr, used.stderr
    saved = json.loads((profile_dir / "config" / "settings.json").read_text())
    [local] = [p for p in saved["providers"] if p["kind"] == "local"]
    assert (local["model"], local["model_file"]) == ("my-model.q4_k_m", str(gguf))
    assert "in use" in next(line for line in jawad(profile_dir, "list").stdout.splitlines() if "my-model" in line)

    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    refused = jawad(profile_dir, "add", str(text))
    assert refused.returncode == 1 and "notes.gguf is not a GGUF model file" in refused.stderr
    assert "convert_hf_to_gguf" in refused.stderr and "Traceback" not in refused.stderr
    missing = jawad(profile_dir, "add", str(tmp_path / "nowhere.gguf"))
    assert missing.returncode == 1 and "There is no file" in missing.stderr
    taken = jawad(profile_dir, "add", str(gguf), "--name", "smollm2")
    assert taken.returncode == 1 and "name of a recommended model" in taken.stderr

    removed = jawad(profile_dir, "remove", "my-model.q4_k_m")
    assert removed.returncode == 0 and "the file stays" in removed.stderr and gguf.is_file()
    assert "in use" in next(line for line in jawad(profile_dir, "list").stdout.splitlines() if NAME in line)
    gone = jawad(profile_dir, "use", "my-model.q4_k_m")
    assert gone.returncode == 1 and "no recommended model called 'my-model.q4_k_m'" in gone.stderr

    assert jawad(profile_dir, "add", str(gguf), "--name", "mine").returncode == 0
    gguf.unlink()
    moved = jawad(profile_dir, "use", "mine")
    assert moved.returncode == 1 and "no longer at" in moved.stderr and "Traceback" not in moved.stderr
