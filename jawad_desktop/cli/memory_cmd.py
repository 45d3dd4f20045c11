"""``jawad memory``: list, add, edit and forget what Jawad remembers across conversations.

The same facts as Settings → Memory (``core.store.memory``, in ``jawad.db``); "Remember that …"
in a chat adds one too. ``list`` prints each fact with the number the other actions take.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.memory import MemoryStore


def register(subparsers: Any) -> argparse.ArgumentParser:
    from jawad_desktop.cli import add_actions

    parser, actions = add_actions(
        subparsers, "memory",
        help="what Jawad remembers across conversations",
        description="The facts Jawad remembers across conversations and gives the model with each message "
                    "(Settings → Memory in the window; 'Remember that …' in a chat adds one).",
        dest="memory_action", handler=run,
    )
    p_list = actions.add_parser("list", help="every fact, the newest first, with its number")
    p_list.add_argument("--json", action="store_true", help="print JSON instead of text")
    p_add = actions.add_parser("add", help="remember a fact")
    p_add.add_argument("fact", nargs="+", help="the fact, in your words")
    p_edit = actions.add_parser("edit", help="change a fact's words")
    p_edit.add_argument("number", type=int, help="the fact's number, as `jawad memory list` shows it")
    p_edit.add_argument("fact", nargs="+", help="the new words")
    p_remove = actions.add_parser("remove", help="forget facts")
    p_remove.add_argument("numbers", type=int, nargs="+", help="the facts' numbers")
    return parser


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    db = Database.in_folder(ctx.paths.data)
    try:
        memory = MemoryStore(db, bus=ctx.bus)
        action = args.memory_action
        if action == "list":
            facts = memory.facts()
            if args.json:
                print(json.dumps([{"number": m.id, "fact": m.text, "updated_at": m.updated_at} for m in facts],
                                 ensure_ascii=False, indent=2))
            elif not facts:
                print("Jawad remembers nothing yet. Add a fact with `jawad memory add …`, or say "
                      "\"Remember that …\" in a chat.", file=sys.stderr)
            for m in facts if not args.json else ():
                print(f"{m.id:>4}  {one_line(m.text)}")
            if not ctx.settings.memory.enabled:
                print("Memory is turned off: these facts are not given to the model (Settings → Memory).",
                      file=sys.stderr)
            return 0
        if action == "add":
            saved = memory.add(" ".join(args.fact))
            print(f"Remembered ({saved.id}): {one_line(saved.text)}", file=sys.stderr)
            return 0
        if action == "edit":
            saved = memory.edit(args.number, " ".join(args.fact))
            print(f"Changed ({saved.id}): {one_line(saved.text)}", file=sys.stderr)
            return 0
        missing = [n for n in args.numbers if not memory.remove(n)]
        if missing:
            raise JawadError(f"There is no remembered fact numbered {', '.join(map(str, missing))}.",
                             suggestions=["List them with `jawad memory list`."])
        print(f"Forgot {len(args.numbers)} fact{'s' if len(args.numbers) != 1 else ''}.", file=sys.stderr)
        return 0
    finally:
        db.close()
