"""Finding the providers a user already has, on first start: Ollama and LM Studio on this computer,
a cloud key in the environment, the built-in local model this computer can run.

Ollama is asked at ``/api/tags`` (at ``OLLAMA_BASE_URL`` when set), LM Studio at ``/v1/models``; of a
cloud key in the environment (``OPENAI_API_KEY``, ``OPENROUTER_API_KEY``, ``ANTHROPIC_API_KEY``,
``GEMINI_API_KEY``...) only the variable's name is offered: the key is copied to the keyring after
the user agrees, and works from the environment meanwhile.

Kept apart from the model client: the window's first start looks for providers without importing
it, and asks with HTTP (httpx, imported then) only where a local server listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from jawad_desktop.core.config.environment import key_in_environment, ollama_root
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm.catalog import human_size, recommended

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("jawad.llm.connection")

__all__ = ["MODELS_FOLDER", "ProviderOffer", "discover_providers", "local_model_offer", "machine_memory_bytes",
           "models_folder"]

MODELS_FOLDER = "models"

# The cloud kinds first start offers when their key is in the environment, with a first model.
_ENV_OFFERS = ((ProviderKind.OPENAI, "gpt-4o-mini"), (ProviderKind.OPENROUTER, "openai/gpt-4o-mini"),
               (ProviderKind.ANTHROPIC, "claude-sonnet-4-5"), (ProviderKind.GEMINI, "gemini-2.5-flash"))


def models_folder(data: Path) -> Path:
    """Where downloaded GGUF models are kept: ``<data>/models``."""
    return data / MODELS_FOLDER


def machine_memory_bytes() -> int:
    """This computer's memory (0 when it cannot be read): what a local model may use."""
    if sys.platform == "win32":
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                        ("available", ctypes.c_ulonglong), ("page_total", ctypes.c_ulonglong),
                        ("page_available", ctypes.c_ulonglong), ("virtual_total", ctypes.c_ulonglong),
                        ("virtual_available", ctypes.c_ulonglong), ("extended", ctypes.c_ulonglong)]

        status = MemoryStatus()
        status.length = ctypes.sizeof(MemoryStatus)
        ok = ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))  # type: ignore[attr-defined]
        return int(status.total) if ok else 0
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))  # Linux, macOS
    except (ValueError, OSError, AttributeError):
        return 0


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
        import httpx  # only where a server listens (the transport is 80 modules)

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
