"""What the environment supplies for providers: API keys by provider kind, and Ollama's address.

Spec 003: OpenAI reads ``OPENAI_API_KEY``, Gemini ``GEMINI_KEY``, Ollama ``OLLAMA_BASE_URL``;
the other SDKs have their own well-known variables (``OPENROUTER_API_KEY``,
``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``). A key in the environment is used when the keyring
has none for the provider (``core.llm.factory.provider_key``); it is copied into the keyring
only when the user agrees (first start). ``OLLAMA_BASE_URL`` replaces ``localhost:11434`` as
the Ollama providers' default address (``ProviderKind.default_base_url``).

Only variable names are ever shown or logged, never their values.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

__all__ = ["KEY_VARIABLES", "OLLAMA_BASE_URL", "key_in_environment", "key_variables", "ollama_root"]

log = logging.getLogger("jawad.config")
_warned: set[str] = set()  # bad OLLAMA_BASE_URL values already reported (it is read often)

OLLAMA_BASE_URL = "OLLAMA_BASE_URL"

# By ProviderKind value (this module sits below ``providers``, which uses it). The first
# variable set wins; Google's SDK reads GEMINI_API_KEY, spec 003's Go layer GEMINI_KEY.
KEY_VARIABLES: Mapping[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GEMINI_KEY"),
}


def key_variables(kind: str) -> tuple[str, ...]:
    """The environment variables that may hold a key for providers of ``kind``."""
    return KEY_VARIABLES.get(str(kind), ())


def key_in_environment(kind: str, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(variable, key)`` for the first of ``kind``'s variables that is set and not blank."""
    env = os.environ if environ is None else environ
    for variable in key_variables(kind):
        value = env.get(variable, "").strip()
        if value:
            return variable, value
    return None


def ollama_root(environ: Mapping[str, str] | None = None) -> str:
    """Ollama's address from ``OLLAMA_BASE_URL`` without a trailing ``/`` or ``/v1``
    ("http://gpu-box:11434"), or "" when it is unset or not an http(s) URL."""
    env = os.environ if environ is None else environ
    value = env.get(OLLAMA_BASE_URL, "").strip().rstrip("/")
    if not value:
        return ""
    parts = urlsplit(value)
    try:
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
    except ValueError:  # a bad port
        valid = False
    if not valid:
        if value not in _warned:
            _warned.add(value)
            log.warning("%s is not an http(s) URL; the default Ollama address is used",
                        OLLAMA_BASE_URL)
        return ""
    return value.removesuffix("/v1")
