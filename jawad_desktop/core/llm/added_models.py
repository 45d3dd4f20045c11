"""GGUF files the user already has on the disk, added to the built-in model's choices (no Qt).

``add_model_file`` checks that a file is a GGUF model by its header (the magic ``GGUF`` and a
known format version), gives it a name (its file name's stem, or the one asked for) and records
it in ``<data>/models/added.json``. The file is used where it lies, never copied: models are
gigabytes, and a copy would double the disk they take. If the file is moved or deleted later,
choosing it says so. Forgetting an added model (``forget_model``) leaves the user's file alone.
``local_models.use_model`` runs an added model as it runs a downloaded one.
"""

from __future__ import annotations

import json
import logging
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.catalog import CATALOG

log = logging.getLogger("jawad.llm.local")

ADDED_FILE = "added.json"
GGUF_MAGIC = b"GGUF"
GGUF_VERSIONS = (1, 2, 3)  # the format versions llama.cpp has written


class AddedModelError(JawadError):
    """A file that cannot be added or an added model that cannot be used; ``code`` for the UI and tests."""

    def __init__(self, code: str, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.code = code


@dataclass(frozen=True)
class AddedModel:
    """A GGUF file on the disk the built-in model may run, under ``name``."""

    name: str
    path: Path

    @property
    def present(self) -> bool:
        """Whether the file is still where it was added from."""
        return self.path.is_file()

    @property
    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.present else 0


def gguf_version(path: Path) -> int | None:
    """The GGUF format version in ``path``'s header, or None when it is not a GGUF file."""
    try:
        with path.open("rb") as file:
            header = file.read(8)
    except OSError:
        return None
    if len(header) < 8 or header[:4] != GGUF_MAGIC:
        return None
    version = int(struct.unpack("<I", header[4:])[0])
    return version if version in GGUF_VERSIONS else None


def name_for(path: Path) -> str:
    """A model name made from a file name: ``Qwen2.5-7B-Instruct-Q4_K_M.gguf`` -> ``qwen2.5-7b-instruct-q4_k_m``."""
    return re.sub(r"[^a-z0-9._-]+", "-", path.stem.casefold()).strip("-._") or "model"


def _registry(folder: Path) -> Path:
    return folder / ADDED_FILE


def added_models(folder: Path) -> list[AddedModel]:
    """The added models, in the order they were added (a damaged record is an empty list, logged)."""
    try:
        raw = json.loads(_registry(folder).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        log.warning("the list of added models (%s) cannot be read: %s", _registry(folder), exc)
        return []
    return [AddedModel(str(name), Path(str(path))) for name, path in dict(raw).items()]


def added_model(name: str, folder: Path) -> AddedModel | None:
    """The added model called ``name`` (any case), if any."""
    wanted = name.strip().casefold()
    return next((m for m in added_models(folder) if m.name == wanted), None)


def _save(folder: Path, models: list[AddedModel]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = _registry(folder)
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(json.dumps({m.name: str(m.path) for m in models}, indent=2), encoding="utf-8")
    partial.replace(path)


def add_model_file(path: Path, folder: Path, name: str = "") -> AddedModel:
    """Add the GGUF file ``path`` under ``name`` (default: from its file name) without copying it.
    Adding a file already added returns its record. Raises ``AddedModelError``: no such file,
    not a GGUF model, or a name taken by a recommended model or another file."""
    path = path.expanduser().absolute()
    if not path.is_file():
        raise AddedModelError("NO_SUCH_FILE", f"There is no file {str(path)!r}.",
                              suggestions=["Check the path, then add it again."])
    if gguf_version(path) is None:
        raise AddedModelError("NOT_GGUF", f"{path.name} is not a GGUF model file.",
                              suggestions=["The built-in model runs GGUF files (.gguf), as llama.cpp writes them: "
                                           "download a GGUF build of the model, or convert it with llama.cpp's "
                                           "convert_hf_to_gguf.py."])
    models = added_models(folder)
    same_file = next((m for m in models if m.path == path), None)
    wanted = name_for(Path(name + ".gguf")) if name.strip() else (same_file.name if same_file else name_for(path))
    if same_file is not None and same_file.name == wanted:
        return same_file
    if any(m.name == wanted for m in CATALOG):
        raise AddedModelError("NAME_TAKEN", f"{wanted!r} is the name of a recommended model.",
                              suggestions=["Give the file another name."])
    taken = next((m for m in models if m.name == wanted), None)
    if taken is not None:
        raise AddedModelError("NAME_TAKEN", f"{wanted!r} is already the name of {taken.path}.",
                              suggestions=["Give the file another name, or remove the other one first."])
    added = AddedModel(wanted, path)
    _save(folder, [m for m in models if m.path != path] + [added])
    log.info("model file %s added as %s", path, wanted)
    return added


def forget_model(name: str, folder: Path) -> bool:
    """Take the added model ``name`` off the list (its file stays); False when there was none."""
    models = added_models(folder)
    kept = [m for m in models if m.name != name.strip().casefold()]
    if len(kept) == len(models):
        return False
    _save(folder, kept)
    return True


def present_file(model: AddedModel) -> Path:
    """The added model's file, or an error saying it is gone and what to do."""
    if not model.present:
        raise AddedModelError("FILE_GONE", f"The file of {model.name!r} is no longer at {model.path}.",
                              suggestions=["Put it back, or remove the model and add the file where it is now."])
    return model.path


__all__ = ["AddedModel", "AddedModelError", "add_model_file", "added_model", "added_models", "forget_model",
           "gguf_version", "name_for", "present_file"]
