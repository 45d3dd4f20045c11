"""What a saved provider's model can do, in the words a model picker shows: where it runs (on
this computer or in the cloud), how it calls tools and whether it sees images — what Jawad
learned about it (``ModelFactsStore``) first, else what its name says, else "not tested yet".
"""

from __future__ import annotations

from dataclasses import dataclass

from jawad_desktop.core.config.network import is_loopback
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm.vision import known_vision
from jawad_desktop.core.store.model_facts import ModelFactsStore

__all__ = ["ModelCard", "model_card"]

_ON_THIS_COMPUTER = (ProviderKind.LOCAL, ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE)
_TOOLS = {"native": "calls tools", "xml": "calls tools (by text)", "json": "calls tools (by text)",
          "none": "no tools"}


@dataclass(frozen=True, slots=True)
class ModelCard:
    """One saved provider as the picker lists it."""

    provider: str
    model: str
    local: bool
    tools: str  # "calls tools", "calls tools (by text)", "no tools", "tools not tested yet"
    images: bool | None  # None: not known

    @property
    def title(self) -> str:
        return f"{self.provider} · {self.model or 'default model'}"

    @property
    def details(self) -> str:
        """"On this computer · calls tools · sees images"."""
        images = {True: "sees images", False: "text only", None: "images not tested yet"}[self.images]
        return " · ".join(("on this computer" if self.local else "cloud", self.tools, images))


def model_card(provider: ProviderConfig, facts: ModelFactsStore | None) -> ModelCard:
    """What ``provider``'s model can do, as far as Jawad knows."""
    local = provider.kind in _ON_THIS_COMPUTER or is_loopback(provider.effective_base_url or "")
    learned = None
    if facts is not None and provider.model:
        # The clients (and httpx) load with the first provider the picker shows, not with the window.
        from jawad_desktop.core.llm.provider_clients import facts_key

        kind, base_url = facts_key(provider)
        learned = facts.get((kind, base_url, provider.model))
    tools = _TOOLS.get(learned.tool_format, "") if learned is not None else ""
    images = learned.vision if learned is not None else None
    if images is None and provider.model:
        images = known_vision(provider.kind.value, provider.model)
    return ModelCard(provider.name, provider.model, local, tools or "tools not tested yet", images)
