"""``jawad memory``: list, add, edit and forget what Jawad remembers across conversations.

The same facts as Settings → Memory (``core.store.memory``, in ``jawad.db``); "Remember that …"
in a chat adds one too. ``list`` prints each fact with the number the other actions take.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jawad_desktop.cli.actions import JSON_AS_TEXT, Action, add_command, arg, remove_numbered
from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.memory import MemoryStore


def register(subparsers: Any) -> argparse.ArgumentParser:
    return add_command(
        subparsers, "memory", run, dest="memory_action",
        help="what Jawad remembers across conversations",
        description="The facts Jawad remembers across conversations and gives the model with each message "
                    "(Settings → Memory in the window; 'Remember that …' in a chat adds one).",
        actions=[
            Action("list", "every fact, the newest first, with its number", [JSON_AS_TEXT]),
            Action("add", "remember a fact", [arg("fact", nargs="+", help="the fact, in your words")]),
            Action("edit", "change a fact's words", [
                arg("number", type=int, help="the fact's number, as `jawad memory list` shows it"),
                arg("fact", nargs="+", help="the new words")]),
            Action("remove", "forget facts", [arg("numbers", type=int, nargs="+", help="the facts' numbers")]),
        ])


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    with Database.in_folder(ctx.paths.data) as db:
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
        return remove_numbered(args.numbers, memory.remove, done="Forgot", item="fact",
                               missing="remembered fact", command="memory")
