"""The downloads of the browser the agent drives: saved to the user's downloads folder, the agent's
asked for first.

A download the agent's action started (during the action or ``AGENT_WINDOW_S`` after it: a file
comes after the click's response) is held until ``guard`` answers (``core.tools.browser.downloads``
asks Harbor, which asks the user unless downloads are allowed for the site): Chromium wants an
answer within its signal, so the file is accepted into a private staging folder and paused, then
resumed and moved into the downloads folder when allowed, or cancelled and removed when not. A
download the user started by hand is theirs: it is saved at once, as any browser does. Without a
guard (nobody to ask) downloads are saved, as navigations are allowed without a navigation guard.
``infos`` lists them for ``list_downloads``; ``started_since`` names the agent's downloads an action
started, for its outcome. The agent keeps downloads of web addresses only (and a web page's own
``blob:`` and ``data:``): one of a local file or a browser page is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import shiboken6
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest, QWebEnginePage, QWebEngineProfile

from jawad_desktop.core.sites import is_web_address
from jawad_desktop.core.tools.page import DownloadInfo

log = logging.getLogger("jawad.browser")

AGENT_WINDOW_S = 10.0  # a download that starts this soon after an agent action is the action's

# Asked before the agent's download is kept: (the download, the address of the page it came from) -> allowed.
DownloadGuard = Callable[[DownloadInfo, str], Awaitable[bool]]

_State = QWebEngineDownloadRequest.DownloadState


def downloads_folder() -> Path:
    """The user's downloads folder (created when missing)."""
    folder = Path(platformdirs.user_downloads_dir())
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def unique_path(folder: Path, name: str) -> Path:
    """``folder/name``, or ``name (1).ext``... when that is taken."""
    safe = Path(name).name or "download"
    path = folder / safe
    stem, suffix = Path(safe).stem, Path(safe).suffix
    n = 1
    while path.exists():
        path = folder / f"{stem} ({n}){suffix}"
        n += 1
    return path


@dataclass(eq=False)
class _Kept:
    request: QWebEngineDownloadRequest
    name: str
    url: str
    page_url: str
    by_agent: bool
    started_at: float
    state: str = "downloading"
    path: str = ""  # where it is saved, once allowed
    staged: Path | None = None  # where Chromium writes it while the user is asked
    allowed: bool | None = None
    size: int = 0
    received: int = 0
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def info(self) -> DownloadInfo:
        return DownloadInfo(name=self.name, url=self.url, state=self.state, size=self.size,
                            received=self.received, path=self.path, by_agent=self.by_agent, page_url=self.page_url)


