"""OpenAI's request rules for its reasoning models, answered as the API answers them, for the
loopback servers (``scripted_model`` applies them to every chat request).

A model named as OpenAI names its reasoning models (o1, o1-mini, o1-pro, o3, o3-mini, o3-pro,
o4-mini, gpt-5, gpt-5-mini, gpt-5-nano, gpt-5-pro, gpt-5.1, gpt-5.2..., dated snapshots too),
and ``UNKNOWN_REASONER`` ("zeta-reasoner-2", a name no table knows),
refuses, in this order, each with status 400 and OpenAI's exact body:

- ``max_tokens`` (``unsupported_parameter``: "Use 'max_completion_tokens' instead.");
- ``temperature`` and ``top_p`` other than the default 1 (``unsupported_value``);
- ``reasoning_effort`` outside the levels of its family (o-series: low, medium, high; gpt-5:
  minimal, low, medium, high; gpt-5.1 and later: none, low, medium, high), or at all (o1-mini).

``max_completion_tokens`` and a valid ``reasoning_effort`` are accepted. Other models have no
rule here. ``wrap`` gives the same refusal as gateways pass it on, with only the text:
LiteLLM's proxy (``{"error": {"message": "litellm.BadRequestError: OpenAIException - ...",
"type": "None", "param": "None", "code": "400"}}``, the literal "None" strings of its older
releases) and OpenRouter (``"Provider returned error"`` with OpenAI's body as text in
``metadata.raw``).
"""

from __future__ import annotations

import json
import re
from typing import Any

UNKNOWN_REASONER = "zeta-reasoner-2"
GATEWAYS = ("litellm", "openrouter")

_NAMES = re.compile(r"^(o1|o1-mini|o1-pro|o3|o3-mini|o3-pro|o4-mini|gpt-5(\.\d+)?(-mini|-nano|-pro|-codex)?)"
                    r"(-\d{4}-\d{2}-\d{2})?$")
_O_SERIES = ("low", "medium", "high")
_GPT5 = ("minimal", "low", "medium", "high")
_GPT5_1 = ("none", "low", "medium", "high")


def efforts(model: str) -> tuple[str, ...] | None:
    """The ``reasoning_effort`` levels ``model`` takes (empty: none at all), or None when it is
    not a reasoning model these rules know."""
    name = model  # as OpenAI names them: a gateway's "openai/o4-mini" is the gateway's business
    if name == UNKNOWN_REASONER:
        return _GPT5_1
    if not _NAMES.match(name):
        return None
    if name.startswith("o1-mini"):
        return ()
    if name.startswith("o"):
        return _O_SERIES
    return _GPT5_1 if name.startswith("gpt-5.") else _GPT5


def is_reasoning_model(model: str) -> bool:
    return efforts(model) is not None


