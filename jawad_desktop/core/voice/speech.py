"""Spoken replies with espeak-ng: one utterance at a time, stoppable at once.

The answer's Markdown is reduced to plain sentences (no code blocks, no link targets) before
it is spoken. ``stop()`` kills the speaking process; starting a new reply stops the old one.
The Qt side may prefer QtTextToSpeech (``ui.tts``) and uses this class otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil

from jawad_desktop.core.voice.errors import VoiceError

log = logging.getLogger("jawad.voice")

_CODE_BLOCK = re.compile(r"```.*?```", re.S)
_INLINE_CODE = re.compile(r"`([^`]*)`")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")
_MARKS = re.compile(r"[*_#>|~]+")


def speakable_text(markdown: str) -> str:
    """What is worth saying aloud from a Markdown answer."""
    text = _CODE_BLOCK.sub(" (code omitted) ", markdown)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("a link", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _MARKS.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def espeak_binary() -> str | None:
    return shutil.which("espeak-ng") or shutil.which("espeak")


class EspeakSpeaker:
    """Reads text aloud through espeak-ng on the default audio output."""

    def __init__(self, *, voice: str = "", words_per_minute: int = 175) -> None:
        self._voice = voice
        self._wpm = words_per_minute
        self._process: asyncio.subprocess.Process | None = None

    @staticmethod
    def available() -> bool:
        return espeak_binary() is not None

    @property
    def speaking(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def speak(self, text: str, *, output_wav: str = "") -> bool:
        """Say ``text``; returns True when it was said to the end, False when stopped.

        ``output_wav`` writes the speech to a file instead of playing it.
        """
        binary = espeak_binary()
        if binary is None:
            raise VoiceError(
                "AUDIO_DEVICE_FAILED",
                "Spoken replies need espeak-ng, which is not installed.",
                suggestions=["On Debian or Ubuntu: sudo apt install espeak-ng", "Or turn spoken replies off."],
            )
        self.stop()
        spoken = speakable_text(text)
        if not spoken:
            return True
        args = [binary, "-s", str(self._wpm), "--stdin"]
        if self._voice:
            args += ["-v", self._voice]
        if output_wav:
            args += ["-w", output_wav]
        process = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._process = process
        try:
            _, err = await process.communicate(spoken.encode("utf-8"))
        except asyncio.CancelledError:
            self.stop()
            raise
        finally:
            if self._process is process:
                self._process = None
        if process.returncode and process.returncode > 0:
            log.warning("espeak-ng failed (%s): %s", process.returncode, err.decode(errors="replace")[:200])
            raise VoiceError(
                "AUDIO_DEVICE_FAILED",
                "The reply could not be spoken (espeak-ng failed).",
                suggestions=["Check that an audio output works, or turn spoken replies off."],
            )
        return process.returncode == 0

    def stop(self) -> None:
        """Stop speaking now (no-op when silent)."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
