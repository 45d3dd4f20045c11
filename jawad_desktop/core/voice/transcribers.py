"""Speech to text behind one interface: local faster-whisper, a Whisper API, or one then the other.

``LocalWhisper`` keeps each loaded model warm in a process-wide cache; every call runs on
that model's single worker thread, so partial and final transcriptions never compete for
the CPU and the event loop never waits on CTranslate2. The encoder sees only the audio there is
(``encode_frames``), not a 30 s window of padding. Final transcripts use the beam size
of the settings (partials stay greedy: they are drafts); a multilingual model with the
language set to automatic detects it, and the transcript says which language it heard; an
English-only model set to another language is refused with what to do (``languages.language_error``).
``WhisperAPI`` posts WAV audio as multipart to ``{base_url}/audio/transcriptions`` (OpenAI,
Groq or any compatible server) and turns HTTP failures into ``VoiceError``s. ``build_transcriber`` reads the settings.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import httpx

from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.voice.audio import SAMPLE_RATE, Samples, wav_bytes
from jawad_desktop.core.voice.errors import VOICE, VoiceError, api_status_error
from jawad_desktop.core.voice.languages import language_error
from jawad_desktop.core.voice.models import ProgressCallback, resolve_model
from jawad_desktop.core.voice.pack import engine_import_error

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice")

Backend = Literal["local", "api"]
UNSURE_LOGPROB = -1.0


@dataclass(frozen=True)
class Transcript:
    """What was said, and how long it took."""

    text: str
    backend: str
    language: str = ""
    language_probability: float = 0.0  # how sure a multilingual model was of ``language`` (1.0: given)
    duration_s: float = 0.0  # length of the audio
    elapsed_s: float = 0.0  # time spent transcribing
    avg_logprob: float = 0.0  # the local model's mean log probability of its words (0: not known)

    @property
    def sure(self) -> bool:
        """Whether the model was sure of its words: Whisper's own threshold of a failed decoding
        (a mean log probability under -1.0: speech in a language the model does not know, noise)."""
        return self.avg_logprob >= UNSURE_LOGPROB

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Transcriber(Protocol):
    """Turns 16 kHz mono float32 audio into text."""

    name: str
    supports_partials: bool

    async def prepare(self) -> None:
        """Get ready (load a model, check configuration) before audio arrives."""

    async def transcribe(self, audio: Samples, *, partial: bool = False) -> Transcript:
        """The text of ``audio``; ``partial`` asks for a quick draft while the user still speaks."""
        ...


# --- local faster-whisper --------------------------------------------------------------------


@dataclass
class _Engine:
    """One loaded model and the one thread that runs it."""

    model: Any
    executor: ThreadPoolExecutor
    load_s: float
    lock: threading.Lock = field(default_factory=threading.Lock)


WORKER_NICENESS = 5


def _lower_priority() -> None:
    """Run this thread (and the threads CTranslate2 starts from it, which inherit it) a little
    nicer than the GUI thread: on 2 busy cores the window stays responsive while decoding."""
    if hasattr(os, "setpriority"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)
        except OSError as exc:
            log.debug("cannot lower the transcription thread's priority: %s", exc)


# The encoder sees only the audio there is (rounded up, a second to spare, at least ENCODE_MIN_S),
# not faster-whisper's 30 s window of padding: tiny.en spent 0.6 s of CPU on any utterance, about a
# quarter of that on a 6 s one, with the same words (CTranslate2 takes a shorter window).
ENCODE_MIN_S = 10.0
_FRAMES_PER_S = 100
_WINDOW_FRAMES = 3000


def encode_frames(samples: int) -> int | None:
    """How many feature frames to encode for ``samples`` of 16 kHz audio; None (the whole 30 s
    window) when the audio fills most of it or more."""
    frames = -(-samples // (SAMPLE_RATE // _FRAMES_PER_S))
    wanted = (frames // _FRAMES_PER_S + 2) * _FRAMES_PER_S
    wanted = max(wanted, int(ENCODE_MIN_S * _FRAMES_PER_S))
    return wanted if wanted < _WINDOW_FRAMES else None


def _short_window(whisper_model: type[Any]) -> type[Any]:
    """faster-whisper's model class, made to encode only ``encode_frames`` frames when they are set."""

    class ShortWindowWhisper(whisper_model):
        encode_frames: int | None = None  # set around one call, under the engine's lock
        last_encoded_frames = 0  # what the last encoding saw (tests, the log)

        def encode(self, features: Any) -> Any:
            if self.encode_frames is not None:
                features = features[..., : self.encode_frames]
            self.last_encoded_frames = int(features.shape[-1])
            return super().encode(features)

    return ShortWindowWhisper


_loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jawad-whisper-load", initializer=_lower_priority)
_engines: dict[tuple[str, str, int], _Engine] = {}
_engines_lock = threading.Lock()


def _load_engine(path: Path, compute_type: str, cpu_threads: int) -> _Engine:
    key = (str(path), compute_type, cpu_threads)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is not None:
            return engine
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:  # a packaged app without its voice pack, a broken install
            raise engine_import_error(exc) from None

        started = time.perf_counter()
        try:
            model = _short_window(WhisperModel)(str(path), device="cpu", compute_type=compute_type,
                                                cpu_threads=cpu_threads)
        except Exception as exc:
            raise VoiceError(
                "MODEL_LOAD_FAILED",
                f"The speech model in {path} could not be loaded ({type(exc).__name__}: {exc}).",
                suggestions=[
                    "Choose another compute type (int8 works on every CPU).",
                    "Or download the model again.",
                ],
                remedy=VOICE,
            ) from None
        engine = _Engine(
            model=model,
            executor=ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="jawad-whisper", initializer=_lower_priority
            ),
            load_s=time.perf_counter() - started,
        )
        _engines[key] = engine
        log.info("speech model %s (%s) loaded in %.2f s", path.name, compute_type, engine.load_s)
        return engine


class LocalWhisper:
    """faster-whisper on this computer; the model is loaded once and kept warm."""

    supports_partials = True

    def __init__(
        self,
        model: str = "tiny.en",
        *,
        cache_dir: Path,
        compute_type: str = "int8",
        language: str = "",
        beam_size: int = 1,
        cpu_threads: int = 0,
        download: bool = False,
        progress: ProgressCallback | None = None,
        prompt: str = "",
        max_tokens: int | None = None,
    ) -> None:
        self.model_name = model
        # The wake word's: Whisper's initial prompt (how to spell a name it does not know) and a cap
        # on the words decoded (only the first few matter; a repeating "Alexa. Alexa..." stops early).
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.name = f"local:{model}"
        self._cache_dir = cache_dir
        self._compute_type = compute_type or "int8"
        self._language = language
        self.beam_size = max(1, beam_size)
        self._cpu_threads = cpu_threads
        self._download = download
        self._progress = progress
        self._engine: _Engine | None = None
        self._loading: asyncio.Future[_Engine] | None = None

    @property
    def load_s(self) -> float:
        return self._engine.load_s if self._engine else 0.0

    async def _load(self) -> _Engine:
        """Find the model, then load it. Finding it runs at once on a thread of its own: a missing
        model is told while the microphone opens (``VoiceSession``), not after a load queued on the
        niced loader thread, which a busy machine leaves waiting for seconds."""
        path = await asyncio.to_thread(
            resolve_model, self.model_name, self._cache_dir, download=self._download, progress=self._progress
        )
        return await asyncio.get_running_loop().run_in_executor(
            _loader, _load_engine, path, self._compute_type, self._cpu_threads
        )

    async def prepare(self) -> None:
        """Load the model (once); refuses a language the model cannot hear (``_language_for_model``)."""
        if self._engine is not None:
            self._language_for_model()
            return
        if self._loading is None:
            self._loading = asyncio.ensure_future(self._load())
        try:
            self._engine = await asyncio.shield(self._loading)
        except BaseException:
            if self._loading.done():
                self._loading = None  # let the next call try again (e.g. after a download)
            raise
        self._language_for_model()

    @property
    def multilingual(self) -> bool:
        """True when the loaded model knows more than English (it can detect the language)."""
        engine = self._engine
        if engine is None:
            return not self.model_name.endswith(".en")
        return bool(getattr(engine.model.model, "is_multilingual", False))

    def _language_for_model(self) -> str | None:
        """The language to decode in; None lets a multilingual model detect it. Raises
        ``VoiceError("LANGUAGE_NOT_IN_MODEL")`` for an English-only model set to another language."""
        problem = language_error(self.model_name, self._language, multilingual=self.multilingual)
        if problem is not None:
            raise problem
        if not self.multilingual:
            return "en"
        return self._language or None

    async def transcribe(self, audio: Samples, *, partial: bool = False) -> Transcript:
        await self.prepare()
        engine = self._engine
        assert engine is not None
        language = self._language_for_model()
        # Partials are drafts: greedy. The final text uses the settings' beam (bench_beam.py);
        # timestamps are kept for it (they anchor tiny.en better).
        beam = 1 if partial else self.beam_size

        def work() -> Transcript:
            started = time.perf_counter()
            with engine.lock:
                engine.model.encode_frames = encode_frames(audio.size)
                try:
                    segments, info = engine.model.transcribe(
                        audio,
                        language=language,
                        beam_size=beam,
                        best_of=1,
                        temperature=0.0,
                        condition_on_previous_text=False,
                        without_timestamps=partial,
                        vad_filter=False,
                        initial_prompt=self.prompt or None,
                        max_new_tokens=self.max_tokens,
                    )
                    heard = list(segments)
                    text = "".join(segment.text for segment in heard).strip()
                finally:
                    engine.model.encode_frames = None
            return Transcript(
                text=text,
                backend=self.name,
                language=str(info.language or language or ""),
                language_probability=1.0 if language else float(info.language_probability or 0.0),
                duration_s=audio.size / SAMPLE_RATE,
                elapsed_s=time.perf_counter() - started,
                avg_logprob=sum(s.avg_logprob for s in heard) / len(heard) if heard else 0.0,
            )

        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(engine.executor, work)
        except VoiceError:
            raise
        except Exception as exc:
            log.exception("local transcription failed")
            raise VoiceError(
                "TRANSCRIPTION_FAILED",
                f"The speech could not be transcribed ({type(exc).__name__}: {exc}).",
                suggestions=["Try again; your recording was kept."],
            ) from None


