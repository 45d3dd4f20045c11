"""The dialect table (core/llm/dialects.py): which row each provider kind and model name
follows, how a body is shaped by a row and by what was learned, and how a refused parameter
is found in a body whatever name the provider gives it."""

from __future__ import annotations

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.llm.dialects import DIALECTS, dialect_for, find_param, pop_path, shape_body
from jawad_desktop.core.llm.errors import ParameterRefusal
from jawad_desktop.core.store.model_facts import ModelFacts

K = ProviderKind


@pytest.mark.parametrize(("kind", "model", "family"), [
    (K.OPENAI, "o4-mini", "OpenAI o-series reasoning model"),
    (K.OPENAI, "o1", "OpenAI o-series reasoning model"),
    (K.OPENAI_COMPATIBLE, "o3-mini-2025-01-31", "OpenAI o-series reasoning model"),
    (K.OPENAI, "gpt-5", "OpenAI GPT-5 reasoning model"),
    (K.OPENAI, "gpt-5-mini", "OpenAI GPT-5 reasoning model"),
    (K.OPENAI, "gpt-5.1", "OpenAI GPT-5.1 or later"),
    (K.OPENAI_COMPATIBLE, "gpt-5.2-2025-12-11", "OpenAI GPT-5.1 or later"),
    (K.OPENAI, "gpt-5-chat-latest", "OpenAI GPT-5 chat model (not a reasoning model)"),
    (K.OPENAI, "gpt-4o", "OpenAI chat model (GPT-4 and earlier)"),
    (K.OPENAI, "some-new-model", "OpenAI chat model"),
    (K.OPENROUTER, "openai/o4-mini", "OpenAI reasoning model on OpenRouter"),
    (K.OPENROUTER, "openai/gpt-5-chat", "OpenRouter model"),
    (K.OPENROUTER, "anthropic/claude-sonnet-4.5", "OpenRouter model"),
    (K.OPENAI_RESPONSES, "o3", "OpenAI o-series reasoning model (Responses API)"),
    (K.GEMINI, "gemini-3-pro-preview", "Gemini 3 Pro"),
    (K.GEMINI, "gemini-2.5-pro", "Gemini 2.5 Pro (thinking cannot be turned off)"),
    (K.GEMINI, "gemini-2.5-flash", "Gemini"),
    (K.OLLAMA_NATIVE, "gpt-oss:20b", "gpt-oss on Ollama (thinking levels, cannot turn it off)"),
    (K.OPENAI_COMPATIBLE, "qwen2.5-7b-instruct", "as the API is"),  # LM Studio, llama.cpp...
    (K.OLLAMA, "o1-like-local", "as the API is"),  # Ollama's /v1 is not OpenAI
    (K.LOCAL, "smollm2", "as the API is"),
    (K.BEDROCK, "anthropic.claude-3-haiku-20240307-v1:0", "as the API is"),
])
def test_each_model_follows_its_family(kind: ProviderKind, model: str, family: str) -> None:
    assert dialect_for(kind, model).name == family


def test_every_kind_has_a_last_row_and_every_row_its_source() -> None:
    for kind in ProviderKind:
        assert dialect_for(kind, "a-model-nobody-knows").model == "", kind
    assert all(d.source for d in DIALECTS[:-1])


def test_shape_renames_drops_and_places_the_level() -> None:
    body = {"model": "o4-mini", "messages": [], "max_tokens": 100, "temperature": 0.3, "stream": True}
    shape_body(body, dialect_for(K.OPENAI, "o4-mini"), "none", None)
    assert body == {"model": "o4-mini", "messages": [], "max_completion_tokens": 100, "stream": True,
                    "reasoning_effort": "low"}
    nested = {"contents": [], "generationConfig": {"temperature": 0.3}}
    shape_body(nested, dialect_for(K.GEMINI, "gemini-3-pro-preview"), "high", None)
    assert nested["generationConfig"] == {"temperature": 0.3, "thinkingConfig": {"thinkingLevel": "high"}}
    untouched = {"model": "m", "max_tokens": 1, "temperature": 0.3}
    shape_body(untouched, dialect_for(K.OPENAI_COMPATIBLE, "m"), "", None)
    assert untouched == {"model": "m", "max_tokens": 1, "temperature": 0.3}


def test_what_was_learned_comes_after_the_table() -> None:
    """A gateway that wants max_tokens back for a model the table renames wins, and a learned
    drop takes out what the table added."""
    facts = ModelFacts(renamed={"max_completion_tokens": "max_tokens"}, dropped=["reasoning_effort"])
    body = {"model": "o4-mini", "max_tokens": 100, "temperature": 0.3}
    shape_body(body, dialect_for(K.OPENAI_COMPATIBLE, "o4-mini"), "high", facts)
    assert body == {"model": "o4-mini", "max_tokens": 100}


def test_an_emptied_object_goes_too() -> None:
    body = {"generationConfig": {"thinkingConfig": {"thinkingBudget": 0}, "temperature": 1},
            "reasoning": {"effort": "x"}}
    assert pop_path(body, "generationConfig.thinkingConfig.thinkingBudget") == (True, 0)
    assert pop_path(body, "reasoning.effort") == (True, "x")
    assert body == {"generationConfig": {"temperature": 1}}
    assert pop_path(body, "nothing.here") == (False, None)


@pytest.mark.parametrize(("refusal", "path"), [
    (ParameterRefusal("max_tokens", "max_completion_tokens"), "max_tokens"),
    (ParameterRefusal("reasoning.effort", value="minimal"), "reasoning.effort"),
    (ParameterRefusal("***.effort"), "reasoning.effort"),  # a gateway that masks part of the name
    (ParameterRefusal("thinking_budget"), "generationConfig.thinkingConfig.thinkingBudget"),
    (ParameterRefusal("temperature"), "generationConfig.temperature"),
    (ParameterRefusal("", value="minimal"), "reasoning.effort"),  # only the value was named
    (ParameterRefusal("messages"), None),  # never the conversation itself
    (ParameterRefusal("top_k"), None),  # not in the body: nothing to repair
    (ParameterRefusal("", value="0.9"), None),
])
def test_a_refused_parameter_is_found_in_the_body(refusal: ParameterRefusal, path: str | None) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "minimal"}], "max_tokens": 10,
            "reasoning": {"effort": "minimal"},
            "generationConfig": {"temperature": 0.3, "thinkingConfig": {"thinkingBudget": 0}}}
    assert find_param(body, refusal) == path
