"""Whether a model sees images, and how an image rides in a Chat Completions request.

Owns the ONE place where vision is decided:

- ``known_vision(kind, model)``: from the model's name, for the families the providers document
  as taking images (OpenAI GPT-4o, GPT-4.1, GPT-5, o1/o3/o4-mini; Anthropic Claude 3 and later;
  every Gemini chat model; Ollama's llava, llama3.2-vision, qwen-vl, gemma3, minicpm-v...), and
  for those documented as text only (gpt-3.5, o1-mini, o3-mini, claude-2, gpt-oss, deepseek...).
  None: not known from the name.
- ``accepts_images(facts, key)``: what was learned about the model first (``ModelFacts.vision``,
  set when a provider refused an image, or by the image-input test ``core.llm.vision_probe``),
  else the name. Unknown models are treated as text
  only: an image sent to a server that silently drops it would make the model guess.
- ``images_refused(status, text)``: the providers' documented answers to an image a model
  cannot take (the client then learns ``vision = False``, takes the images out and asks again).
- ``chat_messages(messages)``: the Chat Completions ``messages`` with images as
  ``image_url`` content parts (and the sounds ``core.llm.audio_input`` let through as ``input_audio``).
  A ``tool`` message cannot hold an image in that API, so the images
  of a run of tool results go in one user message right after the run (the API wants every
  tool result directly after the calls).

The other APIs place images in their own clients: Anthropic (``image`` blocks, inside
``tool_result``), Gemini (``inlineData`` parts), Ollama (``images``), Responses (``input_image``),
Bedrock Converse (``image`` blocks, inside ``toolResult``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from jawad_desktop.core.llm.audio_input import input_audio_part
from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.store.model_facts import ModelFactsStore, ModelKey

__all__ = [
    "IMAGES_LEFT_OUT",
    "accepts_images",
    "chat_messages",
    "has_images",
    "images_note",
    "images_refused",
    "known_vision",
    "without_images",
]

log = logging.getLogger("jawad.llm.vision")

# Names (lower case, without "vendor/" and Bedrock's "us.anthropic." prefixes) of models that
# take images, then of models documented as text only. Searched from the name's start.
_SEES = re.compile(
    r"(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo(?!-preview)|gpt-4-vision|gpt-5|o1(?!-mini|-preview)"
    r"(-|$)|o3(?!-mini)(-|$)|o4-mini|computer-use"
    r"|claude-3|claude-(opus|sonnet|haiku)-4|claude-(opus|sonnet|haiku)-[5-9]"
    r"|gemini-(1\.5|2|3|exp|pro-vision)|gemma-?3(?![:-]1b)|gemma-?3n"
    r"|llava|bakllava|llama3\.2-vision|llama-3\.2-\d+b-vision|llama-?4|qwen[\d.]*-?vl|qvq|minicpm-v"
    r"|moondream|pixtral|mistral-small-?3\.[12]|mistral-medium|granite3\.2-vision|internvl|phi-?3\.5-vision"
    r"|phi-?4-multimodal|grok-(2-vision|4)|nova-(lite|pro|premier))"
)
_TEXT_ONLY = re.compile(
    r"(gpt-3\.5|gpt-4(-\d{4}|-32k|$)|o1-mini|o1-preview|o3-mini|claude-(2|instant)|gpt-oss|deepseek"
    r"|qwen[\d.]*(?!-?vl)(-|:|$)|qwq|llama-?2|llama-?3(\.[013])?(?!\.2-vision)(-|:|$)|mistral(?!-small-?3\.[12])"
    r"(-|:|$)|mixtral|phi-?[234](?!\.5-vision|-multimodal)|codellama|starcoder|gemma-?2|gemma(?!-?3)(-|:|$)"
    r"|gemini-embedding|text-embedding)"
)
_BEDROCK_PREFIX = re.compile(r"^(?:[a-z]{2,4}\.)?(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|qwen|openai)\.")

# The providers' words for an image the model cannot take (lower case):
# OpenAI "Invalid content type. image_url is only supported by certain models."; llama.cpp
# "image input is not supported - hint: ... mmproj"; vLLM "... is not a multimodal model";
# OpenRouter "No endpoints found that support image input"; LM Studio "Model does not support
# images"; Ollama "this model is missing data required for image input"; Bedrock "This model
# doesn't support the image content block".
_REFUSALS = (
    "image_url is only supported by certain models",
    "image input is not supported",
    "is not a multimodal model",
    "support image input",
    "does not support image",
    "doesn't support image",
    "doesn't support the image",
    "missing data required for image input",
    "images are not supported",
    "image content is not supported",
    "vision is not supported",
)

IMAGES_LEFT_OUT = "[a screenshot was here; this model cannot see images]"


def _name(model: str) -> str:
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _BEDROCK_PREFIX.sub("", name)


def known_vision(kind: str, model: str) -> bool | None:
    """Whether ``model`` takes images, from its name; None when the name does not say."""
    name = _name(model)
    if not name:
        return None
    if _SEES.match(name):
        return True
    if _TEXT_ONLY.match(name):
        return False
    if kind in ("gemini",) and name.startswith("gemini"):
        return True
    return None


def accepts_images(facts: ModelFactsStore | None, key: ModelKey) -> bool:
    """Whether images may be sent to the model ``key``: what was learned, else its name."""
    kind, _, model = key
    if not model:
        return False
    if facts is not None:
        learned = facts.get(key).vision
        if learned is not None:
            return learned
    return bool(known_vision(kind, model))


def images_refused(status: int | None, text: str) -> bool:
    """Whether a provider's error answer says the model cannot take an image."""
    if status is not None and status not in (400, 404, 415, 422, 500):
        return False
    lowered = text.lower()
    return any(words in lowered for words in _REFUSALS)


