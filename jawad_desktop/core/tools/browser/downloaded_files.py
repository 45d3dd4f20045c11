"""``read_download``: what a file the agent downloaded in this session says (a page gave credentials,
a résumé, a table to download and use).

The one rule: the agent reads only what it downloaded itself, in this browser, in this session, and
the user let it keep. The file is chosen by its name among this browser's downloads
(``Page.downloads``): one started by an agent action (not the user's own), finished, saved in the
downloads folder as the download keeper recorded it. No path is taken from the model or the page, so
no page can make the agent read another file of the user's (issue 28's exfiltration cases): a name
that is no such download is refused, and so is a saved file that is no longer a plain file there (a
link put in its place). What it says is read as the user's attachments are (``core.tools.files.extract``:
text, JSON, CSV, PDF, DOCX, XLSX; a picture goes to a model that sees images), wrapped as untrusted
content of the site it came from, and recorded in the data-flow record with that site.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

from pydantic import Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.tools.browser.tool_running import TOOLS, browser_of, page_errors
from jawad_desktop.core.tools.files.attachments import render_parts
from jawad_desktop.core.tools.files.extract import ExtractedFile, FileReadError, extract_file
from jawad_desktop.core.tools.page import DownloadInfo
from jawad_desktop.core.tools.registry import ToolError, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext
from jawad_desktop.core.tools.untrusted import wrap_untrusted

__all__ = ["readable_download"]

READ_CHARS = 8_000  # the most of a file's text given at once; the model asks for the next part


def _source(download: DownloadInfo) -> str:
    """The web address the download came from (the page's, for one the page built: ``blob:``, ``data:``)."""
    if download.url.startswith(("http://", "https://")):
        return download.url
    return download.page_url or download.url.removeprefix("blob:")


def readable_download(downloads: list[DownloadInfo], name: str) -> DownloadInfo:
    """The agent's finished download called ``name`` (the newest of that name), else ``ToolError``
    saying which files it may read."""
    mine = [d for d in downloads if d.by_agent and d.state == "done" and d.path]
    wanted = name.strip()
    found = [d for d in mine if wanted in (d.name, Path(d.path).name)]
    if found:
        return found[-1]
    others = [d for d in downloads if wanted in (d.name, Path(d.path).name if d.path else "")]
    if others and not others[-1].by_agent:
        raise ToolError(f"{wanted} was downloaded by the user, not by you: only the files you downloaded "
                        "in this session can be read")
    if others:
        raise ToolError(f"the download of {wanted} is {others[-1].state}, not done: call list_downloads, "
                        "wait for it to finish (or for the user to allow it) and try again")
    names = ", ".join(d.name for d in mine) or "none yet"
    raise ToolError(f"no file you downloaded in this session is called '{wanted}' (yours: {names}); "
                    "only files you downloaded can be read")


def _plain_file(path: Path) -> bool:
    """Still the file the keeper saved: a plain file, no link put in its place."""
    return not os.path.islink(path) and path.is_file()


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("read_downloaded_file", "open_download"))
async def read_download(
    ctx: ToolContext,
    name: Annotated[str, Field(description="The downloaded file's name, as list_downloads or the action said it")],
    part: Annotated[int, Field(ge=1, description="The page (PDF) or part to start from")] = 1,
) -> ToolResult:
    """Read a file you downloaded in this session (text, JSON, CSV, PDF, Word, Excel; a picture is
    shown): what a page gave you to download and use. Only your own downloads can be read."""
    browser = browser_of(ctx)
    with page_errors():
        download = readable_download(await browser.page.downloads(), name)
    path = Path(download.path)
    if not _plain_file(path):
        raise ToolError(f"{download.name} is no longer in the downloads folder as it was saved; download it again")
    try:
        file: ExtractedFile = await asyncio.to_thread(
            extract_file, path, max_bytes=ctx.settings.agent.max_attachment_mb * 1_000_000)
    except FileReadError as exc:
        raise ToolError(str(exc)) from None
    source = _source(download)
    where = f"downloaded file {download.name} (from {source or 'the page'})"
    if file.image is not None:
        return ToolResult(for_model=f"The picture {download.name} is shown below (downloaded from {source}).",
                          for_log=f"Read the picture {download.name}", images=[file.image])
    rest = [p for p in file.parts if p.number >= part]
    if not rest:
        last = file.parts[-1].number if file.parts else 0
        raise ToolError(f"{download.name} has no part {part} (its parts go from 1 to {last})")
    body, shown = render_parts(download.name, rest, READ_CHARS)
    if browser.harbor is not None:
        browser.harbor.dataflow.record(body, source)
    after = rest[shown:]
    more = (f"\n[{len(after)} more parts; call read_download with part {after[0].number} to go on.]"
            if after else "\n[This is the end of the file.]")
    return ToolResult(for_model=wrap_untrusted(body, where) + more,
                      for_log=f"Read {download.name} ({file.kind}, {len(rest[:shown])} part{'s' * (shown != 1)})",
                      data={"name": download.name, "kind": file.kind, "parts": shown})
