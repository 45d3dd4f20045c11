"""What models cost, and what a turn cost: the editable price table.

Owns the prices of the models the app offers (USD per million input, cached input and output
tokens), how a model is matched to its price, and how usage and cost are worded for the user:

- **The table.** ``DEFAULT_PRICES`` are the published list prices (sources and date below).
  The user's ``prices.json`` in the profile's config folder overrides them, entry by entry::

      {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10},
       "my-server-model*": {"input": 0, "output": 0}}

  Keys are model names or glob patterns (``*``, ``?``); ``cached_input`` may be left out (cached
  tokens then cost the input price); keys starting with ``_`` are comments. The file is read
  again when it changes. A file that is not a JSON object is moved aside (``jsonfile.move_aside``),
  the defaults are used and the user is told with a ``Notice``; an entry that is not a price is
  skipped and named in a ``Notice``.
- **Matching.** A model is a ``ModelKey`` (provider kind, base URL, model) or a bare name. The
  user's entries are tried first, then: local models (the built-in one, Ollama, an
  OpenAI-compatible server on this machine or the local network) cost nothing; then the
  defaults. Within a table an exact name wins over a pattern, and a longer pattern over a
  shorter one. Names are also tried without what does not change the price: a provider prefix
  (``openai/``, ``models/``, Bedrock's ``us.anthropic.``), a date (``-20250514``,
  ``-2024-08-06``), ``-latest``, Bedrock's ``-v1:0``, ``[1m]``; OpenRouter's ``:free`` costs
  nothing.
- **Estimates.** ``estimate_cost`` returns None when the price is unknown: a face shows "cost
  unknown", never $0. Where the provider reports the cost itself (OpenRouter's ``usage.cost``,
  in ``ChatResponse.metadata["cost_usd"]``) the agent uses that instead. Input tokens include
  the cached ones (every provider counts them so); prices of long prompts (above 200K tokens
  on some models), cache writes, batch and priority tiers are not modelled.
- **Words.** ``usage_text`` is the one line both faces show under an answer and for a
  conversation ("1,234 tokens · about $0.0021").
"""

from __future__ import annotations

import fnmatch
import ipaddress
import json
import logging
import math
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from jawad_desktop.core.events import EventBus, Notice
from jawad_desktop.core.store.jsonfile import move_aside, write_json

if TYPE_CHECKING:
    from jawad_desktop.core.store.conversation_records import UsageTotals

log = logging.getLogger("jawad.llm.pricing")

__all__ = [
    "DEFAULT_PRICES",
    "FILENAME",
    "FREE",
    "Price",
    "PriceTable",
    "describe",
    "estimate_cost",
    "format_cost",
    "totals_text",
    "turn_usage",
    "usage_text",
]

FILENAME = "prices.json"

