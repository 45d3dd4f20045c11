"""Token counts in every language: the per-script estimate calibrated against real tokenizers,
and the speed of counting.

Material (none of it the team's): the text of the pages in ../shared/corpora (articles' expected
main content, the web-snippets and products pages: English, other Latin-script languages,
Chinese and Japanese), the translated messages of the Debian packages' gettext catalogs in
/usr/share/locale for the scripts those pages lack (Russian, Ukrainian, Greek, Arabic, Hebrew,
Persian, Hindi, Thai, Korean, and more Chinese and Japanese), and Python's own standard library
for code. Each is cut into chunks of about 3,000 characters.

The real tokenizers are OpenAI's o200k_base and cl100k_base (``core.tokens``, exact). The
estimate's target for a chunk is the costlier of the two. ``--fit`` (``python -m
benchmarks.bench_tokens --fit``) fits the tokens per character of each script class by
non-negative least squares on half the material (even-numbered sources), then scales the weights
so that at most 5 % of those chunks are counted short; the figures below are measured on the
other half. The weights printed go into ``core/tokens/__init__.py`` (``_WEIGHTS``).

Figures: per kind of text, the estimate over the real count (median, and the lowest: below 1 the
estimate counts short and a budget could overflow) for both tokenizers, and the old count's
(characters / 4) lowest ratio for comparison; tokens per second counting 100 KB of text, exact
and estimated, uncached.

Measured 2026-11-27 (the held-out half; 2 shared cores), estimate / real count, median (lowest):

| text (chunks)                  | vs o200k    | vs cl100k   | characters / 4, lowest vs cl100k |
|--------------------------------|-------------|-------------|----------------------------------|
| English and ASCII (496)        | 1.20 (0.90) | 1.14 (0.86) | 0.31                             |
| other Latin-script (258)       | 1.35 (0.73) | 1.13 (0.72) | 0.49                             |
| Chinese / Japanese (70)        | 1.47 (1.17) | 1.17 (0.93) | 0.17                             |
| Korean (33)                    | 1.60 (1.25) | 1.16 (0.94) | 0.26                             |
| Cyrillic (78)                  | 1.54 (1.12) | 1.07 (0.86) | 0.41                             |
| Greek (29)                     | 2.57 (1.84) | 1.20 (1.12) | 0.25                             |
| Arabic / Hebrew (28)           | 2.07 (1.69) | 1.25 (0.96) | 0.25                             |
| Hindi (10)                     | 2.72 (2.12) | 1.16 (1.14) | 0.25                             |
| Thai (13)                      | 2.21 (1.81) | 1.18 (1.11) | 0.28                             |
| code, Python (124)             | 1.17 (0.74) | 1.18 (0.74) | 0.59                             |

Counting 100 KB of mixed text, uncached: o200k_base 0.76 M tokens/s (33 ms), cl100k_base
2.0 M tokens/s (14 ms), the estimate 3.3 M tokens/s (10 ms); a text counted before is a look-up.
Reading an encoding's file takes 0.3 to 0.7 s once (the agent does it off the event loop).
"""

from __future__ import annotations

import argparse
import gettext
import os
import re
import statistics
import sysconfig
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.tokens import BpeCounter, ScriptEstimate, script_counts

# ../shared/corpora beside the checkout (JAWAD_CORPORA names it for a checkout elsewhere).
CORPORA = Path(os.environ.get("JAWAD_CORPORA") or Path(__file__).resolve().parents[1].parent / "shared" / "corpora")
LOCALE = Path("/usr/share/locale")
# Languages whose scripts the corpora lack (or have little of), from the gettext catalogs.
CATALOG_LANGUAGES = ["ru", "uk", "bg", "el", "ar", "he", "fa", "hi", "th", "ko", "ja", "zh_CN", "zh_TW"]
CATALOGS = ["coreutils", "glib20", "gtk30", "apt", "dpkg", "bash", "tar", "grep", "systemd", "gnome-keyring",
            "PackageKit", "pulseaudio", "xkeyboard-config"]
