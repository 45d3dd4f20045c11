"""Downloading files of a Hugging Face hub repository: resumable, checked, cancellable (no Qt).

The one downloader of the app: speech models (``core.voice.whisper_download``) and GGUF language models
(``core.llm.local_models``) both fetch through ``HubDownload``, always for a ``Pin``
(``core.store.pins``): the URL names the pin's revision (a commit), never ``main``, and the hub
must answer with that commit (``X-Repo-Commit``). A pin without a revision or a SHA-256 for each
file is refused before anything is asked (``not_pinned``).

The hub serves each file of a repository at ``{endpoint}/{repo}/resolve/{revision}/{file}``.
A HEAD request to that address (redirects not followed, ``Accept-Encoding: identity``) tells
the file's size and checksum the way huggingface_hub reads them: a large (LFS) file answers
with a redirect carrying ``X-Linked-Size`` and ``X-Linked-Etag`` (its SHA-256); a small one
with 200, ``Content-Length`` and an ``ETag`` that is the git blob SHA-1 of its bytes;
``X-Repo-Commit`` names the commit either way.

Each file is written to ``<folder>/<file>.incomplete`` and continued with a ``Range`` request
where it stopped, after a dropped connection (a few times in a row) and on the next attempt
alike. A finished file must have its announced size, the pin's SHA-256 where the pin has one,
and the checksum the hub announced; a file the hub announces no checksum for is refused too. A
file that fails is deleted and the download refused; only then is it renamed to ``<folder>/<file>``,
and its SHA-256 is kept in ``checked`` (with the commit in ``commit``) for the caller to record.
Progress is reported in bytes over all files; ``cancel`` stops between chunks and keeps what arrived for a later resume.
The failures are ``HubError``s; a subclass words them for what it downloads (``_error``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urljoin, urlparse

import httpx

from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.pins import Pin, sha256_of

log = logging.getLogger("jawad.store.hub")

DEFAULT_ENDPOINT = "https://huggingface.co"
# A mirror of the hub (or a test server): ours first, then huggingface_hub's own variable.
ENDPOINT_ENVS = ("JAWAD_MODEL_ENDPOINT", "HF_ENDPOINT")
INCOMPLETE_SUFFIX = ".incomplete"
CHUNK_BYTES = 1 << 20
RETRIES = 4  # a dropped connection is resumed this many times in a row before giving up
RETRY_PAUSE_S = 0.5

# (bytes done, total bytes) -> None; called from the downloading thread.
Progress = Callable[[int, int], None]

HubErrorCode = Literal[
    "HUB_OFFLINE",  # the hub could not be reached (what arrived is kept)
    "HUB_NOT_FOUND",  # the repository or a required file does not exist
    "HUB_REFUSED",  # 401/403: gated or private
    "HUB_SERVER",  # another HTTP failure
    "HUB_CORRUPT",  # size or checksum differ from the pin or what the hub announced (the file was deleted)
    "HUB_REVISION",  # the hub answered with another commit than the pinned one
    "HUB_NOT_PINNED",  # Jawad knows no revision and SHA-256 for it: nothing is asked
    "HUB_CANCELLED",
    "HUB_DISK",  # the file could not be written
]
# What went wrong, for a subclass's wording (``HubDownload._error``).
FailureKind = Literal["offline", "not_found", "refused", "server", "corrupt", "revision", "cancelled", "disk",
                      "not_pinned"]
_CODES: dict[FailureKind, HubErrorCode] = {
    "offline": "HUB_OFFLINE", "not_found": "HUB_NOT_FOUND", "refused": "HUB_REFUSED", "server": "HUB_SERVER",
    "corrupt": "HUB_CORRUPT", "revision": "HUB_REVISION", "cancelled": "HUB_CANCELLED", "disk": "HUB_DISK",
    "not_pinned": "HUB_NOT_PINNED",
}


class HubError(JawadError):
    """A download from the hub failed; ``code`` says how (stable, for the UI and tests)."""

    def __init__(self, code: HubErrorCode, message: str, *, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.code = code


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


class HubDownload:
    """Files of one pinned hub repository, downloaded into ``folder`` (see the module docstring).

    Use: ``with download.session() as client``, ``remote(client, name)`` for each file, then
    ``fetch(client, files)``. ``label`` names the download in messages.
    """

    def __init__(
        self,
        pin: Pin,
        folder: Path,
        *,
        label: str = "",
        endpoint: str | None = None,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout_s: float = 30.0,
        network: NetworkSettings | None = None,
    ) -> None:
        self.pin = pin
        self._network = network  # Settings → Network: proxy, CA bundle (core.config.network)
        self.repo = pin.repo
        self.folder = folder
        self.label = label or pin.repo
        self.endpoint = hub_endpoint(endpoint)
        self.revision = self.commit = pin.revision  # the commit every file comes from
        self.checked: dict[str, str] = {}  # file name -> the SHA-256 it was checked to have
        self._progress = progress
        self._cancel = cancel
        self._transport = transport
        self._timeout = httpx.Timeout(timeout_s, connect=10.0)
        self._done = 0
        self._total = 0
        self.resumed_from: list[int] = []  # the first byte of each resumed request (measured by benchmarks)
        if not pin.fully_pinned:
            raise self._error("not_pinned")

    # --- wording (a subclass says what it downloads) ------------------------------------------

    def _error(self, kind: FailureKind, detail: str = "") -> JawadError:
        """The failure ``kind`` as the user is told it; ``detail``: the status, the reason, the exception."""
        host = urlparse(self.endpoint).netloc or self.endpoint
        what = f"{self.label!r}"
        messages: dict[FailureKind, tuple[str, list[str]]] = {
            "offline": (f"{what} could not be downloaded: this computer seems to be offline or {host} is "
                        f"unreachable ({detail}).",
                        ["Connect to the internet and try the download again: what already arrived is kept "
                         "and the download resumes where it stopped."]),
            "not_found": (f"{self.endpoint}/{self.repo} cannot be downloaded: {detail}.",
                          ["Check the repository and file name."]),
            "refused": (f"The model server refused to give {what} (HTTP {detail}).",
                        ["The repository may be gated or private: accept its licence on the hub, or choose "
                         "another model."]),
            "server": (f"The model server could not send {what} (HTTP {detail}).",
                       ["Try again later: what already arrived is kept."]),
            "corrupt": (f"The downloaded file of {what} is damaged: {detail}. It was deleted.",
                        ["Download it again.", "If it happens again, the server may be sending a different "
                         "file than it announces: choose another model."]),
            "revision": (f"{host} did not send the version of {what} Jawad trusts: {detail}.",
                         ["Check the model server set in JAWAD_MODEL_ENDPOINT (or HF_ENDPOINT): it must serve "
                          "the pinned revision.", "Or choose another model."]),
            "cancelled": (f"The download of {what} was cancelled.", ["Start it again to go on where it stopped."]),
            "not_pinned": (f"{what} cannot be downloaded: Jawad has no pinned revision and checksum to check "
                           f"its files against.", ["Choose a model Jawad offers.",
                                                    "Or put the files in place yourself: that is your own "
                                                    "choice, and Jawad does not check them."]),
            "disk": (f"{what} could not be saved in {self.folder} ({detail}).",
                     ["Free some disk space or check that the folder can be written to, then try again: what "
                      "already arrived is kept."]),
        }
        message, tips = messages[kind]
        return HubError(_CODES[kind], message, suggestions=tips)

    # --- metadata ------------------------------------------------------------------------------

    @contextmanager
    def session(self) -> Iterator[httpx.Client]:
        """An HTTP client for the download; a file system failure inside becomes a ``disk`` error."""
        options = client_options(self._network, self.endpoint, timeout=self._timeout)
        with httpx.Client(transport=self._transport, headers={"User-Agent": "jawad-desktop"}, **options) as client:
            try:
                yield client
            except OSError as exc:  # a full disk, a folder that cannot be written
                raise self._error("disk", str(exc.strerror or exc)) from None

    def remote(self, client: httpx.Client, name: str, *, required: bool = True) -> RemoteFile | None:
        """What the hub announces for ``name`` (HEAD); None for a missing optional file."""
        try:
            return self._head(client, name, required=required)
        except httpx.TransportError as exc:
            raise self._error("offline", type(exc).__name__) from None

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
                raise self._error("not_found", f"it has no {name}")
            return None
        if response.status_code in (401, 403):
            raise self._error("refused", str(response.status_code))
        if response.status_code >= 400:
            raise self._error("server", str(response.status_code))
        etag = _normalize_etag(linked or response.headers.get("ETag"))
        size_text = response.headers.get("X-Linked-Size") or (
            None if response.is_redirect else response.headers.get("Content-Length"))
        if not size_text or not etag:
            raise self._error("not_found", f"the server did not tell the size and checksum of {name}")
        commit = response.headers.get("X-Repo-Commit", "")
        if self.commit and commit and commit != self.commit:
            raise self._error("revision", f"it answered with commit {commit[:12]} instead of {self.commit[:12]}")
        return RemoteFile(
            name=name,
            url=urljoin(url, location) if response.is_redirect and location else url,
            size=int(size_text),
            etag=etag,
            commit=commit or self.commit,
        )

    # --- files ---------------------------------------------------------------------------------

    def fetch(self, client: httpx.Client, files: list[RemoteFile]) -> None:
        """Download ``files`` into the folder (each checked, then renamed into place)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._total = sum(f.size for f in files)
        self._done = sum(self._have(f) for f in files)
        self._report()
        for remote in files:
            self._fetch(client, remote)

    def _have(self, remote: RemoteFile) -> int:
        """Bytes of ``remote`` already here (a finished file or the start of one)."""
        done = self.folder / remote.name
        if done.is_file():
            return done.stat().st_size
        incomplete = self.folder / (remote.name + INCOMPLETE_SUFFIX)
        return min(incomplete.stat().st_size, remote.size) if incomplete.is_file() else 0

    def _report(self) -> None:
        if self._progress is not None:
            self._progress(self._done, self._total)

    def _fetch(self, client: httpx.Client, remote: RemoteFile) -> None:
        target = self.folder / remote.name
        if target.is_file() and target.stat().st_size == remote.size:
            self.checked[remote.name] = self._sha256(remote, target)  # finished by an earlier attempt
            return
        incomplete = self.folder / (remote.name + INCOMPLETE_SUFFIX)
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
                    raise self._error("offline", type(exc).__name__) from None
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
            self.resumed_from.append(have)
        with client.stream("GET", remote.url, headers=headers, follow_redirects=True) as response:
            if response.status_code == 416 and have:  # nothing left to send from there: start over
                incomplete.unlink()
                self._done -= have
                return
            if response.status_code >= 400:
                raise self._error("server", str(response.status_code))
            resumed = response.status_code == 206 and _range_start(response) == have
            if have and not resumed:  # the server sent the whole file again
                self._done -= have
                have = 0
            with incomplete.open("r+b" if resumed else "wb") as out:
                out.seek(have)
                out.truncate()
                for chunk in response.iter_bytes():  # as they arrive: a cut-off keeps every byte
                    if self._cancel is not None and self._cancel.is_set():
                        raise self._error("cancelled")
                    out.write(chunk)
                    self._done += len(chunk)
                    self._report()

    def _sha256(self, remote: RemoteFile, path: Path) -> str:
        return remote.etag if remote.algorithm == "sha256" else sha256_of(path)

    def _verify(self, remote: RemoteFile, path: Path) -> None:
        size = path.stat().st_size
        pinned = self.pin.sha256(remote.name)
        problem = ""
        if size != remote.size:
            problem = f"it has {size} bytes instead of {remote.size}"
        elif not remote.algorithm:
            problem = f"the server announced no checksum for it (ETag {remote.etag[:20]!r})"
        elif remote.checksum_of(path) != remote.etag:
            problem = f"its {'SHA-256' if remote.algorithm == 'sha256' else 'SHA-1'} checksum does not match"
        elif pinned and self._sha256(remote, path) != pinned:
            problem = "its SHA-256 checksum does not match the one Jawad pins"
        if not problem:
            self.checked[remote.name] = self._sha256(remote, path)
            return
        path.unlink()
        self._done -= size
        raise self._error("corrupt", f"{remote.name}: {problem}")


def _range_start(response: httpx.Response) -> int:
    """The first byte of a 206 answer (``Content-Range: bytes 100-199/200``); -1 if unreadable."""
    match = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
    return int(match.group(1)) if match else -1
