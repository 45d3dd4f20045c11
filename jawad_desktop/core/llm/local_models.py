"""The GGUF models the built-in llama.cpp server can run: downloaded, listed, removed, chosen (no Qt).

Models live in ``<data>/models/`` as ``<file>.gguf``; a download in progress is
``<file>.gguf.incomplete`` beside it (``core.store.hub_download``: the pinned revision, resumed with Range
requests, checked against the pin's or the hub's SHA-256, renamed into place only when whole), and
``<file>.gguf.jawad.json`` records what it was checked against (``core.store.pins``), so the server
checks the file again before it runs it. The catalog (``catalog``) says
which to offer. A local provider runs the model its ``model_file`` names (``use_model`` sets it
and its model name); an empty ``model_file`` is the test model SmolLM2 as its package carries it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

import httpx

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings, Settings
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.added_models import added_model, forget_model, present_file
from jawad_desktop.core.llm.catalog import BUNDLED_NAME, CATALOG, CatalogModel, catalog_entry
from jawad_desktop.core.llm.discovery import machine_memory_bytes, models_folder
from jawad_desktop.core.llm.local_server import bundled_model_path
from jawad_desktop.core.store import pins
from jawad_desktop.core.store.hub_download import INCOMPLETE_SUFFIX, FailureKind, HubDownload, HubError, Progress

log = logging.getLogger("jawad.llm.local")

LOCAL_PROVIDER_NAME = "Built-in"


class LocalModelError(JawadError):
    """A local model that cannot be found, downloaded or removed; ``code`` for the UI and tests."""

    def __init__(self, code: str, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.code = code


def entry_named(name: str) -> CatalogModel:
    """The catalog's model ``name``, or an error listing the names there are."""
    entry = catalog_entry(name)
    if entry is None:
        raise LocalModelError("UNKNOWN_MODEL", f"There is no recommended model called {name!r}.",
                              suggestions=["Use one of: " + ", ".join(m.name for m in CATALOG) + ".",
                                           "Or add a GGUF file you have: `jawad models add PATH`."])
    return entry


def model_file(entry: CatalogModel, folder: Path) -> Path | None:
    """The model's file when it is on this computer (downloaded whole, or carried by an installed
    package), else None."""
    path = folder / entry.file
    if path.is_file():
        return path
    return bundled_model_path() if entry.bundled else None


def from_package(path: Path | None) -> bool:
    """True when ``path`` is the test model's copy in its installed package (not a download)."""
    return path is not None and path == bundled_model_path()


def partial_bytes(entry: CatalogModel, folder: Path) -> int:
    """Bytes of an unfinished download (kept for a resume); 0 if none."""
    path = folder / (entry.file + INCOMPLETE_SUFFIX)
    return path.stat().st_size if path.is_file() else 0


@dataclass(frozen=True)
class ModelState:
    """A catalog model as it is on this computer."""

    entry: CatalogModel
    path: Path | None  # its file when installed
    partial: int  # bytes of an unfinished download

    @property
    def installed(self) -> bool:
        return self.path is not None


def model_states(folder: Path) -> list[ModelState]:
    """Every catalog model with what is on disk of it."""
    return [ModelState(m, model_file(m, folder), partial_bytes(m, folder)) for m in CATALOG]


class DownloadOptions(TypedDict, total=False):
    """Where from and how a model file is downloaded (``HubDownload``'s keyword arguments)."""

    endpoint: str | None
    progress: Progress | None
    cancel: threading.Event | None
    transport: httpx.BaseTransport | None
    network: NetworkSettings | None


class GgufDownload(HubDownload):
    """One GGUF file of a catalog model, downloaded into the models folder."""

    def __init__(self, entry: CatalogModel, folder: Path, **options: Unpack[DownloadOptions]) -> None:
        super().__init__(entry.pin, folder, label=entry.title, **options)
        self.entry = entry

    def run(self) -> Path:
        """Download (or finish downloading) the file; its path. Raises ``HubError``."""
        target = self.folder / self.entry.file
        if target.is_file():
            return target
        with self.session() as client:
            remote = self.remote(client, self.entry.file)
            assert remote is not None  # a required file: missing is an error
            self.fetch(client, [remote])
        pins.record_download(target, self.pin, self.commit, self.checked[remote.name])
        log.info("model %s downloaded from %s (%d bytes)", self.entry.name, self.endpoint, remote.size)
        return target

    def _error(self, kind: FailureKind, detail: str = "") -> JawadError:
        error = super()._error(kind, detail)
        if kind == "offline":
            error.suggestions.append(
                f"Or download {self.entry.file} from {self.endpoint}/{self.repo} yourself and put it in {self.folder}.")
        return error


