"""The price table: matching a model to its price, the user's prices.json over the defaults,
a broken file, unknown models, and the words both faces show."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jawad_desktop.core.events import EventBus, Notice
from jawad_desktop.core.llm.pricing import (
    FREE,
    Price,
    PriceTable,
    describe,
    estimate_cost,
    format_cost,
    usage_text,
)

GPT_4O = Price(input=2.5, output=10.0, cached_input=1.25)
SONNET_45 = Price(input=3.0, output=15.0, cached_input=0.30)


@pytest.mark.parametrize(("model", "price"), [
    ("gpt-4o", GPT_4O),
    ("GPT-4o", GPT_4O),
    ("gpt-4o-2024-08-06", GPT_4O),  # a dated snapshot
    ("openai/gpt-4o", GPT_4O),  # OpenRouter's id
    ("gpt-4o-mini-2024-07-18", Price(0.15, 0.60, 0.075)),  # not gpt-4o's price
    ("gpt-4.1-nano", Price(0.10, 0.40, 0.025)),
    ("o4-mini", Price(1.10, 4.40, 0.275)),
    ("gpt-5-mini", Price(0.25, 2.0, 0.025)),
    ("anthropic/claude-sonnet-4.5", SONNET_45),  # OpenRouter writes versions with dots
    ("claude-sonnet-4-5-20250929", SONNET_45),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", SONNET_45),  # Bedrock
    ("claude-3-5-haiku-latest", Price(0.80, 4.0, 0.08)),
    ("models/gemini-2.5-pro", Price(1.25, 10.0, 0.125)),  # Gemini's own id
    ("gemini-2.5-flash-preview-05-20", Price(0.30, 2.50, 0.03)),  # a pattern
    ("google/gemini-2.5-flash-lite", Price(0.10, 0.40, 0.01)),  # the longer pattern wins
])
def test_names_match_their_published_price(model: str, price: Price) -> None:
    assert PriceTable().price_for(model) == price


@pytest.mark.parametrize("key", [
    ("local", "", "qwen2.5-0.5b"),
    ("ollama", "http://localhost:11434/v1", "llama3.2"),
    ("ollama-native", "http://gpu-box:11434", "gpt-oss"),
    ("openai-compatible", "http://127.0.0.1:1234/v1", "gpt-4o"),  # a local server named like a cloud model
    ("openai-compatible", "http://192.168.1.20:8080/v1", "mistral"),
    ("openrouter", "https://openrouter.ai/api/v1", "meta-llama/llama-3.3-70b-instruct:free"),
])
def test_local_models_and_free_variants_cost_nothing(key: tuple[str, str, str]) -> None:
    assert PriceTable().price_for(key) == FREE
    assert estimate_cost(key, 10_000, 2_000) == 0.0


def test_unknown_models_have_no_price_never_zero() -> None:
    table = PriceTable()
    assert table.price_for("some-new-model") is None
    assert table.price_for(("openai-compatible", "https://api.example-cloud.com/v1", "mystery-7b")) is None
    assert table.price_for(("openai", "https://api.openai.com/v1", "")) is None
    assert estimate_cost("some-new-model", 1000, 1000) is None


def test_cost_counts_cached_input_at_its_price() -> None:
    # 1M input of which 400K cached, 100K output, at gpt-4o's price.
    expected = (600_000 * 2.5 + 400_000 * 1.25 + 100_000 * 10.0) / 1e6
    assert estimate_cost("gpt-4o", 1_000_000, 100_000, 400_000) == pytest.approx(expected)
    # No cached price: cached tokens cost the input price.
    assert Price(1.0, 2.0).cost(1000, 0, 500) == pytest.approx(0.001)


def test_the_users_file_overrides_the_defaults_and_is_read_again_when_changed(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({
        "_note": "my negotiated prices",
        "gpt-4o": {"input": 1.0, "output": 4.0},
        "acme-*": {"input": 0.5, "cached_input": 0.1, "output": 1.5},
        "llama3.2": {"input": 0.01, "output": 0.01},
    }))
    table = PriceTable(path)
    assert table.price_for("gpt-4o") == Price(1.0, 4.0)
    assert table.price_for(("openai-compatible", "https://acme.example/v1", "acme-large-2")) == Price(0.5, 1.5, 0.1)
    # The user's entry comes before "local models cost nothing".
    assert table.price_for(("ollama", "http://localhost:11434/v1", "llama3.2")) == Price(0.01, 0.01)
    assert table.price_for("gpt-4o-mini") == Price(0.15, 0.60, 0.075)  # the defaults stay for the rest
    path.write_text(json.dumps({"gpt-4o": {"input": 2.0, "output": 8.0}}))
    os.utime(path, ns=(1, 1))  # a different mtime even within the filesystem's time resolution
    assert table.price_for("gpt-4o") == Price(2.0, 8.0)
    assert table.price_for("acme-large-2") is None
    path.unlink()
    assert table.price_for("gpt-4o") == GPT_4O


def test_a_broken_file_is_moved_aside_the_defaults_are_used_and_the_user_is_told(tmp_path: Path) -> None:
    bus = EventBus()
    told: list[Notice] = []
    bus.subscribe(lambda e: told.append(e) if isinstance(e, Notice) else None)
    path = tmp_path / "prices.json"
    path.write_text('{"gpt-4o": {"input": 1.0, "output": 4.0},')  # cut off
    table = PriceTable.in_folder(tmp_path, bus)
    assert table.price_for("gpt-4o") == GPT_4O
    assert not path.exists()
    (aside,) = tmp_path.glob("prices.corrupt-*.json")
    assert aside.read_text().startswith('{"gpt-4o"')  # the user's text is kept
    (notice,) = told
    assert notice.level == "warning" and "could not be used" in notice.text and aside.name in notice.text
    assert table.price_for("gpt-4o") == GPT_4O and len(told) == 1  # told once


def test_a_bad_entry_is_skipped_and_named_the_rest_is_used(tmp_path: Path) -> None:
    bus = EventBus()
    told: list[str] = []
    bus.subscribe(lambda e: told.append(e.text) if isinstance(e, Notice) else None)
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"gpt-4o": {"input": "cheap", "output": 4}, "gpt-4.1": {"input": 1, "output": 3},
                                "o3": 5}))
    table = PriceTable(path, bus=bus)
    assert table.price_for("gpt-4.1") == Price(1.0, 3.0)
    assert table.price_for("gpt-4o") == GPT_4O  # the bad entry is skipped: the default applies
    assert path.exists()
    (text,) = told
    assert "'gpt-4o'" in text and '"input" must be a number' in text and "'o3'" in text


def test_set_price_writes_the_file_and_keeps_the_users_comments(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"_note": "keep me", "gpt-4o": {"input": 1, "output": 4}}))
    table = PriceTable(path)
    table.set_price("my-model", Price(0.2, 0.4, 0.05))
    table.set_price("gpt-4o", None)
    data = json.loads(path.read_text())
    assert data == {"_note": "keep me", "my-model": {"input": 0.2, "output": 0.4, "cached_input": 0.05}}
    assert table.price_for("my-model") == Price(0.2, 0.4, 0.05) and table.price_for("gpt-4o") == GPT_4O
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)  # written by jsonfile


def test_words() -> None:
    assert usage_text(1234, 0.0021) == "1,234 tokens · about $0.0021"
    assert usage_text(1, None) == "1 token · cost unknown"
    assert usage_text(800, 0.0) == "800 tokens · free"
    assert usage_text(5000, 0.02, cost_known=False) == "5,000 tokens · at least $0.02 (some costs unknown)"
    assert usage_text(5000, 0.0, cost_known=False) == "5,000 tokens · cost unknown"
    assert [format_cost(c) for c in (0.0021, 0.05, 0.123, 3.456, 0.00003)] == [
        "$0.0021", "$0.05", "$0.12", "$3.46", "$0.00003"]
    assert describe({"input_tokens": 1000, "output_tokens": 234, "cost_usd": 0.0021, "cost_known": True}) == (
        "1,234 tokens · about $0.0021")
    assert describe({"input_tokens": 10, "output_tokens": 5, "cost_usd": None, "cost_known": False}) == (
        "15 tokens · cost unknown")
    assert describe({"input_tokens": 0, "output_tokens": 0}) == ""  # a slash command: no line
