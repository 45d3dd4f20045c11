"""What the Settings dialog asks of a provider without chatting with it: Test Connection and the
model list (finding the providers a user already has is ``core.llm.discovery``).

``test_connection`` sends spec 000's "Say ok" with spec 000's time limits (30 s for Ollama
and other local servers, which may be loading a model, 20 s for cloud providers) and
returns a ``TestResult`` whose error is the friendly text to show inline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from jawad_desktop.core.config.environment import key_variables
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import TestResult
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFactsStore

log = logging.getLogger("jawad.llm.connection")

T = TypeVar("T")

__all__ = [
    "FIRST_START_MESSAGE",
    "connection_timeout_s",
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