def download_model(name: str, folder: Path, **options: Unpack[DownloadOptions]) -> Path:
    """Download the catalog's model ``name`` into ``folder`` (blocking: call it from a worker thread),
    through Settings → Network's proxy and CA bundle (``network``). The test model is downloaded
    too when asked for, even where a package carries it."""
    entry = entry_named(name)
    return GgufDownload(entry, folder, **options).run()


def remove_model(name: str, folder: Path) -> bool:
    """Delete the model's file and any unfinished download; False when there was nothing. A file
    added from elsewhere (``added_models``) is only taken off the list: the user's file stays."""
    if catalog_entry(name) is None and added_model(name, folder) is not None:
        return forget_model(name, folder)
    entry = entry_named(name)
    removed = False
    for path in (folder / entry.file, folder / (entry.file + INCOMPLETE_SUFFIX)):
        if path.is_file():
            path.unlink()
            removed = True
    pins.remove_record(folder / entry.file)
    return removed


def use_model(settings: Settings, name: str, folder: Path) -> ProviderConfig:
    """Make the local provider run the catalog's model ``name`` (it must be installed) or a GGUF file
    added under that name (``added_models``): the first provider of kind ``local``, or a new one
    called "Built-in". The caller saves the settings; the server restarts with the model on its
    next request."""
    added = added_model(name, folder) if catalog_entry(name) is None else None
    if added is not None:
        return _run_on_local_provider(settings, added.name, str(present_file(added)))
    entry = entry_named(name)
    path = model_file(entry, folder)
    if path is None:
        raise LocalModelError("NOT_DOWNLOADED", f"{entry.title} is not on this computer yet.",
                              suggestions=[f"Download it first (about {entry.size_bytes / 1e9:.1f} GB)."])
    return _run_on_local_provider(settings, entry.name, "" if from_package(path) else str(path))


def _run_on_local_provider(settings: Settings, model: str, chosen: str) -> ProviderConfig:
    """The first local provider (made if there is none) set to run ``model`` from the file ``chosen``."""
    local = next((p for p in settings.providers if p.kind is ProviderKind.LOCAL), None)
    if local is None:
        taken = {p.name.casefold() for p in settings.providers}
        name_ = LOCAL_PROVIDER_NAME if LOCAL_PROVIDER_NAME.casefold() not in taken else "Built-in local"
        local = ProviderConfig(name=name_, kind=ProviderKind.LOCAL, model=model, model_file=chosen)
        settings.providers = [*settings.providers, local]
        return local
    updated = local.model_copy(update={"model": model, "model_file": chosen})
    settings.providers = [updated if p is local else p for p in settings.providers]
    return updated


def resolve_model_file(config: ProviderConfig, folder: Path) -> ProviderConfig:
    """A local provider whose model is typed as a catalog name runs that model: its downloaded
    file is filled in (``model_file``); one not downloaded yet is an error that says so, rather
    than the bundled model answering under its name."""
    if config.kind is not ProviderKind.LOCAL or config.base_url or config.model_file:
        return config
    entry = catalog_entry(config.model)
    added = added_model(config.model, folder) if entry is None else None
    if added is not None:
        return config.model_copy(update={"model": added.name, "model_file": str(present_file(added))})
    if entry is None:
        return config
    path = model_file(entry, folder)
    if entry.bundled and from_package(path):
        return config
    if path is None:
        raise LocalModelError("NOT_DOWNLOADED", f"{entry.title} is not on this computer yet.",
                              suggestions=[f"Download it in Settings → Models, or with `jawad models download "
                                           f"{entry.name}` (about {entry.size_bytes / 1e9:.1f} GB)."])
    return config.model_copy(update={"model_file": str(path)})


def chosen_model(settings: Settings) -> str:
    """The catalog name the local provider runs ("smollm2" when none is chosen)."""
    local = next((p for p in settings.providers if p.kind is ProviderKind.LOCAL), None)
    if local is None or not local.model_file:
        return BUNDLED_NAME
    return next((m.name for m in CATALOG if Path(local.model_file).name == m.file), local.model or BUNDLED_NAME)


__all__ = [
    "GgufDownload", "HubError", "LocalModelError", "ModelState", "chosen_model", "download_model", "entry_named",
    "from_package", "machine_memory_bytes", "model_file", "model_states", "models_folder", "partial_bytes",
    "remove_model",
    "resolve_model_file", "use_model",
]
