"""What the Settings dialog and first start ask of a provider without chatting with it:
Test Connection, the model list, and finding providers the user already has.

``test_connection`` sends spec 000's "Say ok" with spec 000's time limits (30 s for Ollama
and other local servers, which may be loading a model, 20 s for cloud providers) and
returns a ``TestResult`` whose error is the friendly text to show inline.
``discover_providers`` looks for Ollama (``/api/tags``, at ``OLLAMA_BASE_URL`` when set) and
LM Studio (``/v1/models``) on this computer, for an API key of each cloud kind in the
environment (``OPENAI_API_KEY``, ``OPENROUTER_API_KEY``, ``ANTHROPIC_API_KEY``,
``GEMINI_API_KEY``...: only the variable's name is offered; the key is copied to the keyring
after the user agrees, and works from the environment meanwhile), and for the built-in
local model.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import shutil
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import httpx

from jawad_desktop.core.config.environment import key_in_environment, key_variables, ollama_root
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import TestResult
from jawad_desktop.core.llm.catalog import human_size, recommended
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.local_models import machine_memory_bytes
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFactsStore

log = logging.getLogger("jawad.llm.connection")

T = TypeVar("T")

__all__ = [
    "FIRST_START_MESSAGE",
    "ProviderOffer",
    "connection_timeout_s",
    "discover_providers",
    "list_models",
    "missing_key_error",
    "test_connection",
]

FIRST_START_MESSAGE = (
    "No AI provider is set up yet. The built-in model (SmolLM2-135M) runs on this computer with no "
    "key, but it is small: for better answers install Ollama (https://ollama.com) and run "
    "`ollama pull llama3.2`, or add a provider with an OpenAI or OpenRouter key."
)

_CLOUD = (ProviderKind.OPENAI, ProviderKind.OPENROUTER)

# The cloud kinds first start offers when their key is in the environment, with a first model.
_ENV_OFFERS = ((ProviderKind.OPENAI, "gpt-4o-mini"), (ProviderKind.OPENROUTER, "openai/gpt-4o-mini"),
               (ProviderKind.ANTHROPIC, "claude-sonnet-4-5"), (ProviderKind.GEMINI, "gemini-2.5-flash"))


def connection_timeout_s(kind: ProviderKind) -> float:
    """Spec 000: 30 s for Ollama (a cold start can be slow) and local servers, 20 s for cloud."""
    return 20.0 if kind in _CLOUD else 30.0


async def on_own_client(
    provider: ProviderConfig,
    api_key: str | None,
    network: NetworkSettings | None,
    facts: ModelFactsStore | None,
    test: Callable[[LLMClient], Awaitable[T]],
    *,
    requests: int,
    what: str,
) -> T:
    """Run a model ``test`` (the tool-calling test, the image-input test) on a client of its own
    for ``provider``, without retries (the user is waiting), within ``requests`` connection
    timeouts; a ``JawadError`` saying ``what`` did not finish when it takes longer."""
    limit = requests * connection_timeout_s(provider.kind)
    try:
        async with asyncio.timeout(limit), make_client(
            provider, api_key, network, retry=RetryPolicy(max_retries=0), facts=facts
        ) as client:
            return await test(client)
    except TimeoutError:
        raise JawadError(
            f"{provider.name} did not finish the {what} within {limit:.0f} s.",
            suggestions=["Check that the server is running and the model is loaded, then test again."],
        ) from None


def missing_key_error(provider: ProviderConfig) -> JawadError:
    """What the window and the terminal say of a provider that needs a key and has none."""
    variables = " or ".join(key_variables(provider.kind))
    return JawadError(
        f"No API key is stored for {provider.name!r} ({provider.kind.label}).",
        suggestions=[f"Store the {provider.kind.label} API key for {provider.name!r}"
                     + (f", or set {variables} in the environment." if variables else ".")],
        remedy=Remedy("provider-key", provider.name),
    )


async def test_connection(
    provider: ProviderConfig, api_key: str | None, network: NetworkSettings | None = None
) -> TestResult:
    """Send "Say ok" and report success or the friendly error, with the time it took."""
    timeout = connection_timeout_s(provider.kind)
    started = time.monotonic()

    def result(success: bool, error: str = "", remedy: Remedy | None = None) -> TestResult:
        return TestResult(provider=provider.name, success=success, error=error,
                          latency_ms=round((time.monotonic() - started) * 1000, 1),
                          remedy=remedy.as_json() if remedy else {})

    if provider.kind.needs_key and not api_key:
        missing = missing_key_error(provider)
        return result(False, missing.user_text(), missing.remedy)
    try:
        # No retries: the user wants to know now whether it works.
        async with asyncio.timeout(timeout), make_client(
            provider, api_key, network, retry=RetryPolicy(max_retries=0)
        ) as client:
            await client.chat([Message(role="user", content="Say ok")], stream=False,
                              max_tokens=16, temperature=0).response()
    except TimeoutError:
        return result(False, f"{provider.kind.label} at {provider.effective_base_url} did not answer "
                             f"within {timeout:.0f} s.\n  - Check that the server is running and the model "
                             "is loaded, then test again.")
    except JawadError as exc:
        return result(False, exc.user_text(), exc.remedy)
    return result(True)


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


async def list_models(
    provider: ProviderConfig, api_key: str | None, network: NetworkSettings | None = None
) -> list[str]:
    """The provider's model names, for the Settings dialog's model field (which stays editable)."""
    async with asyncio.timeout(connection_timeout_s(provider.kind)), make_client(
        provider, api_key, network, retry=RetryPolicy(max_retries=0)
    ) as client:
        return await client.list_models()


@dataclass(frozen=True)
class ProviderOffer:
    """A provider found on first start, ready to be added if the user agrees."""

    provider: ProviderConfig
    description: str
    models: list[str] = field(default_factory=list)
    api_key_env: str = ""  # the environment variable that holds its key, if any
    download: str = ""  # a catalog model to download (checked against its pin) before it can answer


def local_model_offer(folder: Path | None, *, memory_bytes: int | None = None,
                      free_bytes: int | None = None) -> ProviderOffer | None:
    """The built-in llama.cpp server with the most capable catalog model this computer can run
    (``catalog.recommended``: by its memory and the free disk), its size and what it can do said
    plainly; None without the runtime or when no model fits. The test model is never offered."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    memory = machine_memory_bytes() if memory_bytes is None else memory_bytes
    if free_bytes is None:
        where = folder or Path.home()
        while not where.exists() and where != where.parent:
            where = where.parent
        free_bytes = shutil.disk_usage(where).free
    entry = recommended(memory, free_bytes)
    if entry is None:
        return None
    have = folder is not None and (folder / entry.file).is_file()
    provider = ProviderConfig(name="Built-in", kind=ProviderKind.LOCAL, model=entry.name,
                              model_file=str(folder / entry.file) if folder is not None and have else "")
    need = "." if have else f", after a {human_size(entry.size_bytes)} download (once)."
    return ProviderOffer(
        provider,
        f"{entry.title} answers on this computer with no key and no server{need} It needs about "
        f"{human_size(entry.memory_bytes)} of memory. {entry.tools_why}",
        [entry.name], download="" if have else entry.name,
    )


