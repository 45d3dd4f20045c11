"""What each provider's API wants in a chat request, by provider kind and model family.

Owns ONE table, ``DIALECTS``: rows of (provider kinds, model-name pattern) -> what to rename,
what to drop and where the user's reasoning level goes, each row with the documentation it
follows. The first row that matches a provider kind and a model name is its dialect; the
last rows of each kind match every model ("as the API is"). Each provider client builds
its body in its own API's shape, then ``shape_body`` applies the dialect and then what was
learned about the model (``ModelFacts.renamed`` / ``dropped``, from a provider's 400 naming
a parameter it refuses: see ``core.llm.errors.parameter_refusal``), so a model no row knows
still works after one refusal per parameter.

Paths name body keys, dotted for nested objects: ``max_tokens``, ``reasoning.effort``,
``generationConfig.thinkingConfig.thinkingBudget``. To teach Jawad a new family, add a row
above the catch-all rows of its kinds.

Decisions taken from the providers' documentation (found through the docs search, 2025-26):

- OpenAI Chat Completions: ``max_tokens`` is "deprecated in favor of max_completion_tokens,
  and is not compatible with o-series models"; GPT-5 and later refuse it too. So the
  ``openai`` kind (api.openai.com, which takes ``max_completion_tokens`` for every chat model)
  always sends ``max_completion_tokens``. Other kinds (OpenAI-compatible servers, gateways,
  OpenRouter, Ollama) keep ``max_tokens``, the name those servers document, except for
  models named as OpenAI's reasoning models, which gateways (Azure, LiteLLM) pass to OpenAI.
- OpenAI reasoning models (o1, o3, o4-mini, the GPT-5 family): no ``temperature``/``top_p``
  ("Only the default (1) value is supported"); ``reasoning_effort`` levels: o-series
  low/medium/high; gpt-5, -mini, -nano minimal/low/medium/high; gpt-5.1 and later
  none/low/medium/high ("All models before gpt-5.1 ... do not support none"). The user's
  "none" becomes the lowest level the family accepts. ``gpt-5-chat-latest`` is not a
  reasoning model (it takes ``temperature`` and no ``reasoning_effort``).
- OpenAI Responses API: ``max_output_tokens``, ``reasoning: {effort}``, no ``temperature``
  on reasoning models.
- OpenRouter: a ``reasoning`` object (``{"effort": "high"}``; "none" is accepted); it keeps
  ``max_tokens`` and passes OpenAI's refusal of ``temperature`` through for its models.
- Anthropic: ``max_tokens`` is required; thinking is ``{"type": "enabled", "budget_tokens":
  N}`` with N >= 1024 and below ``max_tokens``, and refuses a non-default ``temperature``.
- Gemini 3: ``thinkingConfig.thinkingLevel`` (Pro: low/high; Flash: minimal/low/medium/high);
  Gemini 2.5: ``thinkingConfig.thinkingBudget`` (Pro 128..32768 and cannot be turned off;
  Flash 0..24576; Flash-Lite 512..24576 or 0). A model that refuses the level or budget
  ("Thinking level is not supported for this model", "Budget 0 is invalid") falls back to
  its default thinking through the repair path (spec 003).
- Ollama's native API: ``think`` is true/false, or "low"/"medium"/"high" for gpt-oss (which
  cannot turn thinking off). Ollama's /v1, LM Studio, llama.cpp and Bedrock: as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from jawad_desktop.core.config.providers import ProviderKind

if TYPE_CHECKING:
    from jawad_desktop.core.llm.errors import ParameterRefusal
    from jawad_desktop.core.store.model_facts import ModelFacts

__all__ = [
    "DIALECTS",
    "Dialect",
    "dialect_for",
    "find_param",
    "has_path",
    "pop_path",
    "set_path",
    "shape_body",
]

K = ProviderKind
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _levels(none: Any, low: Any, medium: Any, high: Any) -> Mapping[str, Any]:
    """What to send for each of the user's reasoning levels (``ProviderConfig.reasoning``)."""
    return MappingProxyType({"none": none, "low": low, "medium": medium, "high": high})


