"""Tokens counted as the model counts them: the one place that counts tokens.

A ``TokenCounter`` counts the tokens of a text for one model:

- OpenAI's models (GPT-4o, GPT-4.1, GPT-5, the o-series, GPT-OSS; GPT-4 and GPT-3.5) through
  tiktoken with their own encoding (o200k_base, cl100k_base). The encodings' files ship with
  the app (``data/``, OpenAI's files byte for byte, checked against tiktoken's own hashes) so
  counting never downloads anything.
- Every other model through an estimate per script (``ScriptEstimate``): each character costs
  what its script costs in real tokenizers (a Latin letter a quarter of a token, a Chinese
  character more than one), calibrated on real multilingual pages by ``benchmarks/bench_tokens.py``
  and sized to count a little more than they do, so budgets hold. The agent's history corrects
  it further with the counts the provider reports (``core.agent.history``).

Counts are cached per text, so a history counted at every request costs one count per message.
``counter_for(model)`` picks the counter for a model name; nothing here imports Qt.
"""

from __future__ import annotations

import abc
import base64
import hashlib
import logging
import lzma
import re
import threading
from functools import lru_cache
from importlib import resources
from typing import Any

log = logging.getLogger("jawad.tokens")

__all__ = ["CHARS_PER_TOKEN", "BpeCounter", "ScriptEstimate", "TokenCounter", "counter_for", "encoding_for"]

# What a character budget sized in English assumes (``core.agent.budget``): ``chars_for`` turns
# such a budget into the characters of a given text that cost as many tokens.
CHARS_PER_TOKEN = 4

_CACHE_SIZE = 4096  # texts whose count is remembered, per counter


class TokenCounter(abc.ABC):
    """Counts tokens for one model. ``exact``: counted with the model's own tokenizer."""

    name = "tokens"
    exact = False

    def __init__(self) -> None:
        self._cached = lru_cache(maxsize=_CACHE_SIZE)(self._count)

    def load(self) -> None:  # noqa: B027 (nothing to get ready for an estimate; a tokenizer overrides it)
        """Get ready to count (a tokenizer's file read now rather than at the first count)."""

    def count(self, text: str) -> int:
        """The tokens of ``text`` (remembered: the same text again costs a dictionary look-up)."""
        if not text:
            return 0
        if len(text) < 64:  # cheaper to count than to hash and remember
            return self._count(text)
        return self._cached(text)

    @abc.abstractmethod
    def _count(self, text: str) -> int:
        """The tokens of ``text``, as this counter counts them."""

    def chars_for(self, text: str, chars: int) -> int:
        """A budget of ``chars`` characters (sized at ``CHARS_PER_TOKEN`` a token), as characters
        of ``text``: the leading characters that cost at most as many tokens (a few more after
        three steps at worst), never more than ``chars``. 0 stays 0 (no limit)."""
        if chars <= 0 or len(text) <= chars // CHARS_PER_TOKEN:
            return chars
        budget = chars / CHARS_PER_TOKEN
        end = chars
        for _ in range(3):  # tokens run roughly evenly through a text: a step or two from above
            tokens = self.count(text[:end])
            if tokens <= budget:
                break
            end = int(end * budget / tokens)
        return max(1, end)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# -- OpenAI's encodings through tiktoken ---------------------------------------------------------

# The encodings' files, with tiktoken's own hashes of them (tiktoken_ext/openai_public.py).
_ENCODING_HASHES = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
_CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                   r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_SPECIAL_TOKENS = {
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    "cl100k_base": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
}
_PATTERNS = {"o200k_base": _O200K_PATTERN, "cl100k_base": _CL100K_PATTERN}

# Model names (after any "provider/" prefix) and the encoding they use, longest prefix first.
_OPENAI_MODELS = [
    ("gpt-3.5", "cl100k_base"), ("gpt-35", "cl100k_base"), ("gpt-4o", "o200k_base"), ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"), ("gpt-4", "cl100k_base"), ("gpt-5", "o200k_base"), ("gpt-oss", "o200k_base"),
    ("chatgpt-4o", "o200k_base"), ("o1", "o200k_base"), ("o3", "o200k_base"), ("o4", "o200k_base"),
    ("text-embedding-3", "cl100k_base"), ("text-embedding-ada", "cl100k_base"),
]


def encoding_for(model: str) -> str:
    """The tiktoken encoding of an OpenAI model name (``openai/gpt-4o`` too), or "" for others."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    for prefix, encoding in sorted(_OPENAI_MODELS, key=lambda item: -len(item[0])):
        if name == prefix or name.startswith((prefix + "-", prefix + ".", prefix + ":")):
            return encoding
    return ""


class BpeCounter(TokenCounter):
    """Exact counts with one of OpenAI's encodings (loaded from ``data/`` on first use)."""

    exact = True

    def __init__(self, encoding: str) -> None:
        if encoding not in _ENCODING_HASHES:
            raise ValueError(f"no bundled encoding {encoding!r}")
        super().__init__()
        self.name = encoding
        self._encoding: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Read the encoding's file now (a fraction of a second; the first count does otherwise)."""
        with self._lock:
            if self._encoding is None:
                self._encoding = _load_encoding(self.name)

    def _count(self, text: str) -> int:
        if self._encoding is None:
            self.load()
        return len(self._encoding.encode_ordinary(text))


