"""``jawad providers facts [NAME]`` and ``jawad providers forget NAME [--model M]``: what Jawad
learned about each model (the parameters it refused, its tool-call format, its context
window), with the notes that say why, and resetting it so the next request learns again.

The facts live in the profile's ``ModelFactsStore`` (``ctx.model_facts``), keyed like the
client's ``model_key``: a saved provider's models are those of its kind and base URL.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from jawad_desktop.cli.actions import JSON, Action, arg
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.factory import saved_provider
from jawad_desktop.core.llm.provider_clients import facts_key
from jawad_desktop.core.store.model_facts import ModelFacts, ModelKey

__all__ = ["ACTIONS", "facts", "forget"]


# ``jawad providers``' actions facts and forget.
ACTIONS = (
    Action("facts", "what Jawad learned about each model (refused parameters...)", [
        arg("name", nargs="?", help="a saved provider (default: every model learned about)"), JSON]),
    Action("forget", "forget what was learned about a provider's models", [
        arg("name", help="a saved provider"),
        arg("--model", metavar="M", help="only model M (default: all of the provider's models)")]),
)


def _owner(ctx: AppContext, key: ModelKey, owners: dict[tuple[str, str], str]) -> str:
    return owners.get((key[0], key[1])) or f"{key[0]} at {key[1] or 'the built-in server'}"


def facts(args: argparse.Namespace, ctx: AppContext) -> int:
    store = ctx.model_facts
    known = store.all()
    owners: dict[tuple[str, str], str] = {}
    for provider in ctx.settings.providers:
        owners.setdefault(facts_key(provider), provider.name)
    if args.name:
        wanted = facts_key(saved_provider(ctx, args.name))
        known = {k: v for k, v in known.items() if (k[0], k[1]) == wanted}
    if args.json:
        print(json.dumps([_as_json(key, f, _owner(ctx, key, owners)) for key, f in sorted(known.items())], indent=2))
        return 0
    if store.problem:
        print(f"jawad: {store.problem}")
    if not known:
        whose = f"{args.name}'s models" if args.name else "any model"
        print(f"Nothing learned about {whose} yet: requests go as the provider documents them.")
        return 0
    last = ""
    for key, found in sorted(known.items(), key=lambda item: (_owner(ctx, item[0], owners), item[0])):
        owner = _owner(ctx, key, owners)
        if owner != last:
            saved = (key[0], key[1]) in owners
            print(f"{owner} ({key[0]}, {key[1] or 'built-in'})" if saved else owner)
            last = owner
        print(f"  {key[2]}")
        for line in found.changes():
            print(f"    - {line}")
        for note in found.notes:
            print(f"      why: {note}")
    print("Reset with `jawad providers forget NAME [--model M]`; the next request learns again.")
    return 0


def _as_json(key: ModelKey, found: ModelFacts, owner: str) -> dict[str, Any]:
    return {"provider": owner, "kind": key[0], "base_url": key[1], "model": key[2], "dropped": found.dropped,
            "renamed": found.renamed, "tool_format": found.tool_format, "context_window": found.context_window,
            "notes": found.notes, "changes": found.changes()}


def forget(args: argparse.Namespace, ctx: AppContext) -> int:
    provider = saved_provider(ctx, args.name)
    kind, base_url = facts_key(provider)
    # An empty base URL (the built-in model) matches every address of its kind, as wanted.
    count = ctx.model_facts.forget(kind, base_url, args.model or "")
    if not count:
        what = f"model {args.model!r}" if args.model else "the models"
        print(f"Nothing was learned about {what} of {provider.name}.")
        return 0
    what = f"model {args.model!r}" if args.model else f"{count} model{'s' if count != 1 else ''}"
    print(f"Forgot what was learned about {what} of {provider.name}; the next request learns again.")
    return 0
