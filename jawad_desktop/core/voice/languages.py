"""The languages voice works in (no Qt): their names, which speech model understands which, and
which language a Piper voice speaks.

Recognition: Settings → Voice → Language is a code ("de") or empty for Automatic, where a
multilingual model (``base``) detects the language spoken; an English-only model (``tiny.en``, any
``.en``) hears English only, so asking one for another language is refused with what to do
(``language_error``) instead of transcribing German as English words.

Spoken replies: a Piper voice's language is the first part of its name (``de_DE-thorsten-medium``
speaks German, as every Piper voice is named), or its ``.onnx.json``'s ``language.code``;
``core.voice.reply_voices`` picks a voice by it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from jawad_desktop.core.voice.errors import VOICE, VoiceError

# The languages offered in Settings → Voice (code, name), after Automatic; any code Whisper knows works.
LANGUAGES: list[tuple[str, str]] = [
    ("en", "English"), ("ar", "Arabic"), ("fr", "French"), ("de", "German"), ("es", "Spanish"),
    ("it", "Italian"), ("pt", "Portuguese"), ("nl", "Dutch"), ("tr", "Turkish"), ("ru", "Russian"),
    ("zh", "Chinese"), ("ja", "Japanese"), ("ko", "Korean"), ("hi", "Hindi"),
]
_NAMES = dict(LANGUAGES)
MULTILINGUAL_MODEL = "base"  # the multilingual model Jawad pins and offers


def language_name(code: str) -> str:
    """"German" for "de"; the code itself for a language not in the list."""
    base = code.split("_")[0].split("-")[0].lower()
    return _NAMES.get(base, code)


def language_error(model: str, language: str, *, multilingual: bool) -> VoiceError | None:
    """The error for a model that cannot hear ``language`` (an English-only one asked for another
    language); None when the model fits."""
    if multilingual or language in ("", "en"):
        return None
    name = language_name(language)
    return VoiceError(
        "LANGUAGE_NOT_IN_MODEL",
        f"The speech model {model!r} understands English only, and the voice language is set to {name}.",
        suggestions=[
            f"Choose the model {MULTILINGUAL_MODEL!r} in Settings → Voice: it understands {name} and detects "
            "the language you speak (a download of about 145 MB, once).",
            "Or set the language to English or Automatic in Settings → Voice.",
        ],
        remedy=VOICE,
    )


_VOICE_NAME = re.compile(r"^([a-z]{2,3})(?:[_-][A-Z]{2})?-")


def voice_language(model: Path) -> str:
    """The language a Piper voice speaks ("de" for de_DE-thorsten-medium.onnx); "" when unknown."""
    match = _VOICE_NAME.match(model.name)
    if match:
        return match.group(1)
    try:
        config = json.loads(Path(str(model) + ".json").read_text(encoding="utf-8"))
        code = str(config.get("language", {}).get("code") or "")
    except (OSError, ValueError, AttributeError):
        return ""
    return code.split("_")[0].lower()


def same_language(a: str, b: str) -> bool:
    """True when two codes name the same language ("de" and "de_DE")."""
    return bool(a) and bool(b) and a.split("_")[0].split("-")[0].lower() == b.split("_")[0].split("-")[0].lower()
