"""Building the client for "the provider the user means", shared by every CLI command and
the window: a saved provider by name, the active one, or an unsaved one given on the
command line (``--kind --base-url --model --api-key-env``). Keys come from the keyring
(``provider_key_name``) or from an environment variable the user names; never from a file.
"""

from __future__ import annotations

import os
from typing import TypedDict, Unpack

from pydantic import ValidationError

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.connection import FIRST_START_MESSAGE, missing_key_error
from jawad_desktop.core.llm.providers import make_client
from jawad_desktop.core.store.secrets import provider_key_name

__all__ = ["UNSAVED_NAME", "ProviderOptions", "client_for", "key_from_env", "parse_kind", "resolve_provider"]

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
    each face words (``cli.remedies``, ``ui.remedies``)."""
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
        api_key = key_from_env(api_key_env) if api_key_env else None
        if provider.kind.needs_key and not api_key:
            raise JawadError(f"{provider.kind.label} needs an API key.",
                             suggestions=["Pass --api-key-env VARIABLE with the key in that variable."])
        return provider, api_key
    settings = ctx.settings
    found = settings.provider(provider_name) if provider_name else settings.active()
    if found is None:
        if provider_name:
            known = ", ".join(p.name for p in settings.providers) or "none yet"
            raise JawadError(f"No provider is named {provider_name!r} (saved providers: {known}).",
                             suggestions=["Choose one of the saved providers, or add one by that name."],
                             remedy=Remedy("add-provider", provider_name))
        raise JawadError(FIRST_START_MESSAGE, remedy=Remedy("add-provider"))
    provider = found.model_copy(update={"model": model}) if model else found
    if api_key_env:
        return provider, key_from_env(api_key_env)
    api_key = ctx.secrets.get(provider_key_name(provider.name)) if ctx.secrets.available else None
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
    return make_client(provider, api_key, ctx.settings.network, ctx.bus, retry=retry)