@dataclass(frozen=True)
class Dialect:
    """One row: for these provider kinds and model names, what the request must look like."""

    name: str  # the family, in words ("OpenAI o-series reasoning model")
    kinds: frozenset[ProviderKind]
    model: str  # regular expression, matched at the start of the model's name without "vendor/"
    rename: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # path -> the name this API wants
    drop: tuple[str, ...] = ()  # paths this API refuses
    reasoning_at: str = ""  # where the reasoning level's value goes; "" when the client places it itself
    reasoning: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)  # level -> value (absent: not sent)
    reasoning_drops: tuple[str, ...] = ()  # paths the API refuses once reasoning is on
    source: str = ""  # the documentation the row follows
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", re.compile(self.model, re.IGNORECASE))  # (frozen)

    def matches(self, kind: ProviderKind, model: str) -> bool:
        return kind in self.kinds and self.pattern.match(model) is not None

    def reasoning_value(self, level: str) -> Any:
        """What to send for the user's reasoning ``level``; None: nothing (the model's default)."""
        if not level:
            return None
        return self.reasoning.get(level) if self.reasoning else None

    @property
    def changes_nothing(self) -> bool:
        return not (self.rename or self.drop or self.reasoning_at or self.reasoning_drops)


# -- the families ------------------------------------------------------------------------------

_O_SERIES = _levels("low", "low", "medium", "high")
_GPT5 = _levels("minimal", "low", "medium", "high")
_GPT5_1 = _levels("none", "low", "medium", "high")
_EFFORT = _levels("none", "low", "medium", "high")  # the user's level as it is
_SAMPLING = ("temperature", "top_p")

_OPENAI_CHAT = frozenset({K.OPENAI, K.OPENAI_COMPATIBLE})
_CHAT_DOCS = "platform.openai.com/docs/api-reference/chat/create; docs/guides/reasoning"
_RESPONSES_DOCS = "platform.openai.com/docs/api-reference/responses/create"
_OPENROUTER_DOCS = "openrouter.ai/docs/use-cases/reasoning-tokens"
_GEMINI_DOCS = "ai.google.dev/gemini-api/docs/thinking"

# OpenAI's reasoning models as OpenAI names them (dated snapshots too: o4-mini-2025-04-16).
_GPT5_1_UP = r"gpt-5\.\d"
_GPT5_ANY = r"gpt-5"
_O_ANY = r"o\d+(-|$)"