CHUNK = 3_000
PER_SOURCE = 6  # chunks taken from one source at most, so no single page weighs too much
CLASSES = ["ascii_letters", "digits", "ascii_punct", "line_breaks", "latin_ext", "greek",
           "cyrillic", "arabic_hebrew", "indic", "thai", "kana", "han", "cjk_punct", "hangul",
           "other"]


class _Text(HTMLParser):
    """The visible text of a page (no scripts, styles or SVG)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "noscript", "svg", "template"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "noscript", "svg", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _page_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(errors="replace"))
    text = re.sub(r"[ \t]+", " ", "".join(parser.parts))
    return re.sub(r"\s*\n\s*", "\n", text).strip()


def _catalog_text(path: Path) -> str:
    with path.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    return "\n".join(v for k, v in catalog.items() if k and isinstance(v, str))


def sources() -> Iterator[tuple[str, str, str]]:
    """(kind, name, text) of each source, in a fixed order."""
    for path in sorted((CORPORA / "articles" / "pages").glob("*/expected.html")):
        yield "page", f"articles/{path.parent.name}", _page_text(path)
    for folder in ("web-snippets", "products-fathom"):
        for path in sorted((CORPORA / folder / "pages").rglob("*.html")):
            yield "page", f"{folder}/{path.relative_to(CORPORA / folder / 'pages')}", _page_text(path)
    for language in CATALOG_LANGUAGES:
        for name in CATALOGS:
            path = LOCALE / language / "LC_MESSAGES" / f"{name}.mo"
            if path.is_file():
                yield "catalog", f"{language}/{name}", _catalog_text(path)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.glob("[a-m]*.py"))[:60]:
        yield "code", f"stdlib/{path.name}", path.read_text(errors="replace")


def kind_of(text: str, source_kind: str) -> str:
    """What a chunk is, for the figures: code, or its dominant script."""
    if source_kind == "code":
        return "code"
    counts = script_counts(text)
    letters = {k: v for k, v in counts.items() if k not in ("ascii_punct", "line_breaks",
                                                             "digits", "cjk_punct", "other")}
    main = max(letters, key=lambda k: letters[k])
    if main == "ascii_letters":
        return "latin (other languages)" if counts["latin_ext"] > 0.01 * len(text) else "latin (English and ASCII)"
    return {"greek": "greek", "cyrillic": "cyrillic", "arabic_hebrew": "arabic / hebrew", "indic": "hindi",
            "thai": "thai", "han": "chinese / japanese", "kana": "chinese / japanese", "hangul": "korean",
            "latin_ext": "latin (other languages)"}[main]


def chunks() -> list[tuple[int, str, str]]:
    """(source index, kind, text) of each chunk."""
    out: list[tuple[int, str, str]] = []
    for index, (source_kind, _name, text) in enumerate(sources()):
        pieces = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]
        for piece in [p for p in pieces if len(p) >= CHUNK // 3][:PER_SOURCE]:
            out.append((index, kind_of(piece, source_kind), piece))
    return out


def _measure(quick: bool) -> tuple[list[tuple[int, str, str]], list[list[int]], list[int], list[int]]:
    material = chunks()
    if quick:
        material = material[::4]
    o200k, cl100k = BpeCounter("o200k_base"), BpeCounter("cl100k_base")
    features = [[script_counts(text)[c] for c in CLASSES] for _i, _k, text in material]
    real_o = [o200k.count(text) for _i, _k, text in material]
    real_c = [cl100k.count(text) for _i, _k, text in material]
    return material, features, real_o, real_c


def fit(quick: bool = False) -> dict[str, float]:
    """Fit the weights on the even-numbered sources (see the module docstring)."""
    import numpy as np

    material, features, real_o, real_c = _measure(quick)
    train = [n for n, (index, _k, _t) in enumerate(material) if index % 2 == 0]
    x = np.array([features[n] for n in train], dtype=float)
    y = np.array([max(real_o[n], real_c[n]) for n in train], dtype=float)
    # Each chunk weighs the same whatever its length (a relative fit).
    scale = 1.0 / y
    a, b = x * scale[:, None], y * scale
    weights = np.zeros(len(CLASSES))
    norms = (a * a).sum(axis=0)
    for _ in range(3000):  # non-negative least squares, by coordinate descent
        for c in range(len(CLASSES)):
            if norms[c] > 0:
                residual = b - a @ weights
                weights[c] = max(0.0, weights[c] + float(a[:, c] @ residual) / norms[c])
    present = x.sum(axis=0) > 0
    for c, _name in enumerate(CLASSES):  # a class with no material costs a token a character
        if not present[c]:
            weights[c] = 1.0
    ratios = y / (x @ weights)
    margin = float(np.quantile(ratios, 0.95))
    return {name: round(float(w * margin), 4) for name, w in zip(CLASSES, weights, strict=True)}


def run(quick: bool) -> list[Figure]:
    material, _features, real_o, real_c = _measure(quick)
    estimate = ScriptEstimate()
    figures: list[Figure] = []
    held_out = [n for n, (index, _k, _t) in enumerate(material) if index % 2 == 1]
    kinds = sorted({material[n][1] for n in held_out})
    for kind in kinds:
        rows = [n for n in held_out if material[n][1] == kind]
        est = [estimate.count(material[n][2]) for n in rows]
        old = [-(-len(material[n][2]) // 4) for n in rows]
        for label, real in (("o200k", real_o), ("cl100k", real_c)):
            ratios = [e / real[n] for e, n in zip(est, rows, strict=True)]
            short = sum(r < 1 for r in ratios) / len(ratios)
            figures.append(Figure(f"tokens {kind}: estimate / {label}, median", statistics.median(ratios), "x",
                                  note=f"{len(rows)} chunks; lowest {min(ratios):.2f}; {short:.0%} counted short"))
            figures.append(Figure(f"tokens {kind}: estimate / {label}, lowest", min(ratios), "x", goal=">= 0.9",
                                  ok=min(ratios) >= 0.9))
            old_ratio = min(o / real[n] for o, n in zip(old, rows, strict=True))
            figures.append(Figure(f"tokens {kind}: chars/4 / {label}, lowest", old_ratio, "x",
                                  note="the count before core.tokens"))
    figures.extend(_speed(material))
    return figures


def _speed(material: list[tuple[int, str, str]]) -> list[Figure]:
    """Tokens per second counting 100 KB of mixed text (uncached: a new text each time)."""
    text = "".join(t for _i, _k, t in material[:: max(1, len(material) // 60)])
    text = (text * (1 + 100_000 // max(1, len(text))))[:100_000]
    figures = []
    for counter in (BpeCounter("o200k_base"), BpeCounter("cl100k_base"), ScriptEstimate()):
        counter.count("warm up")
        if isinstance(counter, BpeCounter):
            counter.load()
        runs = []
        for i in range(5):
            sample = text[i:] + text[:i]  # a different string each run: no cache hit
            started = time.perf_counter()
            tokens = counter.count(sample)
            runs.append(time.perf_counter() - started)
        best = min(runs)
        figures.append(Figure(f"counting 100 KB with {counter.name}", tokens / best, "tok/s",
                              note=f"{best * 1000:.1f} ms for {tokens} tokens"))
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="fit the per-script weights of core.tokens")
    parser.add_argument("--fit", action="store_true", help="print fitted weights for core/tokens/__init__.py")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.fit:
        for name, weight in fit(args.quick).items():
            print(f'    "{name}": {weight},')
    else:
        for figure in run(args.quick):
            print(f"{figure.name:<60} {figure.value:10.3f} {figure.unit:<6} {figure.note}")
