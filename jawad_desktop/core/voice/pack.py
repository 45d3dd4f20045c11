"""The voice pack: the packaged app's offline speech engine, installed on demand (no Qt).

The packaged app (the Linux PyInstaller bundle) ships the Python code of faster-whisper,
CTranslate2, PyAV and tokenizers but not their native half: the extension modules, the
libraries vendored next to them (``ctranslate2.libs``, ``av.libs``) and the tiny.en model.
Those form the voice pack, ``jawad-desktop-voice-<version>-linux-x86_64.tar.gz``, published
next to each release; the bundle's ``jawad_desktop/voice-pack.json`` names that file, its size
and its SHA-256 (``bundled_release``). A source install has faster-whisper as a normal
dependency and needs none of this.

This module owns:

- where a pack lives: ``<data>/voice-pack/<app version>/``, its files in the bundle's own
  layout (so each library's RUNPATH, e.g. ``$ORIGIN/../av.libs``, still finds its
  neighbours) with the pack's ``manifest.json`` (extension module -> file, the model folder);
- ``VoicePack.install``: download (or copy) the archive, check its SHA-256 (an archive this build
  has no SHA-256 for is refused, never installed after a warning), unpack it safely
  and move it into place with one rename, leaving nothing behind when anything fails or the
  user cancels; ``remove``; ``status``;
- ``VoicePack.activate``: in the packaged app, a finder first on ``sys.meta_path`` that loads
  the pack's extension modules, so ``import faster_whisper`` works as in a source install;
- ``local_engine_error``: the "not installed" error every voice path shows instead of an
  ImportError.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import shutil
import sys
import tarfile
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from jawad_desktop import __version__
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.install import packaged
from jawad_desktop.core.voice.errors import VOICE, VoiceError

if TYPE_CHECKING:
    from jawad_desktop.core.store.paths import AppPaths

log = logging.getLogger("jawad.voice.pack")

PACK_FOLDER = "voice-pack"  # under the app's data folder
MANIFEST = "manifest.json"  # at the top of a pack
RELEASE_FILE = "voice-pack.json"  # in the bundle's jawad_desktop folder
MANIFEST_FORMAT = 1
# Where a release's pack is published; JAWAD_VOICE_PACK_URL overrides it (a mirror, a test
# server). Both may use {version} and {file}.
URL_TEMPLATE = "https://github.com/jawad-desktop/jawad-desktop/releases/download/v{version}/{file}"
URL_ENV = "JAWAD_VOICE_PACK_URL"
# The packages whose native half the pack holds (faster_whisper imports the next three;
# onnxruntime runs Silero voice activity detection, core.voice.vad).
ENGINE_PACKAGES = ("faster_whisper", "ctranslate2", "av", "tokenizers", "onnxruntime")
CHUNK_BYTES = 1 << 20
MB = 1_000_000

# (bytes done, total bytes or 0) -> None; called from the installing thread.
Progress = Callable[[int, int], None]


def _frozen() -> bool:
    return packaged()


@dataclass(frozen=True)
class PackRelease:
    """The voice pack a packaged app was built with (its ``voice-pack.json``)."""

    app_version: str
    file: str
    sha256: str = ""  # empty when the bundle was made without packaging/build
    bytes: int = 0  # of the .tar.gz
    unpacked_bytes: int = 0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PackRelease:
        return cls(
            app_version=str(data["app_version"]),
            file=str(data["file"]),
            sha256=str(data.get("sha256") or ""),
            bytes=int(data.get("bytes") or 0),
            unpacked_bytes=int(data.get("unpacked_bytes") or 0),
        )


@lru_cache(maxsize=1)
def bundled_release() -> PackRelease | None:
    """The pack this app was built with; None for a source install or a bundle that carries
    its engine itself (the file exists only in a bundle built without the native half)."""
    path = Path(__file__).resolve().parents[2] / RELEASE_FILE
    try:
        return PackRelease.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("unreadable %s: %s", path, exc)
        return None


def _size_text(release: PackRelease | None) -> str:
    if release is None or not release.bytes:
        return "voice pack"
    return f"voice pack, ~{round(release.bytes / MB)} MB download"


def not_installed_error(release: PackRelease | None) -> VoiceError:
    """What every voice path says when the packaged app has no voice pack yet."""
    return VoiceError(
        "VOICE_PACK_MISSING",
        f"Offline speech is not installed ({_size_text(release)}).",
        suggestions=["Install offline speech (the voice pack).", "Or use the Whisper API for transcription instead."],
        remedy=VOICE,
    )


@dataclass(frozen=True)
class PackStatus:
    """What ``jawad voice-pack status`` and Settings → Voice show."""

    required: bool  # this app needs a pack for offline speech (a packaged app)
    installed: bool  # a pack for this version is in place and complete
    active: bool  # its modules are loaded from it in this process
    folder: Path
    app_version: str
    download_bytes: int
    installed_bytes: int
    url: str
    problem: str = ""  # why the pack in place cannot be used

    def as_dict(self) -> dict[str, Any]:
        return {
            "required": self.required, "installed": self.installed, "active": self.active,
            "folder": str(self.folder), "app_version": self.app_version, "download_bytes": self.download_bytes,
            "installed_bytes": self.installed_bytes, "url": self.url, "problem": self.problem,
        }


class PackFinder(importlib.abc.MetaPathFinder):
    """Finds the pack's extension modules (``ctranslate2._ext``, ``av.audio.frame``, ...) in
    its folder; their packages' Python code comes from wherever it is (the bundle's archive)."""

    def __init__(self, folder: Path, modules: Mapping[str, str]) -> None:
        self.folder = folder
        self.modules = dict(modules)

    @classmethod
    def for_folder(cls, folder: Path) -> PackFinder:
        """The finder of the pack unpacked in ``folder`` (its manifest names the modules)."""
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return cls(folder, manifest["modules"])

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        relative = self.modules.get(fullname)
        if relative is None:
            return None
        location = str(self.folder / relative)
        loader = importlib.machinery.ExtensionFileLoader(fullname, location)
        return importlib.util.spec_from_file_location(fullname, location, loader=loader)


_active: PackFinder | None = None  # the finder activate() put on sys.meta_path
_lock = threading.Lock()


def local_engine_error() -> VoiceError | None:
    """Why local transcription cannot run in this process (a packaged app whose voice pack is
    not installed), or None when it can (a source install, or the pack is active)."""
    if not _frozen() or _active is not None:
        return None
    release = bundled_release()
    if release is None:  # a bundle that carries the engine itself
        return None
    return not_installed_error(release)


def engine_import_error(exc: ImportError) -> VoiceError:
    """An ImportError of the local engine as the user is told about it."""
    missing = local_engine_error()
    if missing is not None:
        return missing
    return VoiceError(
        "MODEL_LOAD_FAILED",
        f"The offline speech engine could not be loaded ({type(exc).__name__}: {exc}).",
        suggestions=[
            "Reinstall Jawad (from source: pip install --force-reinstall faster-whisper)."
            if not _frozen() else "Reinstall offline speech: remove the voice pack, then install it again.",
            "Or use the Whisper API for transcription instead.",
        ],
        remedy=VOICE,
    )


def active_model_path() -> Path | None:
    """The tiny.en model folder of the active pack, if any."""
    finder = _active
    if finder is None:
        return None
    try:
        manifest = json.loads((finder.folder / MANIFEST).read_text(encoding="utf-8"))
        path = finder.folder / str(manifest["model"])
    except (OSError, ValueError, KeyError):
        return None
    return path if (path / "model.bin").is_file() else None


def active_pack_file(relative: str) -> Path | None:
    """A file of the active pack by its bundle-relative path (Silero's model:
    ``faster_whisper/assets/silero_vad_v6.onnx``), if the pack holds it."""
    finder = _active
    path = finder.folder / relative if finder is not None else None
    return path if path is not None and path.is_file() else None


def _is_url(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https")


def _local_path(source: str | Path) -> Path:
    text = str(source)
    if text.startswith("file://"):
        return Path(unquote(urlparse(text).path))
    return Path(text).expanduser()


class VoicePack:
    """The voice pack of one app version, in ``root/<version>``."""

    def __init__(
        self,
        root: Path,
        *,
        version: str = __version__,
        release: PackRelease | None = None,
        required: bool = False,
        url: str | None = None,
    ) -> None:
        self.root = root
        self.version = version
        self.release = release
        self.required = required
        self._url = url

    @classmethod
    def for_app(cls, paths: AppPaths) -> VoicePack:
        """This app's pack, under its data folder."""
        release = bundled_release()
        return cls(paths.data / PACK_FOLDER, release=release, required=_frozen() and release is not None)

    @property
    def folder(self) -> Path:
        return self.root / self.version

    @property
    def url(self) -> str:
        """Where ``install()`` downloads from without a source."""
        if self._url:
            return self._url
        if self.release is None:
            return ""
        template = os.environ.get(URL_ENV) or URL_TEMPLATE
        return template.replace("{version}", self.version).replace("{file}", self.release.file)

    # --- state ---------------------------------------------------------------------------------

    def _check(self) -> tuple[dict[str, Any] | None, str]:
        """(the manifest of the pack in place, why it cannot be used)."""
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None, ""
        except (OSError, ValueError) as exc:
            return None, f"its manifest cannot be read ({exc})"
        if not isinstance(manifest, dict) or not isinstance(manifest.get("modules"), dict):
            return None, "its manifest is not a voice pack manifest"
        if manifest.get("app_version") != self.version:
            return None, f"it was made for Jawad {manifest.get('app_version')}, not {self.version}"
        missing = [rel for rel in manifest["modules"].values() if not (self.folder / str(rel)).is_file()]
        model = self.folder / str(manifest.get("model", "")) / "model.bin"
        if missing or not model.is_file():
            return None, "some of its files are missing"
        return manifest, ""

    def status(self) -> PackStatus:
        manifest, problem = self._check()
        active = _active is not None and _active.folder == self.folder
        files = self.folder.rglob("*") if self.folder.is_dir() else iter(())
        installed_bytes = sum(p.stat().st_size for p in files if p.is_file() and not p.is_symlink())
        return PackStatus(
            required=self.required,
            installed=manifest is not None,
            active=active,
            folder=self.folder,
            app_version=self.version,
            download_bytes=self.release.bytes if self.release else 0,
            installed_bytes=installed_bytes,
            url=self.url,
            problem=problem,
        )

    def missing_error(self) -> VoiceError:
        return not_installed_error(self.release)

    # --- activation ----------------------------------------------------------------------------

    def activate(self) -> bool:
        """In the packaged app, load the engine's extension modules from this pack from now on.

        True when the pack is active (now or already). A source install imports its engine
        from site-packages and never activates a pack.
        """
        global _active
        if not _frozen():
            return False
        manifest, problem = self._check()
        if manifest is None:
            if problem:
                log.warning("voice pack in %s not used: %s", self.folder, problem)
            return False
        with _lock:
            if _active is not None and _active.folder == self.folder:
                return True
            if _active is not None:
                with contextlib.suppress(ValueError):
                    sys.meta_path.remove(_active)
            finder = PackFinder(self.folder, manifest["modules"])
            sys.meta_path.insert(0, finder)
            _active = finder
            # A package imported before the pack was there (ctranslate2 imports without its
            # extension) would stay half-loaded: import it again through the finder.
            for name in [n for n in sys.modules if n.split(".", 1)[0] in ENGINE_PACKAGES]:
                del sys.modules[name]
        log.info("voice pack active: %s", self.folder)
        return True

    def _deactivate(self) -> None:
        global _active
        with _lock:
            if _active is not None and _active.folder == self.folder:
                with contextlib.suppress(ValueError):
                    sys.meta_path.remove(_active)
                _active = None

    # --- install and remove --------------------------------------------------------------------

    def install(
        self,
        source: str | Path | None = None,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        network: NetworkSettings | None = None,
    ) -> PackStatus:
        """Install the pack from ``source`` (a URL or a local .tar.gz; default: ``self.url``),
        downloaded through Settings → Network's proxy, CA bundle and timeouts (``network``).

        The archive is checked against the SHA-256 the app carries before anything is
        unpacked, unpacked beside the final folder and moved into place in one rename: a
        failure, a full disk or ``cancel`` leaves the previous state untouched. Raises
        ``VoiceError``.
        """
        source = str(source) if source else self.url
        if not source:
            raise VoiceError(
                "VOICE_PACK_DOWNLOAD_FAILED",
                "This installation does not know where to download its voice pack from.",
                suggestions=[f"Install it from a file ({self._file_name()})."],
                remedy=VOICE,
            )
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._remove_leftovers()
        self._check_free_space()
        work = Path(tempfile.mkdtemp(prefix=f".{self.version}-installing-", dir=self.root))
        try:
            archive = work / "pack.tar.gz"
            digest = self._fetch(source, archive, progress, cancel, network)
            self._verify(archive, digest)
            unpacked = self._unpack(archive, work / "unpacked", cancel)
            archive.unlink()
            self._move_into_place(unpacked, work)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise self._no_space() from None
            raise VoiceError(
                "VOICE_PACK_DOWNLOAD_FAILED",
                f"The voice pack could not be installed in {self.root} ({exc.strerror or exc}).",
                suggestions=["Check that the folder can be written to, then try again."],
            ) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self._remove_other_versions()
        self.activate()
        log.info("voice pack installed in %s from %s", self.folder, source)
        return self.status()

    def remove(self) -> bool:
        """Delete every installed voice pack; True if there was one. Modules already loaded
        from it stay usable until the app ends."""
        self._deactivate()
        existed = self.folder.is_dir()
        shutil.rmtree(self.root, ignore_errors=True)
        return existed

    def _remove_leftovers(self) -> None:
        """Folders of an install that was killed midway (hidden, never a usable pack)."""
        for entry in self.root.iterdir():
            if entry.name.startswith(".") and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)

    def _remove_other_versions(self) -> None:
        for entry in self.root.iterdir():
            if entry.is_dir() and entry.name != self.version and not entry.name.startswith("."):
                shutil.rmtree(entry, ignore_errors=True)

    def _needed_bytes(self) -> int:
        return (self.release.bytes + self.release.unpacked_bytes) if self.release else 0

    def _no_space(self) -> VoiceError:
        need = self._needed_bytes()
        amount = f"about {round(need / MB)} MB" if need else "a few hundred MB"
        return VoiceError(
            "VOICE_PACK_NO_SPACE",
            f"There is not enough free disk space to install the voice pack: it needs {amount} in {self.root}.",
            suggestions=["Free some disk space, then try again.", "Or use the Whisper API for transcription instead."],
            remedy=VOICE,
        )

    def _check_free_space(self) -> None:
        need = self._needed_bytes()
        if need and shutil.disk_usage(self.root).free < need:
            raise self._no_space()

    def _fetch(self, source: str, target: Path, progress: Progress | None, cancel: threading.Event | None,
               network: NetworkSettings | None = None) -> str:
        """Copy or download ``source`` to ``target``; returns its SHA-256."""
        digest = hashlib.sha256()
        done = 0

        def take(chunk: bytes, out: Any, total: int) -> None:
            nonlocal done
            if cancel is not None and cancel.is_set():
                raise _cancelled()
            out.write(chunk)
            digest.update(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)

        if not _is_url(source):
            path = _local_path(source)
            if not path.is_file():
                raise VoiceError(
                    "VOICE_PACK_DOWNLOAD_FAILED",
                    f"The voice pack file {str(path)!r} does not exist.",
                    suggestions=[f"Check the file name: the pack is called {self._file_name()}."],
                )
            total = path.stat().st_size
            with path.open("rb") as src, target.open("wb") as out:
                while chunk := src.read(CHUNK_BYTES):
                    take(chunk, out, total)
            return digest.hexdigest()

        import httpx

        from jawad_desktop.core.config.network import client_options

        options = client_options(network, source, timeout=httpx.Timeout(30.0, connect=10.0))
        try:
            with httpx.Client(follow_redirects=True, **options) as client, client.stream("GET", source) as r:
                if r.status_code >= 400:
                    raise self._http_error(source, r.status_code)
                total = int(r.headers.get("content-length") or 0) or (self.release.bytes if self.release else 0)
                with target.open("wb") as out:
                    for chunk in r.iter_bytes(CHUNK_BYTES):
                        take(chunk, out, total)
        except httpx.HTTPError as exc:
            raise VoiceError(
                "VOICE_PACK_DOWNLOAD_FAILED",
                f"The voice pack could not be downloaded from {source}: this computer seems to be offline "
                f"or the server is unreachable ({type(exc).__name__}).",
                suggestions=[
                    "Connect to the internet and try again.",
                    f"Or download {self._file_name()} yourself and install it from the file.",
                    "Or use the Whisper API for transcription instead.",
                ],
                remedy=VOICE,
            ) from None
        return digest.hexdigest()

    def _file_name(self) -> str:
        return self.release.file if self.release else f"jawad-desktop-voice-{self.version}-<platform>.tar.gz"

    def _http_error(self, source: str, status: int) -> VoiceError:
        what = "was not found" if status == 404 else "could not be downloaded"
        return VoiceError(
            "VOICE_PACK_DOWNLOAD_FAILED",
            f"The voice pack {what} at {source} (HTTP {status}).",
            suggestions=[
                f"Download {self._file_name()} from the release page and install it from the file.",
                f"A mirror can be set with the environment variable {URL_ENV}.",
            ],
            remedy=VOICE,
        )

    def _corrupt(self, why: str) -> VoiceError:
        return VoiceError(
            "VOICE_PACK_CORRUPT",
            f"The voice pack is damaged or not the one made for Jawad {self.version}: {why}.",
            suggestions=[
                "Download it again and retry.",
                f"The file for this version is {self._file_name()}.",
            ],
        )

    def _verify(self, archive: Path, digest: str) -> None:
        release = self.release
        if release is not None and release.bytes and archive.stat().st_size != release.bytes:
            raise self._corrupt(f"it has {archive.stat().st_size} bytes instead of {release.bytes}")
        if release is None or not release.sha256:
            raise VoiceError(
                "VOICE_PACK_UNCHECKED",
                f"The voice pack was not installed: this build of Jawad {self.version} has no SHA-256 checksum "
                "to check it against, and an unchecked voice pack is never loaded.",
                suggestions=["Install Jawad from a release built with packaging/build (it records the voice pack's "
                             "checksum), then install offline speech again.",
                             "Or use the Whisper API for transcription instead."],
                remedy=VOICE,
            )
        if digest != release.sha256:
            raise self._corrupt("its SHA-256 checksum does not match")

    def _unpack(self, archive: Path, into: Path, cancel: threading.Event | None) -> Path:
        """Unpack ``archive`` under ``into`` (no path outside it, no devices or links out:
        tarfile's "data" filter) and return the pack's folder, its manifest checked."""
        into.mkdir()
        try:
            with tarfile.open(archive, "r:gz") as tar:
                for member in tar:
                    if cancel is not None and cancel.is_set():
                        raise _cancelled()
                    tar.extract(member, into, filter="data")
        except (tarfile.TarError, EOFError, ValueError) as exc:  # FilterError is a TarError
            raise self._corrupt(f"it is not a readable archive ({type(exc).__name__}: {exc})") from None
        tops = list(into.iterdir())
        top = tops[0] if len(tops) == 1 and tops[0].is_dir() else into
        try:
            manifest = json.loads((top / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise self._corrupt(f"it has no {MANIFEST}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
            raise self._corrupt(f"its {MANIFEST} is not a voice pack manifest")
        if manifest.get("app_version") != self.version:
            raise self._corrupt(f"it was made for Jawad {manifest.get('app_version')}")
        modules = manifest.get("modules")
        if not isinstance(modules, dict) or any(not (top / str(rel)).is_file() for rel in modules.values()):
            raise self._corrupt("some of its files are missing")
        return top

    def _move_into_place(self, unpacked: Path, work: Path) -> None:
        """Swap the unpacked pack in; a pack already there is put back if the swap fails."""
        previous = work / "previous"
        if self.folder.exists():
            self.folder.rename(previous)
        try:
            unpacked.rename(self.folder)
        except OSError:
            if previous.exists():
                previous.rename(self.folder)
            raise


def _cancelled() -> VoiceError:
    return VoiceError("VOICE_PACK_CANCELLED", "The voice pack installation was cancelled.")
