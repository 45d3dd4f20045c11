"""Audio as the voice package handles it: 16 kHz mono float32 arrays, WAV files, levels.

Speech made by a synthesizer (``core.voice.tts``) is a ``Spoken``: mono float32 at its own rate,
from a WAV (``decode_wav``) or raw 16-bit PCM (``pcm16``).

Recordings are written as 16-bit PCM WAV (what the Whisper API and every player accept);
any file the user hands to ``jawad transcribe`` is decoded with faster-whisper's decoder
(PyAV), which also resamples. A packaged app without its voice pack has no PyAV: there a
16-bit PCM WAV file is still read (and resampled linearly), so the Whisper API works on it.
"""

from __future__ import annotations

import io
import math
import struct
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from jawad_desktop.core.voice.errors import VoiceError

SAMPLE_RATE = 16_000

Samples = npt.NDArray[np.float32]


def to_pcm16(samples: Samples) -> bytes:
    clipped = np.clip(samples, -1.0, 1.0)
    return np.rint(clipped * 32767.0).astype("<i2").tobytes()


def wav_bytes(samples: Samples, samplerate: int = SAMPLE_RATE) -> bytes:
    """A complete mono 16-bit WAV file in memory."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(samplerate)
        out.writeframes(to_pcm16(samples))
    return buffer.getvalue()


def write_wav(path: Path, samples: Samples, samplerate: int = SAMPLE_RATE) -> Path:
    """Write ``samples`` to ``path`` (private to the user) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(path.suffix + ".part")
    tmp.write_bytes(wav_bytes(samples, samplerate))
    tmp.chmod(0o600)
    tmp.replace(path)
    return path


def _read_pcm_wav(path: Path, *, only_own: bool) -> Samples | None:
    """A 16-bit PCM WAV as 16 kHz mono, or None if it is not one. ``only_own``: only a 16 kHz
    mono file, read back exactly as ``write_wav`` wrote it (a retry sends the same bytes)."""
    try:
        with wave.open(str(path), "rb") as reader:
            channels, width, rate = reader.getnchannels(), reader.getsampwidth(), reader.getframerate()
            if width != 2 or (only_own and (channels, rate) != (1, SAMPLE_RATE)):
                return None
            pcm = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
    except (wave.Error, EOFError, OSError):
        return None
    samples = (pcm.astype(np.float32) / 32767.0).astype(np.float32)
    if channels > 1:
        samples = samples[: samples.size - samples.size % channels].reshape(-1, channels).mean(axis=1)
    return resample(samples.astype(np.float32), rate)


def read_audio(path: Path) -> Samples:
    """Decode any audio file to 16 kHz mono float32, or say why it cannot be read."""
    if not path.is_file():
        raise VoiceError(
            "BAD_AUDIO_FILE",
            f"The audio file {str(path)!r} does not exist.",
            suggestions=["Check the file name and try again."],
        )
    exact = _read_pcm_wav(path, only_own=True)
    if exact is not None:
        return exact
    from jawad_desktop.core.voice.pack import local_engine_error

    missing = local_engine_error()
    if missing is not None:  # no PyAV: WAV only
        wav = _read_pcm_wav(path, only_own=False)
        if wav is not None:
            return wav
        raise VoiceError(
            missing.code,
            f"{path.name!r} can be read only with offline speech installed. {missing.message}",
            suggestions=[*missing.suggestions, "Or convert the recording to a WAV file."],
            remedy=missing.remedy,
        )
    from faster_whisper.audio import decode_audio

    try:
        samples = decode_audio(str(path), sampling_rate=SAMPLE_RATE)
    except Exception as exc:  # PyAV raises many types for unreadable input
        raise VoiceError(
            "BAD_AUDIO_FILE",
            f"The file {path.name!r} could not be read as audio ({type(exc).__name__}: {exc}).",
            suggestions=["Use a WAV, MP3, OGG, FLAC, M4A or WebM file."],
        ) from None
    return np.asarray(samples, dtype=np.float32)


def rms(samples: Samples) -> float:
    if samples.size == 0:
        return 0.0
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


def level_of(samples: Samples) -> float:
    """Loudness for a meter, 0..1: -60 dBFS and below is 0, 0 dBFS is 1."""
    value = rms(samples)
    if value <= 1e-6:
        return 0.0
    db = 20.0 * math.log10(value)
    return max(0.0, min(1.0, (db + 60.0) / 60.0))


def resample(samples: Samples, from_rate: int, to_rate: int = SAMPLE_RATE) -> Samples:
    """Linear resampling, enough for speech going to Whisper (used when a device cannot do 16 kHz)."""
    if from_rate == to_rate or samples.size == 0:
        return samples
    count = max(1, round(samples.size * to_rate / from_rate))
    positions = np.linspace(0, samples.size - 1, count)
    return np.interp(positions, np.arange(samples.size), samples).astype(np.float32)


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


def pcm16(data: bytes, rate: int, text: str) -> Spoken:
    data = data[: len(data) - len(data) % 2]
    return Spoken((np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0), rate, text)