ModelKey = tuple[str, str, str]  # provider kind, base URL, model (LLMClient.model_key)


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens. ``cached_input`` None: cached input costs the input price."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """The cost of a request; ``input_tokens`` includes ``cached_input_tokens``."""
        cached = max(0, min(cached_input_tokens, input_tokens))
        cached_price = self.input if self.cached_input is None else self.cached_input
        return ((input_tokens - cached) * self.input + cached * cached_price + output_tokens * self.output) / 1e6

    def as_json(self) -> dict[str, float]:
        data = {"input": self.input, "output": self.output}
        if self.cached_input is not None:
            data["cached_input"] = self.cached_input
        return data


FREE = Price(0.0, 0.0, 0.0)


def _p(input_: float, cached: float | None, output: float) -> Price:
    return Price(input=input_, output=output, cached_input=cached)


# Published list prices, USD per million tokens (input, cached input, output), read on
# 2026-11-24 from:
# - OpenAI: https://developers.openai.com/api/docs/pricing (GPT-5.x as mirrored in GitHub's
#   Copilot price table, github/docs data/tables/copilot/models-and-pricing.yml; GPT-4o/4.1 and
#   the o-series from the same page's earlier models).
# - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("cache hits" is the
#   cached price; Sonnet 5.5's cache hits were cut to $0.10 on 2026-10-07).
# - Google: https://ai.google.dev/gemini-api/docs/pricing (prompts up to 200K tokens).
# - xAI and DeepSeek: their pricing pages, via the same Copilot table for Grok 4.5/4.6.
# - OpenRouter lists the upstream providers' prices for these models under their ids
#   (``openai/gpt-4o``...), which the matching finds here; it also reports each request's cost
#   itself (https://openrouter.ai/docs/use-cases/usage-accounting), which is used first.
# The user's prices.json overrides any of these.
DEFAULT_PRICES: dict[str, Price] = {
    # -- OpenAI ----------------------------------------------------------------------------
    "gpt-3.5-turbo": _p(0.50, None, 1.50),
    "gpt-4": _p(30.0, None, 60.0),
    "gpt-4-turbo": _p(10.0, None, 30.0),
    "gpt-4o": _p(2.50, 1.25, 10.0),
    "gpt-4o-mini": _p(0.15, 0.075, 0.60),
    "chatgpt-4o-latest": _p(5.0, None, 15.0),
    "gpt-4.1": _p(2.0, 0.50, 8.0),
    "gpt-4.1-mini": _p(0.40, 0.10, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.025, 0.40),
    "o1": _p(15.0, 7.50, 60.0),
    "o1-mini": _p(1.10, 0.55, 4.40),
    "o1-pro": _p(150.0, None, 600.0),
    "o3": _p(2.0, 0.50, 8.0),
    "o3-mini": _p(1.10, 0.55, 4.40),
    "o3-pro": _p(20.0, None, 80.0),
    "o4-mini": _p(1.10, 0.275, 4.40),
    "gpt-5": _p(1.25, 0.125, 10.0),
    "gpt-5-chat-latest": _p(1.25, 0.125, 10.0),
    "gpt-5-codex": _p(1.25, 0.125, 10.0),
    "gpt-5-mini": _p(0.25, 0.025, 2.0),
    "gpt-5-nano": _p(0.05, 0.005, 0.40),
    "gpt-5-pro": _p(15.0, None, 120.0),
    "gpt-5.1": _p(1.25, 0.125, 10.0),
    "gpt-5.1-chat-latest": _p(1.25, 0.125, 10.0),
    "gpt-5.1-codex": _p(1.25, 0.125, 10.0),
    "gpt-5.1-codex-mini": _p(0.25, 0.025, 2.0),
    "gpt-5.2": _p(1.75, 0.175, 14.0),
    "gpt-5.2-codex": _p(1.75, 0.175, 14.0),
    "gpt-5.2-pro": _p(21.0, None, 168.0),
    "gpt-5.3-codex": _p(1.75, 0.175, 14.0),
    "gpt-5.4": _p(2.50, 0.25, 15.0),
    "gpt-5.4-mini": _p(0.75, 0.075, 4.50),
    "gpt-5.4-nano": _p(0.20, 0.02, 1.25),
    "gpt-5.4-pro": _p(30.0, None, 180.0),
    "gpt-5.5": _p(5.0, 0.50, 30.0),
    "gpt-5.5-pro": _p(30.0, None, 180.0),
    "gpt-5.6-sol*": _p(5.0, 0.50, 30.0),
    "gpt-5.6-terra*": _p(2.0, 0.20, 12.0),
    "gpt-5.6-luna*": _p(0.20, 0.02, 1.20),
    # -- Anthropic (API ids; OpenRouter's "claude-sonnet-4.5" is matched as "claude-sonnet-4-5")
    "claude-3-haiku": _p(0.25, 0.03, 1.25),
    "claude-3-opus": _p(15.0, 1.50, 75.0),
    "claude-3-5-haiku": _p(0.80, 0.08, 4.0),
    "claude-3-5-sonnet": _p(3.0, 0.30, 15.0),
    "claude-3-7-sonnet": _p(3.0, 0.30, 15.0),
    "claude-sonnet-4": _p(3.0, 0.30, 15.0),
    "claude-sonnet-4-0": _p(3.0, 0.30, 15.0),
    "claude-sonnet-4-5": _p(3.0, 0.30, 15.0),
    "claude-sonnet-4-6": _p(3.0, 0.30, 15.0),
    "claude-sonnet-5": _p(2.0, 0.20, 10.0),
    "claude-sonnet-5-5": _p(2.0, 0.10, 10.0),
    "claude-opus-4": _p(15.0, 1.50, 75.0),
    "claude-opus-4-0": _p(15.0, 1.50, 75.0),
    "claude-opus-4-1": _p(15.0, 1.50, 75.0),
    "claude-opus-4-5": _p(5.0, 0.50, 25.0),
    "claude-opus-4-6": _p(5.0, 0.50, 25.0),
    "claude-opus-4-7": _p(5.0, 0.50, 25.0),
    "claude-opus-4-8": _p(5.0, 0.50, 25.0),
    "claude-opus-5": _p(5.0, 0.50, 25.0),
    "claude-opus-5-5": _p(4.0, 0.20, 20.0),
    "claude-haiku-4-5": _p(1.0, 0.10, 5.0),
    "claude-haiku-5-5": _p(0.10, 0.01, 0.50),  # prompts up to 100K tokens
    "claude-fable-5": _p(10.0, 1.0, 50.0),
    "claude-fable-5-1": _p(10.0, 0.25, 50.0),
    "claude-mythos-5": _p(10.0, 1.0, 50.0),
    "claude-mythos-5-1": _p(10.0, 0.25, 50.0),
    # -- Google Gemini (prompts up to 200K tokens; previews of a family priced as the family)
    "gemini-1.5-flash*": _p(0.075, 0.01875, 0.30),
    "gemini-1.5-pro*": _p(1.25, 0.3125, 5.0),
    "gemini-2.0-flash*": _p(0.10, 0.025, 0.40),
    "gemini-2.0-flash-lite*": _p(0.075, None, 0.30),
    "gemini-2.5-pro*": _p(1.25, 0.125, 10.0),
    "gemini-2.5-flash*": _p(0.30, 0.03, 2.50),
    "gemini-2.5-flash-lite*": _p(0.10, 0.01, 0.40),
    "gemini-3-pro*": _p(2.0, 0.20, 12.0),
    "gemini-3.1-pro*": _p(2.0, 0.20, 12.0),
    "gemini-3.5-flash*": _p(1.50, 0.15, 9.0),
    "gemini-3.6-flash*": _p(0.75, 0.075, 3.75),
    "gemini-3.7-flash*": _p(0.75, 0.075, 3.75),
    # -- others offered through OpenRouter or an OpenAI-compatible endpoint
    "grok-4": _p(3.0, 0.75, 15.0),
    "grok-4.5*": _p(2.0, 0.50, 6.0),
    "grok-4.6*": _p(2.0, 0.50, 6.0),
    "deepseek-chat": _p(0.28, 0.028, 0.42),
    "deepseek-reasoner": _p(0.28, 0.028, 0.42),
}

# Provider kinds whose models run on the user's machine: they cost nothing.
LOCAL_KINDS = frozenset({"local", "ollama", "ollama-native"})

_DATE = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")
_REGION = re.compile(r"^(?:us|eu|apac|au|ca|jp|us-gov|global)\.")
_VENDOR = re.compile(r"^(?:anthropic|openai|meta|mistral|amazon|cohere|google|deepseek)\.")


def _names(model: str) -> list[str]:
    """``model`` and the names it may be listed under, most specific first."""
    name = model.strip().lower()
    names = [name]

    def add(candidate: str) -> None:
        if candidate and candidate not in names:
            names.append(candidate)

    base = name.removeprefix("models/")  # Gemini's "models/gemini-2.5-pro"
    if ":" in base and not _BEDROCK_VERSION.search(base):
        base = base.split(":", 1)[0]  # OpenRouter's ":nitro", ":floor"... (":free" is handled before)
    base = base.rsplit("/", 1)[-1]  # OpenRouter's "openai/gpt-4o", a deployment's "org/model"
    base = _VENDOR.sub("", _REGION.sub("", base))  # Bedrock's "us.anthropic.claude-..."
    base = _BEDROCK_VERSION.sub("", base).removesuffix("[1m]")
    add(base)
    for suffix in ("-latest",):
        if base.endswith(suffix):
            add(base.removesuffix(suffix))
    undated = _DATE.sub("", base)
    add(undated)
    # OpenRouter writes Claude versions with dots ("claude-3.5-sonnet", "claude-sonnet-4.5").
    if "claude" in undated:
        add(undated.replace(".", "-"))
    return names


def _is_local_address(base_url: str) -> bool:
    """Whether an OpenAI-compatible server runs on this machine or the local network."""
    host = (urlsplit(base_url).hostname or "").lower()
    if not host:
        return False
    if host == "localhost" or host.endswith((".local", ".localhost", ".lan", ".home.arpa")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def _lookup(table: Mapping[str, Price], names: list[str]) -> Price | None:
    """The price of the first of ``names`` listed exactly, else of the longest matching pattern."""
    for name in names:
        found = table.get(name)
        if found is not None:
            return found
    patterns = sorted((key for key in table if any(c in key for c in "*?[")), key=len, reverse=True)
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(name, pattern) for name in names):
            return table[pattern]
    return None


def _price_from_json(value: Any) -> Price:
    """A price entry of prices.json; ValueError saying what is wrong with it."""
    if not isinstance(value, dict):
        raise ValueError('it is not an object like {"input": 2.5, "output": 10}')
    numbers: dict[str, float] = {}
    for field_name in ("input", "output", "cached_input"):
        raw = value.get(field_name)
        if raw is None and field_name == "cached_input":
            continue
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw < 0:
            raise ValueError(f'"{field_name}" must be a number of dollars per million tokens, 0 or more')
        numbers[field_name] = float(raw)
    return Price(input=numbers["input"], output=numbers["output"], cached_input=numbers.get("cached_input"))


class PriceTable:
    """The defaults with the user's ``prices.json`` over them (see the module docstring).

    ``PriceTable()`` is the defaults alone; ``PriceTable.in_folder(ctx.paths.config, bus)`` adds
    the profile's file, read on first use and again whenever it changes. Problems with the file
    are announced on ``bus`` (and logged) once per version of the file. Thread-safe.
    """

    def __init__(
        self,
        path: Path | None = None,
        *,
        bus: EventBus | None = None,
        defaults: Mapping[str, Price] | None = None,
    ) -> None:
        self.path = path
        self.bus = bus
        self.defaults: dict[str, Price] = {k.lower(): v for k, v in (defaults or DEFAULT_PRICES).items()}
        self.problem = ""  # the last problem with the file, in the user's words
        self._overrides: dict[str, Price] = {}
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file last read
        self._lock = threading.Lock()

    @classmethod
    def in_folder(cls, config_dir: Path, bus: EventBus | None = None) -> PriceTable:
        return cls(Path(config_dir) / FILENAME, bus=bus)

    # -- the user's file ------------------------------------------------------------------------

    @property
    def overrides(self) -> dict[str, Price]:
        """The user's entries, as read from the file now."""
        with self._lock:
            self._refresh()
            return dict(self._overrides)

    def _refresh(self) -> None:
        """Read the file again if it changed since it was last read (a stat per use)."""
        if self.path is None:
            return
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._overrides, self._seen = {}, None
            return
        except OSError as exc:
            text = (f"The price table {self.path} could not be read ({exc.strerror or exc}); "
                    "the built-in prices are used.")
            if text != self.problem:  # told once, not at every request
                self._tell(text)
            return
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen == self._seen:
            return
        self._seen = seen
        self._overrides = self._read()

    def _read(self) -> dict[str, Price]:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("it is not a JSON object of model names and prices")
        except (OSError, ValueError) as exc:
            try:
                moved = move_aside(self.path)
                where = f"it was moved to {moved.name}"
            except OSError:
                where = "it was left where it is"
            self._seen = None
            self._tell(f"The price table {self.path} could not be used ({exc}); {where} and the built-in "
                       "prices are used. Fix the file and put it back, or delete it.")
            return {}
        prices: dict[str, Price] = {}
        skipped: list[str] = []
        for key, value in data.items():
            if not isinstance(key, str) or key.startswith("_"):
                continue
            try:
                prices[key.strip().lower()] = _price_from_json(value)
            except ValueError as exc:
                skipped.append(f"{key!r} ({exc})")
        if skipped:
            self._tell(f"Some entries of the price table {self.path} were skipped: {'; '.join(skipped)}.")
        else:
            self.problem = ""
        log.info("price table %s: %d entries", self.path, len(prices))
        return prices

    def _tell(self, text: str) -> None:
        self.problem = text
        log.warning("%s", text)
        if self.bus is not None:
            self.bus.emit(Notice(level="warning", text=text))

    def set_price(self, model: str, price: Price | None) -> None:
        """Set (or with None remove) the user's price for ``model`` (a name or a pattern) in the
        file, written atomically; the other entries stay as they are. Raises ``OSError``."""
        if self.path is None:
            raise OSError("this price table has no file")
        with self._lock:
            self._refresh()
            entries = {key: value.as_json() for key, value in self._overrides.items()}
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                # Keep the user's comments ("_note": ...) and key spelling.
                entries = {k: v for k, v in raw.items() if isinstance(k, str) and k.startswith("_")} | entries
            except (OSError, ValueError, AttributeError):
                pass
            key = model.strip().lower()
            if price is None:
                entries.pop(key, None)
            else:
                entries[key] = price.as_json()
            write_json(self.path, entries)
            self._seen = None
            self._refresh()

    # -- looking up ------------------------------------------------------------------------------

    def price_for(self, model: ModelKey | str) -> Price | None:
        """The price of ``model`` (a ``ModelKey`` or a name); None when it is not known."""
        if isinstance(model, tuple):
            kind, base_url, name = model
        else:
            kind, base_url, name = "", "", model
        names = _names(name)
        with self._lock:
            self._refresh()
            overrides = self._overrides
        found = _lookup(overrides, names) if overrides else None
        if found is not None:
            return found
        if kind in LOCAL_KINDS or (kind == "openai-compatible" and _is_local_address(base_url)):
            return FREE
        if (kind == "openrouter" or "/" in name) and name.strip().lower().endswith(":free"):
            return FREE
        if not name.strip():
            return None
        return _lookup(self.defaults, names)

    def estimate_cost(
        self, model: ModelKey | str, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0
    ) -> float | None:
        """What the tokens cost in USD at ``model``'s price; None when the price is unknown."""
        price = self.price_for(model)
        if price is None:
            return None
        return price.cost(input_tokens, output_tokens, cached_input_tokens)


