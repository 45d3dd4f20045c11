"""WebGames (``convergence-ai/webgames`` on GitHub, Apache-2.0), built and served on loopback for the
task benchmark: about 150 single-page web challenges, each showing a password once solved.

Nothing of it is committed here. ``built()`` takes the repository's newest commit from a local git
directory (``JAWAD_WEBGAMES_GIT``, by default the session mirror ``/work/.mirror/convergence-ai+webgames/repo``;
a plain clone works too), extracts ``webgames/`` and ``analysis/`` into a cache folder outside git
(``$XDG_CACHE_HOME/jawad-desktop-bench/webgames/<commit>``), runs ``npm install`` and ``npm run build``
there once per commit, and returns the built folder. Without a git directory it says the exact command
that fetches one. ``serve()`` serves the built files on 127.0.0.1 with the fallback a single-page app
needs (any path without a file answers ``index.html``). ``tasks()`` reads the suite's own task list
(``analysis/webgames_tasks.jsonl``: path, title, description, password...).

Run by hand: ``python -m benchmarks.webgames`` builds (if needed) and prints the served URL until Ctrl+C.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import subprocess
import tarfile
import threading
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

log = logging.getLogger("jawad.bench.webgames")

MIRROR = Path("/work/.mirror/convergence-ai+webgames/repo")
REPOSITORY = "https://github.com/convergence-ai/webgames"


class WebGamesMissing(RuntimeError):
    """The suite's sources are not on this machine, or its build failed: the message says what to do."""


@dataclass(frozen=True)
class WebGame:
    """One task of the suite's list."""

    id: str
    path: str  # the route, "maze/*" for the ones with sub-routes
    title: str
    description: str
    password: str
    difficulty: str
    base_task: str

    @property
    def route(self) -> str:
        return "/" + self.path.split("/*", 1)[0]


def git_dir() -> Path:
    """The WebGames git directory this machine has (``JAWAD_WEBGAMES_GIT`` or the mirror)."""
    chosen = Path(os.environ.get("JAWAD_WEBGAMES_GIT") or MIRROR)
    if (chosen / "HEAD").exists() or (chosen / ".git").exists():
        return chosen / ".git" if (chosen / ".git").is_dir() else chosen
    raise WebGamesMissing(
        f"The WebGames sources are not at {chosen}. Fetch them with:\n"
        f"    git clone --bare {REPOSITORY} ~/webgames.git\n"
        "and run again with JAWAD_WEBGAMES_GIT=~/webgames.git")


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "jawad-desktop-bench" / "webgames"


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={repo}", *args], check=True, capture_output=True).stdout


def source() -> Path:
    """The suite's ``webgames/`` and ``analysis/`` of the newest commit, extracted into the cache."""
    repo = git_dir()
    commit = _git(repo, "rev-parse", "HEAD").decode().strip()
    folder = cache_root() / commit[:12]
    if not (folder / "analysis" / "webgames_tasks.jsonl").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = folder / "source.tar"
        archive.write_bytes(_git(repo, "archive", "--format=tar", commit, "webgames", "analysis", "LICENSE"))
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        archive.unlink()
    return folder


def built() -> Path:
    """The built static site (``webgames/dist``), built once per commit."""
    folder = source()
    app = folder / "webgames"
    dist = app / "dist"
    if (dist / "index.html").exists():
        return dist
    npm = shutil.which("npm")
    if npm is None:
        raise WebGamesMissing("Building WebGames needs Node.js and npm (Node 20 or newer): install them and run again.")
    for step in (["install", "--no-audit", "--no-fund"], ["run", "build"]):
        log.info("webgames: npm %s in %s", " ".join(step), app)
        done = subprocess.run([npm, *step], cwd=app, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-2000:]
            raise WebGamesMissing(f"npm {' '.join(step)} failed in {app}:\n{tail}")
    if not (dist / "index.html").exists():
        raise WebGamesMissing(f"npm run build left no {dist / 'index.html'}")
    return dist


def tasks() -> list[WebGame]:
    """The suite's own task list, in its order."""
    out = []
    for line in (source() / "analysis" / "webgames_tasks.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        out.append(WebGame(id=d["id"], path=d["path"], title=d["title"], description=d.get("description", ""),
                           password=d["password"], difficulty=d.get("difficulty", ""),
                           base_task=d.get("base_task", d["id"])))
    return out


class _SinglePageHandler(SimpleHTTPRequestHandler):
    """Static files; a path that names no file gets ``index.html`` (the app's router takes it from there)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if not path.exists():
            self.path = "/index.html"
        return super().send_head()


class Site:
    """The built suite served on 127.0.0.1 from a daemon thread; ``with Site() as site: site.url(route)``."""

    def __init__(self, dist: Path | None = None) -> None:
        self.dist = dist or built()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0),
                                           functools.partial(_SinglePageHandler, directory=str(self.dist)))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, route: str) -> str:
        return self.base + route

    def __enter__(self) -> Site:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def main() -> int:
    import time
    logging.basicConfig(level=logging.INFO)
    try:
        with Site() as site:
            print(f"WebGames served at {site.base} (Ctrl+C stops)", flush=True)
            while True:
                time.sleep(3600)
    except WebGamesMissing as missing:
        print(missing)
        return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
