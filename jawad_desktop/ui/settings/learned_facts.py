"""What the Providers page says Jawad learned about a provider's model: the parameters it
refused or renamed, its tool-call format, its context window, and the notes that say why
(``ModelFactsStore``, keyed like ``LLMClient.model_key``).

Plain text, so the page shows it in a selectable label and the tests read it as the user does.
"""

from __future__ import annotations

from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.llm.provider_clients import facts_key
from jawad_desktop.core.store.model_facts import ModelFacts, ModelFactsStore

__all__ = ["NOTHING_LEARNED", "forget_learned", "learned_text"]

NOTHING_LEARNED = "Nothing learned about this model yet: requests go as the provider documents them."


def _block(model: str, facts: ModelFacts) -> str:
    lines = [f"What Jawad learned about {model}:"]
    lines += [f"  • {change}" for change in facts.changes()]
    lines += [f"    why: {note}" for note in facts.notes]
    return "\n".join(lines)


def learned_text(store: ModelFactsStore, provider: ProviderConfig) -> str:
    """What is known about ``provider``'s model (every model of it when it names none)."""
    kind, base_url = facts_key(provider)
    if provider.model:
        facts = store.get((kind, base_url, provider.model))
        return NOTHING_LEARNED if facts.empty else _block(provider.model, facts)
    known = store.of_provider(kind, base_url)
    return "\n\n".join(_block(model, facts) for model, facts in known.items()) or NOTHING_LEARNED


def forget_learned(store: ModelFactsStore, provider: ProviderConfig) -> int:
    """Forget what was learned about ``provider``'s model (all of its models when it names
    none), in the profile and in this process; how many models were forgotten."""
    from jawad_desktop.core.llm.client import forget_capabilities

    kind, base_url = facts_key(provider)
    forget_capabilities()  # what this process remembers besides (tools refused, windows asked)
    return store.forget(kind, base_url, provider.model)
