"""Downloading a faster-whisper model from the Hugging Face hub: resumable and checked (no Qt).

The hub serves each file of a repository at ``{endpoint}/{repo}/resolve/{revision}/{file}``.
A HEAD request to that address (redirects not followed, ``Accept-Encoding: identity``) tells
the file's size and checksum the way huggingface_hub reads them: a large (LFS) file answers
with a redirect carrying ``X-Linked-Size`` and ``X-Linked-Etag`` (its SHA-256); a small one
with 200, ``Content-Length`` and an ``ETag`` that is the git blob SHA-1 of its bytes;
``X-Repo-Commit`` names the commit either way.

``download_model`` fetches the files faster-whisper loads (config.json, model.bin,
tokenizer.json, the vocabulary, and preprocessor_config.json when the repository has one) into
``<folder>.partial/``: each file is written to ``<file>.incomplete`` and continued with a
``Range`` request where it stopped, after a dropped connection (a few times in a row) and on
the next attempt alike. A finished file must have its announced size and checksum, or it is
deleted and the download refused. The manifest (``jawad-model.json``: repository, commit,
each file's size and checksum) is written last and the folder renamed into place, so a model
folder is always complete. Progress is reported in bytes over all files; ``cancel`` stops
between chunks and keeps what arrived for a later resume.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlparse

import httpx

from jawad_desktop.core.voice.errors import VOICE, VoiceError

log = logging.getLogger("jawad.voice")

DEFAULT_ENDPOINT = "https://huggingface.co"
# A mirror of the hub (or a test server): ours first, then huggingface_hub's own variable.
ENDPOINT_ENVS = ("JAWAD_MODEL_ENDPOINT", "HF_ENDPOINT")
REQUIRED_FILES = ("config.json", "model.bin", "tokenizer.json")
OPTIONAL_FILES = ("preprocessor_config.json", "vocabulary.json", "vocabulary.txt")  # one vocabulary is needed
MANIFEST = "jawad-model.json"
PARTIAL_SUFFIX = ".partial"
INCOMPLETE_SUFFIX = ".incomplete"
CHUNK_BYTES = 1 << 20
RETRIES = 4  # a dropped connection is resumed this many times in a row before giving up
RETRY_PAUSE_S = 0.5

# (bytes done, total bytes) -> None; called from the downloading thread.
Progress = Callable[[int, int], None]


def hub_endpoint(endpoint: str | None = None) -> str:
    """The hub to download from: ``endpoint``, else the environment's mirror, else huggingface.co."""
    for candidate in (endpoint, *(os.environ.get(name) for name in ENDPOINT_ENVS)):
        if candidate:
            return candidate.rstrip("/")
    return DEFAULT_ENDPOINT


def resolve_url(endpoint: str, repo: str, revision: str, name: str) -> str:
    return f"{endpoint.rstrip('/')}/{repo}/resolve/{quote(revision, safe='')}/{quote(name)}"


