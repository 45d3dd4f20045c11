"""Voice failures as the user is told about them, and the one place PortAudio errors are translated.

Every ``VoiceError`` has a stable ``code`` (for the UI and tests) plus what happened and what
to do; where the fix is a voice setting its ``remedy`` is ``VOICE`` (each face words it).
``from_portaudio`` turns sounddevice/PortAudio exceptions into these; nothing else in the
voice package inspects PortAudio messages.
"""

from __future__ import annotations

import errno
from typing import Literal

from jawad_desktop.core.errors import JawadError, Remedy

VoiceErrorCode = Literal[
    "NO_INPUT_DEVICE",
    "DEVICE_BUSY",
    "PORTAUDIO_MISSING",
    "PERMISSION_DENIED",
    "AUDIO_DEVICE_FAILED",
    "MODEL_MISSING_OFFLINE",
    "MODEL_NOT_DOWNLOADED",
    "MODEL_LOAD_FAILED",
    # Downloading a larger speech model from the hub (core.voice.hub).
    "MODEL_NOT_FOUND",
    "MODEL_DOWNLOAD_FAILED",
    "MODEL_CORRUPT",
    "MODEL_DOWNLOAD_CANCELLED",
    "API_NOT_CONFIGURED",
    "API_KEY_INVALID",
    "API_UNREACHABLE",
    "API_ERROR",
    "NO_SPEECH",
    "BAD_AUDIO_FILE",
    "TRANSCRIPTION_FAILED",
    # Spoken replies (core.voice.tts): no engine to speak with, or the engine failed.
    "TTS_UNAVAILABLE",
    "TTS_FAILED",
    "NO_OUTPUT_DEVICE",
    # The packaged app's voice pack (core.voice.pack).
    "VOICE_PACK_MISSING",
    "VOICE_PACK_DOWNLOAD_FAILED",
    "VOICE_PACK_CORRUPT",
    "VOICE_PACK_NO_SPACE",
    "VOICE_PACK_CANCELLED",
]


VOICE = Remedy("voice")  # the input, the transcription backend and model, offline speech


class VoiceError(JawadError):
    """A voice failure with a code, a message and suggestions."""

    def __init__(
        self,
        code: VoiceErrorCode,
        message: str,
        *,
        suggestions: list[str] | None = None,
        remedy: Remedy | None = None,
    ) -> None:
        super().__init__(message, suggestions=suggestions, remedy=remedy)
        self.code: VoiceErrorCode = code


def portaudio_missing(detail: str) -> VoiceError:
    return VoiceError(
        "PORTAUDIO_MISSING",
        f"The audio library PortAudio is not installed, so the microphone cannot be used ({detail}).",
        suggestions=[
            "On Debian or Ubuntu: sudo apt install libportaudio2",
            "On Fedora: sudo dnf install portaudio",
            "Then restart Jawad.",
        ],
    )


def no_input_device(wanted: str = "") -> VoiceError:
    if wanted:
        return VoiceError(
            "NO_INPUT_DEVICE",
            f"The microphone {wanted!r} was not found.",
            suggestions=[
                "Plug the microphone in, or choose another input.",
                "Or use the system's default input.",
            ],
            remedy=VOICE,
        )
    return VoiceError(
        "NO_INPUT_DEVICE",
        "No microphone was found.",
        suggestions=[
            "Plug in a microphone or headset and try again.",
            "Check that the sound server (PulseAudio or PipeWire) is running.",
            "Or choose another input.",
        ],
        remedy=VOICE,
    )


def from_portaudio(exc: BaseException, device: str = "") -> VoiceError:
    """Translate an exception raised while opening or running an input stream."""
    text = str(exc)
    low = text.lower()
    # sounddevice.PortAudioError.args: (message, PaErrorCode, (host api, host error code, text))
    args: tuple[object, ...] = tuple(getattr(exc, "args", ()))
    code = args[1] if len(args) >= 2 and isinstance(args[1], int) else None
    host_errno = None
    host = args[2] if len(args) >= 3 else None
    if isinstance(host, tuple) and len(host) >= 2 and isinstance(host[1], int):
        host_errno = abs(host[1])
    where = f" ({device})" if device else ""
    if code == -9985 or "device unavailable" in low or "busy" in low or host_errno == errno.EBUSY:
        return VoiceError(
            "DEVICE_BUSY",
            f"The microphone{where} is being used by another program.",
            suggestions=[
                "Close the other program that records sound (a call, a recorder) and try again.",
                "Or choose another input.",
            ],
            remedy=VOICE,
        )
    if "permission" in low or host_errno in (errno.EACCES, errno.EPERM):
        return VoiceError(
            "PERMISSION_DENIED",
            f"Jawad is not allowed to use the microphone{where}.",
            suggestions=[
                "Allow microphone access for Jawad in your system's privacy settings.",
                "On Linux, make sure your user is in the 'audio' group or that the sound server runs.",
            ],
        )
    if (
        code in (-9996, -9998)
        or "no default input" in low
        or "invalid device" in low
        or "error querying device -1" in low
        or "no input device" in low
    ):
        return no_input_device(device)
    return VoiceError(
        "AUDIO_DEVICE_FAILED",
        f"The microphone{where} could not be opened: {text or type(exc).__name__}.",
        suggestions=["Choose another input, or reconnect the microphone and try again."],
        remedy=VOICE,
    )
