"""``jawad providers``: list, add, edit, remove, choose, test and query the LLM providers, and
see or reset what was learned about their models (``facts``, ``forget``: ``model_facts_cmd``).

Also the provider-selection options every command that talks to a model shares
(``add_provider_selection`` and ``client_from_args``): a saved provider by name, or an
unsaved one from ``--kind --base-url --model --api-key-env``. API keys are read from a
prompt that does not echo, from standard input, or from an environment variable the user
names, and go only to the system keyring; they are never printed.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from pydantic import ValidationError

from jawad_desktop.cli import model_facts_cmd
from jawad_desktop.cli.actions import JSON, Action, add_command, arg
from jawad_desktop.cli.remedies import with_remedy
from jawad_desktop.cli.terminal import printable
from jawad_desktop.core.config.environment import key_in_environment
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import Event, RetryNotice
from jawad_desktop.core.llm.client import LLMClient, forget_capabilities
from jawad_desktop.core.llm.connection import list_models, test_connection
from jawad_desktop.core.llm.discovery import discover_providers
from jawad_desktop.core.llm.factory import (
    client_for,
    key_from_env,
    parse_kind,
    provider_key,
    resolve_provider,
    saved_provider,
)
from jawad_desktop.core.llm.local_models import models_folder, resolve_model_file
from jawad_desktop.core.store.secrets import provider_key_name

KINDS = [k.value for k in ProviderKind]


# -- shared by every command that talks to a model ------------------------------------------------

def add_provider_selection(parser: argparse.ArgumentParser) -> None:
    """Add --provider, --model and the unsaved-provider options to ``parser``."""
    group = parser.add_argument_group("provider", "which model answers (default: the active provider)")
    group.add_argument("--provider", metavar="NAME", help="a saved provider (see `jawad providers list`)")
    group.add_argument("--model", metavar="M", help="use model M instead of the provider's")
    group.add_argument("--kind", choices=KINDS, help="an unsaved provider of this kind (with --base-url)")
    group.add_argument("--base-url", metavar="URL", help="the unsaved provider's base URL, e.g. http://host:8080/v1")
    group.add_argument("--api-key-env", metavar="VAR", help="read the API key from environment variable VAR")


def client_from_args(args: argparse.Namespace, ctx: AppContext, *, announce_retries: bool = True) -> LLMClient:
    """The client for the provider chosen by ``add_provider_selection``'s options.

    With ``announce_retries`` each retry is told on stderr, so a slow answer is explained.
    """
    if announce_retries:
        ctx.bus.subscribe(_print_retry)
    return client_for(ctx, getattr(args, "provider", None), kind=getattr(args, "kind", None),
                      base_url=getattr(args, "base_url", None), model=getattr(args, "model", None),
                      api_key_env=getattr(args, "api_key_env", None))


def _print_retry(event: Event) -> None:
    if isinstance(event, RetryNotice):
        print(f"jawad: {printable(event.reason)} Retrying in {event.delay_s:.1f} s "
              f"({event.attempt} of {event.max_attempts}).", file=sys.stderr, flush=True)


# -- the command -------------------------------------------------------------------------------------

def register(subparsers: Any) -> argparse.ArgumentParser:
    chosen = arg("name", nargs="?", help="a saved provider (default: the active one)")
    return add_command(
        subparsers, "providers", run, dest="providers_action",
        help="list, add, edit, remove, test the AI providers",
        description="The AI providers: OpenAI (chat completions or the Responses API), Anthropic, "
        "Google Gemini, OpenRouter, Ollama (OpenAI or native API), any OpenAI-compatible server, "
        "or the built-in local model. Keys are kept in the system keyring.",
        actions=[
            Action("list", "the saved providers (the active one is marked *)", [JSON]),
            Action("add", "save a provider", [
                arg("name", help="a name you choose, e.g. 'Work OpenAI'"),
                arg("--kind", required=True, choices=KINDS, help="what kind of provider it is"),
                _add_fields,
                arg("--activate", action="store_true", help="make it the active provider")]),
            Action("edit", "change a saved provider", [
                arg("name", help="the provider to change"),
                arg("--rename", metavar="NEW", help="give it a new name (its key follows)"),
                arg("--kind", choices=KINDS, help="change its kind"),
                _add_fields,
                arg("--clear-key", action="store_true", help="delete its stored API key")]),
            Action("remove", "delete a saved provider and its key", [arg("name")]),
            Action("use", "make a saved provider the active one", [arg("name")]),
            Action("test", 'send "Say ok" and report whether it answers', [
                chosen, _add_unsaved,
                arg("--tools", action="store_true",
                    help="also test how the model calls tools (native, XML or JSON) and remember it"),
                arg("--vision", action="store_true",
                    help="also test whether the model sees images (a small red picture) and remember it")]),
            Action("models", "the models the provider offers", [chosen, _add_unsaved, JSON]),
            *model_facts_cmd.ACTIONS,  # facts, forget
            Action("discover", "look for Ollama, LM Studio, keys in the environment and the built-in model",
                   [JSON]),
        ])


def _add_fields(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", metavar="URL", help="the API's base URL (default: the kind's own)")
    parser.add_argument("--model", metavar="M", help="the model to use")
    parser.add_argument("--reasoning", choices=["default", "none", "low", "medium", "high"],
                        help="how much the model thinks first, where it supports it (default: the model's)")
    parser.add_argument("--embedding-model", metavar="M", help="the model for semantic search of history")
    parser.add_argument("--region", metavar="R", help="bedrock: the AWS region (default: AWS_REGION, else us-east-1)")
    parser.add_argument("--profile-name", dest="aws_profile", metavar="P",
                        help="bedrock: the AWS profile with the credentials (default: the environment)")
    parser.add_argument("--context-window", type=int, metavar="TOKENS",
                        help="the model's context window in tokens (0: found out automatically)")
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--api-key-env", metavar="VAR", help="store the key found in environment variable VAR")
    keys.add_argument("--api-key-stdin", action="store_true", help="read the key from standard input")
    keys.add_argument("--ask-key", action="store_true", help="ask for the key (hidden input)")


def _add_unsaved(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=KINDS, help="test an unsaved provider of this kind")
    parser.add_argument("--base-url", metavar="URL", help="the unsaved provider's base URL")
    parser.add_argument("--model", metavar="M", help="use model M")
    parser.add_argument("--api-key-env", metavar="VAR", help="read the API key from environment variable VAR")


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    action = args.providers_action
    if action == "list":
        return _list(args, ctx)
    if action == "add":
        return _add(args, ctx)
    if action == "edit":
        return _edit(args, ctx)
    if action == "remove":
        return _remove(args, ctx)
    if action == "use":
        provider = saved_provider(ctx, args.name)
        ctx.settings.active_provider = provider.name
        ctx.save_settings()
        print(f"{provider.name} is now the active provider.")
        return 0
    if action == "test":
        provider, key = resolve_provider(ctx, args.name, kind=args.kind, base_url=args.base_url,
                                         model=args.model, api_key_env=args.api_key_env)
        print(f"Testing {provider.name} ({provider.kind.label}, {provider.effective_base_url or 'built-in'})…",
              file=sys.stderr, flush=True)
        result = await test_connection(provider, key, ctx.settings.network)
        if not result.success:
            failure = with_remedy(result.error, Remedy.from_json(result.remedy))
            print(f"jawad: {provider.name} failed the test: {failure}", file=sys.stderr)
            return 1
        print(f"OK: {provider.name} answered in {result.latency_ms:.0f} ms.")
        failed = await _test_tools(ctx, provider, key) if args.tools else 0
        if args.vision:
            failed = await _test_vision(ctx, provider, key) or failed
        return failed
    if action == "facts":
        return model_facts_cmd.facts(args, ctx)
    if action == "forget":
        return model_facts_cmd.forget(args, ctx)
    if action == "models":
        provider, key = resolve_provider(ctx, args.name, kind=args.kind, base_url=args.base_url,
                                         model=args.model, api_key_env=args.api_key_env)
        names = await list_models(provider, key, ctx.settings.network)
        if args.json:
            print(json.dumps(names))
        elif not names:
            print(f"{provider.name} lists no models.", file=sys.stderr)
        else:
            print("\n".join(f"{'*' if n == provider.model else ' '} {n}" for n in names))
        return 0
    return await _discover(args)


async def _test_tools(ctx: AppContext, provider: ProviderConfig, key: str | None) -> int:
    """``test --tools``: how the model calls tools, learned for the agent (``core.agent.probe``)."""
    from jawad_desktop.core.agent.probe import probe_tool_format

    print(f"Testing how {provider.model or provider.name} calls tools…", file=sys.stderr, flush=True)
    result = await probe_tool_format(provider, key, ctx.settings.network, ctx.model_facts)
    if not result.works:
        print(f"jawad: {provider.name}: {result.summary}", file=sys.stderr)
        return 1
    print(f"Tool calling: {result.summary} ({result.requests} request{'s' if result.requests > 1 else ''}; "
          "remembered for this model, see `jawad providers facts`)")
    return 0


async def _test_vision(ctx: AppContext, provider: ProviderConfig, key: str | None) -> int:
    """``test --vision``: whether the model sees images, learned for the agent's ``look``
    (``core.llm.vision_probe``)."""
    from jawad_desktop.core.llm.vision_probe import probe_vision

    print(f"Testing whether {provider.model or provider.name} sees images…", file=sys.stderr, flush=True)
    result = await probe_vision(provider, key, ctx.settings.network, ctx.model_facts)
    if not result.works:
        print(f"jawad: {provider.name}: {result.summary}", file=sys.stderr)
        return 1
    print(f"Image input: {result.summary} (remembered for this model, see `jawad providers facts`)")
    return 0


def _key_state(ctx: AppContext, provider: ProviderConfig) -> str:
    try:
        found = provider_key(ctx.secrets, provider)
    except JawadError:
        return "keyring locked"
    if found.variable:  # the keyring has none: the environment's is used
        return f"key from {found.variable}"
    if found.key:
        return "key stored"
    if not provider.kind.needs_key:
        return "no key needed"
    return "key MISSING" if ctx.secrets.available else "keyring unavailable"


def _list(args: argparse.Namespace, ctx: AppContext) -> int:
    active = ctx.settings.active()
    rows: list[dict[str, Any]] = [
        {"name": p.name, "kind": p.kind.value, "base_url": p.effective_base_url, "model": p.model,
         "reasoning": p.reasoning, "key": _key_state(ctx, p), "active": active is not None and p.name == active.name}
        for p in ctx.settings.providers
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No providers yet. Add one with `jawad providers add NAME --kind KIND`, "
              "or see `jawad providers discover`.")
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        mark = "*" if r["active"] else " "
        print(f"{mark} {r['name']:<{width}}  {r['kind']:<17}  {r['model'] or '(no model)':<24}  "
              f"{r['base_url'] or 'built-in'}  [{r['key']}]")
    return 0


def _read_key(args: argparse.Namespace, kind: ProviderKind, name: str, *, required: bool) -> str | None:
    """The key the user gave, from an environment variable, stdin or a hidden prompt."""
    if args.api_key_env:
        return key_from_env(args.api_key_env)
    if args.api_key_stdin:
        key = sys.stdin.readline().strip()
    elif args.ask_key or (required and sys.stdin.isatty()):
        key = getpass.getpass(f"API key for {name} ({kind.label}, input hidden): ").strip()
    elif required:
        raise JawadError(f"{kind.label} needs an API key.",
                         suggestions=["Pass --api-key-env VARIABLE, --api-key-stdin, or --ask-key."])
    else:
        return None
    if not key:
        raise JawadError("The API key is empty: nothing was saved.",
                         suggestions=["Run the command again and paste the key."])
    return key


def _build(name: str, kind: ProviderKind, base_url: str, model: str, reasoning: str = "",
           embedding_model: str = "", region: str = "", profile: str = "", context_window: int = 0) -> ProviderConfig:
    try:
        return ProviderConfig(name=name, kind=kind, base_url=base_url, model=model,
                              reasoning="" if reasoning == "default" else reasoning,
                              embedding_model=embedding_model, region=region, profile=profile,
                              context_window=context_window)
    except ValidationError as exc:
        raise JawadError(f"The provider is not valid: {exc.errors()[0]['msg']}.") from None


def _add(args: argparse.Namespace, ctx: AppContext) -> int:
    kind = parse_kind(args.kind)
    provider = _build(args.name, kind, args.base_url or "", args.model or "", args.reasoning or "",
                      args.embedding_model or "", args.region or "", args.aws_profile or "",
                      args.context_window or 0)
    provider = resolve_model_file(provider, models_folder(ctx.paths.data))  # a catalog model by name
    if ctx.settings.provider(provider.name) is not None:
        raise JawadError(f"A provider named {provider.name!r} exists already.",
                         suggestions=[f"Change it with `jawad providers edit {provider.name!r}`, "
                                      "or pick another name."])
    from_env = key_in_environment(kind)  # used when no key is stored: no need to ask for one
    key = _read_key(args, kind, provider.name, required=kind.needs_key and from_env is None)
    if key is not None:  # the key first: if the keyring refuses it, nothing changes
        ctx.secrets.set(provider_key_name(provider.name), key)
    ctx.settings.providers = [*ctx.settings.providers, provider]
    if args.activate or len(ctx.settings.providers) == 1:
        ctx.settings.active_provider = provider.name
    ctx.save_settings()
    if key:
        where = " with its key in the system keyring"
    elif from_env is not None and kind.needs_key:
        where = (f"; its key comes from {from_env[0]} in the environment (to keep it in the keyring, "
                 f"`jawad providers edit {provider.name!r} --api-key-env {from_env[0]}`)")
    else:
        where = ""
    print(f"Added {provider.name} ({kind.label}){where}. Try it with `jawad providers test {provider.name!r}`.")
    return 0


def _edit(args: argparse.Namespace, ctx: AppContext) -> int:
    old = saved_provider(ctx, args.name)
    kind = parse_kind(args.kind) if args.kind else old.kind
    new = _build(args.rename or old.name, kind,
                 old.base_url if args.base_url is None else args.base_url,
                 old.model if args.model is None else args.model,
                 old.reasoning if args.reasoning is None else args.reasoning,
                 old.embedding_model if args.embedding_model is None else args.embedding_model,
                 old.region if args.region is None else args.region,
                 old.profile if args.aws_profile is None else args.aws_profile,
                 old.context_window if args.context_window is None else args.context_window)
    new = resolve_model_file(new.keeping_model_file(old), models_folder(ctx.paths.data))
    if args.rename and new.name.casefold() != old.name.casefold() and ctx.settings.provider(new.name):
        raise JawadError(f"A provider named {new.name!r} exists already.")
    key = _read_key(args, kind, new.name, required=False)
    old_key_name, new_key_name = provider_key_name(old.name), provider_key_name(new.name)
    renamed = old_key_name != new_key_name
    if args.clear_key:
        ctx.secrets.delete(old_key_name)
    elif key is not None:
        ctx.secrets.set(new_key_name, key)
        if renamed:
            ctx.secrets.delete(old_key_name)
    elif renamed and ctx.secrets.available:
        moved = ctx.secrets.get(old_key_name)  # the key follows the new name
        if moved is not None:
            ctx.secrets.set(new_key_name, moved)
            ctx.secrets.delete(old_key_name)
    ctx.settings.providers = [new if p.name == old.name else p for p in ctx.settings.providers]
    if ctx.settings.active_provider.casefold() == old.name.casefold():
        ctx.settings.active_provider = new.name
    ctx.save_settings()
    forget_capabilities()
    print(f"Saved {new.name}.")
    return 0


def _remove(args: argparse.Namespace, ctx: AppContext) -> int:
    provider = saved_provider(ctx, args.name)
    if ctx.secrets.available:
        ctx.secrets.delete(provider_key_name(provider.name))
    ctx.settings.providers = [p for p in ctx.settings.providers if p.name != provider.name]
    if ctx.settings.active_provider.casefold() == provider.name.casefold():
        ctx.settings.active_provider = ctx.settings.providers[0].name if ctx.settings.providers else ""
    ctx.save_settings()
    print(f"Removed {provider.name} and its key.")
    return 0


async def _discover(args: argparse.Namespace) -> int:
    offers = await discover_providers()
    if args.json:
        print(json.dumps([{"name": o.provider.name, "kind": o.provider.kind.value,
                           "base_url": o.provider.base_url, "model": o.provider.model, "models": o.models,
                           "api_key_env": o.api_key_env, "description": o.description} for o in offers],
                         indent=2))
        return 0
    if not offers:
        print("Found no provider: no Ollama or LM Studio on this computer, no API key in the environment.")
        return 0
    for offer in offers:
        p = offer.provider
        add = f"jawad providers add {p.name!r} --kind {p.kind.value}"
        if p.base_url:
            add += f" --base-url {p.base_url}"
        if p.model:
            add += f" --model {p.model!r}"
        if offer.api_key_env:
            add += f" --api-key-env {offer.api_key_env}"
        print(f"- {p.name}: {offer.description}\n    add it: {add}")
    return 0
