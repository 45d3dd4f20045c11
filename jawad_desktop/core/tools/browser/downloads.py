"""Asking before a download the agent started is kept: the page driver's download guard and what
Harbor is told about it.

A download is no tool call: the page starts it after an action (a click on a link to a file). The
driver holds it and asks ``make_download_guard``'s guard, which puts it to the ``HarborGate`` as the
call ``download`` at the ``interact`` level on the site of the page it came from. The inspector
(``download_insight``) forces the question unless the user allowed downloads for that site (a site
or session grant for ``download``, which the permission panel's "Allow on this site" gives): a
download writes a file to the user's disk, so a level allowed everywhere (``--allow interact``)
does not let it through, while a site the user trusts with downloads does not ask every time.
Deny-all and an unanswered request refuse it, as for any call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from jawad_desktop.core.events import Event, EventBus, TurnFinished, TurnStarted, new_id
from jawad_desktop.core.harbor.gate import CallInsight, GateDecision, PermissionCheck, PermissionGate
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.page import DownloadInfo

if TYPE_CHECKING:
    from jawad_desktop.core.harbor.engine import Harbor

DOWNLOAD_TOOL = "download"  # the name a download is asked (and granted) under
DOWNLOAD_LEVEL = PermissionLevel.INTERACT

DownloadGuard = Callable[[DownloadInfo, str], Awaitable[bool]]


def size_text(size: int) -> str:
    """``1.2 MB``; "size unknown" for 0 (the site did not say)."""
    if size <= 0:
        return "size unknown"
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"


def make_download_guard(gate: PermissionGate, bus: EventBus) -> DownloadGuard:
    """The page driver's ``download_guard``: asks ``gate`` whether to keep a download the agent's
    action started, within the agent's current request (deny-all holds for it). Stop refuses the
    downloads still asked about, as it ends the run's other questions; a run that ends on its own
    leaves them to the user."""
    run = {"id": ""}
    asking: set[asyncio.Task[GateDecision]] = set()

    def on_event(event: Event) -> None:
        if isinstance(event, TurnStarted):
            run["id"] = event.run_id
        elif isinstance(event, TurnFinished) and event.response.interrupted:
            for task in list(asking):
                task.cancel()

    bus.subscribe(on_event)

    async def guard(download: DownloadInfo, page_url: str) -> bool:
        site = site_of(page_url or download.url)
        check = PermissionCheck(
            tool=DOWNLOAD_TOOL, call_id=new_id("download"),
            arguments={"file": download.name, "from": download.url, "size": size_text(download.size)},
            level=DOWNLOAD_LEVEL, site=site, current_site=site, run_id=run["id"])
        task = asyncio.ensure_future(gate.check(check))
        asking.add(task)
        try:
            return (await task).allowed
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and not (current is not None and current.cancelling()):
                return False  # stopped with its run
            raise
        finally:
            asking.discard(task)

    return guard


def download_insight(harbor: Harbor | None, check: PermissionCheck) -> CallInsight:
    """What the gate shows about a download: asked unless downloads are allowed on the site."""
    granted = harbor is not None and harbor.policy.grant_for(check.site, DOWNLOAD_TOOL) is not None
    name = str(check.arguments.get("file", "a file"))
    size = str(check.arguments.get("size", ""))
    source = site_of(str(check.arguments.get("from", "")))
    where = f" from {source}" if source and source != site_of(check.site) else ""
    return CallInsight(force_ask=not granted,
                       note=f"It would save the file '{name}' ({size}){where} to your downloads folder")
