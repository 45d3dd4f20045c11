"""Whether a model hears audio, and how a sound rides in a request: the ONE place audio input is decided.

A tool's sound (an MCP tool's ``audio`` content, ``Message.audio``) goes to the model as sound only
where the provider documents audio input and the model takes it; everywhere else it is left out and
the message says so (``AUDIO_LEFT_OUT``), so the model knows there was a sound it did not hear.

- ``known_hearing(kind, model)``: from the model's name. Chat Completions (OpenAI and servers that
  follow it): OpenAI's audio models (``gpt-4o-audio-preview``, ``gpt-4o-mini-audio-preview``,
  ``gpt-audio``, ``gpt-audio-mini``) and the open models vLLM and llama.cpp serve with audio input
  (Qwen2-Audio, Qwen2.5/3-Omni, Ultravox, Voxtral, Phi-4-multimodal). Gemini: its chat models
  (1.5, 2.x, 3; not the embedding, image-generation or text-to-speech ones). Every other API here
  (Anthropic, Bedrock Converse, Ollama, Responses) takes no audio input: False.
- ``for_model(key, messages)``: ``messages`` with the sound left out unless the model hears it,
  or the API does not take its format (Chat Completions: WAV and MP3 only).
- ``input_audio_part(audio)``: Chat Completions' ``input_audio`` content part (base64 data and
  ``wav``/``mp3``), which only a user message may hold (``core.llm.vision.chat_messages`` puts a
  tool result's sound after the run of results, as it does its images).
- ``gemini_media_type(audio)``: the audio MIME type Gemini's ``inline_data`` names (WAV, MP3, AIFF,
  AAC, OGG Vorbis, FLAC), or None.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from jawad_desktop.core.messages import Audio, Message
from jawad_desktop.core.store.model_facts import ModelKey

__all__ = ["AUDIO_LEFT_OUT", "for_model", "gemini_media_type", "input_audio_part", "known_hearing"]

log = logging.getLogger("jawad.llm.audio")

AUDIO_LEFT_OUT = "[a sound was here; this model cannot hear audio]"

_CHAT_KINDS = frozenset({"openai", "openrouter", "ollama", "openai-compatible", "local"})
_HEARS_CHAT = re.compile(
    r"(gpt-4o(-mini)?-audio|gpt-audio|qwen[\d.]*-?audio|qwen[\d.]*-?omni|ultravox|voxtral|phi-?4-multimodal)")
_GEMINI_CHAT = re.compile(r"gemini-(1\.5|2|3|exp)")
_GEMINI_NOT = re.compile(r"(embedding|image|tts)")

# Chat Completions' input_audio formats, by media type.
_CHAT_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/vnd.wave": "wav",
                 "audio/mpeg": "mp3", "audio/mp3": "mp3"}
# Gemini's documented audio MIME types (and the common aliases of two of them).
_GEMINI_TYPES = {"audio/wav": "audio/wav", "audio/x-wav": "audio/wav", "audio/wave": "audio/wav",
                 "audio/mp3": "audio/mp3", "audio/mpeg": "audio/mp3", "audio/aiff": "audio/aiff",
                 "audio/aac": "audio/aac", "audio/ogg": "audio/ogg", "audio/flac": "audio/flac"}


def _name(model: str) -> str:
    return model.strip().lower().rsplit("/", 1)[-1]


def known_hearing(kind: str, model: str) -> bool:
    """Whether ``model`` of the provider ``kind`` takes audio input, from its name."""
    name = _name(model)
    if kind == "gemini":
        return bool(_GEMINI_CHAT.match(name)) and not _GEMINI_NOT.search(name)
    return kind in _CHAT_KINDS and bool(_HEARS_CHAT.match(name))


def _media_type(audio: Audio) -> str:
    return audio.media_type.split(";", 1)[0].strip().lower()


def gemini_media_type(audio: Audio) -> str | None:
    return _GEMINI_TYPES.get(_media_type(audio))


def input_audio_part(audio: Audio) -> dict[str, Any]:
    """Chat Completions' content part for ``audio`` (a WAV or MP3: ``for_model`` left out the rest)."""
    return {"type": "input_audio", "input_audio": {"data": audio.base64(), "format": _CHAT_FORMATS[_media_type(audio)]}}


def _sendable(kind: str, audio: Audio) -> bool:
    if kind == "gemini":
        return gemini_media_type(audio) is not None
    return _media_type(audio) in _CHAT_FORMATS


def for_model(key: ModelKey, messages: list[Message]) -> list[Message]:
    """``messages`` as the model ``key`` may get them: each sound it cannot hear (the model, or its
    API's formats) replaced by a line saying one was left out (copies; the caller's list is kept)."""
    if not any(message.audio for message in messages):
        return messages
    kind, _, model = key
    hears = known_hearing(kind, model)
    out: list[Message] = []
    for message in messages:
        kept = [audio for audio in message.audio if hears and _sendable(kind, audio)]
        if len(kept) == len(message.audio):
            out.append(message)
            continue
        log.info("%d sound(s) left out for %s: not heard by the model or not in a format its API takes",
                 len(message.audio) - len(kept), model)
        text = f"{message.content}\n{AUDIO_LEFT_OUT}" if message.content else AUDIO_LEFT_OUT
        out.append(Message(role=message.role, content=text, tool_calls=list(message.tool_calls),
                           tool_call_id=message.tool_call_id, name=message.name, images=list(message.images),
                           audio=kept))
    return out
