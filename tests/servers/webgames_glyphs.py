"""Reading a short code drawn on a canvas from a screenshot, for the WebGames policy: the pure black
strokes of the drawing (page text is never drawn pure black here: it is a dark grey or blue), cut into
characters where they do not touch, each matched against the capital letters and digits drawn in the
machine's fonts at a few small turns; characters that touch are cut where the least ink joins them.
Simple image analysis, much weaker than a model that sees: characters that overlap or are crossed
out are often misread (the page then refuses the code)."""

from __future__ import annotations

import functools
import string
from pathlib import Path
from typing import Any

CHARACTERS = string.ascii_uppercase + string.digits
FONT_FOLDERS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
FONT_NAMES = ("DejaVuSerif-Bold.ttf", "DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "LiberationSerif-Bold.ttf",
              "Arial_Bold.ttf", "arialbd.ttf")
SIZE = (24, 32)  # what a glyph is compared at (width, height)


@functools.cache
def _fonts() -> tuple[Path, ...]:
    found = []
    for folder in FONT_FOLDERS:
        if folder.is_dir():
            found += [p for name in FONT_NAMES for p in folder.rglob(name)]
    return tuple(dict.fromkeys(found))


def _normal(mask: Any) -> Any:
    """A glyph's mask cut to its ink and scaled to ``SIZE``, as floats 0..1."""
    import numpy as np
    from PIL import Image
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return np.zeros(SIZE[::-1])
    cut = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    picture = Image.fromarray((cut * 255).astype("uint8")).resize(SIZE, Image.Resampling.BILINEAR)
    return np.asarray(picture).astype(float) / 255


@functools.cache
def _templates() -> list[tuple[str, Any]]:
    """Each character drawn in each font found, turned a little either way, as normal masks."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont
    out = []
    for path in _fonts():
        font = ImageFont.truetype(str(path), 40)
        for ch in CHARACTERS:
            for turn in (-6, -3, 0, 3, 6):
                canvas = Image.new("L", (80, 80), 0)
                ImageDraw.Draw(canvas).text((20, 10), ch, fill=255, font=font)
                canvas = canvas.rotate(turn, resample=Image.Resampling.BILINEAR)
                out.append((ch, _normal(np.asarray(canvas) > 110)))
    return out


def _glyph_boxes(ink: Any) -> list[tuple[int, int, int, int]]:
    """The boxes (left, top, right, bottom) of the groups of ink that touch, left to right; a group
    standing over most of another's width is the same character (a dot, a broken stroke)."""
    from tests.servers.webgames_policy import _blobs
    boxes = sorted((x, y, x + w, y + h) for x, y, w, h, n in _blobs(ink) if n >= 6)
    merged: list[tuple[int, int, int, int]] = []
    for box in boxes:
        if merged:
            last = merged[-1]
            shared = min(last[2], box[2]) - max(last[0], box[0])
            if shared > 0.6 * min(last[2] - last[0], box[2] - box[0]):
                merged[-1] = (min(last[0], box[0]), min(last[1], box[1]), max(last[2], box[2]), max(last[3], box[3]))
                continue
        merged.append(box)
    return [b for b in merged if b[3] - b[1] >= 10]


def _split_widest(ink: Any, boxes: list[tuple[int, int, int, int]], length: int) -> list[tuple[int, int, int, int]]:
    """``boxes`` with the widest cut in two where the least ink crosses it, near where characters of
    the drawing's pitch (its width over ``length``) would part."""
    pitch = (boxes[-1][2] - boxes[0][0]) / length
    widest = max(boxes, key=lambda b: b[2] - b[0])
    x0, y0, x1, y1 = widest
    aim = x0 + pitch  # characters are set at a steady pitch: the first one ends about one pitch on
    columns = ink[y0:y1, x0:x1].sum(axis=0)
    lo, hi = int(aim - 0.3 * pitch) - x0, int(aim + 0.3 * pitch) - x0
    if hi - lo < 2 or lo < 1:
        return []
    cut = x0 + lo + int(columns[lo:hi].argmin())
    out = [b for b in boxes if b != widest] + [(x0, y0, cut, y1), (cut, y0, x1, y1)]
    return sorted(out)


def read_code(picture: Any, length: int | None = None) -> str | None:
    """The code drawn in pure black in ``picture`` (PIL RGB), or None when it cannot be read: no
    drawing, characters that touch (fewer groups than ``length``), or no font to compare with."""
    import numpy as np
    if not _fonts():
        return None
    pixels = np.asarray(picture).astype(int)
    ys, xs = np.nonzero(pixels.max(axis=2) < 10)
    if len(xs) < 40:
        return None
    top, left = max(0, ys.min() - 8), max(0, xs.min() - 8)
    ink = pixels[top:ys.max() + 9, left:xs.max() + 9].max(axis=2) < 128
    boxes = _glyph_boxes(ink)
    while boxes and length is not None and len(boxes) < length:  # characters that touch: cut the widest
        boxes = _split_widest(ink, boxes, length)
    if not boxes or (length is not None and len(boxes) != length):
        return None
    out = []
    for x0, y0, x1, y1 in boxes:
        glyph = _normal(ink[y0:y1, x0:x1])
        best = min(_templates(), key=lambda t: float(np.abs(t[1] - glyph).mean()))
        out.append(best[0])
    return "".join(out)
