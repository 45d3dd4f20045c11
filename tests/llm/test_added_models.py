"""GGUF files added from the disk (``core.llm.added_models``): the header decides what is a model,
names come from file names, the record survives damage, and nothing is copied or deleted."""

from __future__ import annotations

from pathlib import Path

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.llm.added_models import (
    ADDED_FILE,
    AddedModelError,
    add_model_file,
    added_models,
    forget_model,
    gguf_version,
    name_for,
)
from jawad_desktop.core.llm.local_models import (
    LocalModelError,
    chosen_model,
    remove_model,
    resolve_model_file,
    use_model,
)


def gguf(path: Path, version: int = 3) -> Path:
    path.write_bytes(b"GGUF" + version.to_bytes(4, "little") + bytes(32))
    return path


def test_the_header_decides(tmp_path: Path) -> None:
    assert gguf_version(gguf(tmp_path / "a.gguf", 2)) == 2
    assert gguf_version(gguf(tmp_path / "future.gguf", 99)) is None  # a version llama.cpp never wrote
    (tmp_path / "short.gguf").write_bytes(b"GGUF")
    assert gguf_version(tmp_path / "short.gguf") is None
    (tmp_path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    assert gguf_version(tmp_path / "model.safetensors") is None
    assert gguf_version(tmp_path / "missing.gguf") is None


def test_names() -> None:
    assert name_for(Path("/m/Qwen2.5-7B-Instruct-Q4_K_M.gguf")) == "qwen2.5-7b-instruct-q4_k_m"
    assert name_for(Path("My Model (final).gguf")) == "my-model-final"
    assert name_for(Path("___.gguf")) == "model"


def test_add_twice_two_files_one_name_and_forget(tmp_path: Path) -> None:
    models = tmp_path / "models"
    first = add_model_file(gguf(tmp_path / "Tiny.gguf"), models)
    assert (first.name, first.path) == ("tiny", tmp_path / "Tiny.gguf")
    assert add_model_file(tmp_path / "Tiny.gguf", models) == first  # the same record again
    other = tmp_path / "elsewhere"
    other.mkdir()
    with pytest.raises(AddedModelError) as taken:
        add_model_file(gguf(other / "tiny.gguf"), models)
    assert taken.value.code == "NAME_TAKEN" and "remove the other one" in str(taken.value.suggestions)
    renamed = add_model_file(other / "tiny.gguf", models, "Tiny Two")
    assert renamed.name == "tiny-two" and [m.name for m in added_models(models)] == ["tiny", "tiny-two"]
    assert add_model_file(tmp_path / "Tiny.gguf", models, "again").name == "again"  # renamed, not listed twice
    assert [m.name for m in added_models(models)] == ["tiny-two", "again"]
    assert forget_model("AGAIN", models) and not forget_model("again", models)
    assert (tmp_path / "Tiny.gguf").is_file() and not list(models.glob("*.gguf"))


def test_a_damaged_record_is_an_empty_list(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / ADDED_FILE).write_text("{not json")
    assert added_models(models) == []
    assert add_model_file(gguf(tmp_path / "x.gguf"), models).name == "x"  # and adding still works


def test_use_resolve_and_remove_through_local_models(tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = gguf(tmp_path / "Mine.gguf")
    add_model_file(path, models)
    settings = Settings()
    provider = use_model(settings, "MINE", models)
    assert (provider.kind, provider.model, provider.model_file) == (ProviderKind.LOCAL, "mine", str(path))
    assert chosen_model(settings) == "mine"
    typed = provider.model_copy(update={"model_file": ""})
    assert resolve_model_file(typed, models).model_file == str(path)  # the name typed as the model
    assert remove_model("mine", models) and path.is_file()
    with pytest.raises(LocalModelError, match="no recommended model called 'mine'"):
        use_model(settings, "mine", models)