DIALECTS: tuple[Dialect, ...] = (
    # -- OpenAI Chat Completions, and the gateways that pass OpenAI's models through -----------
    Dialect("OpenAI GPT-5 chat model (not a reasoning model)", frozenset({K.OPENAI}), r"gpt-5-chat",
            rename={"max_tokens": "max_completion_tokens"}, source=_CHAT_DOCS),
    Dialect("OpenAI GPT-5 chat model (not a reasoning model)", frozenset({K.OPENAI_COMPATIBLE}), r"gpt-5-chat",
            source=_CHAT_DOCS),
    Dialect("OpenAI GPT-5.1 or later", _OPENAI_CHAT, _GPT5_1_UP,
            rename={"max_tokens": "max_completion_tokens"}, drop=_SAMPLING,
            reasoning_at="reasoning_effort", reasoning=_GPT5_1, source=_CHAT_DOCS),
    Dialect("OpenAI GPT-5 reasoning model", _OPENAI_CHAT, _GPT5_ANY,
            rename={"max_tokens": "max_completion_tokens"}, drop=_SAMPLING,
            reasoning_at="reasoning_effort", reasoning=_GPT5, source=_CHAT_DOCS),
    Dialect("OpenAI o-series reasoning model", _OPENAI_CHAT, _O_ANY,
            rename={"max_tokens": "max_completion_tokens"}, drop=_SAMPLING,
            reasoning_at="reasoning_effort", reasoning=_O_SERIES, source=_CHAT_DOCS),
    Dialect("OpenAI chat model (GPT-4 and earlier)", frozenset({K.OPENAI}), r"(gpt-4|gpt-3|chatgpt)",
            rename={"max_tokens": "max_completion_tokens"}, source=_CHAT_DOCS),
    # A model OpenAI names otherwise (a newer one): the documented names, and the user's
    # reasoning level if they set one; what it refuses is learned from its answer.
    Dialect("OpenAI chat model", frozenset({K.OPENAI}), r"",
            rename={"max_tokens": "max_completion_tokens"},
            reasoning_at="reasoning_effort", reasoning=_EFFORT, reasoning_drops=_SAMPLING, source=_CHAT_DOCS),
    # -- OpenAI Responses API -------------------------------------------------------------------
    Dialect("OpenAI GPT-5 chat model (Responses API)", frozenset({K.OPENAI_RESPONSES}), r"gpt-5-chat",
            source=_RESPONSES_DOCS),
    Dialect("OpenAI GPT-5.1 or later (Responses API)", frozenset({K.OPENAI_RESPONSES}), _GPT5_1_UP,
            drop=_SAMPLING, reasoning_at="reasoning.effort", reasoning=_GPT5_1, source=_RESPONSES_DOCS),
    Dialect("OpenAI GPT-5 reasoning model (Responses API)", frozenset({K.OPENAI_RESPONSES}), _GPT5_ANY,
            drop=_SAMPLING, reasoning_at="reasoning.effort", reasoning=_GPT5, source=_RESPONSES_DOCS),
    Dialect("OpenAI o-series reasoning model (Responses API)", frozenset({K.OPENAI_RESPONSES}), _O_ANY,
            drop=_SAMPLING, reasoning_at="reasoning.effort", reasoning=_O_SERIES, source=_RESPONSES_DOCS),
    Dialect("OpenAI model (Responses API)", frozenset({K.OPENAI_RESPONSES}), r"",
            reasoning_at="reasoning.effort", reasoning=_EFFORT, reasoning_drops=_SAMPLING,
            source=_RESPONSES_DOCS),
    # -- OpenRouter: its own reasoning object; OpenAI's reasoning models refuse sampling -------
    Dialect("OpenAI reasoning model on OpenRouter", frozenset({K.OPENROUTER}),
            f"({_GPT5_1_UP}|{_GPT5_ANY}(?!-chat)|{_O_ANY})",
            drop=_SAMPLING, reasoning_at="reasoning.effort", reasoning=_EFFORT, source=_OPENROUTER_DOCS),
    Dialect("OpenRouter model", frozenset({K.OPENROUTER}), r"",
            reasoning_at="reasoning.effort", reasoning=_EFFORT, source=_OPENROUTER_DOCS),
    # -- Anthropic: the client builds ``thinking`` itself (it depends on the tool loop) --------
    Dialect("Anthropic Claude", frozenset({K.ANTHROPIC}), r"",
            reasoning=_levels(None, 1024, 4096, 16384),
            source="docs.anthropic.com/en/docs/build-with-claude/extended-thinking"),
    # -- Gemini ---------------------------------------------------------------------------------
    Dialect("Gemini 3 Pro", frozenset({K.GEMINI}), r"gemini-3(\.\d+)?-pro",
            reasoning_at="generationConfig.thinkingConfig.thinkingLevel",
            reasoning=_levels("low", "low", "high", "high"), source=_GEMINI_DOCS),
    Dialect("Gemini 3", frozenset({K.GEMINI}), r"gemini-3",
            reasoning_at="generationConfig.thinkingConfig.thinkingLevel",
            reasoning=_levels("minimal", "low", "medium", "high"), source=_GEMINI_DOCS),
    Dialect("Gemini 2.5 Pro (thinking cannot be turned off)", frozenset({K.GEMINI}), r"gemini-2\.5-pro",
            reasoning_at="generationConfig.thinkingConfig.thinkingBudget",
            reasoning=_levels(128, 1024, 8192, 32768), source=_GEMINI_DOCS),
    Dialect("Gemini 2.5 Flash-Lite", frozenset({K.GEMINI}), r"gemini-2\.5-flash-lite",
            reasoning_at="generationConfig.thinkingConfig.thinkingBudget",
            reasoning=_levels(0, 1024, 8192, 24576), source=_GEMINI_DOCS),
    Dialect("Gemini", frozenset({K.GEMINI}), r"",
            reasoning_at="generationConfig.thinkingConfig.thinkingBudget",
            reasoning=_levels(0, 1024, 8192, 24576), source=_GEMINI_DOCS),
    # -- Ollama's native API ---------------------------------------------------------------------
    Dialect("gpt-oss on Ollama (thinking levels, cannot turn it off)", frozenset({K.OLLAMA_NATIVE}), r"gpt-oss",
            reasoning_at="think", reasoning=_levels("low", "low", "medium", "high"),
            source="github.com/ollama/ollama/blob/main/docs/api.md (think)"),
    Dialect("Ollama model", frozenset({K.OLLAMA_NATIVE}), r"",
            reasoning_at="think", reasoning=_levels(False, True, True, True),
            source="github.com/ollama/ollama/blob/main/docs/api.md (think)"),
    # -- Everything else as it is: Ollama's /v1, LM Studio, llama.cpp, the built-in model,
    # any OpenAI-compatible server and Bedrock. What a model refuses is learned.
    Dialect("as the API is", frozenset(ProviderKind), r""),
)


