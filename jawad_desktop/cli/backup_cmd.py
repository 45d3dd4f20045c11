"""``jawad backup FILE``: the whole profile in one file (``core.store.backup``); ``jawad restore``
brings it back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.backup import LEFT_OUT, write_backup


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "backup", help="write the whole profile to one file",
        description="Write conversations, memory, settings, site permissions and the document library's list "
                    "to one .zip. API keys are not included (they stay in the system keyring).")
    parser.add_argument("file", type=Path, help="the .zip to write (a folder: a dated name in it)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    report = write_backup(ctx.paths, args.file)
    print(report.summary(f"Backed up to {report.path}:"), file=sys.stderr)
    print("Not included: " + "; ".join(LEFT_OUT) + ".", file=sys.stderr)
    return 0
