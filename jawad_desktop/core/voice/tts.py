"""Speech out: text-to-speech engines behind one interface.

A ``Synthesizer`` (``core.voice.audio``) turns one sentence into audio (``Spoken``: mono float32
and its rate): ``SpeechAPI`` posts to an OpenAI-compatible ``/audio/speech`` (the provider's base URL and its
key from the keyring, like the chat clients), ``PiperVoice`` runs a Piper voice the user
installed (``core.voice.piper_voice``), ``EspeakVoice`` runs espeak-ng, the fallback. ``build_synthesizer``
picks one from Settings → Voice.

The speaker and the reply pipeline that play it are in ``core.voice.playback``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from typing import TYPE_CHECKING, Any

import httpx

from jawad_desktop.core.config.network import client_options
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.voice.audio import Spoken, Synthesizer, decode_wav, pcm16
from jawad_desktop.core.voice.errors import VOICE, VoiceError, api_status_error
from jawad_desktop.core.voice.piper_voice import PiperVoice, piper_voice_folders, piper_voices

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.tts")

__all__ = ["EspeakVoice", "SpeechAPI", "api_speech", "build_synthesizer", "espeak_binary"]

API_PCM_RATE = 24_000  # OpenAI's "pcm": raw 16-bit little-endian mono at 24 kHz, no header
_ESPEAK_WPM = 175  # espeak-ng's normal speed; speech_rate scales it



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
                return pcm16(response.content, API_PCM_RATE, text)
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


