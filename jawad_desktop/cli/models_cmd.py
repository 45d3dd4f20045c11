"""``jawad models``: the built-in model's GGUF files, and Ollama's models, from a terminal.

``list`` shows the recommended models (``core.llm.catalog``): size, memory, tool calls, and
whether each is downloaded, partly downloaded or in use. ``download NAME`` fetches one from
Hugging Face (or ``JAWAD_MODEL_ENDPOINT``/``HF_ENDPOINT``) with its progress on stderr; an
interrupted download (Ctrl+C, a lost connection) resumes on the next ``download``. ``remove``
deletes a model's file, ``use`` makes the local provider run it (the same as Settings → Models).
``add PATH`` adds a GGUF file already on the disk under a name (``core.llm.added_models``: checked by
its header, used where it lies, never copied); ``use NAME`` runs it, ``remove NAME`` forgets it and
leaves the file alone.
``ollama list`` and ``ollama pull NAME`` manage the models of an Ollama provider through its API.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from jawad_desktop.cli.actions import JSON_AS_TEXT, Action, add_command, arg
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.catalog import human_size


def register(subparsers: Any) -> argparse.ArgumentParser:
    name = arg("name", metavar="NAME", help="a model from `jawad models list`")
    ollama_provider = arg("--provider", metavar="NAME", help="the Ollama provider (default: the first one)")
    return add_command(
        subparsers, "models", run, dest="models_action",
        help="local models: download GGUF models for the built-in model, manage Ollama's",
        description="Models that run on this computer: the recommended GGUF models for the built-in "
                    "llama.cpp server, and the models of an Ollama provider.",
        actions=[
            Action("list", "the recommended models and which are downloaded", [JSON_AS_TEXT]),
            Action("download", "download a model (resumes an interrupted download)", [name]),
            Action("add", "add a GGUF file already on this computer (it is not copied)", [
                arg("path", metavar="PATH", help="a .gguf model file"),
                arg("--name", default="", help="the name to use it by (default: from the file's name)")]),
            Action("remove", "delete a downloaded model, or forget an added file", [name]),
            Action("use", "make the built-in provider run a downloaded or added model", [name]),
            Action("ollama", "list and pull the models of an Ollama provider", dest="ollama_action", actions=[
                Action("list", "the models Ollama has", [JSON_AS_TEXT, ollama_provider]),
                Action("pull", "pull a model into Ollama, with progress", [
                    arg("name", metavar="NAME", help="a model of Ollama's library, e.g. qwen2.5:1.5b"),
                    ollama_provider]),
            ]),
        ])


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    from jawad_desktop.core.llm import local_models as lm
    from jawad_desktop.core.llm.added_models import added_model

    folder = lm.models_folder(ctx.paths.data)
    action = args.models_action
    if action == "list":
        return _list(args, ctx, folder)
    if action == "download":
        return _download(args.name, folder, ctx)
    if action == "add":
        return _add(args, folder)
    if action == "remove":
        added = added_model(args.name, folder)
        if not lm.remove_model(args.name, folder):
            print(f"jawad: {args.name} is not downloaded", file=sys.stderr)
            return 1
        if lm.chosen_model(ctx.settings) == args.name.strip().casefold():
            try:
                lm.use_model(ctx.settings, "smollm2", folder)
            except lm.LocalModelError:  # the packaged app: no test model on the disk
                print("the built-in provider has no model now: download one (jawad models download NAME)",
                      file=sys.stderr)
            else:
                ctx.save_settings()
                print("the built-in provider runs the test model SmolLM2 again", file=sys.stderr)
        print(f"removed {args.name}" if added is None else
              f"removed {added.name} from the list; the file stays at {added.path}", file=sys.stderr)
        return 0
    if action == "use":
        provider = lm.use_model(ctx.settings, args.name, folder)
        ctx.save_settings()
        print(f"the provider {provider.name!r} runs {args.name} from its next request", file=sys.stderr)
        return 0
    provider = _ollama_provider(ctx, args.provider)
    if args.ollama_action == "list":
        return await _ollama_list(args, ctx, provider)
    return await _ollama_pull(args.name, ctx, provider)


def _list(args: argparse.Namespace, ctx: AppContext, folder: Any) -> int:
    from jawad_desktop.core.llm.added_models import added_models
    from jawad_desktop.core.llm.local_models import chosen_model, model_states

    chosen = chosen_model(ctx.settings)
    states, added = model_states(folder), added_models(folder)
    if args.json:
        print(json.dumps([{
            "name": s.entry.name, "title": s.entry.title, "repo": s.entry.repo, "file": s.entry.file,
            "size_bytes": s.entry.size_bytes, "memory_bytes": s.entry.memory_bytes, "tools": s.entry.tools,
            "tools_why": s.entry.tools_why, "installed": s.installed, "partial_bytes": s.partial,
            "in_use": s.entry.name == chosen, "path": str(s.path) if s.path else None, "added": False,
        } for s in states] + [{
            "name": m.name, "title": m.path.name, "file": m.path.name, "size_bytes": m.size_bytes,
            "installed": m.present, "in_use": m.name == chosen, "path": str(m.path), "added": True,
        } for m in added], indent=2))
        return 0
    for s in states:
        status = "in use" if s.entry.name == chosen else (
            "downloaded" if s.installed else f"{human_size(s.partial)} downloaded" if s.partial else "")
        print(f"{s.entry.name:<24} {human_size(s.entry.size_bytes):>7}  needs {human_size(s.entry.memory_bytes):>7}"
              f"  tools: {s.entry.tools:<4}  {status}".rstrip())
    for m in added:
        status = "in use" if m.name == chosen else "added" if m.present else "added, file missing"
        print(f"{m.name:<24} {human_size(m.size_bytes):>7}  {status}: {m.path}")
    return 0


def _add(args: argparse.Namespace, folder: Any) -> int:
    from pathlib import Path

    from jawad_desktop.core.llm.added_models import add_model_file

    added = add_model_file(Path(args.path), folder, args.name)
    print(added.name)
    print(f"added {added.path} ({human_size(added.size_bytes)}) as {added.name}, used where it is (not copied); "
          f"run it with `jawad models use {added.name}`", file=sys.stderr)
    return 0


def _download(name: str, folder: Any, ctx: AppContext) -> int:
    from jawad_desktop.core.llm.local_models import download_model

    shown = [0.0]
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if total and (now - shown[0] > (0.2 if tty else 5.0) or done == total):
            shown[0] = now
            line = f"{name}: {human_size(done)} of {human_size(total)} ({done * 100 // total}%)"
            print(f"\r{line}" if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    path = download_model(name, folder, progress=progress, network=ctx.settings.network)
    if tty:
        print(file=sys.stderr)
    print(path)
    return 0


def _ollama_provider(ctx: AppContext, name: str | None) -> ProviderConfig:
    kinds = (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE)
    if name:
        provider = ctx.settings.provider(name)
        if provider is None or provider.kind not in kinds:
            raise JawadError(f"There is no Ollama provider called {name!r}.",
                             suggestions=["Name a provider of kind ollama or ollama-native (`jawad providers list`)."])
        return provider
    found = next((p for p in ctx.settings.providers if p.kind in kinds), None)
    if found is None:
        raise JawadError("No Ollama provider is set up.",
                         suggestions=["Add one first, e.g. `jawad providers add Ollama --kind ollama`."])
    return found


async def _ollama_list(args: argparse.Namespace, ctx: AppContext, provider: ProviderConfig) -> int:
    from jawad_desktop.core.llm.ollama_native import ollama_client

    client = ollama_client(provider, None, ctx.settings.network)
    async with client:
        models = await client.installed_models()
    if args.json:
        print(json.dumps([{"name": m.name, "size": m.size, "parameter_size": m.parameter_size,
                           "quantization": m.quantization, "family": m.family} for m in models], indent=2))
        return 0
    if not models:
        print(f"{provider.name} has no models yet. Pull one with `jawad models ollama pull NAME`.", file=sys.stderr)
    for m in models:
        print(f"{m.name:<32} {human_size(m.size):>7}  {m.parameter_size} {m.quantization}".rstrip())
    return 0


async def _ollama_pull(name: str, ctx: AppContext, provider: ProviderConfig) -> int:
    from jawad_desktop.core.llm.ollama_native import ollama_client

    client = ollama_client(provider, None, ctx.settings.network)
    layers: dict[str, tuple[int, int]] = {}
    last = ""
    async with client:
        async for event in client.pull(name):
            if event.digest and event.total:
                layers[event.digest] = (event.completed, event.total)
                done, total = sum(c for c, _ in layers.values()), sum(t for _, t in layers.values())
                line = f"{name}: {human_size(done)} of {human_size(total)} ({done * 100 // total}%)"
            else:
                line = f"{name}: {event.status}"
            if line != last and (sys.stderr.isatty() or not event.digest or event.completed == event.total):
                print(line, file=sys.stderr, flush=True)
                last = line
    print(f"{name} is ready in {provider.name}", file=sys.stderr)
    return 0
