"""Tokens counted as the model counts them (core.tokens): OpenAI's encodings exactly and offline,
the estimate per script for other models, on real Chinese and Japanese text (../shared/corpora)."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from benchmarks.bench_tokens import CORPORA, _page_text
from jawad_desktop.core.tokens import CHARS_PER_TOKEN, BpeCounter, ScriptEstimate, counter_for, encoding_for

# Real articles (Readability's test pages, Apache-2.0): Traditional Chinese, Japanese, Chinese.
CJK_PAGES = ["pixnet", "yahoo-4", "qq"]


@pytest.fixture(scope="module")
def cjk_text() -> str:
    text = "\n".join(_page_text(CORPORA / "articles" / "pages" / name / "expected.html") for name in CJK_PAGES)
    assert len(text) > 4_000
    return text


@pytest.fixture(scope="module")
def english_text() -> str:
    return _page_text(CORPORA / "articles" / "pages" / "nytimes-1" / "expected.html")


def test_openai_models_use_their_own_encoding() -> None:
    assert encoding_for("gpt-4o") == encoding_for("gpt-4o-mini-2024-07-18") == "o200k_base"
    assert encoding_for("openai/gpt-4.1-mini") == encoding_for("o3-mini") == encoding_for("gpt-5") == "o200k_base"
    assert encoding_for("gpt-oss:20b") == encoding_for("o1") == "o200k_base"
    assert encoding_for("gpt-4") == encoding_for("gpt-4-turbo") == encoding_for("gpt-3.5-turbo") == "cl100k_base"
    for other in ("claude-sonnet-4-5", "gemini-2.5-flash", "llama3.2", "qwen2.5:7b", "scripted", "", "o1x"):
        assert encoding_for(other) == ""
    assert isinstance(counter_for("gpt-4o"), BpeCounter) and counter_for("gpt-4o").exact
    assert isinstance(counter_for("claude-sonnet-4-5"), ScriptEstimate)
    assert counter_for("gpt-4o") is counter_for("openai/gpt-4o")  # one counter an encoding, shared


def test_the_encodings_count_as_openai_does_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("counting tried to reach the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    o200k, cl100k = BpeCounter("o200k_base"), BpeCounter("cl100k_base")  # fresh: loaded from data/ here
    # Token ids published by OpenAI's tokenizer for the two encodings.
    assert o200k._count("hello world") == 2 and cl100k._count("hello world") == 2
    assert o200k._encoding.encode_ordinary("hello world") == [24912, 2375]
    assert cl100k._encoding.encode_ordinary("hello world") == [15339, 1917]
    assert o200k._encoding.decode(o200k._encoding.encode_ordinary("東京は晴れ。")) == "東京は晴れ。"


def test_cjk_costs_far_more_than_a_token_per_four_characters(cjk_text: str, english_text: str) -> None:
    o200k, cl100k, estimate = counter_for("gpt-4o"), counter_for("gpt-4"), counter_for("claude-3-5-haiku")
    real_o, real_c = o200k.count(cjk_text), cl100k.count(cjk_text)
    old = len(cjk_text) / CHARS_PER_TOKEN
    assert old < 0.5 * real_o < 0.5 * real_c  # what characters / 4 undercounted: the context overflowed
    # The estimate, for a model whose tokenizer is not here, counts at least about what both do.
    assert estimate.count(cjk_text) >= 0.9 * max(real_o, real_c)
    assert estimate.count(cjk_text) <= 2.0 * min(real_o, real_c)
    # English is not overcounted much: budgets do not shrink for it.
    english_real = max(o200k.count(english_text), cl100k.count(english_text))
    assert english_real * 0.9 <= estimate.count(english_text) <= english_real * 1.5


def test_chars_for_sizes_a_budget_by_the_tokens_of_the_text(cjk_text: str, english_text: str) -> None:
    o200k = counter_for("gpt-4o")
    budget = 2_000  # characters, sized in English: 500 tokens
    cjk_chars = o200k.chars_for(cjk_text, budget)
    assert cjk_chars < budget * 0.6 and o200k.count(cjk_text[:cjk_chars]) <= 1.1 * budget / CHARS_PER_TOKEN
    assert o200k.chars_for(english_text, budget) == budget  # English takes the budget as it is
    assert o200k.chars_for(cjk_text, 0) == 0  # no limit stays no limit
    estimate = counter_for("mistral-large")
    assert estimate.count(cjk_text[:estimate.chars_for(cjk_text, budget)]) <= 1.1 * budget / CHARS_PER_TOKEN


def test_counting_is_fast_and_remembered(cjk_text: str, english_text: str) -> None:
    text = ((english_text + cjk_text) * 40)[:100_000]  # 100 KB of mixed text
    for counter in (counter_for("gpt-4o"), counter_for("claude-opus-4")):
        counter.load()
        started = time.perf_counter()
        tokens = counter.count(text)
        first = time.perf_counter() - started
        started = time.perf_counter()
        assert counter.count(text) == tokens
        again = time.perf_counter() - started
        assert tokens > 25_000 and first < 2.0, (counter, first)  # ~30 ms on one core
        assert again < first / 10  # the same text again: a look-up, as a history counted each request
