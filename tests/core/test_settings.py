"""Settings: atomic saves, and a broken file is moved aside, never overwritten or lost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.store.settings_file import SettingsStore


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    settings = store.load()
    assert settings == Settings()
    assert store.recovered_from is None
    assert store.recovery_message() == ""


def test_round_trip_and_private_permissions(tmp_path: Path) -> None:
    path = tmp_path / "config" / "settings.json"
    store = SettingsStore(path)
    settings = Settings(providers=[ProviderConfig(name="Local", kind=ProviderKind.OLLAMA, model="llama3.1")])
    settings.ui.font_size = 14
    store.save(settings)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = SettingsStore(path).load()
    assert again.providers[0].name == "Local"
    assert again.ui.font_size == 14
    assert not list(path.parent.glob(".settings-*.tmp")), "the temp file was left behind"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2, 3]", "JSON object"),
        ('{"agent": {"max_iterations": "many"}}', "agent.max_iterations"),
        ('{"providers": [{"name": "", "kind": "openai"}]}', "providers"),
        ('{"providers": [{"name": "A", "kind": "openai"}, {"name": "a", "kind": "ollama"}]}', "Two providers"),
    ],
)
def test_corrupt_file_is_moved_aside_and_explained(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    store = SettingsStore(path)
    settings = store.load()
    assert settings == Settings()
    assert not path.exists(), "the broken file must not stay where it would be overwritten"
    assert store.recovered_from is not None and store.recovered_from.exists()
    assert store.recovered_from.read_text() == content, "the user's file must be kept byte for byte"
    assert "corrupt-" in store.recovered_from.name
    message = store.recovery_message()
    assert reason in message and str(store.recovered_from) in message


def test_second_corruption_in_same_second_keeps_both(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    kept = []
    for text in ("{bad", "{worse"):
        path.write_text(text)
        store = SettingsStore(path)
        store.load()
        assert store.recovered_from is not None
        kept.append(store.recovered_from)
    assert kept[0] != kept[1]
    assert {p.read_text() for p in kept} == {"{bad", "{worse"}


def test_save_failure_leaves_previous_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    store.save(Settings(active_provider="first"))
    before = path.read_text()

    class Boom(Settings):
        def model_dump_json(self, **kwargs: object) -> str:  # type: ignore[override]
            raise OSError("disk full")

    with pytest.raises(OSError):
        store.save(Boom())
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_provider_validation_messages() -> None:
    with pytest.raises(ValidationError, match="must not be empty"):
        ProviderConfig(name="  ", kind=ProviderKind.OPENAI)
    with pytest.raises(ValidationError, match="http:// or https://"):
        ProviderConfig(name="x", kind=ProviderKind.OPENAI, base_url="ftp://example.com")
    with pytest.raises(ValidationError, match="no host"):
        ProviderConfig(name="x", kind=ProviderKind.OPENAI, base_url="http://")
    config = ProviderConfig(name="x", kind=ProviderKind.OLLAMA, base_url="http://localhost:11434/v1/")
    assert config.base_url == "http://localhost:11434/v1"
    assert ProviderConfig(name="y", kind=ProviderKind.OPENROUTER).effective_base_url.startswith("https://openrouter")


def test_unknown_keys_from_newer_versions_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 1, "future_feature": {"x": 1}, "ui": {"font_size": 13, "new": 2}}))
    store = SettingsStore(path)
    assert store.load().ui.font_size == 13
    assert store.recovered_from is None
    assert os.path.exists(path)
