"""``jawad import chatgpt|claude FILE``: conversations from another assistant's data export
(``core.store.importers``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.importers import import_export


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "import", help="import conversations from ChatGPT or Claude",
        description="Import the conversations of a ChatGPT or Claude data export (its conversations.json, or "
                    "the .zip the export sent you). Importing the same export again adds nothing twice.")
    parser.add_argument("source", choices=("chatgpt", "claude"), help="whose export it is")
    parser.add_argument("file", type=Path, help="conversations.json, or the export's .zip")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    with ConversationStore.open(ctx.paths.data) as store:
        report = import_export(store, args.source, args.file)
    print(report.summary(), file=sys.stderr)
    return 0
