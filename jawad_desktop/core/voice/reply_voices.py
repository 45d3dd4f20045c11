"""Spoken replies in the language the user speaks (no Qt): which Piper voice reads a reply.

``reply_synthesizer`` is what conversation mode and Read aloud speak with. For the local engines
(Piper, espeak-ng) it is a ``ReplyVoices``: the voice Settings → Voice chooses (the default voice)
reads replies in its own language; a reply in another language (the language the user spoke:
set in Settings → Voice, or detected by a multilingual model and carried by the ``VoiceState``
result on the bus) is read by a Piper voice of that language:

1. one on this computer (the user's voices folder, a package that ships one: ``piper_voices``);
2. else one Jawad pins (``core.store.pins``: ``piper:<voice>``), downloaded on demand into the
   voices folder through the pinned-download path (``download_voice``: ``core.store.hub_download``,
   the pinned revision, each file checked against its SHA-256, resumable); the reply that asked
   for it is read by a stand-in (3.) while it downloads, the next ones by the new voice;
3. else espeak-ng's voice of that language when espeak-ng speaks it (also while a voice downloads,
   and in a bundle without Piper), else the default voice, with a note saying which reads it.

Each change of language is said once as a ``Notice`` (the language heard and the voice that
reads it), and a failed download as a warning with what to do. A speech API is left as it is:
its voices speak the reply's language themselves.
"""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store import pins
from jawad_desktop.core.store.hub_download import FailureKind, HubDownload
from jawad_desktop.core.voice.audio import Spoken, Synthesizer
from jawad_desktop.core.voice.errors import VOICE, VoiceError
from jawad_desktop.core.voice.languages import language_name, same_language, voice_language
from jawad_desktop.core.voice.piper_voice import (
    PiperVoice,
    piper_command,
    piper_module_available,
    piper_voice_folders,
    piper_voices,
)
from jawad_desktop.core.voice.tts import EspeakVoice, build_synthesizer, espeak_binary

if TYPE_CHECKING:
    from jawad_desktop.core.config.settings import NetworkSettings
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.tts")


def pinned_voice(language: str) -> pins.Pin | None:
    """The Piper voice Jawad pins for ``language`` ("de"), if any."""
    for pin in pins.PINS.values():
        if pin.key.startswith("piper:") and same_language(voice_language(Path(pin.key.removeprefix("piper:"))),
                                                          language):
            return pin
    return None


def voice_model_path(pin: pins.Pin) -> str:
    """The path of the pin's ``.onnx`` in its repository (and under the voices folder)."""
    return next(name for name in pin.files if name.endswith(".onnx"))


