"""How many tokens a model reads at once: its context window.

Owns finding it out, best source first (``context_window``):

1. the user's setting on the provider (``ProviderConfig.context_window``);
2. what was learned earlier and kept in the profile (``ModelFacts.context_window``);
3. what the provider says of the model, asked once and then remembered in the profile with a
   note: OpenRouter's ``/models`` (``context_length``); Ollama's ``/api/ps`` (the loaded model's
   context) and ``/api/show`` (``num_ctx``, else ``model_info.*.context_length``, which Ollama
   only uses up to its own default unless told otherwise); an OpenAI-compatible server's
   ``/models`` (vLLM's ``max_model_len``), llama.cpp's ``/props`` (``n_ctx``), LM Studio's
   ``/api/v1/models`` (a loaded instance's ``context_length``) and ``/api/v0/models/{model}``
   (``max_context_length``), then what the model list says it was trained for;
   the built-in model's own server (``n_ctx``);
4. a table of model families by name (``window_from_name``);
5. a conservative default for the kind of provider.

The agent sizes its history, the page text and the answer from it (``core.agent.budget``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.model_facts import ModelFactsStore, ModelKey

log = logging.getLogger("jawad.llm.context_window")

__all__ = ["ContextWindow", "context_window", "default_window", "forget_lookups", "window_from_name"]

# Ollama runs a model with this context unless the model file, the request or
# OLLAMA_CONTEXT_LENGTH says otherwise, whatever the model was trained for (docs: context-length).
OLLAMA_DEFAULT_CONTEXT = 4096
LOOKUP_TIMEOUT_S = 5.0

# Model families by name: (pattern searched in the lower-cased model name, tokens). First match
# wins, so the more specific patterns come first. Sizes are the providers' documented windows.
_TABLE: tuple[tuple[str, int], ...] = (
    # OpenAI
    (r"gpt-4\.1", 1_047_576),
    (r"gpt-5", 400_000),
    (r"gpt-oss", 131_072),
    (r"gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-\d{4}-preview|gpt-4-vision", 128_000),
    (r"gpt-4-32k", 32_768),
    (r"gpt-4", 8_192),
    (r"gpt-3\.5-turbo-instruct", 4_096),
    (r"gpt-3\.5", 16_385),
    (r"(^|/)o[1-9](-mini|-pro|-preview|-deep-research)?($|-|:)", 200_000),
    # Anthropic (also through Bedrock and OpenRouter)
    (r"claude", 200_000),
    # Google
    (r"gemini-1\.5-pro", 2_097_152),
    (r"gemini-(1\.5|2|3)", 1_048_576),
    (r"gemini", 32_768),
    (r"gemma-?3n", 32_768),
    (r"gemma-?3", 131_072),
    (r"gemma", 8_192),
    # Meta
    (r"llama-?3\.[1-3]|llama-?4", 131_072),
    (r"llama-?3", 8_192),
    (r"codellama", 16_384),
    (r"tinyllama", 2_048),
    (r"llama", 4_096),
    # Mistral
    (r"mistral-(large|small|medium)|mistral-nemo|ministral|codestral|pixtral|devstral|magistral", 131_072),
    (r"mixtral-8x22b", 65_536),
    (r"mistral|mixtral", 32_768),
    # Others
    (r"qwen", 32_768),
    (r"phi-?3\.5|phi-?3-(mini|medium)-128k|phi-?4-mini", 131_072),
    (r"phi-?4", 16_384),
    (r"phi", 4_096),
    (r"deepseek", 65_536),
    (r"command-r|command-a", 128_000),
    (r"grok", 131_072),
    (r"granite", 131_072),
    (r"smollm-?2|smollm2", 8_192),
    (r"smollm", 2_048),
)
_COMPILED = tuple((re.compile(pattern), tokens) for pattern, tokens in _TABLE)

_CLOUD = (ProviderKind.OPENAI, ProviderKind.OPENROUTER, ProviderKind.ANTHROPIC, ProviderKind.GEMINI,
          ProviderKind.OPENAI_RESPONSES, ProviderKind.BEDROCK)
_OLLAMA = (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE)

# What providers said in this process (None: nothing), so they are not asked at every message.
_ASKED: dict[ModelKey, ContextWindow | None] = {}


def forget_lookups() -> None:
    """Ask providers again (after the user forgets what was learned, and in tests)."""
    _ASKED.clear()


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """A model's context in tokens, and where that number comes from (for the log and Settings)."""

    tokens: int
    source: str


