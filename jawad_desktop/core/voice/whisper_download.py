"""Downloading a faster-whisper model from the Hugging Face hub: resumable and checked (no Qt).

The downloading itself is ``core.store.hub_download`` (shared with the GGUF language models); this module
says which files a speech model has, keeps its manifest and words the failures as voice errors.

How the hub is read (HEAD for size and checksum, ``Range`` to resume) is told there.

``download_model`` fetches the files faster-whisper loads (config.json, model.bin,
tokenizer.json, the vocabulary, and preprocessor_config.json when the repository has one) into
``<folder>.partial/``, from the model's pinned revision (``core.store.pins``). The manifest
(``jawad-model.json``: repository, commit, each file's size, the hub's checksum and the SHA-256 it
was checked to have) is written last and the folder renamed into place, so a model
folder is always complete. Progress is reported in bytes over all files; ``cancel`` stops
between chunks and keeps what arrived for a later resume.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.hub_download import (
    CHUNK_BYTES,
    DEFAULT_ENDPOINT,
    ENDPOINT_ENVS,
    INCOMPLETE_SUFFIX,
    RETRIES,
    RETRY_PAUSE_S,
    FailureKind,
    HubDownload,
    Progress,
    RemoteFile,
    git_blob_sha1,
    hub_endpoint,
    resolve_url,
)
from jawad_desktop.core.store.pins import Pin, sha256_of
from jawad_desktop.core.voice.errors import VOICE, VoiceError

__all__ = [
    "CHUNK_BYTES", "DEFAULT_ENDPOINT", "ENDPOINT_ENVS", "INCOMPLETE_SUFFIX", "MANIFEST", "OPTIONAL_FILES",
    "PARTIAL_SUFFIX", "REQUIRED_FILES", "RETRIES", "RETRY_PAUSE_S", "ModelDownload", "Progress", "RemoteFile",
    "download_model", "git_blob_sha1", "hub_endpoint", "resolve_url", "sha256_of",
]

log = logging.getLogger("jawad.voice")

REQUIRED_FILES = ("config.json", "model.bin", "tokenizer.json")
OPTIONAL_FILES = ("preprocessor_config.json", "vocabulary.json", "vocabulary.txt")  # one vocabulary is needed
MANIFEST = "jawad-model.json"
PARTIAL_SUFFIX = ".partial"


class ModelDownload(HubDownload):
    """One speech model's download from the hub into ``folder`` (see the module docstring)."""

    def __init__(self, pin: Pin, folder: Path, **options: Any) -> None:
        self.model_folder = folder
        super().__init__(pin, folder.with_name(folder.name + PARTIAL_SUFFIX), **options)

    @property
    def partial(self) -> Path:
        return self.folder

    def run(self) -> Path:
        """Download (or finish downloading) the model; its folder. Raises ``VoiceError``."""
        target = self.model_folder
        if (target / MANIFEST).is_file() and (target / "model.bin").is_file():
            return target
        self.partial.mkdir(parents=True, exist_ok=True)
        with self.session() as client:
            files = self._list(client)
            self.fetch(client, files)
        manifest = {
            "pin": self.pin.key, "repo": self.repo, "revision": self.revision, "commit": self.commit,
            "endpoint": self.endpoint,
            "files": {f.name: {"size": f.size, f.algorithm or "etag": f.etag, "sha256": self.checked[f.name]}
                      for f in files},
        }
        (self.partial / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if target.exists():  # files put there by hand that were not a whole model
            shutil.rmtree(target)
        self.partial.rename(target)
        log.info("speech model %s downloaded from %s (%d bytes)", self.label, self.endpoint, self._total)
        return target

    def _list(self, client: Any) -> list[RemoteFile]:
        files: list[RemoteFile] = []
        for name in (*REQUIRED_FILES, *OPTIONAL_FILES):
            remote = self.remote(client, name, required=name in REQUIRED_FILES)
            if remote is not None:
                files.append(remote)
        if not any(f.name.startswith("vocabulary.") for f in files):
            raise self._error("not_found", "it has no vocabulary file")
        return files

    # --- errors, in the words of speech models -------------------------------------------------

    def _copy_by_hand(self) -> str:
        files = f"{', '.join(REQUIRED_FILES)} and vocabulary.txt or vocabulary.json"
        # A copy there is checked against the pin (every pin has a revision and checksums).
        return (f"Or copy the model's files ({files}) from {self.endpoint}/{self.repo} at revision "
                f"{self.pin.revision[:12]} into {self.model_folder}.")

    def _error(self, kind: FailureKind, detail: str = "") -> JawadError:
        label, host = self.label, self.endpoint
        if kind == "offline":
            return VoiceError(
                "MODEL_MISSING_OFFLINE",
                f"The speech model {label!r} could not be downloaded: this computer seems to be offline "
                f"or {urlparse(host).netloc or host} is unreachable ({detail}).",
                suggestions=[
                    "Connect to the internet and try the download again: what already arrived is kept and the "
                    "download resumes where it stopped.",
                    self._copy_by_hand(),
                    "Or choose 'tiny.en', which works offline, or use the Whisper API backend.",
                ],
                remedy=VOICE,
            )
        if kind == "not_found":
            return VoiceError(
                "MODEL_NOT_FOUND",
                f"{self.endpoint}/{self.repo} is not a faster-whisper model: {detail}.",
                suggestions=["Choose one of the models in the list."],
                remedy=VOICE,
            )
        if kind == "refused":
            return VoiceError(
                "MODEL_DOWNLOAD_FAILED",
                f"The model server refused to give the speech model {label!r} (HTTP {detail}).",
                suggestions=["Choose another model.", "Or check the model server set in JAWAD_MODEL_ENDPOINT."],
                remedy=VOICE,
            )
        if kind == "corrupt":
            name, _, problem = detail.partition(": ")
            return VoiceError(
                "MODEL_CORRUPT",
                f"The downloaded file {name} of the speech model {label!r} is damaged: {problem}. "
                "It was deleted.",
                suggestions=["Download the model again.", "If it happens again, the model server may be sending a "
                             "different file than it announces: choose another model or the Whisper API."],
                remedy=VOICE,
            )
        if kind == "revision":
            return VoiceError(
                "MODEL_DOWNLOAD_FAILED",
                f"The model server did not send the version of the speech model {label!r} Jawad trusts: {detail}.",
                suggestions=["Check the model server set in JAWAD_MODEL_ENDPOINT (or HF_ENDPOINT).",
                             "Or choose another model, or use the Whisper API."],
                remedy=VOICE,
            )
        if kind == "not_pinned":
            return VoiceError(
                "MODEL_NOT_PINNED",
                f"The speech model {label!r} is not downloaded: Jawad has no pinned revision and checksums to "
                "check its files against.",
                suggestions=["Choose one of the models in the list.",
                             "Or put the model's files in a folder yourself and choose that folder as the model."],
                remedy=VOICE,
            )
        if kind == "cancelled":
            return VoiceError("MODEL_DOWNLOAD_CANCELLED", f"The download of the speech model {label!r} was cancelled.",
                              suggestions=["Start it again to go on where it stopped."])
        if kind == "disk":
            return VoiceError(
                "MODEL_DOWNLOAD_FAILED",
                f"The speech model {label!r} could not be saved in {self.partial.parent} ({detail}).",
                suggestions=["Free some disk space or check that the folder can be written to, then try "
                             "again: what already arrived is kept."],
                remedy=VOICE,
            )
        return VoiceError(
            "MODEL_DOWNLOAD_FAILED",
            f"The model server could not send the speech model {label!r} (HTTP {detail}).",
            suggestions=["Try again later: what already arrived is kept.", "Or choose 'tiny.en', which works offline."],
            remedy=VOICE,
        )


def download_model(pin: Pin, folder: Path, **options: Any) -> Path:
    """Download the faster-whisper model ``pin`` from the hub into ``folder`` (see ``ModelDownload``)."""
    return ModelDownload(pin, folder, **options).run()
