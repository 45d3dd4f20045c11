"""Voice failures as the user is told about them, and the one place PortAudio errors are translated.

Every ``VoiceError`` has a stable ``code`` (for the UI and tests) plus what happened and what
to do; where the fix is a voice setting its ``remedy`` is ``VOICE`` (each face words it).
``from_portaudio`` turns sounddevice/PortAudio exceptions into these; nothing else in the
voice package inspects PortAudio messages.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Literal

from jawad_desktop.core.errors import JawadError, Remedy

if TYPE_CHECKING:
    import httpx

VoiceErrorCode = Literal[
    "NO_INPUT_DEVICE",
    "DEVICE_BUSY",
    "PORTAUDIO_MISSING",
    "PERMISSION_DENIED",
    "AUDIO_DEVICE_FAILED",
    "MODEL_MISSING_OFFLINE",
    "MODEL_NOT_DOWNLOADED",
    "MODEL_LOAD_FAILED",
    # Downloading a larger speech model from the hub (core.voice.whisper_download).
    "MODEL_NOT_FOUND",
    "MODEL_DOWNLOAD_FAILED",
    "MODEL_CORRUPT",
    "MODEL_DOWNLOAD_CANCELLED",
    "MODEL_UNTRUSTED",  # its files do not match the pin (core.store.pins) or nothing says what they must be
    "MODEL_NOT_PINNED",  # a repository no pin names: never downloaded
    "LANGUAGE_NOT_IN_MODEL",  # an English-only model set to another language (core.voice.languages)
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
    "TTS_UNTRUSTED",  # a Piper voice that does not match its pin, or a packaged voice no pin names
    "NO_OUTPUT_DEVICE",
    # A message typed in conversation mode that the conversation ended before sending.
    "CONVERSATION_ENDED",
    # The packaged app's voice pack (core.voice.pack).
    "VOICE_PACK_MISSING",
    "VOICE_PACK_DOWNLOAD_FAILED",
    "VOICE_PACK_CORRUPT",
    "VOICE_PACK_NO_SPACE",
    "VOICE_PACK_CANCELLED",
    "VOICE_PACK_UNCHECKED",  # this build has no SHA-256 for the pack: it is never installed
    "WAKE_UNAVAILABLE",  # the wake word needs the voice activity model, missing here
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


# -- a speech API's answer (transcription and spoken replies) --------------------------------------


def api_error_detail(response: httpx.Response) -> str:
    """The error message of an OpenAI-style error body (``{"error": {"message": ...}}``), a
    FastAPI ``detail``, or the body's first 200 characters."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or "")[:200]
        if isinstance(error, str):
            return error[:200]
        if "detail" in body:
            return str(body["detail"])[:200]
    return ""


def api_status_error(response: httpx.Response, *, provider: str, provider_name: str, doing: str,
                     for_what: str, hints: dict[int, str], fallback: str, other_way: str,
                     key_suggestions: tuple[str, ...] = ()) -> VoiceError | None:
    """The ``VoiceError`` for a speech API's refusal (None for a success): a refused key (401/403)
    points at the provider's key; another error says what the service said, ``hints[status]``
    (else ``fallback``) and ``other_way`` (the local alternative). ``doing`` completes "could not
    ..." and ``for_what`` "refused the API key for ..."."""
    status = response.status_code
    if status in (401, 403):
        return VoiceError(
            "API_KEY_INVALID",
            f"{provider} refused the API key for {for_what} "
            f"(HTTP {status}: {api_error_detail(response) or 'unauthorized'}).",
            suggestions=[f"Enter a valid API key for {provider}.", *key_suggestions],
            remedy=Remedy("provider-key", provider_name),
        )
    if status >= 400:
        detail = api_error_detail(response)
        return VoiceError(
            "API_ERROR",
            f"{provider} could not {doing} (HTTP {status}{': ' + detail if detail else ''}).",
            suggestions=[hints.get(status, fallback), other_way],
            remedy=VOICE,
        )
    return None
