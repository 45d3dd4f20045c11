"""The end-of-turn model: has the user finished their turn, judged from the sound of it (no Qt).

Smart Turn v3.2 (Daily's Pipecat project, BSD-2-Clause; its encoder is OpenAI's Whisper Tiny, MIT),
an 8.7 MB ONNX model that hears the last 8 s of a turn and says how likely it is that the speaker
has finished (the fall of the voice, a trailing "and...", the rhythm), in 23 languages. Its file
comes from the PyPI wheel of ``pipecat-ai`` (``pipecat/audio/turn/smart_turn/data/``), installed
without its dependencies and found through its file list, never imported (``pins.package_copy``);
the packaged app's copy is in its voice pack. Either way the file is checked against its pin
(``turn:smart-turn-v3.2`` in ``core.store.pins``) before it is loaded.

``p_complete`` reproduces the model's input as Pipecat computes it: 16 kHz audio, the last 8 s
(zeros before a shorter turn), normalised to zero mean and unit variance, then Whisper's log-mel
spectrogram (400-sample Hann window, hop 160, 80 Slaney mel bands, log10 clipped 8 below its
peak, scaled as (x + 4) / 4: 80 x 800 values). It runs on onnxruntime (as Silero VAD,
``core.voice.vad``), one thread, on its own worker, beside the transcription of the same pause:
about 80 ms of CPU (0.1 to 0.5 s on a busy two-core machine), while tiny.en takes 0.3 to 2 s.
It keeps the ordinary thread priority: on a machine loaded many times over, a lower one would get
so small a share of the CPU that the verdict would come after the longest wait.

``load_turn_model`` is None when onnxruntime, the package or the voice pack is missing, or the
copy there is not the pinned one (logged once): the end of a turn is then decided by its words
alone (``core.voice.turns.end_of_turn_wait_s``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples

log = logging.getLogger("jawad.voice")

PIN_KEY = "turn:smart-turn-v3.2"
MODEL_FILE = "smart-turn-v3.2-cpu.onnx"
PACK_FILE = f"pipecat/audio/turn/smart_turn/data/{MODEL_FILE}"  # where the voice pack keeps it
WINDOW_S = 8  # the model hears the last 8 s

_N_FFT = 400
_HOP = 160
_N_MELS = 80


def _mel_filters() -> np.ndarray:
    """Whisper's 80 triangular mel filters on the Slaney scale, area-normalised: (201, 80)."""
    def to_mel(hz: np.ndarray) -> np.ndarray:
        mel = 3.0 * hz / 200.0
        log_part = hz >= 1000.0
        mel[log_part] = 15.0 + np.log(hz[log_part] / 1000.0) * (27.0 / np.log(6.4))
        return mel

    def to_hz(mel: np.ndarray) -> np.ndarray:
        hz = 200.0 * mel / 3.0
        log_part = mel >= 15.0
        hz[log_part] = 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel[log_part] - 15.0))
        return hz

    edges = to_hz(np.linspace(to_mel(np.array([0.0]))[0], to_mel(np.array([SAMPLE_RATE / 2]))[0], _N_MELS + 2))
    bins = np.linspace(0, SAMPLE_RATE // 2, _N_FFT // 2 + 1)
    slopes = edges[None, :] - bins[:, None]
    widths = np.diff(edges)
    rising = -slopes[:, :-2] / widths[:-1]
    falling = slopes[:, 2:] / widths[1:]
    filters = np.maximum(0.0, np.minimum(rising, falling))
    return filters * (2.0 / (edges[2:] - edges[:-2]))[None, :]


_FILTERS = _mel_filters()
_HANN = np.hanning(_N_FFT + 1)[:-1]  # periodic, as torch.hann_window


def features(audio: Samples) -> np.ndarray:
    """The model's input for ``audio`` (16 kHz): its last 8 s as a (1, 80, 800) log-mel spectrogram."""
    size = WINDOW_S * SAMPLE_RATE
    x = np.asarray(audio, dtype=np.float32)[-size:]
    x = np.pad(x, (size - x.size, 0))
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    padded = np.pad(x.astype(np.float64), (_N_FFT // 2, _N_FFT // 2), mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, _N_FFT)[::_HOP]
    power = np.abs(np.fft.rfft(frames * _HANN, axis=-1)) ** 2  # (801, 201)
    log_mel = np.log10(np.maximum(1e-10, _FILTERS.T @ power.T))[:, :-1]
    log_mel = np.maximum(log_mel, log_mel.max() - 8.0)
    return ((log_mel + 4.0) / 4.0).astype(np.float32)[None, :, :]


class TurnModel:
    """One loaded Smart Turn session; ``p_complete`` is safe from any thread (one at a time)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-turn-model")

    def p_complete(self, audio: Samples) -> float:
        """How likely the speaker has finished, from the turn's audio so far (its pause included)."""
        inputs = {"input_features": features(audio)}
        with self._lock:
            out = self._session.run(None, inputs)
        return float(np.asarray(out[0]).reshape(-1)[0])

    async def judge(self, audio: Samples) -> float | None:
        """``p_complete`` on the model's worker; None (logged) when the model fails on it."""
        started = time.monotonic()
        try:
            p = await asyncio.get_running_loop().run_in_executor(self._worker, self.p_complete, audio)
        except Exception as exc:  # onnxruntime raises its own types; the words decide alone then
            log.warning("the end-of-turn model failed (%s); the words decide", exc)
            return None
        log.debug("end-of-turn model: %.3f after %.2f s of speech, in %.2f s", p, audio.size / SAMPLE_RATE,
                  time.monotonic() - started)
        return p


_lock = threading.Lock()
_loaded: TurnModel | bool | None = None  # False: looked for and unavailable


def model_path() -> Path | None:
    """The pinned model file from pipecat-ai's installed files or the voice pack (checked), else None.
    Raises ``pins.UntrustedFile`` when a copy is there but is not the pinned one."""
    from jawad_desktop.core.store import pins
    from jawad_desktop.core.voice.pack import active_pack_file

    pin = pins.pin_for(PIN_KEY)
    assert pin is not None
    what = "The end-of-turn model (Smart Turn v3.2)"
    found = pins.package_copy(pin, what=what)
    if found:
        return found[MODEL_FILE]
    path = active_pack_file(PACK_FILE)
    if path is None:
        return None
    pins.check_file(pin, MODEL_FILE, path, what=f"{what} (from the voice pack)",
                    fix=["Reinstall offline speech: remove the voice pack, then install it again."])
    return path


def load_turn_model(path: Path | None = None) -> TurnModel | None:
    """The model, loaded once per process (``path``: that file instead, not remembered), or None
    with the reason in the log (see the module docstring)."""
    global _loaded
    with _lock:
        if path is None and _loaded is not None:
            return _loaded if isinstance(_loaded, TurnModel) else None
        model = _load(path)
        if path is None:
            _loaded = model or False
        return model


def _load(path: Path | None) -> TurnModel | None:
    from jawad_desktop.core.store.pins import UntrustedFile

    try:
        import onnxruntime
    except ImportError as exc:
        log.info("end-of-turn model unavailable (onnxruntime: %s); the words decide", exc)
        return None
    try:
        file = path or model_path()
    except UntrustedFile as exc:
        log.warning("%s", exc.message)
        return None
    if file is None:
        log.info("end-of-turn model not installed (pip install --no-deps pipecat-ai, or the voice pack); "
                 "the words decide")
        return None
    options = onnxruntime.SessionOptions()
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = 1
    options.log_severity_level = 4
    try:
        session = onnxruntime.InferenceSession(str(file), providers=["CPUExecutionProvider"], sess_options=options)
    except Exception as exc:  # a damaged file: onnxruntime raises its own types
        log.warning("end-of-turn model %s could not be loaded (%s); the words decide", file, exc)
        return None
    return TurnModel(session)