# --- Whisper API -----------------------------------------------------------------------------


class WhisperAPI:
    """OpenAI's /v1/audio/transcriptions, or any server that speaks it (Groq, a local one)."""

    supports_partials = False

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str = "",
        model: str = "whisper-1",
        language: str = "",
        provider_name: str = "",
        timeout_s: float = 60.0,
        network: NetworkSettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = f"api:{provider_name or self.base_url}"
        self._network = network  # Settings → Network: proxy, CA bundle
        self._key = api_key
        self._model = model
        self._language = language
        self._provider = provider_name or self.base_url
        self._provider_name = provider_name  # the saved provider, for the remedy (none for a bare URL)
        self._timeout = httpx.Timeout(timeout_s, connect=10.0)
        self._transport = transport

    async def prepare(self) -> None:
        return None

    async def transcribe(self, audio: Samples, *, partial: bool = False) -> Transcript:
        url = f"{self.base_url}/audio/transcriptions"
        data = {"model": self._model, "response_format": "json"}
        if self._language:
            data["language"] = self._language
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        files = {"file": ("speech.wav", wav_bytes(audio), "audio/wav")}
        started = time.perf_counter()
        try:
            options = client_options(self._network, self.base_url, timeout=self._timeout)
            async with httpx.AsyncClient(transport=self._transport, **options) as client:
                response = await client.post(url, data=data, files=files, headers=headers)
        except httpx.TimeoutException:
            raise VoiceError(
                "API_UNREACHABLE",
                f"The transcription service {self._provider} did not answer in time.",
                suggestions=["Try again; your recording was kept.", "Or switch to local transcription."],
                remedy=VOICE,
            ) from None
        except httpx.HTTPError as exc:
            raise VoiceError(
                "API_UNREACHABLE",
                f"The transcription service at {self.base_url} could not be reached ({type(exc).__name__}).",
                suggestions=[
                    "Check your internet connection and the provider's base URL, then try again.",
                    "Your recording was kept; or switch to local transcription.",
                ],
                remedy=VOICE,
            ) from None
        elapsed = time.perf_counter() - started
        refused = api_status_error(
            response, provider=self._provider, provider_name=self._provider_name,
            doing="transcribe the recording", for_what="transcription",
            fallback="Try again; your recording was kept.", other_way="Or switch to local transcription.",
            key_suggestions=("Your recording was kept: try again once the key is fixed.",),
            hints={404: "The server has no /audio/transcriptions endpoint: check the base URL.",
                   413: "The recording is too long for this service: set a shorter maximum length.",
                   429: "The service is rate-limiting you: wait a moment and try again."})
        if refused is not None:
            raise refused
        try:
            body = response.json()
            text = str(body["text"]).strip()
        except (ValueError, KeyError, TypeError):
            raise VoiceError(
                "API_ERROR",
                f"{self._provider} answered with something that is not a transcription.",
                suggestions=["Check that the base URL points at an OpenAI-compatible server."],
                remedy=Remedy("provider", self._provider_name),
            ) from None
        return Transcript(
            text=text,
            backend=self.name,
            language=str(body.get("language") or self._language or ""),
            duration_s=audio.size / SAMPLE_RATE,
            elapsed_s=elapsed,
        )


