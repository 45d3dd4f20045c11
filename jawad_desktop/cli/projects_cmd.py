"""``jawad projects``: conversations, files, instructions, a default model and memory grouped per piece of work.

The same projects as the window's project menu (``core.store.projects``, in ``jawad.db``).
``jawad ask --project NAME`` asks in one: the model gets its instructions, its remembered facts and
only its files, and the conversation is saved in it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from jawad_desktop.cli.actions import JSON_AS_TEXT, Action, Argument, add_command, arg
from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.projects import Project, ProjectStore


def register(subparsers: Any) -> argparse.ArgumentParser:
    def fields(name_help: str) -> list[Argument]:
        return [arg("name", help=name_help),
                arg("--instructions", metavar="TEXT", help="what the model should know or do in its chats"),
                arg("--folder", action="append", metavar="DIR",
                    help="a folder of the project's own files (repeatable; add it to `jawad docs` to index it)"),
                arg("--provider", metavar="NAME", help="the saved provider its chats use"),
                arg("--model", metavar="M", help="the model its chats use")]

    name = arg("name", help="the project's name or id")
    return add_command(
        subparsers, "projects", run, dest="projects_action",
        help="projects: conversations, files, instructions and memory per piece of work",
        description="Group conversations, files, instructions, a default model and memory per piece of work. "
                    "`jawad ask --project NAME` asks in one.",
        actions=[
            Action("add", "make a project", fields("the project's name")),
            Action("edit", "change a project",
                   [*fields("the project's name or id"), arg("--rename", metavar="NEW", help="a new name")]),
            Action("list", "every project, with its conversations' count", [JSON_AS_TEXT]),
            Action("remove", "remove a project (its conversations stay, out of any project)", [
                name, arg("--delete-conversations", action="store_true",
                          help="delete its conversations too (they can be brought back from the history's bin)")]),
            Action("export", "write a project, its facts and conversations to a JSON file",
                   [name, arg("file", type=Path, help="where to write it")]),
            Action("move", "put a conversation in a project", [
                arg("conversation", help="the conversation's id (or its start), as `jawad history list` shows"),
                arg("name", help="the project's name or id ('none': in no project)")]),
        ])


def _describe(project: Project, count: int) -> str:
    lines = [f"{project.name}  ({count} conversation{'s' if count != 1 else ''})"]
    if project.instructions:
        lines.append(f"  instructions: {one_line(project.instructions)[:200]}")
    if project.provider or project.model:
        lines.append(f"  model: {' · '.join(p for p in (project.provider, project.model) if p)}")
    for folder in project.folders:
        lines.append(f"  files: {folder}")
    return "\n".join(lines)


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    with Database.in_folder(ctx.paths.data) as db:
        projects = ProjectStore(db, bus=ctx.bus)
        action = args.projects_action
        if action == "add":
            made = projects.add(args.name, instructions=args.instructions or "", provider=args.provider or "",
                                model=args.model or "", folders=args.folder or [])
            print(f"Project made:\n{_describe(made, 0)}", file=sys.stderr)
            return 0
        if action == "edit":
            found = projects.find(args.name)
            changed = projects.update(found.id, name=args.rename, instructions=args.instructions,
                                      provider=args.provider, model=args.model, folders=args.folder)
            print(f"Project changed:\n{_describe(changed, len(projects.conversation_ids(changed.id)))}",
                  file=sys.stderr)
            return 0
        if action == "list":
            listed = [(p, len(projects.conversation_ids(p.id))) for p in projects.projects()]
            if args.json:
                print(json.dumps([{"id": p.id, "name": p.name, "instructions": p.instructions, "provider": p.provider,
                                   "model": p.model, "folders": list(p.folders), "conversations": n}
                                  for p, n in listed], ensure_ascii=False, indent=2))
            elif not listed:
                print("No projects yet. Make one: jawad projects add \"Kitchen\" --instructions \"...\"",
                      file=sys.stderr)
            for project, count in listed if not args.json else ():
                print(_describe(project, count))
            return 0
        if action == "remove":
            found = projects.find(args.name)
            count = projects.remove(found.id, conversations="delete" if args.delete_conversations else "keep")
            what = "deleted" if args.delete_conversations else "kept, in no project"
            print(f"Removed {found.name}; its {count} conversation{'s' if count != 1 else ''} {what}.",
                  file=sys.stderr)
            return 0
        if action == "export":
            found = projects.find(args.name)
            written = projects.export(found.id, args.file)
            print(f"Wrote {found.name} to {written}.", file=sys.stderr)
            return 0
        conversations = ConversationStore(db)
        conversation_id = conversations.resolve_id(args.conversation)
        target = None if args.name.lower() == "none" else projects.find(args.name)
        conversations.move_to_project(conversation_id, target.id if target else None)
        print(f"Moved the conversation to {target.name if target else 'no project'}.", file=sys.stderr)
        return 0
