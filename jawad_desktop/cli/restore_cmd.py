"""``jawad restore FILE``: a backup written by ``jawad backup`` back into a profile
(``core.store.backup``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.backup import restore_backup


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "restore", help="bring a backup back into this profile",
        description="Restore a backup written by `jawad backup` into this profile (a new one, or with --replace).")
    parser.add_argument("file", type=Path, help="the backup .zip")
    parser.add_argument("--replace", action="store_true",
                        help="replace this profile's settings and conversations (moved aside first, not deleted)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    report = restore_backup(args.file, ctx.paths, replace=args.replace)
    print(report.summary("Restored"), file=sys.stderr)
    print("Enter your API keys again in Settings → Providers (or `jawad providers edit`): a backup holds none.",
          file=sys.stderr)
    return 0