class DownloadKeeper:
    """Watches ``profile``'s downloads of the pages ``owns`` says are the driver's. ``acting()`` says
    whether an agent action runs or just ended; ``folder()`` is where downloads are saved."""

    def __init__(self, profile: QWebEngineProfile, *, owns: Callable[[QWebEnginePage | None], bool],
                 acting: Callable[[], bool], folder: Callable[[], Path] = downloads_folder) -> None:
        self.profile = profile
        self.owns = owns
        self.acting = acting
        self.folder = folder
        self.guard: DownloadGuard | None = None
        self.kept: list[_Kept] = []
        self._staging: Path | None = None
        profile.downloadRequested.connect(self._requested)

    def close(self) -> None:
        """Stop watching; downloads waiting for an answer are cancelled."""
        if shiboken6.isValid(self.profile):
            with contextlib.suppress(RuntimeError, TypeError):
                self.profile.downloadRequested.disconnect(self._requested)
        for kept in self.kept:
            if kept.state == "asking" and shiboken6.isValid(kept.request):
                kept.request.cancel()
                kept.state = "cancelled"
            for task in kept.tasks:
                task.cancel()
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)

    # -- what the model is told ----------------------------------------------------------------

    def infos(self) -> list[DownloadInfo]:
        return [kept.info() for kept in self.kept]

    def started_since(self, moment: float) -> str:
        """The names of the agent's downloads that started at ``moment`` or later, joined."""
        return ", ".join(k.name for k in self.kept if k.by_agent and k.started_at >= moment)

    # -- Chromium's requests ---------------------------------------------------------------------

    def _requested(self, request: QWebEngineDownloadRequest) -> None:
        page = request.page()
        if not self.owns(page):
            return  # another driver's page on the same profile
        name = request.suggestedFileName() or request.downloadFileName() or "download"
        kept = _Kept(request=request, name=name, url=request.url().toString(),
                     page_url=page.url().toString() if page is not None else "",
                     by_agent=self.acting(), started_at=time.monotonic(), size=max(0, request.totalBytes()))
        if kept.by_agent and not _web_download(kept.url, kept.page_url):
            # The agent saves what a web site serves, never a copy of a local file or a browser page.
            log.info("refused the agent's download of %s (not a web address)", kept.url)
            request.cancel()
            return
        self.kept.append(kept)
        request.receivedBytesChanged.connect(lambda: self._progress(kept))
        request.totalBytesChanged.connect(lambda: self._progress(kept))
        request.isFinishedChanged.connect(lambda: self._finished(kept))
        if not kept.by_agent or self.guard is None:
            target = unique_path(self.folder(), name)
            kept.allowed, kept.path = True, str(target)
            request.setDownloadDirectory(str(target.parent))
            request.setDownloadFileName(target.name)
            request.accept()
            log.info("downloading %s to %s", name, target)
            return
        # Chromium needs the answer now: keep the file aside, paused, until the user has answered.
        staging = self._staging_folder()
        request.setDownloadDirectory(str(staging))
        request.setDownloadFileName(unique_path(staging, name).name)
        kept.staged = staging / request.downloadFileName()
        kept.state = "asking"
        request.accept()
        request.pause()
        kept.tasks.append(asyncio.ensure_future(self._ask(kept)))

    def _staging_folder(self) -> Path:
        if self._staging is None:
            self._staging = Path(tempfile.mkdtemp(prefix="jawad-downloads-"))
        return self._staging

    async def _ask(self, kept: _Kept) -> None:
        assert self.guard is not None
        try:
            allowed = await self.guard(kept.info(), kept.page_url)
        except Exception:
            log.exception("asking about the download of %s failed; not saved", kept.name)
            allowed = False
        if not shiboken6.isValid(kept.request):
            return
        kept.allowed = allowed
        if not allowed:
            kept.state = "denied"
            kept.request.cancel()
            if kept.staged is not None:
                kept.staged.unlink(missing_ok=True)
            log.info("the download of %s was not allowed", kept.name)
            return
        kept.path = str(unique_path(self.folder(), kept.name))
        kept.state = "downloading"
        if kept.request.isFinished():
            self._finished(kept)
        else:
            kept.request.resume()

    def _progress(self, kept: _Kept) -> None:
        if shiboken6.isValid(kept.request):
            kept.received = max(0, kept.request.receivedBytes())
            kept.size = max(kept.size, kept.request.totalBytes(), 0)

    def _finished(self, kept: _Kept) -> None:
        request = kept.request
        if not shiboken6.isValid(request) or not request.isFinished():
            return
        self._progress(kept)
        state = request.state()
        if state == _State.DownloadCancelled:
            if kept.state != "denied":
                kept.state = "cancelled"
            return
        if state == _State.DownloadInterrupted:
            kept.state = "failed"
            log.info("the download of %s failed: %s", kept.name, request.interruptReasonString())
            return
        if kept.allowed is None:
            return  # done while the user is asked: moved once allowed
        if kept.staged is not None and kept.path:
            try:
                shutil.move(str(kept.staged), kept.path)
            except OSError as exc:
                kept.state = "failed"
                log.error("could not move the download %s to %s: %s", kept.name, kept.path, exc)
                return
        kept.size = max(kept.size, kept.received)
        kept.state = "done"
        log.info("downloaded %s to %s", kept.name, kept.path)


def _web_download(url: str, page_url: str = "") -> bool:
    """Whether the agent may keep a download from ``url``: a web address, a ``blob:`` a web page made
    (an export the page built: ``blob:https://site/...``), or a ``data:`` address a web page made (a
    picture it drew, saved from a canvas: its bytes are in the address, nothing local is read)."""
    if url.startswith("blob:"):
        return is_web_address(url.removeprefix("blob:"))
    if url.startswith("data:"):
        return is_web_address(page_url)
    return is_web_address(url)
