"""What the Settings page and ``jawad providers facts`` read from the ModelFactsStore: one saved
provider's models (``facts_key`` + ``of_provider``), each model's changes in words, the
version a client compares before each request, and forgetting; kept across restarts."""

from __future__ import annotations

from pathlib import Path

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm.provider_clients import facts_key, make_client
from jawad_desktop.core.store.model_facts import ModelFacts, ModelFactsStore


def _learn(store: ModelFactsStore, key: tuple[str, str, str]) -> None:
    def change(facts: ModelFacts) -> None:
        facts.renamed["max_tokens"] = "max_completion_tokens"
        facts.dropped.append("temperature")

    store.learn(key, change, "refused max_tokens and temperature")


def test_a_providers_models_by_its_key(tmp_path: Path) -> None:
    ollama = ProviderConfig(name="Home", kind=ProviderKind.OLLAMA, base_url="http://localhost:11434")
    kind, base_url = facts_key(ollama)
    assert (kind, base_url) == make_client(ollama).model_key[:2] == ("ollama", "http://localhost:11434/v1")
    store = ModelFactsStore.in_folder(tmp_path)
    version = store.version
    _learn(store, (kind, base_url, "qwq"))
    _learn(store, ("openai", "https://api.openai.com/v1", "o4-mini"))
    assert store.version > version  # a client re-reads its model's facts only after a change
    [(model, facts)] = store.of_provider(kind, base_url).items()
    assert model == "qwq"
    assert facts.changes() == ["sends 'max_completion_tokens' instead of 'max_tokens'", "leaves out 'temperature'"]
    assert facts.notes == ["refused max_tokens and temperature"]

    again = ModelFactsStore.in_folder(tmp_path)  # after a restart
    assert again.of_provider(kind, base_url)["qwq"].renamed == {"max_tokens": "max_completion_tokens"}
    before = again.version
    assert again.forget(kind, base_url) == 1 and again.version > before
    assert again.of_provider(kind, base_url) == {} and len(again.all()) == 1
    assert again.forget(kind, base_url) == 0


def test_the_built_in_model_is_kept_under_no_address() -> None:
    local = ProviderConfig(name="Built-in", kind=ProviderKind.LOCAL)
    assert facts_key(local) == ("local", "")  # its server's port changes at each start
