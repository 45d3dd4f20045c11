"""Voice: microphone capture, end-of-speech detection, transcription and spoken replies (no Qt).

The public surface is listed in ``__all__``; the UI and the CLI use only these names.
"""

from jawad_desktop.core.voice.audio import SAMPLE_RATE, read_audio, write_wav
from jawad_desktop.core.voice.capture import (
    InputDevice,
    LevelMonitor,
    Recorder,
    list_input_devices,
    reinitialize_portaudio,
)
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.models import BUNDLED_MODEL, bundled_model_path, known_model_sizes, resolve_model
from jawad_desktop.core.voice.session import VoiceSession
from jawad_desktop.core.voice.speech import EspeakSpeaker, speakable_text
from jawad_desktop.core.voice.transcribers import (
    FallbackTranscriber,
    LocalWhisper,
    Transcriber,
    Transcript,
    WhisperAPI,
    api_transcriber,
    build_transcriber,
    local_transcriber,
)
from jawad_desktop.core.voice.vad import EndOfSpeechDetector, VadConfig

__all__ = [
    "BUNDLED_MODEL",
    "SAMPLE_RATE",
    "EndOfSpeechDetector",
    "EspeakSpeaker",
    "FallbackTranscriber",
    "InputDevice",
    "LevelMonitor",
    "LocalWhisper",
    "Recorder",
    "Transcriber",
    "Transcript",
    "VadConfig",
    "VoiceError",
    "VoiceSession",
    "WhisperAPI",
    "api_transcriber",
    "build_transcriber",
    "bundled_model_path",
    "known_model_sizes",
    "list_input_devices",
    "local_transcriber",
    "read_audio",
    "reinitialize_portaudio",
    "resolve_model",
    "speakable_text",
    "write_wav",
]