def has_images(messages: Iterable[Message]) -> bool:
    return any(message.images for message in messages)


def without_images(messages: list[Message]) -> list[Message]:
    """``messages`` with every image replaced by a line saying one was left out (copies; the
    caller's list is not changed)."""
    out: list[Message] = []
    for message in messages:
        if not message.images:
            out.append(message)
            continue
        text = f"{message.content}\n{IMAGES_LEFT_OUT}" if message.content else IMAGES_LEFT_OUT
        out.append(Message(role=message.role, content=text, tool_calls=list(message.tool_calls),
                           tool_call_id=message.tool_call_id, name=message.name, audio=list(message.audio)))
    return out


def images_note(message: Message) -> str:
    """The words before a tool result's images in the user message that carries them."""
    tool = message.name or "the tool"
    return f"The image{'s' if len(message.images) > 1 else ''} returned by {tool} (call {message.tool_call_id}):"


def _image_part(image: Image) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image.data_url()}}


def chat_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """The Chat Completions ``messages``: user images as ``image_url`` parts of the content, tool
    images in one user message after the run of tool results they belong to."""
    out: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []  # parts of the tool results' images, sent after the run

    def flush() -> None:
        if held:
            out.append({"role": "user", "content": list(held)})
            held.clear()

    for message in messages:
        if message.role != "tool":
            flush()
        wire = message.to_wire()
        sounds = [input_audio_part(audio) for audio in message.audio]  # only those the model hears are left
        if (message.images or sounds) and message.role == "user":
            parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
            wire["content"] = parts + [_image_part(image) for image in message.images] + sounds
        elif message.role == "tool":
            if message.images:
                held.append({"type": "text", "text": images_note(message)})
                held.extend(_image_part(image) for image in message.images)
            if sounds:
                held.append({"type": "text", "text": f"The sound returned by {message.name or 'the tool'} "
                                                     f"(call {message.tool_call_id}):"})
                held.extend(sounds)
        out.append(wire)
    flush()
    return out