def git_blob_sha1(path: Path) -> str:
    """The git object id of a file's bytes (what the hub's ETag is for a small file)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with path.open("rb") as source:
        while chunk := source.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def _normalize_etag(value: str | None) -> str:
    """``W/"abc"`` or ``"abc"`` -> ``abc`` (as huggingface_hub reads it)."""
    if not value:
        return ""
    return value.strip().removeprefix("W/").strip('"')


@dataclass(frozen=True)
class RemoteFile:
    """One file of the repository as the hub announced it."""

    name: str
    url: str  # where to GET it (the CDN address of a large file)
    size: int
    etag: str  # SHA-256 of a large file, git blob SHA-1 of a small one
    commit: str = ""

    @property
    def algorithm(self) -> str:
        if re.fullmatch(r"[0-9a-f]{64}", self.etag):
            return "sha256"
        if re.fullmatch(r"[0-9a-f]{40}", self.etag):
            return "git-sha1"
        return ""

    def checksum_of(self, path: Path) -> str:
        return sha256_of(path) if self.algorithm == "sha256" else git_blob_sha1(path)


class ModelDownload:
    """One model's download from the hub into ``folder`` (see the module docstring)."""

    def __init__(
        self,
        repo: str,
        folder: Path,
        *,
        label: str = "",
        endpoint: str | None = None,
        revision: str = "main",
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        self.repo = repo
        self.folder = folder
        self.label = label or repo
        self.endpoint = hub_endpoint(endpoint)
        self.revision = revision
        self._progress = progress
        self._cancel = cancel
        self._transport = transport
        self._timeout = httpx.Timeout(timeout_s, connect=10.0)
        self._done = 0
        self._total = 0

    @property
    def partial(self) -> Path:
        return self.folder.with_name(self.folder.name + PARTIAL_SUFFIX)

    def run(self) -> Path:
        """Download (or finish downloading) the model; its folder. Raises ``VoiceError``."""
        if (self.folder / MANIFEST).is_file() and (self.folder / "model.bin").is_file():
            return self.folder
        self.partial.mkdir(parents=True, exist_ok=True)
        with httpx.Client(timeout=self._timeout, transport=self._transport,
                          headers={"User-Agent": "jawad-desktop"}) as client:
            try:
                files = self._list(client)
            except httpx.TransportError as exc:
                raise self._offline(exc) from None
            self._total = sum(f.size for f in files)
            self._done = sum(self._have(f) for f in files)
            self._report()
            try:
                for remote in files:
                    self._fetch(client, remote)
            except OSError as exc:  # a full disk, a folder that cannot be written
                raise VoiceError(
                    "MODEL_DOWNLOAD_FAILED",
                    f"The speech model {self.label!r} could not be saved in {self.partial.parent} "
                    f"({exc.strerror or exc}).",
                    suggestions=["Free some disk space or check that the folder can be written to, then try "
                                 "again: what already arrived is kept."],
                    remedy=VOICE,
                ) from None
        manifest = {
            "repo": self.repo, "revision": self.revision, "commit": files[0].commit, "endpoint": self.endpoint,
            "files": {f.name: {"size": f.size, f.algorithm or "etag": f.etag} for f in files},
        }
        (self.partial / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if self.folder.exists():  # files put there by hand that were not a whole model
            shutil.rmtree(self.folder)
        self.partial.rename(self.folder)
        log.info("speech model %s downloaded from %s (%d bytes)", self.label, self.endpoint, self._total)
        return self.folder

    # --- metadata ------------------------------------------------------------------------------

    def _list(self, client: httpx.Client) -> list[RemoteFile]:
        files: list[RemoteFile] = []
        for name in (*REQUIRED_FILES, *OPTIONAL_FILES):
            remote = self._head(client, name, required=name in REQUIRED_FILES)
            if remote is not None:
                files.append(remote)
        if not any(f.name.startswith("vocabulary.") for f in files):
            raise self._not_a_model("it has no vocabulary file")
        return files

    def _head(self, client: httpx.Client, name: str, *, required: bool) -> RemoteFile | None:
        url = resolve_url(self.endpoint, self.repo, self.revision, name)
        for _ in range(5):  # relative redirects: a renamed repository
            response = client.head(url, headers={"Accept-Encoding": "identity"}, follow_redirects=False)
            linked = response.headers.get("X-Linked-Etag")
            location = response.headers.get("Location")
            if response.is_redirect and location and not linked and not urlparse(location).netloc:
                url = urljoin(url, location)
                continue
            break
        if response.status_code == 404:
            if required:
                raise self._not_a_model(f"it has no {name}")
            return None
        if response.status_code in (401, 403):
            raise VoiceError(
                "MODEL_DOWNLOAD_FAILED",
                f"The model server refused to give the speech model {self.label!r} (HTTP {response.status_code}).",
                suggestions=["Choose another model.", "Or check the model server set in JAWAD_MODEL_ENDPOINT."],
                remedy=VOICE,
            )
        if response.status_code >= 400:
            raise self._server_error(response.status_code)
        etag = _normalize_etag(linked or response.headers.get("ETag"))
        size_text = response.headers.get("X-Linked-Size") or (
            None if response.is_redirect else response.headers.get("Content-Length"))
        if not size_text or not etag:
            raise self._not_a_model(f"the server did not tell the size and checksum of {name}")
        return RemoteFile(
            name=name,
            url=urljoin(url, location) if response.is_redirect and location else url,
            size=int(size_text),
            etag=etag,
            commit=response.headers.get("X-Repo-Commit", ""),
        )

    # --- files ---------------------------------------------------------------------------------

    def _have(self, remote: RemoteFile) -> int:
        """Bytes of ``remote`` already here (a finished file or the start of one)."""
        done = self.partial / remote.name
        if done.is_file():
            return done.stat().st_size
        incomplete = self.partial / (remote.name + INCOMPLETE_SUFFIX)
        return min(incomplete.stat().st_size, remote.size) if incomplete.is_file() else 0

    def _report(self) -> None:
        if self._progress is not None:
            self._progress(self._done, self._total)

    def _fetch(self, client: httpx.Client, remote: RemoteFile) -> None:
        target = self.partial / remote.name
        if target.is_file() and target.stat().st_size == remote.size:
            return  # finished (and checked) by an earlier attempt
        incomplete = self.partial / (remote.name + INCOMPLETE_SUFFIX)
        failures = 0
        while True:
            have = incomplete.stat().st_size if incomplete.is_file() else 0
            if have > remote.size:
                incomplete.unlink()
                self._done -= have
                have = 0
            if have == remote.size:
                break
            try:
                self._get(client, remote, incomplete, have)
            except httpx.TransportError as exc:
                failures += 1
                if failures > RETRIES:
                    raise self._offline(exc) from None
                log.info("download of %s cut off (%s); resuming (%d/%d)", remote.name, type(exc).__name__,
                         failures, RETRIES)
                time.sleep(RETRY_PAUSE_S * failures)
                continue
            failures = 0
        self._verify(remote, incomplete)
        incomplete.rename(target)

    def _get(self, client: httpx.Client, remote: RemoteFile, incomplete: Path, have: int) -> None:
        headers = {"Accept-Encoding": "identity"}
        if have:
            headers["Range"] = f"bytes={have}-"
        with client.stream("GET", remote.url, headers=headers, follow_redirects=True) as response:
            if response.status_code == 416 and have:  # nothing left to send from there: start over
                incomplete.unlink()
                self._done -= have
                return
            if response.status_code >= 400:
                raise self._server_error(response.status_code)
            resumed = response.status_code == 206 and _range_start(response) == have
            if have and not resumed:  # the server sent the whole file again
                self._done -= have
                have = 0
            with incomplete.open("r+b" if resumed else "wb") as out:
                out.seek(have)
                out.truncate()
                for chunk in response.iter_bytes():  # as they arrive: a cut-off keeps every byte
                    if self._cancel is not None and self._cancel.is_set():
                        raise _cancelled(self.label)
                    out.write(chunk)
                    self._done += len(chunk)
                    self._report()

    def _verify(self, remote: RemoteFile, path: Path) -> None:
        size = path.stat().st_size
        problem = ""
        if size != remote.size:
            problem = f"it has {size} bytes instead of {remote.size}"
        elif not remote.algorithm:
            log.warning("no checksum known for %s of %s (ETag %r): only its size was checked",
                        remote.name, self.repo, remote.etag)
        elif remote.checksum_of(path) != remote.etag:
            problem = f"its {'SHA-256' if remote.algorithm == 'sha256' else 'SHA-1'} checksum does not match"
        if not problem:
            return
        path.unlink()
        self._done -= size
        raise VoiceError(
            "MODEL_CORRUPT",
            f"The downloaded file {remote.name} of the speech model {self.label!r} is damaged: {problem}. "
            "It was deleted.",
            suggestions=["Download the model again.", "If it happens again, the model server may be sending a "
                         "different file than it announces: choose another model or the Whisper API."],
            remedy=VOICE,
        )

    # --- errors --------------------------------------------------------------------------------

    def _offline(self, exc: Exception) -> VoiceError:
        host = urlparse(self.endpoint).netloc or self.endpoint
        return VoiceError(
            "MODEL_MISSING_OFFLINE",
            f"The speech model {self.label!r} could not be downloaded: this computer seems to be offline "
            f"or {host} is unreachable ({type(exc).__name__}).",
            suggestions=[
                "Connect to the internet and try the download again: what already arrived is kept and the "
                "download resumes where it stopped.",
                f"Or copy the model's files ({', '.join(REQUIRED_FILES)} and vocabulary.txt or vocabulary.json) "
                f"from {self.endpoint}/{self.repo} into {self.folder}.",
                "Or choose 'tiny.en', which works offline, or use the Whisper API backend.",
            ],
            remedy=VOICE,
        )

    def _not_a_model(self, why: str) -> VoiceError:
        return VoiceError(
            "MODEL_NOT_FOUND",
            f"{self.endpoint}/{self.repo} is not a faster-whisper model: {why}.",
            suggestions=["Choose one of the models in the list (tiny.en, base.en, small.en, distil-small.en...)."],
            remedy=VOICE,
        )

    def _server_error(self, status: int) -> VoiceError:
        return VoiceError(
            "MODEL_DOWNLOAD_FAILED",
            f"The model server could not send the speech model {self.label!r} (HTTP {status}).",
            suggestions=["Try again later: what already arrived is kept.", "Or choose 'tiny.en', which works offline."],
            remedy=VOICE,
        )


def _range_start(response: httpx.Response) -> int:
    """The first byte of a 206 answer (``Content-Range: bytes 100-199/200``); -1 if unreadable."""
    match = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
    return int(match.group(1)) if match else -1


def _cancelled(label: str) -> VoiceError:
    return VoiceError("MODEL_DOWNLOAD_CANCELLED", f"The download of the speech model {label!r} was cancelled.",
                      suggestions=["Start it again to go on where it stopped."])


def download_model(repo: str, folder: Path, **options: Any) -> Path:
    """Download the faster-whisper model ``repo`` from the hub into ``folder`` (see ``ModelDownload``)."""
    return ModelDownload(repo, folder, **options).run()
