"""Voice: microphone capture, end-of-speech detection, transcription and spoken replies (no Qt).

The public surface is listed in ``__all__``; the UI and the CLI use only these names. Each is
imported on first use (numpy, PortAudio and httpx take a tenth of a second): the packaged
app activates its voice pack (``voice.pack``) at start without paying for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jawad_desktop.core.lazy_names import names_on_first_use

if TYPE_CHECKING:
    from jawad_desktop.core.voice.audio import SAMPLE_RATE, Synthesizer, read_audio, write_wav
    from jawad_desktop.core.voice.capture import (
        InputDevice,
        LevelMonitor,
        Recorder,
        list_input_devices,
        reinitialize_portaudio,
    )
    from jawad_desktop.core.voice.conversation import Conversation
    from jawad_desktop.core.voice.errors import VoiceError
    from jawad_desktop.core.voice.models import BUNDLED_MODEL, bundled_model_path, known_model_sizes, resolve_model
    from jawad_desktop.core.voice.pack import PackStatus, VoicePack
    from jawad_desktop.core.voice.playback import AudioOutput, ReplyReader, SpeechPipeline
    from jawad_desktop.core.voice.speakable import SentenceChunker
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
    from jawad_desktop.core.voice.tts import build_synthesizer
    from jawad_desktop.core.voice.turns import TurnTiming
    from jawad_desktop.core.voice.vad import EndOfSpeechDetector, VadConfig
    from jawad_desktop.core.voice.voice_session import VoiceSession

# Public name -> the submodule that defines it.
_SOURCES = {
    "AudioOutput": "playback",
    "Conversation": "conversation",
    "SentenceChunker": "speakable",
    "ReplyReader": "playback",
    "SpeechPipeline": "playback",
    "Synthesizer": "audio",
    "TurnTiming": "turns",
    "build_synthesizer": "tts",
    "BUNDLED_MODEL": "models",
    "SAMPLE_RATE": "audio",
    "EndOfSpeechDetector": "vad",
    "FallbackTranscriber": "transcribers",
    "InputDevice": "capture",
    "LevelMonitor": "capture",
    "LocalWhisper": "transcribers",
    "PackStatus": "pack",
    "Recorder": "capture",
    "Transcriber": "transcribers",
    "Transcript": "transcribers",
    "VadConfig": "vad",
    "VoiceError": "errors",
    "VoicePack": "pack",
    "VoiceSession": "voice_session",
    "WhisperAPI": "transcribers",
    "api_transcriber": "transcribers",
    "build_transcriber": "transcribers",
    "bundled_model_path": "models",
    "known_model_sizes": "models",
    "list_input_devices": "capture",
    "local_transcriber": "transcribers",
    "read_audio": "audio",
    "reinitialize_portaudio": "capture",
    "resolve_model": "models",
    "write_wav": "audio",
}

__all__ = [
    "BUNDLED_MODEL",
    "SAMPLE_RATE",
    "AudioOutput",
    "Conversation",
    "EndOfSpeechDetector",
    "FallbackTranscriber",
    "InputDevice",
    "LevelMonitor",
    "LocalWhisper",
    "PackStatus",
    "Recorder",
    "ReplyReader",
    "SentenceChunker",
    "SpeechPipeline",
    "Synthesizer",
    "Transcriber",
    "Transcript",
    "TurnTiming",
    "VadConfig",
    "VoiceError",
    "VoicePack",
    "VoiceSession",
    "WhisperAPI",
    "api_transcriber",
    "build_synthesizer",
    "build_transcriber",
    "bundled_model_path",
    "known_model_sizes",
    "list_input_devices",
    "local_transcriber",
    "read_audio",
    "reinitialize_portaudio",
    "resolve_model",
    "write_wav",
]


__getattr__ = names_on_first_use(__name__, _SOURCES)