def window_from_name(model: str) -> int:
    """The window of a known model family (``0`` when the name says nothing)."""
    name = model.lower()
    for pattern, tokens in _COMPILED:
        if pattern.search(name):
            return tokens
    return 0


def default_window(kind: ProviderKind | None) -> int:
    """The window assumed when nothing is known: generous for cloud providers, small for the
    servers people run at home (whose defaults are small whatever the model could do)."""
    if kind in _CLOUD:
        return 32_768
    if kind in _OLLAMA:
        return OLLAMA_DEFAULT_CONTEXT
    return 8_192


def _provider_of(client: Any) -> tuple[Any, ProviderConfig | None]:
    """The LLM client inside ``client`` (a wrapper keeps it as ``client``) and its provider."""
    for candidate in (client, getattr(client, "client", None)):
        provider = getattr(candidate, "provider", None)
        if isinstance(provider, ProviderConfig):
            return candidate, provider
    return client, None


def _key_of(client: Any) -> ModelKey:
    key = getattr(client, "model_key", None)
    return key if isinstance(key, tuple) and len(key) == 3 else ("", "", "")


async def context_window(client: Any, facts: ModelFactsStore | None = None) -> ContextWindow:
    """The context window of ``client``'s model (see the module docstring for the order).

    ``client`` is an ``LLMClient``, a wrapper around one, or anything with a ``model_key``.
    What a provider says is learned into ``facts``; a provider that cannot be asked costs
    nothing but the table's guess.
    """
    inner, provider = _provider_of(client)
    key = _key_of(inner) if provider is not None else _key_of(client)
    if provider is not None and provider.context_window > 0:
        return ContextWindow(provider.context_window, "the provider's setting")
    if facts is not None and key[2]:
        known = facts.get(key).context_window
        if known > 0:
            return ContextWindow(known, "learned earlier")
    if provider is not None:
        found = await _ask_provider(inner, provider, key, facts)
        if found is not None:
            return found
    kind = provider.kind if provider is not None else _kind(key[0])
    named = window_from_name(key[2])
    if named:
        if kind in _OLLAMA:  # Ollama runs models with its own default unless told otherwise
            return ContextWindow(min(named, OLLAMA_DEFAULT_CONTEXT), "Ollama's default context")
        return ContextWindow(named, "the model's family")
    return ContextWindow(default_window(kind), "a default for unknown models")


def _kind(value: str) -> ProviderKind | None:
    try:
        return ProviderKind(value)
    except ValueError:
        return None


async def _ask_provider(
    client: Any, provider: ProviderConfig, key: ModelKey, facts: ModelFactsStore | None
) -> ContextWindow | None:
    """What the provider (or the built-in server) says of the model, learned into ``facts``."""
    if provider.kind is ProviderKind.LOCAL and not provider.base_url:
        from jawad_desktop.core.llm.local_server import shared_local_server

        return ContextWindow(shared_local_server().n_ctx, "the built-in model's server")
    if provider.kind not in (ProviderKind.OPENROUTER, ProviderKind.OPENAI_COMPATIBLE, ProviderKind.LOCAL,
                             *_OLLAMA):
        return None  # these providers' model lists do not say; the table knows their models
    if not key[2] or not hasattr(client, "get_json"):
        return None
    if key in _ASKED:
        return _ASKED[key]
    _ASKED[key] = None
    try:
        async with asyncio.timeout(LOOKUP_TIMEOUT_S):
            found = await _lookup(client, provider.kind, key[2])
    except (JawadError, TimeoutError) as exc:
        log.info("could not ask %s for the context window of %s: %s", provider.name, key[2], exc)
        return None
    if found is None:
        log.info("%s does not say the context window of %s", provider.name, key[2])
        return None
    tokens, where = found
    log.info("context window of %s: %d tokens (%s)", key[2], tokens, where)
    if facts is not None:
        facts.learn(key, lambda f: setattr(f, "context_window", tokens),
                    note=f"Context window {tokens:,} tokens ({where}).")
    _ASKED[key] = ContextWindow(tokens, where)
    return _ASKED[key]


