"""Beam size of local Whisper: word accuracy and latency of beam 1, 2, 3 and 5 on spoken commands.

Twenty short commands are spoken by espeak-ng in three voices (American, British and RP English;
16 kHz WAV, as the voice tests make them) and transcribed by the real faster-whisper tiny.en
int8 through ``LocalWhisper`` with each beam size in turn, clip by clip (so a busy moment of
the machine weighs on every beam alike), as a final transcript (partials are always greedy).
Word accuracy is 1 - WER against the text spoken, after lower-casing, dropping punctuation and writing numbers as words;
latency is the median transcription time of one command. The default beam size of the
settings (``VoiceSettings.beam_size``) is the one this picks: the most accurate, and among
equally accurate ones (within ``ACCURACY_TIE`` points: CTranslate2's threaded int8 decoding
changes a word or two between runs) the fastest, as long as its median latency stays within
``LATENCY_BUDGET_S`` of greedy decoding.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.config.settings import VoiceSettings
from jawad_desktop.core.voice import LocalWhisper, read_audio

BEAMS = (1, 2, 3, 5)
VOICES = ("en-us", "en", "en-gb-x-rp")
LATENCY_BUDGET_S = 0.15  # extra median time per command a wider beam may cost over greedy
ACCURACY_TIE = 0.01  # word accuracies this close are the same (run-to-run noise)

PHRASES = [
    "water the plants",
    "set a timer for ten minutes",
    "open the calendar",
    "what is the weather like today",
    "send a message to my mother",
    "turn off the lights in the kitchen",
    "play some relaxing music",
    "remind me to call the doctor tomorrow",
    "search the web for pasta recipes",
    "read this page aloud",
    "close the browser window",
    "add milk to my shopping list",
    "how long will it take to get to the airport",
    "summarize this article",
    "find a cheaper alternative",
    "book a table for two at seven",
    "open the settings",
    "what time is it in Tokyo",
    "scroll down to the comments",
    "translate this sentence into French",
]

_NUMBERS = {"1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
            "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve", "20": "twenty"}


def words(text: str) -> list[str]:
    """``text`` as comparable words: lower case, no punctuation, digits written out."""
    tokens = re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))
    return [_NUMBERS.get(token, token) for token in tokens]


def word_errors(reference: list[str], heard: list[str]) -> int:
    """The word-level edit distance (substitutions, insertions, deletions)."""
    previous = list(range(len(heard) + 1))
    for i, ref_word in enumerate(reference, 1):
        current = [i]
        for j, heard_word in enumerate(heard, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref_word != heard_word)))
        previous = current
    return previous[-1]


def speak(text: str, folder: Path, voice: str = "en-us") -> Path:
    """espeak-ng speech of ``text`` as 16 kHz mono WAV with a short pause around it."""
    raw, target = folder / "raw.wav", folder / f"{voice}-{abs(hash(text))}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", str(target), "pad", "0.3", "0.2"], check=True)
    raw.unlink()
    return target


def pick_default(scores: dict[int, tuple[float, float]]) -> int:
    """The beam size to use by default from {beam: (word accuracy, median latency s)}."""
    greedy_latency = scores[1][1]
    affordable = {b: s for b, s in scores.items() if s[1] <= greedy_latency + LATENCY_BUDGET_S}
    best = max(accuracy for accuracy, _ in affordable.values())
    tied = [b for b, (accuracy, _) in affordable.items() if accuracy >= best - ACCURACY_TIE]
    return min(tied, key=lambda b: (affordable[b][1], b))


async def measure(spoken: list[str], folder: Path) -> dict[int, tuple[float, float, list[str]]]:
    """{beam: (word accuracy, median latency s, what was heard)} over the ``spoken`` phrases
    (``PHRASES`` each in every voice of ``VOICES``, in that order)."""
    phrases = spoken[: len(spoken) // len(VOICES)]
    clips = [read_audio(speak(text, folder, voice)) for voice in VOICES for text in phrases]
    models = {beam: LocalWhisper("tiny.en", cache_dir=folder / "cache", beam_size=beam) for beam in BEAMS}
    for model in models.values():
        await model.transcribe(clips[0])  # the engine is shared: the first pays the load, all warm up
    errors = dict.fromkeys(BEAMS, 0)
    latencies: dict[int, list[float]] = {beam: [] for beam in BEAMS}
    heard: dict[int, list[str]] = {beam: [] for beam in BEAMS}
    total = 0
    for text, clip in zip(spoken, clips, strict=True):
        reference = words(text)
        total += len(reference)
        for beam, model in models.items():
            result = await model.transcribe(clip)
            errors[beam] += word_errors(reference, words(result.text))
            latencies[beam].append(result.elapsed_s)
            heard[beam].append(result.text)
    return {beam: (1 - errors[beam] / total, statistics.median(latencies[beam]), heard[beam]) for beam in BEAMS}


def run(quick: bool) -> list[Figure]:
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(f"{', '.join(missing)} not installed: apt install espeak-ng sox")
    phrases = [text for _ in VOICES for text in (PHRASES[:8] if quick else PHRASES)]
    with tempfile.TemporaryDirectory(prefix="jawad-bench-beam-") as folder:
        results = asyncio.run(measure(phrases, Path(folder)))
    figures: list[Figure] = []
    for beam, (accuracy, latency, heard) in results.items():
        wrong = [f"{h!r}" for text, h in zip(phrases, heard, strict=True) if words(text) != words(h)]
        figures.append(Figure(f"voice beam {beam}: word accuracy ({len(phrases)} clips)", accuracy * 100, "%",
                              note="; ".join(wrong[:4])))
        figures.append(Figure(f"voice beam {beam}: median transcription time", latency, "s"))
    best = pick_default({beam: (acc, lat) for beam, (acc, lat, _) in results.items()})
    default = VoiceSettings().beam_size
    figures.append(Figure("voice beam: size the measurement picks", best, "", goal=f"== settings default {default}",
                          ok=best == default if not quick else None,
                          note="quick run: fewer commands, not compared" if quick else ""))
    return figures