@lru_cache(maxsize=256)
def dialect_for(kind: ProviderKind, model: str) -> Dialect:
    """The first row of ``DIALECTS`` for ``kind`` and ``model`` (matched without a "vendor/"
    prefix: OpenRouter's ``openai/o4-mini`` is ``o4-mini``)."""
    name = model.rsplit("/", 1)[-1].strip()
    for dialect in DIALECTS:
        if dialect.matches(kind, name):
            return dialect
    return DIALECTS[-1]


# -- paths in a body ---------------------------------------------------------------------------

def _parent(body: dict[str, Any], path: str, *, create: bool = False) -> tuple[dict[str, Any] | None, str]:
    *heads, last = path.split(".")
    node = body
    for head in heads:
        child = node.get(head)
        if not isinstance(child, dict):
            if not create:
                return None, last
            child = node[head] = {}
        node = child
    return node, last


def has_path(body: dict[str, Any], path: str) -> bool:
    parent, last = _parent(body, path)
    return parent is not None and last in parent


def set_path(body: dict[str, Any], path: str, value: Any) -> None:
    parent, last = _parent(body, path, create=True)
    assert parent is not None
    parent[last] = value


def pop_path(body: dict[str, Any], path: str) -> tuple[bool, Any]:
    """Remove ``path``; (whether it was there, its value). Objects left empty go too."""
    parent, last = _parent(body, path)
    if parent is None or last not in parent:
        return False, None
    value = parent.pop(last)
    heads = path.split(".")[:-1]
    while heads:  # {"reasoning": {}} says nothing: take it out as well
        holder, key = _parent(body, ".".join(heads))
        if holder is None or holder.get(key) != {}:
            break
        del holder[key]
        heads.pop()
    return True, value


def _rename(body: dict[str, Any], old: str, new: str) -> None:
    found, value = pop_path(body, old)
    if found and not has_path(body, new):
        set_path(body, new, value)


def shape_body(body: dict[str, Any], dialect: Dialect, reasoning: str, facts: ModelFacts | None) -> dict[str, Any]:
    """``body`` as ``dialect`` wants it for the user's ``reasoning`` level, then with what was
    learned about the model (its renames, then its drops); changed in place and returned."""
    for old, new in dialect.rename.items():
        _rename(body, old, new)
    for path in dialect.drop:
        pop_path(body, path)
    value = dialect.reasoning_value(reasoning) if dialect.reasoning_at else None
    if value is not None:  # (a client that places the level itself reads ``reasoning_value``)
        for path in dialect.reasoning_drops:
            pop_path(body, path)
        set_path(body, dialect.reasoning_at, value)
    if facts is not None:
        for old, new in facts.renamed.items():
            _rename(body, old, new)
        for path in facts.dropped:
            pop_path(body, path)
    return body


# -- naming a refused parameter in a body -------------------------------------------------------

# What a request is about, never to be dropped or renamed, and not searched for a parameter.
PROTECTED = frozenset({"model", "messages", "input", "contents", "stream", "system", "systemInstruction",
                       "tools", "toolConfig", "tool_choice", "functions", "function_call", "inferenceConfig",
                       "generationConfig", "response_format", "text", "format", "store"})
_CONTENT = frozenset({"messages", "input", "contents", "system", "systemInstruction", "tools", "toolConfig",
                      "tool_choice", "response_format", "text", "format", "functions"})


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _walk(node: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in node.items():
        if not prefix and key in _CONTENT:
            continue
        path = f"{prefix}{key}"
        yield path, value
        if isinstance(value, dict):
            yield from _walk(value, path + ".")


def find_param(body: dict[str, Any], refusal: ParameterRefusal) -> str | None:
    """The path in ``body`` the provider's refusal is about, or None when the body has no such
    parameter (then nothing can be repaired). The provider may name it its own way
    (``thinking_level`` for ``thinkingLevel``, a masked ``***.effort``) or name only the value."""
    found: str | None = None
    if refusal.param:
        name = refusal.param.split("[", 1)[0]
        if has_path(body, name):
            found = name
        else:
            wanted = _norm(name.rsplit(".", 1)[-1])
            found = next((p for p, _ in _walk(body) if _norm(p.rsplit(".", 1)[-1]) == wanted), None)
    if found is None and refusal.value:
        value = refusal.value.strip("'\"")
        found = next((p for p, v in _walk(body) if isinstance(v, (str, int, float)) and not isinstance(v, bool)
                      and str(v) == value), None)
    return None if found is None or found in PROTECTED else found
