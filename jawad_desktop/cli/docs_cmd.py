"""``jawad docs``: the document library from a terminal: add, remove, list, search, reindex.

The same library the window and ``search_documents`` use (``core.tools.files.library``): the list
of folders and files in ``library.json`` in the profile's config folder, the index in
``library.db`` in its data folder. ``add`` indexes what it added at once; ``reindex`` brings the
whole index up to date (new, changed and deleted files), with its progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jawad_desktop.cli.actions import JSON_AS_TEXT, Action, add_command, arg
from jawad_desktop.cli.terminal import one_line
from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.tools.files.library import DocumentLibrary, IndexReport


def register(subparsers: Any) -> argparse.ArgumentParser:
    return add_command(
        subparsers, "docs", run, dest="docs_action",
        help="your document library: add folders and files, search them",
        description="The document library: folders and files the assistant searches (search_documents), "
                    "indexed on this computer.",
        actions=[
            Action("add", "add folders or files and index them", [
                arg("paths", nargs="+", metavar="PATH", help="a folder (all its documents) or a file")]),
            Action("remove", "take folders or files out of the library", [
                arg("paths", nargs="+", metavar="PATH", help="a folder or file added before")]),
            Action("list", "the library's folders and files, and what is indexed", [JSON_AS_TEXT]),
            Action("search", "search the documents (file and page of each match)", [
                arg("query", nargs="+", help="words to look for"),
                arg("--limit", type=int, default=10, help="how many pages to show (default 10)"),
                JSON_AS_TEXT]),
            Action("reindex", "index new and changed files again, drop deleted ones"),
        ])


async def run(args: argparse.Namespace, ctx: AppContext) -> int:
    library = DocumentLibrary.open(ctx.paths.config, ctx.paths.data, bus=ctx.bus,
                                   max_bytes=ctx.settings.agent.max_attachment_mb * 1_000_000)
    try:
        action = args.docs_action
        if action == "add":
            for path in args.paths:
                print(f"added {library.add(path)}", file=sys.stderr)
            return _report(await _reindex(ctx, library))
        if action == "remove":
            missing = [p for p in args.paths if not library.remove(p)]
            for path in missing:
                print(f"jawad: {path} is not in the library", file=sys.stderr)
            report = await _reindex(ctx, library)
            print(report.summary(), file=sys.stderr)
            return 1 if missing else 0
        if action == "reindex":
            return _report(await _reindex(ctx, library))
        if action == "list":
            return await _list(args, library)
        return await _search(args, library)
    finally:
        await library.aclose()


async def _reindex(ctx: AppContext, library: DocumentLibrary) -> IndexReport:
    def show(event: ev.Event) -> None:
        if isinstance(event, ev.LibraryProgress) and not event.finished and sys.stderr.isatty():
            print(f"\rindexing {event.done}/{event.total}", end="", file=sys.stderr, flush=True)

    unsubscribe = ctx.bus.subscribe(show)
    try:
        return await library.reindex()
    finally:
        unsubscribe()
        if sys.stderr.isatty():
            print("\r", end="", file=sys.stderr)


def _report(report: IndexReport) -> int:
    print(f"indexed in {report.seconds:.1f} s: {report.summary()}", file=sys.stderr)
    for path, why in report.failed:
        print(f"  not indexed: {path}: {why}", file=sys.stderr)
    return 0


async def _list(args: argparse.Namespace, library: DocumentLibrary) -> int:
    stats = await library.stats()
    failures = await library.failures()
    if args.json:
        print(json.dumps({"sources": list(stats.sources), "documents": stats.documents, "pages": stats.chunks,
                          "not_indexed": [{"path": p, "why": w} for p, w in failures]}, indent=2))
        return 0
    if not stats.sources:
        print("The library is empty. Add a folder with `jawad docs add FOLDER`.", file=sys.stderr)
        return 0
    for source in stats.sources:
        print(source)
    print(f"{stats.documents} files, {stats.chunks} pages or parts indexed", file=sys.stderr)
    for path, why in failures:
        print(f"  not indexed: {path}: {why}", file=sys.stderr)
    return 0


async def _search(args: argparse.Namespace, library: DocumentLibrary) -> int:
    if not library.sources:
        print("The library is empty. Add a folder with `jawad docs add FOLDER`.", file=sys.stderr)
        return 1
    await library.refresh(max_age_s=0)
    hits = await library.search(" ".join(args.query), args.limit)
    if args.json:
        print(json.dumps([{"path": h.path, "where": h.label, "snippet": h.snippet, "score": round(h.score, 3)}
                          for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("No page matches.", file=sys.stderr)
        return 0
    for hit in hits:
        print(f"{one_line(hit.citation())}  ({hit.path})\n    {one_line(hit.snippet)}")
    return 0