async def _lookup(client: Any, kind: ProviderKind, model: str) -> tuple[int, str] | None:
    if kind is ProviderKind.OPENROUTER:
        return _from_model_list(await client.get_json(f"{client.base_url}/models"), model,
                                ("context_length",), "OpenRouter's model list")
    if kind in _OLLAMA:
        return await _ollama(client, model)
    return await _compatible(client, model)


def _positive(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return 0
    return number if number > 0 else 0


def _entry(data: Any, model: str) -> dict[str, Any] | None:
    """The model's entry in a model list (Ollama lists ``llama3.2`` as ``llama3.2:latest``)."""
    wanted = {model, f"{model}:latest"}
    items = data.get("data", data.get("models")) if isinstance(data, dict) else data
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and wanted & {item.get(k) for k in ("id", "name", "model", "key")}:
            return item
    return None


def _from_model_list(data: Any, model: str, fields: tuple[str, ...], where: str) -> tuple[int, str] | None:
    """The first of ``fields`` (a dotted path) the model's entry in a model list has."""
    entry = _entry(data, model)
    if entry is None:
        return None
    for path in fields:
        value: Any = entry
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if tokens := _positive(value):
            return tokens, where
    return None


async def _optional(client: Any, url: str) -> Any:
    """A JSON answer from an endpoint the server may not have (``None`` then)."""
    try:
        return await client.get_json(url)
    except JawadError:
        return None


def _root(base_url: str) -> str:
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


async def _ollama(client: Any, model: str) -> tuple[int, str] | None:
    root = _root(client.base_url)
    running = await _optional(client, f"{root}/api/ps")
    loaded = _from_model_list(running, model, ("context_length",), "Ollama's running model")
    if loaded is not None:
        return loaded
    try:
        shown = await client.post_json(f"{root}/api/show", {"model": model, "name": model})  # older: "name"
    except JawadError:
        return None
    if not isinstance(shown, dict):
        return None
    match = re.search(r"^\s*num_ctx\s+(\d+)", str(shown.get("parameters") or ""), re.MULTILINE)
    if match and (tokens := _positive(match.group(1))):
        return tokens, "the model's num_ctx in Ollama"
    info = shown.get("model_info")
    trained = max((_positive(v) for k, v in info.items() if k.endswith(".context_length")), default=0) \
        if isinstance(info, dict) else 0
    if trained:
        tokens = min(trained, OLLAMA_DEFAULT_CONTEXT)
        return tokens, (f"Ollama runs it with {tokens:,} of its {trained:,} tokens unless num_ctx or "
                        "OLLAMA_CONTEXT_LENGTH says more")
    return None


async def _compatible(client: Any, model: str) -> tuple[int, str] | None:
    """vLLM, LM Studio, llama.cpp: what the server runs with first, then what the model can do."""
    listed = await _optional(client, f"{client.base_url}/models")
    running = _from_model_list(listed, model, ("max_model_len", "loaded_context_length", "meta.n_ctx"),
                               "the server's model list")
    if running is not None:
        return running
    root = _root(client.base_url)
    props = await _optional(client, f"{root}/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else 0
        if n_ctx := n_ctx or _positive(props.get("n_ctx")):
            return n_ctx, "llama.cpp's server settings"
    studio = _entry(await _optional(client, f"{root}/api/v1/models"), model)  # LM Studio 0.4+
    instances = studio.get("loaded_instances") if studio else None
    for instance in instances if isinstance(instances, list) else []:
        config = instance.get("config") if isinstance(instance, dict) else None
        if isinstance(config, dict) and (tokens := _positive(config.get("context_length"))):
            return tokens, "LM Studio's loaded model"
    details = await _optional(client, f"{root}/api/v0/models/{model}")  # LM Studio 0.3.6+
    if isinstance(details, dict) and (tokens := _positive(details.get("max_context_length"))):
        return tokens, "LM Studio's model details"
    return _from_model_list(listed, model, ("context_length", "max_context_length", "meta.n_ctx_train"),
                            "the server's model list")
