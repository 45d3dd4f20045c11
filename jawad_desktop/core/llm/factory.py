"""Building the client for "the provider the user means", shared by every CLI command and
the window: a saved provider by name, the active one, or an unsaved one given on the
command line (``--kind --base-url --model --api-key-env``). Keys come from the keyring
(``provider_key_name``) or from an environment variable the user names; never from a file.
A provider with no key in the keyring uses its kind's variable (``OPENAI_API_KEY``...,
``core.config.environment``) when it is set: the keyring wins when both have one
(``provider_key``).
"""

from __future__ import annotations

import logging
import os
from typing import NamedTuple, TypedDict, Unpack

from pydantic import ValidationError

from jawad_desktop.core.config.environment import key_in_environment, key_variables
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.connection import FIRST_START_MESSAGE, missing_key_error
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name

__all__ = [
    "UNSAVED_NAME",
    "ProviderKey",
    "ProviderOptions",
    "client_for",
    "key_from_env",
    "parse_kind",
    "provider_key",
    "resolve_provider",
    "saved_provider",
]

log = logging.getLogger("jawad.llm.factory")

UNSAVED_NAME = "command line"


class ProviderOptions(TypedDict, total=False):
    """The command-line options that name a provider besides its saved name (see
    ``resolve_provider``): an unsaved provider, another model, a key from the environment."""

    kind: str | None
    base_url: str | None
    model: str | None
    api_key_env: str | None


def parse_kind(value: str) -> ProviderKind:
    try:
        return ProviderKind(value.strip().lower())
    except ValueError:
        kinds = ", ".join(k.value for k in ProviderKind)
        raise JawadError(f"Unknown provider kind {value!r}.", suggestions=[f"Use one of: {kinds}."]) from None


def key_from_env(variable: str) -> str:
    """The key in environment variable ``variable``; a friendly error if it is unset or empty.

    Only the command line names a variable (``--api-key-env``), so its error speaks shell."""
    value = os.environ.get(variable, "").strip()
    if not value:
        raise JawadError(f"The environment variable {variable} is not set or is empty.",
                         suggestions=[f"Set it first, e.g. `export {variable}=...` (the key is never printed)."])
    return value


class ProviderKey(NamedTuple):
    """A provider's API key and where it comes from: ``variable`` names the environment
    variable it was read from; "" means the keyring (or no key at all)."""

    key: str | None
    variable: str = ""


def provider_key(secrets: SecretStore, provider: ProviderConfig) -> ProviderKey:
    """The key for ``provider``: the keyring's, else the environment's for its kind (spec 003).

    A keyring that fails (locked) is passed over when the environment has a key, and its
    error raised otherwise."""
    stored: str | None = None
    problem: JawadError | None = None
    if secrets.available:
        try:
            stored = secrets.get(provider_key_name(provider.name))
        except JawadError as exc:
            problem = exc
    if stored:
        return ProviderKey(stored)
    found = key_in_environment(provider.kind)
    if found is not None:
        if problem is not None:
            log.warning("the keyring failed (%s); using %s for %s", problem.message, found[0], provider.name)
        return ProviderKey(found[1], found[0])
    if problem is not None:
        raise problem
    return ProviderKey(None)


def saved_provider(ctx: AppContext, name: str) -> ProviderConfig:
    """The saved provider called ``name``, or an error that lists the saved ones."""
    found = ctx.settings.provider(name)
    if found is None:
        known = ", ".join(p.name for p in ctx.settings.providers) or "none yet"
        raise JawadError(f"No provider is named {name!r} (saved providers: {known}).",
                         suggestions=["Choose one of the saved providers, or add one by that name."],
                         remedy=Remedy("add-provider", name))
    return found


def resolve_provider(
    ctx: AppContext,
    provider_name: str | None = None,
    *,
    kind: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
) -> tuple[ProviderConfig, str | None]:
    """The provider meant and its key (None when it needs none).

    The unsaved provider's branch is reached from the command line only (its options are
    ``--kind --base-url --api-key-env``), so its errors name those flags; the saved
    provider's branches are reached by the window too, so theirs are neutral, with a remedy
    each face words (``cli.remedies``, ``ui.base.remedies``)."""
    if kind or base_url:
        if provider_name:
            raise JawadError("Use either a saved provider (--provider) or an unsaved one (--kind/--base-url).")
        if not kind:
            raise JawadError("An unsaved provider needs --kind as well as --base-url.",
                             suggestions=["e.g. --kind openai-compatible --base-url http://localhost:8080/v1"])
        try:
            provider = ProviderConfig(name=UNSAVED_NAME, kind=parse_kind(kind), base_url=base_url or "",
                                      model=model or "")
        except ValidationError as exc:
            raise JawadError(f"The provider options are not valid: {exc.errors()[0]['msg']}.") from None
        if api_key_env:
            api_key: str | None = key_from_env(api_key_env)
        else:
            api_key = env_key[1] if (env_key := key_in_environment(provider.kind)) else None
        if provider.kind.needs_key and not api_key:
            usual = " or ".join(key_variables(provider.kind))
            raise JawadError(f"{provider.kind.label} needs an API key.",
                             suggestions=["Pass --api-key-env VARIABLE with the key in that variable"
                                          + (f", or set {usual}." if usual else ".")])
        return provider, api_key
    settings = ctx.settings
    found = saved_provider(ctx, provider_name) if provider_name else settings.active()
    if found is None:
        raise JawadError(FIRST_START_MESSAGE, remedy=Remedy("add-provider"))
    provider = found.model_copy(update={"model": model}) if model else found
    if api_key_env:
        return provider, key_from_env(api_key_env)
    api_key = provider_key(ctx.secrets, provider).key
    if provider.kind.needs_key and not api_key:
        if not ctx.secrets.available:
            raise JawadError(ctx.secrets.problem or "No keyring is available to read the API key from.",
                             suggestions=["Unlock or install a system keyring, or give the key for this "
                                          "session only."],
                             remedy=Remedy("provider-key", provider.name))
        raise missing_key_error(provider)
    return provider, api_key


def client_for(
    ctx: AppContext,
    provider_name: str | None = None,
    *,
    retry: RetryPolicy | None = None,
    **options: Unpack[ProviderOptions],
) -> LLMClient:
    """The client for the provider meant (see ``resolve_provider``), on ``ctx``'s network
    settings and event bus."""
    provider, api_key = resolve_provider(ctx, provider_name, **options)
    return make_client(provider, api_key, ctx.settings.network, ctx.bus, retry=retry, facts=ctx.model_facts)