def _error(message: str, param: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else json.dumps(value)


def _listed(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


# Models that take no images (an image part gets OpenAI's "Invalid content type" 400).
TEXT_ONLY_MODELS = frozenset({"gpt-3.5-turbo", "text-only-model"})
_DATA_URL = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$")


def image_refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    """OpenAI's 400 for image parts the Chat Completions API does not take: an ``image_url`` part
    outside a user message, a malformed one, or one for a model without vision."""
    model = str(body.get("model") or "")
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for k, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind not in ("text", "image_url", "input_audio"):
                return _error(f"Invalid value: '{kind}'. Supported values are: 'text', 'image_url' and "
                              "'input_audio'.", f"messages.[{i}].content.[{k}].type", "invalid_value")
            if kind == "input_audio":
                if (refused := _audio_refusal(model, message, part, f"messages.[{i}].content.[{k}]")) is not None:
                    return refused
                continue
            if kind != "image_url":
                continue
            if message.get("role") != "user":
                return _error(f"Invalid 'messages[{i}]'. Image URLs are only allowed for messages with role "
                              f"'user', but this message with role '{message.get('role')}' contains an image URL.",
                              f"messages.[{i}]", "invalid_value")
            url = (part.get("image_url") or {}).get("url") if isinstance(part.get("image_url"), dict) else None
            if not isinstance(url, str) or not (_DATA_URL.match(url) or url.startswith(("https://", "http://"))):
                return _error("Invalid 'image_url'. Expected a base64-encoded data URL with an image MIME type "
                              "(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the "
                              "'data:' prefix.", f"messages.[{i}].content.[{k}].image_url.url", "invalid_value")
            if model.rsplit("/", 1)[-1] in TEXT_ONLY_MODELS:
                return _error("Invalid content type. image_url is only supported by certain models.",
                              f"messages.[{i}].content.[{k}].type", None)
    return None


# Chat Completions models documented as taking input_audio (the others answer the 400 below).
AUDIO_MODELS = frozenset({"gpt-4o-audio-preview", "gpt-4o-mini-audio-preview", "gpt-audio", "gpt-audio-mini"})


def _audio_refusal(model: str, message: dict[str, Any], part: dict[str, Any], where: str) -> dict[str, Any] | None:
    """OpenAI's 400 for an ``input_audio`` part as its API reference gives it: only in a user message,
    ``{"data": <base64>, "format": "wav" | "mp3"}``, for an audio model."""
    if message.get("role") != "user":
        return _error(f"Invalid '{where}'. Audio input is only allowed for messages with role 'user'.", where,
                      "invalid_value")
    audio = part.get("input_audio")
    if not isinstance(audio, dict) or audio.get("format") not in ("wav", "mp3"):
        return _error("Invalid value for 'format': expected one of 'wav' or 'mp3'.", f"{where}.input_audio.format",
                      "invalid_value")
    data = audio.get("data")
    if not isinstance(data, str) or not re.fullmatch(r"[A-Za-z0-9+/]+=*", data):
        return _error("Invalid 'input_audio.data': expected base64-encoded audio.", f"{where}.input_audio.data",
                      "invalid_value")
    if model.rsplit("/", 1)[-1] not in AUDIO_MODELS:
        return _error("Invalid content type. input_audio is only supported by certain models.", f"{where}.type", None)
    return None


def refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    """OpenAI's 400 body for a chat request the model refuses, or None when it takes it."""
    if (refused := image_refusal(body)) is not None:
        return refused
    levels = efforts(str(body.get("model") or ""))
    if levels is None:
        return None
    if "max_tokens" in body:
        return _error("Unsupported parameter: 'max_tokens' is not supported with this model. "
                      "Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    for name in ("temperature", "top_p"):
        if name in body and body[name] != 1:
            return _error(f"Unsupported value: '{name}' does not support {_number(body[name])} with this model. "
                          "Only the default (1) value is supported.", name, "unsupported_value")
    if "reasoning_effort" in body:
        if not levels:
            return _error("Unsupported parameter: 'reasoning_effort' is not supported with this model.",
                          "reasoning_effort", "unsupported_parameter")
        if body["reasoning_effort"] not in levels:
            return _error(f"Unsupported value: 'reasoning_effort' does not support '{body['reasoning_effort']}' "
                          f"with this model. Supported values are: {_listed(levels)}.",
                          "reasoning_effort", "unsupported_value")
    return None


def wrap(error: dict[str, Any], gateway: str) -> dict[str, Any]:
    """``error`` (OpenAI's body) as ``gateway`` passes it on: the words only."""
    message = error["error"]["message"]
    if gateway == "litellm":
        return {"error": {"message": f"litellm.BadRequestError: OpenAIException - {message}",
                          "type": "None", "param": "None", "code": "400"}}
    if gateway == "openrouter":
        return {"error": {"message": "Provider returned error", "code": 400,
                          "metadata": {"raw": json.dumps(error, indent=2), "provider_name": "OpenAI"}}}
    raise ValueError(f"unknown gateway {gateway!r}")