# --- fallback and construction ---------------------------------------------------------------


class FallbackTranscriber:
    """Try ``primary``; when it fails, try ``secondary``; report the primary's error if both fail."""

    def __init__(self, primary: Transcriber, secondary: Transcriber) -> None:
        self.primary = primary
        self.secondary = secondary
        self.name = f"{primary.name}→{secondary.name}"
        self.supports_partials = primary.supports_partials

    async def prepare(self) -> None:
        try:
            await self.primary.prepare()
        except VoiceError as exc:
            log.warning("primary transcriber not ready (%s); the fallback will be used", exc.code)

    async def transcribe(self, audio: Samples, *, partial: bool = False) -> Transcript:
        try:
            return await self.primary.transcribe(audio, partial=partial)
        except VoiceError as first:
            if partial:
                raise
            log.warning("%s failed (%s); falling back to %s", self.primary.name, first.code, self.secondary.name)
            try:
                return await self.secondary.transcribe(audio)
            except VoiceError as second:
                raise VoiceError(
                    first.code,
                    f"{first.message} The fallback ({self.secondary.name}) failed too: {second.message}",
                    suggestions=first.suggestions,
                    remedy=first.remedy,
                ) from None


def api_transcriber(ctx: AppContext, *, transport: httpx.AsyncBaseTransport | None = None) -> WhisperAPI:
    """The Whisper API transcriber of the provider named in the voice settings (or the active one)."""
    voice = ctx.settings.voice
    provider = ctx.settings.provider(voice.api_provider) if voice.api_provider else ctx.settings.active()
    if provider is None:
        wanted = f" {voice.api_provider!r}" if voice.api_provider else ""
        raise VoiceError(
            "API_NOT_CONFIGURED",
            f"No provider{wanted} is set up for the Whisper API.",
            suggestions=[
                "Add a provider with a Whisper API (e.g. OpenAI or Groq) and choose it for transcription.",
                "Or use local transcription.",
            ],
            # A provider named in the voice settings that is gone is fixed there; none at all, by adding one.
            remedy=VOICE if voice.api_provider else Remedy("add-provider"),
        )
    base_url = provider.effective_base_url
    if not base_url:
        raise VoiceError(
            "API_NOT_CONFIGURED",
            f"The provider {provider.name!r} has no base URL for the Whisper API.",
            suggestions=["Choose an OpenAI-compatible provider for transcription, or use local transcription."],
            remedy=VOICE,
        )
    from jawad_desktop.core.llm.factory import provider_key  # the keyring's, else OPENAI_API_KEY...

    key = provider_key(ctx.secrets, provider).key or ""
    if not key and provider.kind.needs_key:
        raise VoiceError(
            "API_KEY_INVALID",
            f"There is no API key for {provider.name!r}.",
            suggestions=[f"Enter the API key for {provider.name}."],
            remedy=Remedy("provider-key", provider.name),
        )
    return WhisperAPI(
        base_url,
        api_key=key,
        model=voice.api_model,
        language=voice.language,
        provider_name=provider.name,
        network=ctx.settings.network,
        transport=transport,
    )


def local_transcriber(
    ctx: AppContext, *, download: bool = False, progress: ProgressCallback | None = None
) -> LocalWhisper:
    voice = ctx.settings.voice
    return LocalWhisper(
        voice.model_size,
        cache_dir=ctx.paths.cache,
        compute_type=voice.compute_type,
        language=voice.language,
        beam_size=voice.beam_size,
        download=download,
        progress=progress,
    )


def build_transcriber(ctx: AppContext, backend: Backend | None = None) -> Transcriber:
    """The transcriber the settings ask for (``backend`` overrides), with the fallback if enabled."""
    voice = ctx.settings.voice
    chosen: Backend = backend or voice.backend
    make: dict[Backend, Callable[[], Transcriber]] = {
        "local": lambda: local_transcriber(ctx),
        "api": lambda: api_transcriber(ctx),
    }
    primary = make[chosen]()
    if not voice.fallback or backend is not None:
        return primary
    other: Backend = "api" if chosen == "local" else "local"
    try:
        secondary = make[other]()
    except VoiceError as exc:
        log.info("no fallback transcriber (%s)", exc.code)
        return primary
    return FallbackTranscriber(primary, secondary)
