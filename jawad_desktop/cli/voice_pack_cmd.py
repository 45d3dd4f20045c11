"""``jawad voice-pack status|install [SOURCE]|remove|model NAME``: offline speech and its models.

The packaged app downloads its offline speech engine and the tiny.en model on demand, as a
voice pack published next to each release (see ``core.voice.pack``). ``install`` takes the
release's pack by default (``JAWAD_VOICE_PACK_URL`` points elsewhere), or a URL or a local
``.tar.gz`` given as SOURCE; progress goes to stderr, Ctrl+C cancels and leaves nothing
behind. A source install has offline speech built in: ``status`` says so. ``model NAME``
downloads a larger speech model (the pinned ones: base) from the
Hugging Face hub (``JAWAD_MODEL_ENDPOINT`` or ``--endpoint`` for a mirror) with progress on
stderr; a download that was cut off resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from jawad_desktop.cli.actions import JSON, Action, add_command, arg
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice.models import OFFERED_MODELS, resolve_model
from jawad_desktop.core.voice.pack import MB, PackStatus, VoicePack


def register(subparsers: Any) -> argparse.ArgumentParser:
    return add_command(
        subparsers, "voice-pack", run, dest="pack_action",
        help="install or remove offline speech (the packaged app's voice pack)",
        description="The packaged app downloads offline speech recognition (the engine and the tiny.en "
        "model) on demand, as a voice pack; without it, voice input uses the Whisper API.",
        actions=[
            Action("status", "whether offline speech is installed, and where", [JSON]),
            Action("install", "download and install the voice pack", [
                arg("source", nargs="?", help="a URL or a .tar.gz file (default: the release's download)")]),
            Action("remove", "delete the installed voice pack"),
            Action("model", "download a speech model (the pinned ones: tiny.en, base)", [
                arg("name", help=f"the model: {', '.join(OFFERED_MODELS)} (the pinned ones)"),
                arg("--endpoint", help="a mirror of the Hugging Face hub (default: JAWAD_MODEL_ENDPOINT)")]),
        ])


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    pack = VoicePack.for_app(ctx.paths)
    if args.pack_action == "install":
        return _install(pack, args.source, ctx.settings.network)
    if args.pack_action == "model":
        return _download_model(ctx, args.name, args.endpoint)
    if args.pack_action == "remove":
        removed = pack.remove()
        print("Voice pack removed." if removed else "No voice pack was installed.")
        return 0
    status = pack.status()
    if args.json:
        print(json.dumps(status.as_dict()))
    else:
        print(_describe(status))
    return 0


def _describe(status: PackStatus) -> str:
    if status.installed:
        return f"Offline speech is installed: {status.folder} ({status.installed_bytes / MB:.0f} MB)."
    if not status.required:
        return "Offline speech is part of this installation (faster-whisper is installed): no voice pack is needed."
    text = status.problem and f"The voice pack in {status.folder} cannot be used: {status.problem}.\n"
    size = f", ~{status.download_bytes / MB:.0f} MB" if status.download_bytes else ""
    return f"{text}Offline speech is not installed. Install it with: jawad voice-pack install ({status.url}{size})"


def _progress_printer(what: str, terminal: bool) -> Callable[[int, int], None]:
    """Progress of a download on stderr: one updated line on a terminal, every 10 % otherwise."""
    shown = -1

    def progress(done: int, total: int) -> None:
        nonlocal shown
        percent = int(done * 100 / total) if total else -1
        if percent == shown or (not terminal and percent % 10):
            return
        shown = percent
        text = f"{done / MB:.0f} of {total / MB:.0f} MB ({percent}%)" if total else f"{done / MB:.0f} MB"
        print(f"\r\x1b[2KDownloading {what}: {text}" if terminal else f"Downloading {what}: {text}",
              end="" if terminal else "\n", file=sys.stderr, flush=True)

    return progress


def _download_model(ctx: AppContext, name: str, endpoint: str | None) -> int:
    terminal = sys.stderr.isatty()
    try:
        path = resolve_model(name, ctx.paths.cache, download=True, endpoint=endpoint, network=ctx.settings.network,
                             progress=_progress_printer(f"the speech model {name}", terminal))
    finally:
        if terminal:
            print(file=sys.stderr)
    print(f"The speech model {name} is ready in {path}. Choose it with: jawad transcribe --model {name} FILE, "
          "or in the window's voice settings.")
    return 0


def _install(pack: VoicePack, source: str | None, network: NetworkSettings) -> int:
    if not pack.required and source is None:
        print(_describe(pack.status()))
        return 0
    terminal = sys.stderr.isatty()
    progress = _progress_printer("the voice pack", terminal)

    print(f"Installing the voice pack from {source or pack.url}", file=sys.stderr)
    try:
        status = pack.install(source, progress=progress, network=network)  # Ctrl+C cancels: nothing is left behind
    finally:
        if terminal:
            print(file=sys.stderr)
    print(_describe(status))
    return 0
