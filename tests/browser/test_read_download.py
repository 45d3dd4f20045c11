"""``read_download`` (issue 35): the agent reads a file it downloaded in this session (a text a page
built, a PDF from the site, a picture a page drew), and nothing else: not the user's own downloads,
not a name that is no download of its own, not a file put in a download's place."""

from __future__ import annotations

import os
from pathlib import Path

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import browser_registry
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext
from tests.browser.test_browser_tools import Asked, Load, Run, asked_browser, call, until_downloads

__all__ = ["asked_browser"]  # the fixture, used by name


def read(arun: Run, ctx: ToolContext, file: str) -> ToolResult:
    """``read_download`` as the agent calls it."""
    tool = browser_registry().get("read_download")
    assert tool is not None
    result: ToolResult = arun(tool.run(ctx, tool.validate({"name": file})), timeout=30)
    return result


def test_the_agent_reads_what_it_downloaded(web_page: QtWebEnginePage, load: Load, arun: Run,
                                           asked_browser: Asked) -> None:
    ctx, answers = asked_browser.ctx, asked_browser.answers
    load("downloads/page.html")
    answers.extend(["allow-site"])
    call(arun, ctx, "click_element", selector="#credentials")  # a text the page builds (blob:)
    call(arun, ctx, "click_element", selector="#resume")  # a PDF of the site
    call(arun, ctx, "click_element", selector="#picture")  # a picture the page draws (data:)
    until_downloads(arun, web_page, ["done", "done", "done"])
    text = read(arun, ctx, "credentials.txt")
    assert text.ok, text.for_model
    assert "username: WebUser\npassword: hunter2" in text.for_model
    assert "<untrusted_page_content" in text.for_model and "[This is the end of the file.]" in text.for_model
    pdf = read(arun, ctx, "resume.pdf")
    assert "Candidate: Judy Hopps" in pdf.for_model and "Years of experience: 7" in pdf.for_model, pdf.for_model
    picture = read(arun, ctx, "badge.jpg")
    assert picture.ok and [i.media_type for i in picture.images] == ["image/jpeg"], picture.for_model


def test_only_the_agents_own_downloads_are_read(web_page: QtWebEnginePage, load: Load, arun: Run,
                                               asked_browser: Asked, tmp_path: Path) -> None:
    ctx, folder = asked_browser.ctx, asked_browser.folder
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's own file\n")
    (folder / "notes.txt").write_text("already in the downloads folder\n")
    load("downloads/page.html")
    for name in (str(secret), "notes.txt", "../secret.txt", "credentials.txt"):
        refused = read(arun, ctx, name)
        assert not refused.ok and "only files you downloaded can be read" in refused.for_model, refused.for_model
    # The user's own download (their click, no agent action) is theirs.
    arun(web_page.run_js("document.getElementById('credentials').click()", world=0))
    until_downloads(arun, web_page, ["done"])
    theirs = read(arun, ctx, "credentials.txt")
    assert not theirs.ok and "downloaded by the user, not by you" in theirs.for_model
    # The agent's download with a link to another file put in its place is not read.
    asked_browser.answers.append("allow-once")
    call(arun, ctx, "click_element", selector="#resume")
    [_, mine] = until_downloads(arun, web_page, ["done", "done"])
    os.unlink(mine.path)
    os.symlink(secret, mine.path)
    swapped = read(arun, ctx, "resume.pdf")
    assert not swapped.ok and "the user's own file" not in swapped.for_model, swapped.for_model
