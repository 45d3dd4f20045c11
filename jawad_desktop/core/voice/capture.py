"""Microphone capture: the list of inputs, and a recorder that delivers 16 kHz mono blocks.

sounddevice runs the stream's callback on PortAudio's own thread; the recorder hands each
block (a copy, float32, mono, 16 kHz) to ``on_block`` on that thread and never blocks it.
Opening a stream can take about 2 s through PulseAudio, so ``Recorder.open`` is meant to
run in a worker thread. Every PortAudio failure is translated by ``errors.from_portaudio``.
PortAudio's device queries and stream opening and closing are not thread-safe: they take
``PORTAUDIO_LOCK`` (two streams closed at once from two threads crash inside PortAudio).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples, level_of, resample
from jawad_desktop.core.voice.errors import VoiceError, from_portaudio, no_input_device, portaudio_missing

log = logging.getLogger("jawad.voice")

BLOCK_MS = 30

# Held around PortAudio calls that change its state (devices, stream open/start/stop/close).
PORTAUDIO_LOCK = threading.RLock()


def sounddevice_module() -> ModuleType:
    """Import sounddevice, or explain that PortAudio is missing."""
    try:
        import sounddevice
    except OSError as exc:  # sounddevice raises OSError when libportaudio cannot be loaded
        raise portaudio_missing(str(exc)) from None
    _quiet_alsa()
    return sounddevice


# alsa-lib writes its complaints straight to stderr ("ALSA lib pcm.c:8570:(snd_pcm_recover) underrun
# occurred", dozens of lines on a busy machine while a reply plays): they go to the log instead.
_ALSA_HANDLER: Any = None


def _quiet_alsa() -> None:
    global _ALSA_HANDLER
    if _ALSA_HANDLER is not None or not sys.platform.startswith("linux"):
        return
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("asound")
    if name is None:
        _ALSA_HANDLER = False
        return
    # void handler(const char *file, int line, const char *function, int err, const char *fmt, ...)
    prototype = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)

    def handler(file: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None) -> None:
        log.debug("ALSA %s:%d (%s) %s", (file or b"").decode(errors="replace"), line,
                  (function or b"").decode(errors="replace"), (fmt or b"").decode(errors="replace"))

    try:
        callback = prototype(handler)
        ctypes.CDLL(name).snd_lib_error_set_handler(callback)
    except (OSError, AttributeError):
        log.debug("alsa-lib's messages could not be redirected", exc_info=True)
        _ALSA_HANDLER = False
        return
    _ALSA_HANDLER = callback  # kept: alsa-lib holds only the C pointer


def reinitialize_portaudio() -> None:
    """Make PortAudio see devices again (after the sound server changed or started)."""
    sd = sounddevice_module()
    with PORTAUDIO_LOCK:
        sd._terminate()
        sd._initialize()


@dataclass(frozen=True)
class InputDevice:
    """One input the user can pick."""

    index: int
    name: str
    channels: int
    default_samplerate: float
    is_default: bool


def list_input_devices() -> list[InputDevice]:
    """Every device with at least one input channel, the system default first."""
    sd = sounddevice_module()
    try:
        with PORTAUDIO_LOCK:
            devices = sd.query_devices()
            default_in = sd.default.device[0]
    except sd.PortAudioError as exc:
        raise from_portaudio(exc) from None
    result: list[InputDevice] = []
    for index, info in enumerate(devices):
        if int(info["max_input_channels"]) <= 0:
            continue
        result.append(
            InputDevice(
                index=index,
                name=str(info["name"]),
                channels=int(info["max_input_channels"]),
                default_samplerate=float(info["default_samplerate"]),
                is_default=index == default_in,
            )
        )
    result.sort(key=lambda d: (not d.is_default, d.index))
    return result


def resolve_device(name: str) -> InputDevice:
    """The input called ``name`` (exact, then case-insensitive part), or the default when empty."""
    devices = list_input_devices()
    if not devices:
        raise no_input_device(name)
    if not name:
        return next((d for d in devices if d.is_default), devices[0])
    for device in devices:
        if device.name == name:
            return device
    folded = name.casefold()
    for device in devices:
        if folded in device.name.casefold():
            return device
    raise no_input_device(name)


BlockCallback = Callable[[Samples], None]


class Recorder:
    """One open input stream delivering 16 kHz mono float32 blocks to ``on_block``."""

    def __init__(
        self,
        on_block: BlockCallback,
        *,
        device: str = "",
        on_failure: Callable[[VoiceError], None] | None = None,
    ) -> None:
        self._on_block = on_block
        self._on_failure = on_failure
        self._wanted = device
        self._stream: Any = None
        self._rate = SAMPLE_RATE
        self._closing = False
        self._lock = threading.Lock()
        self.device: InputDevice | None = None
        self.overflows = 0  # blocks PortAudio flagged (input overflow): sound was lost

    @property
    def is_open(self) -> bool:
        return self._stream is not None

    @property
    def latency_s(self) -> float:
        """The input latency the stream reports (sound to callback), 0 when closed."""
        stream = self._stream
        return float(stream.latency) if stream is not None else 0.0

    def open(self) -> None:
        """Open and start the stream (blocking; run it in a worker thread)."""
        sd = sounddevice_module()
        device = resolve_device(self._wanted)
        self.device = device
        self._closing = False
        stream = None
        last_error: BaseException | None = None
        # 16 kHz first; a device that refuses it records at its own rate and is resampled.
        with PORTAUDIO_LOCK:
            for rate in dict.fromkeys((SAMPLE_RATE, int(device.default_samplerate) or 48_000)):
                try:
                    stream = sd.InputStream(
                        samplerate=rate,
                        channels=1,
                        dtype="float32",
                        blocksize=int(rate * BLOCK_MS / 1000),
                        device=device.index,
                        callback=self._callback,
                        finished_callback=self._finished,
                    )
                except sd.PortAudioError as exc:
                    last_error = exc
                    if "sample rate" in str(exc).lower():
                        continue
                    raise from_portaudio(exc, device.name) from None
                self._rate = rate
                break
            if stream is None:
                raise from_portaudio(last_error or RuntimeError("no stream"), device.name)
            try:
                stream.start()
            except sd.PortAudioError as exc:
                stream.close(ignore_errors=True)
                raise from_portaudio(exc, device.name) from None
        with self._lock:
            self._stream = stream
        log.info("recording from %r at %d Hz", device.name, self._rate)

    def _callback(self, data: Any, frames: int, time_info: Any, status: Any) -> None:
        if status:
            self.overflows += 1
            log.debug("input stream status: %s", status)
        block = np.array(data[:, 0], dtype=np.float32)
        if self._rate != SAMPLE_RATE:
            block = resample(block, self._rate)
        try:
            self._on_block(block)
        except Exception:
            log.exception("audio block consumer failed")

    def _finished(self) -> None:
        if self._closing or self._on_failure is None:
            return
        name = self.device.name if self.device else ""
        self._on_failure(
            VoiceError(
                "AUDIO_DEVICE_FAILED",
                f"The microphone{f' ({name})' if name else ''} stopped delivering sound.",
                suggestions=["Check that it is still connected, then try again."],
            )
        )

    def close(self) -> None:
        """Stop and close the stream (blocking briefly; safe to call twice)."""
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is None:
            return
        self._closing = True
        with PORTAUDIO_LOCK:
            try:
                stream.stop(ignore_errors=True)
            finally:
                stream.close(ignore_errors=True)


class LevelMonitor:
    """A live input level (0..1) for a meter in Settings; ``level`` may be read from any thread."""

    def __init__(self, device: str = "") -> None:
        self.level = 0.0
        self.error: VoiceError | None = None
        self._recorder = Recorder(self._on_block, device=device, on_failure=self._on_failure)

    def _on_block(self, block: Samples) -> None:
        self.level = level_of(block)

    def _on_failure(self, error: VoiceError) -> None:
        self.error = error
        self.level = 0.0

    def open(self) -> None:
        """Start measuring (blocking; run it in a worker thread). Failures land in ``error``."""
        try:
            self._recorder.open()
        except VoiceError as exc:
            self.error = exc

    def close(self) -> None:
        self._recorder.close()
        self.level = 0.0