class VoiceDownload(HubDownload):
    """A pinned Piper voice's two files (.onnx, .onnx.json) into the voices folder, at their paths
    in the repository (``de/de_DE/thorsten/medium/...``); its failures as ``VoiceError``s."""

    def run(self) -> Path:
        """Download the voice (resuming what arrived); the path of its ``.onnx``."""
        with self.session() as client:
            files = []
            for name in self.pin.files:
                (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
                remote = self.remote(client, name)
                assert remote is not None  # a required file: a missing one raised
                files.append(remote)
            self.fetch(client, files)
        log.info("Piper voice %s downloaded from %s", self.label, self.endpoint)
        return self.folder / voice_model_path(self.pin)

    def _error(self, kind: FailureKind, detail: str = "") -> JawadError:
        problem = super()._error(kind, detail)
        return VoiceError("TTS_UNAVAILABLE", problem.message.replace("model server", "voice server"),
                          suggestions=[*problem.suggestions, "Replies are read with the default voice meanwhile."],
                          remedy=VOICE)


def download_voice(pin: pins.Pin, folder: Path, *, endpoint: str | None = None,
                   network: NetworkSettings | None = None, cancel: threading.Event | None = None) -> Path:
    """Download the pinned voice ``pin`` into the voices ``folder`` (blocking); its ``.onnx``."""
    label = f"the {language_name(voice_language(Path(voice_model_path(pin))))} voice {pin.key.removeprefix('piper:')}"
    return VoiceDownload(pin, folder, label=label, endpoint=endpoint, network=network, cancel=cancel).run()


# The voice downloads under way, by pin key: one per voice, shared by every reader (a Read aloud's reader
# lasts one reply, the download longer), and the languages whose voice arrived.
_DOWNLOADS: dict[str, asyncio.Task[None]] = {}
_READY: set[str] = set()


def _downloading(key: str) -> asyncio.Task[None] | None:
    """The download of the voice ``key`` under way, if any (a finished one or one of a closed loop is none)."""
    task = _DOWNLOADS.get(key)
    if task is not None and (task.done() or task.get_loop().is_closed()):
        del _DOWNLOADS[key]
        return None
    return task


def espeak_speaks(language: str) -> bool:
    """True when espeak-ng is installed and has a voice for ``language`` (blocking, ~10 ms)."""
    binary = espeak_binary()
    if binary is None or not re.fullmatch(r"[a-z]{2,3}", language):
        return False
    try:
        listed = subprocess.run([binary, f"--voices={language}"], capture_output=True, text=True, timeout=10,
                                check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return len(listed.strip().splitlines()) > 1  # a header, then one line per voice


def _default_language(voice: Synthesizer) -> str:
    if isinstance(voice, PiperVoice):
        return voice_language(voice.voice) if voice.voice is not None else ""
    if isinstance(voice, EspeakVoice):
        return voice.voice.split("-")[0] if voice.voice else "en"  # espeak-ng speaks English by default
    return ""


class ReplyVoices:
    """A ``Synthesizer`` that reads each reply with a voice of the language the user spoke (see the
    module docstring). ``language`` follows the ``VoiceState`` results on the bus until ``aclose``."""

    def __init__(self, ctx: AppContext, default: Synthesizer, *, language: str = "",
                 endpoint: str | None = None) -> None:
        self.ctx = ctx
        self.default = default
        self.language = language
        self.endpoint = endpoint
        self.name = default.name  # the voice that read the last sentence
        self._voices: dict[str, Synthesizer] = {}  # by language: the voice found for it
        self._missing: set[str] = set()  # languages with no voice here (looked for again after a download)
        self._espeak: dict[str, EspeakVoice | None] = {}  # by language: espeak-ng's voice, None if it has none
        self._told = ""  # the language last said in a Notice
        self._unsubscribe = ctx.bus.subscribe(self._heard)

    def _heard(self, event: ev.Event) -> None:
        if isinstance(event, ev.VoiceState) and event.state == "result" and event.language:
            self.use_language(event.language)

    def use_language(self, language: str) -> None:
        """Read the next sentences in ``language`` (a code such as "de"; "" for the default voice)."""
        self.language = language

    async def warm_up(self) -> None:
        warm = getattr(self.default, "warm_up", None)
        if warm is not None:
            await warm()

    async def synthesize(self, text: str) -> Spoken:
        voice = await self._voice_for(self.language)
        self.name = voice.name
        return await voice.synthesize(text)

    async def aclose(self) -> None:
        """Stop following what is heard. A voice downloading goes on (the next reply may need it)."""
        self._unsubscribe()

    # --- choosing -------------------------------------------------------------------------------

    def _note(self, language: str, text: str) -> None:
        """Say ``text`` unless ``language`` was the last one said."""
        if self._told != language:
            self._told = language
            self.ctx.bus.emit(ev.Notice(level="info", text=text))

    async def _voice_for(self, language: str) -> Synthesizer:
        default_language = _default_language(self.default)
        if not language or not default_language or same_language(language, default_language):
            if self._told and language:
                self._note(language, f"You spoke {language_name(language)}: replies are read with "
                                     f"{self.default.name}.")
            return self.default
        piper_runs = piper_module_available() or piper_command() is not None
        if language in _READY:  # a voice of it arrived since it was looked for
            self._missing.discard(language)
        found = self._voices.get(language)
        if found is None and piper_runs and language not in self._missing:
            found = await asyncio.to_thread(self._installed, language)
            if found is not None:
                self._voices[language] = found
            else:
                self._missing.add(language)
        name = language_name(language)
        if found is not None:
            self._note(language, f"You spoke {name}: replies are read with the {name} voice {found.name}.")
            return found
        stand_in = await self._stand_in(language)
        reader = f"espeak-ng's {name} voice" if stand_in is not self.default else \
            f"the default voice ({self.default.name})"
        pin = pinned_voice(language) if piper_runs else None
        if not piper_runs:
            self._note(language, f"You spoke {name}: replies are read with {reader} (Piper, which has {name} "
                                 "voices, is not installed here).")
        elif pin is None:
            self._note(language, f"You spoke {name}: there is no {name} Piper voice on this computer and none to "
                                 f"download, so replies are read with {reader}.")
        elif _downloading(pin.key) is None:
            _DOWNLOADS[pin.key] = asyncio.create_task(self._download(language, pin))
            self._note(language, f"You spoke {name}: the {name} voice {pin.key.removeprefix('piper:')} (about 63 MB) "
                                 f"is downloading; until it is ready replies are read with {reader}.")
        return stand_in

    async def _stand_in(self, language: str) -> Synthesizer:
        """espeak-ng in ``language`` when it speaks it (better than a voice of another language
        reading the words), else the default voice."""
        if language not in self._espeak:
            speaks = await asyncio.to_thread(espeak_speaks, language)
            self._espeak[language] = EspeakVoice(voice=language, rate=self.ctx.settings.voice.speech_rate) \
                if speaks else None
        return self._espeak[language] or self.default

    def _installed(self, language: str) -> Synthesizer | None:
        """A Piper voice of ``language`` on this computer that can speak (blocking)."""
        rate = self.ctx.settings.voice.speech_rate
        for candidate in piper_voices(piper_voice_folders(self.ctx)):
            if not same_language(voice_language(candidate.path), language):
                continue
            voice = PiperVoice(str(candidate.path), rate=rate)
            try:
                voice.check()
            except VoiceError as exc:
                log.info("the Piper voice %s is not used: %s", candidate.name, exc.message)
                continue
            return voice
        return None

    async def _download(self, language: str, pin: pins.Pin) -> None:
        folder = piper_voice_folders(self.ctx)[0]
        cancel = threading.Event()  # set when the task is cancelled (the app or ``jawad talk`` ends)
        try:
            await asyncio.to_thread(download_voice, pin, folder, endpoint=self.endpoint,
                                    network=self.ctx.settings.network, cancel=cancel)
        except asyncio.CancelledError:
            cancel.set()  # the thread stops at its next chunk; what arrived is kept for a resume
            raise
        except JawadError as exc:
            self.ctx.bus.emit(ev.Notice(level="warning", text=exc.user_text()))
            return
        _READY.add(language)
        self._told = ""  # the next reply in that language says which voice reads it
        self.ctx.bus.emit(ev.Notice(level="info", text=f"The {language_name(language)} voice "
                                                        f"{pin.key.removeprefix('piper:')} is ready."))

    @staticmethod
    async def downloaded() -> None:
        """Wait for the voice downloads under way on this loop (tests; a face that waits before quitting)."""
        loop = asyncio.get_running_loop()
        tasks = [task for task in _DOWNLOADS.values() if task.get_loop() is loop and not task.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def reply_synthesizer(ctx: AppContext, backend: str | None = None, **options: Any) -> Synthesizer:
    """The engine Settings → Voice asks for (``build_synthesizer``), reading each reply in the
    language spoken where it is a local one (``ReplyVoices``)."""
    engine = build_synthesizer(ctx, backend)
    if isinstance(engine, (PiperVoice, EspeakVoice)):
        return ReplyVoices(ctx, engine, language=ctx.settings.voice.language, **options)
    return engine


__all__ = ["ReplyVoices", "VoiceDownload", "download_voice", "pinned_voice", "reply_synthesizer",
           "voice_model_path"]
