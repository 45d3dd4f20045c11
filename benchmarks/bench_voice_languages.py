"""Voice in many languages: word error rate per language of the multilingual Whisper ``base`` model,
with the language detected (Settings → Voice → Language: Automatic) and with it given.

Material nobody here wrote or recorded: one clip per language (en, es, de, fr, it, ja, ko, pt) from
Picovoice Leopard's public test audio with its own transcripts (``tests/voice/clips/languages``, see
its NOTICE). Each clip is read from its file and transcribed by the app's ``LocalWhisper`` with the
settings' default beam (5), int8, on this machine; the model is ``base`` (CTranslate2, the pinned
``whisper:base``) placed where the app keeps a downloaded model, made from the two PyPI packages
that ship it.

The same clips are also played into a private PulseAudio server's microphone and heard by the app's
own ``VoiceSession`` (capture, voice activity model, end of turn, transcription: what ``jawad listen``
does), language detected.

Word error rate: (substitutions + deletions + insertions) / reference words, after lowercasing and
removing punctuation. Japanese is written without spaces, so its figure is the character error
rate (the same edit distance over characters, spaces and punctuation left out).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import unicodedata
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, VoiceState
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.voice import LocalWhisper, VoiceSession, read_audio, write_wav
from jawad_desktop.core.voice.models import model_folder
from tests.fixtures.pulseaudio import PulseServer, private_pulseaudio

CLIPS = Path(__file__).resolve().parent.parent / "tests" / "voice" / "clips" / "languages"
BY_CHARACTER = {"ja", "zh"}  # written without spaces between words
MODEL = "base"


def normalize(text: str) -> str:
    """Lowercase, punctuation and symbols removed, spaces collapsed."""
    kept = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in text.casefold())
    return " ".join(kept.split())


def edit_distance(reference: list[str], hypothesis: list[str]) -> int:
    """Substitutions + deletions + insertions turning ``reference`` into ``hypothesis``."""
    row = list(range(len(hypothesis) + 1))
    for i, word in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, heard in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != heard))
    return row[-1]


def error_rate(reference: str, hypothesis: str, language: str) -> float:
    """Word error rate (character error rate for a language written without spaces)."""
    ref, hyp = normalize(reference), normalize(hypothesis)
    if language in BY_CHARACTER:
        ref_units, hyp_units = list(ref.replace(" ", "")), list(hyp.replace(" ", ""))
    else:
        ref_units, hyp_units = ref.split(), hyp.split()
    return edit_distance(ref_units, hyp_units) / max(1, len(ref_units))


def clips() -> list[dict[str, str]]:
    return list(json.loads((CLIPS / "languages.json").read_text(encoding="utf-8"))["clips"])


async def _measure(cache: Path, quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    chosen = clips()[:3] if quick else clips()
    detected = LocalWhisper(MODEL, cache_dir=cache, language="", beam_size=5)
    await detected.prepare()
    rates: list[float] = []
    right_language = 0
    for clip in chosen:
        language, audio = clip["language"], read_audio(CLIPS / clip["file"])
        heard = await detected.transcribe(audio)
        given = await LocalWhisper(MODEL, cache_dir=cache, language=language, beam_size=5).transcribe(audio)
        rate, rate_given = error_rate(clip["transcript"], heard.text, language), error_rate(
            clip["transcript"], given.text, language)
        unit = "CER" if language in BY_CHARACTER else "WER"
        right_language += heard.language == language
        if language not in BY_CHARACTER:
            rates.append(rate)
        figures.append(Figure(
            f"voice languages: {unit} {language} ({MODEL}, language detected)", round(100 * rate, 1), "%",
            note=f"detected {heard.language} ({heard.language_probability:.2f}); given {language}: "
                 f"{100 * rate_given:.1f} %; heard {heard.text!r}"))
    figures.append(Figure(f"voice languages: mean WER over {len(rates)} languages with spaces ({MODEL})",
                          round(100 * statistics.mean(rates), 1) if rates else 0.0, "%"))
    figures.append(Figure("voice languages: language detected right", right_language, "clips",
                          goal=f"{len(chosen)} of {len(chosen)}", ok=right_language == len(chosen)))
    return figures


async def _through_pulse(pulse: PulseServer, quick: bool) -> list[Figure]:
    """Each clip played into the microphone, heard by a ``VoiceSession`` with the language detected."""
    from tests.voice.whisper_base import write_base_model

    secrets = SecretStore()
    secrets.use_session_memory()
    ctx = AppContext.open(tempfile.mkdtemp(prefix="jawad-bench-languages-"), secrets=secrets)
    write_base_model(model_folder(MODEL, ctx.paths.cache))
    voice = ctx.settings.voice
    voice.model_size, voice.language = MODEL, ""
    session = VoiceSession(ctx)
    await session.warm_up()
    figures: list[Figure] = []
    rates: list[float] = []
    for clip in clips()[:3] if quick else clips():
        language = clip["language"]
        wav = write_wav(pulse.root / f"{language}.wav", read_audio(CLIPS / clip["file"]))

        def on_event(event: Event, wav: Path = wav) -> None:
            if isinstance(event, VoiceState) and event.state == "started":
                pulse.play(wav)  # the "user" starts speaking

        unsubscribe = ctx.bus.subscribe(on_event)
        try:
            heard = await session.listen()
        finally:
            unsubscribe()
        text = heard.text if heard is not None else ""
        rate = error_rate(clip["transcript"], text, language)
        if language not in BY_CHARACTER:
            rates.append(rate)
        unit = "CER" if language in BY_CHARACTER else "WER"
        figures.append(Figure(
            f"voice languages: {unit} {language} through PulseAudio ({MODEL}, detected)", round(100 * rate, 1), "%",
            note=f"detected {heard.language if heard else '-'}; heard {text!r}"))
    figures.append(Figure(f"voice languages: mean WER through PulseAudio over {len(rates)} languages ({MODEL})",
                          round(100 * statistics.mean(rates), 1) if rates else 0.0, "%"))
    return figures


def run(quick: bool) -> list[Figure]:
    from tests.voice.whisper_base import write_base_model

    with tempfile.TemporaryDirectory(prefix="jawad-bench-languages-") as folder:
        cache = Path(folder)
        write_base_model(model_folder(MODEL, cache))
        figures = asyncio.run(_measure(cache, quick))
    with private_pulseaudio() as pulse:
        figures.extend(asyncio.run(_through_pulse(pulse, quick)))
    return figures