_DEFAULT_TABLE: PriceTable | None = None


def estimate_cost(
    model_key_or_name: ModelKey | str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int = 0,
    *,
    prices: PriceTable | None = None,
) -> float | None:
    """USD for the tokens at the model's price (``prices``, else the built-in table); None
    when the price is unknown: show "cost unknown", never $0."""
    global _DEFAULT_TABLE
    if prices is None:
        if _DEFAULT_TABLE is None:
            _DEFAULT_TABLE = PriceTable()
        prices = _DEFAULT_TABLE
    return prices.estimate_cost(model_key_or_name, input_tokens, output_tokens, cached_input_tokens)


# -- words ----------------------------------------------------------------------------------------

def format_cost(cost_usd: float) -> str:
    """``$0.0021``, ``$0.05``, ``$1.23``: two significant digits below a dollar, cents above."""
    if cost_usd >= 1:
        return f"${cost_usd:,.2f}"
    decimals = max(2, 1 - math.floor(math.log10(cost_usd)))
    text = f"{cost_usd:.{decimals}f}"
    if "." in text and len(text.split(".")[1]) > 2:
        text = text.rstrip("0")
    return f"${text}"


def usage_text(tokens: int, cost_usd: float | None, *, cost_known: bool = True) -> str:
    """The usage line of an answer or a conversation: "1,234 tokens · about $0.0021".

    ``cost_usd`` None: "cost unknown". ``cost_known`` False with a cost: only part of it is
    known (a conversation where some answers came from a model without a price)."""
    head = f"{tokens:,} token{'s' if tokens != 1 else ''}"
    if cost_usd is None or (not cost_known and cost_usd <= 0):
        return f"{head} · cost unknown"
    if not cost_known:
        return f"{head} · at least {format_cost(cost_usd)} (some costs unknown)"
    if cost_usd <= 0:
        return f"{head} · free"
    return f"{head} · about {format_cost(cost_usd)}"


def turn_usage(metadata: Mapping[str, Any]) -> tuple[int, float | None]:
    """(tokens, cost in USD or None when unknown) of a turn's ``ChatResponse.metadata``."""
    def number(key: str) -> int:
        value = metadata.get(key)
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0

    cost = metadata.get("cost_usd")
    known = metadata.get("cost_known") is True and isinstance(cost, int | float) and not isinstance(cost, bool)
    return number("input_tokens") + number("output_tokens"), float(cost) if known else None  # type: ignore[arg-type]


def totals_text(totals: UsageTotals) -> str:
    """The usage line of a conversation (``ConversationStore.usage_totals``); "" before any answer."""
    if totals.turns == 0:
        return ""
    cost = None if totals.unknown_cost_turns >= totals.turns else totals.cost_usd
    return usage_text(totals.total_tokens, cost, cost_known=totals.cost_known)


def describe(metadata: Mapping[str, Any]) -> str:
    """The usage line of a turn from its ``ChatResponse.metadata``; "" when it used no tokens."""
    tokens, cost = turn_usage(metadata)
    return usage_text(tokens, cost) if tokens > 0 else ""