def _load_encoding(name: str) -> Any:
    import tiktoken  # here: only a model that uses it pays its import

    data = resources.files(__package__).joinpath("data", f"{name}.tiktoken.xz").read_bytes()
    contents = lzma.decompress(data)
    digest = hashlib.sha256(contents).hexdigest()
    if digest != _ENCODING_HASHES[name]:
        raise ValueError(f"the bundled {name} encoding is damaged (sha256 {digest}); reinstall Jawad Desktop")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in contents.splitlines())}
    log.debug("loaded the %s encoding: %d tokens", name, len(ranks))
    return tiktoken.Encoding(name=name, pat_str=_PATTERNS[name], mergeable_ranks=ranks,
                             special_tokens=_SPECIAL_TOKENS[name])


# -- the estimate for every other model ----------------------------------------------------------

# Scripts, as character classes, and the tokens one character of each costs: measured by
# ``python -m benchmarks.bench_tokens --fit`` on pages of ../shared/corpora and on translated
# texts in many languages, against o200k_base and cl100k_base, taking the costlier of the two and
# a margin so that 95 % of the texts measured are not counted short (figures in that benchmark).
_SCRIPTS: list[tuple[str, str]] = [
    ("ascii_letters", r"[A-Za-z]"),
    ("digits", r"[0-9]"),
    ("ascii_punct", r"[!-/:-@\[-`{-~]"),
    ("line_breaks", r"\n"),
    ("latin_ext", r"[\u00c0-\u024f\u1e00-\u1eff]"),  # accented letters: their words split more
    ("greek", r"[\u0370-\u03ff\u1f00-\u1fff]"),
    ("cyrillic", r"[\u0400-\u052f]"),
    ("arabic_hebrew", r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]"),
    ("indic", r"[\u0900-\u0dff]"),
    ("thai", r"[\u0e00-\u0e7f]"),
    ("kana", r"[\u3040-\u30ff]"),
    ("han", r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
    ("cjk_punct", r"[\u3001-\u303f\uff00-\uffef]"),  # merged into the characters beside it
    ("hangul", r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"),
]
_WEIGHTS: dict[str, float] = {
    "ascii_letters": 0.2828,
    "digits": 0.7329,
    "ascii_punct": 0.627,
    "line_breaks": 1.2817,
    "latin_ext": 4.4087,
    "greek": 1.2804,
    "cyrillic": 0.6441,
    "arabic_hebrew": 1.1229,
    "indic": 1.4348,
    "thai": 1.1435,
    "kana": 1.1746,
    "han": 1.5688,
    "cjk_punct": 0.0,
    "hangul": 1.41,
    "other": 1.1019,  # symbols, emoji, the scripts not named above
}
_ASCII_ONLY = {"ascii_letters", "digits", "ascii_punct", "line_breaks"}
_CLASS_PATTERNS = [(name, re.compile(pattern)) for name, pattern in _SCRIPTS]
_WHITE = re.compile(r"\s")


def script_counts(text: str) -> dict[str, int]:
    """How many characters of ``text`` each script class holds ("other": the rest, white space
    other than line breaks aside)."""
    counts = dict.fromkeys(_WEIGHTS, 0)
    ascii_only = text.isascii()  # most text: no need to look for the other scripts
    for name, pattern in _CLASS_PATTERNS:
        if not ascii_only or name in _ASCII_ONLY:
            counts[name] = len(pattern.findall(text))
    classified = sum(counts[name] for name, _p in _SCRIPTS) - counts["line_breaks"] + len(_WHITE.findall(text))
    counts["other"] = max(0, len(text) - classified)
    return counts


class ScriptEstimate(TokenCounter):
    """An estimate from the characters of each script (for models whose tokenizer is not here)."""

    name = "script-estimate"

    def __init__(self, weights: dict[str, float] | None = None) -> None:
        super().__init__()
        self.weights = dict(_WEIGHTS if weights is None else weights)

    def _count(self, text: str) -> int:
        weights = self.weights
        total = sum(weights[name] * n for name, n in script_counts(text).items())
        return -int(-total // 1)  # rounded up


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def counter_for(model: str = "") -> TokenCounter:
    """The counter for ``model`` (one per encoding, shared): exact for OpenAI's, else the estimate."""
    encoding = encoding_for(model) or "estimate"
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(encoding)
        if counter is None:
            counter = _COUNTERS[encoding] = ScriptEstimate() if encoding == "estimate" else BpeCounter(encoding)
    return counter