async def _probe(http: httpx.AsyncClient, url: str, key: str) -> list[str] | None:
    try:
        response = await http.get(url)
        if response.status_code != 200:
            return None
        items = response.json().get(key)
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(items, list):
        return None
    names = [str(i.get("name") or i.get("id") or "") for i in items if isinstance(i, dict)]
    return [n for n in names if n]


async def _listening(url: str, timeout_s: float) -> bool:
    """Whether something accepts a connection at ``url``'s host and port. Discovery asks with HTTP
    only where something listens: a first start with no local server then never builds the HTTP
    client's transport (httpcore, anyio, h11 and the TLS context: about 80 modules)."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), timeout_s)
    except (OSError, ValueError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def _nothing() -> None:
    return None


async def discover_providers(
    *,
    ollama_url: str | None = None,
    lmstudio_url: str = "http://localhost:1234/v1",
    environ: Mapping[str, str] | None = None,
    include_local: bool = True,
    models_folder: Path | None = None,
    timeout_s: float = 1.5,
) -> list[ProviderOffer]:
    """Providers the user can start with, best first: local servers, environment keys, built-in.
    Ollama is looked for at ``ollama_url``, else ``OLLAMA_BASE_URL``, else localhost:11434. The
    built-in offer is the local model this computer can run (``local_model_offer``; its file in
    ``models_folder`` once downloaded)."""
    env = os.environ if environ is None else environ
    ollama_url = ollama_url or ollama_root(env) or "http://localhost:11434"
    offers: list[ProviderOffer] = []
    ollama = lmstudio = None
    probes = ((f"{ollama_url.rstrip('/')}/api/tags", "models"), (f"{lmstudio_url.rstrip('/')}/models", "data"))
    listening = await asyncio.gather(*(_listening(url, timeout_s) for url, _key in probes))
    if any(listening):
        async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as http:
            ollama, lmstudio = await asyncio.gather(*(
                _probe(http, url, key) if up else _nothing() for (url, key), up in zip(probes, listening, strict=True)
            ))
    if ollama is not None:
        offers.append(ProviderOffer(
            ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA, base_url=f"{ollama_url.rstrip('/')}/v1",
                           model=ollama[0] if ollama else ""),
            f"Ollama is running on this computer with {len(ollama)} model(s)."
            + ("" if ollama else " Download one with `ollama pull llama3.2`."),
            ollama,
        ))
    if lmstudio is not None:
        offers.append(ProviderOffer(
            ProviderConfig(name="LM Studio", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=lmstudio_url,
                           model=lmstudio[0] if lmstudio else ""),
            f"LM Studio's server is running on this computer with {len(lmstudio)} model(s).",
            lmstudio,
        ))
    for kind, model in _ENV_OFFERS:
        if (found := key_in_environment(kind, env)) is not None:
            variable = found[0]
            offers.append(ProviderOffer(
                ProviderConfig(name=kind.label, kind=kind, model=model),
                f"{variable} is set in your environment: use it for {kind.label}? Choosing this copies "
                "the key to the system keyring, so that Jawad also finds it when started from the menu, "
                "where the variable is not set.",
                [model], api_key_env=variable,
            ))
    if include_local and (local := local_model_offer(models_folder)) is not None:
        offers.append(local)
    log.info("first start found: %s", ", ".join(o.provider.name for o in offers) or "nothing")
    return offers
