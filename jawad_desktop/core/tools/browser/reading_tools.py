"""The browser tools that read the page: read_page (in parts, a folded section), find_in_page,
summarize_page, look (a screenshot with the element list) and handing the page to the user."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Image
from jawad_desktop.core.tools.browser.hand_over import HAND_OVER_TOOL, needs_user_note
from jawad_desktop.core.tools.browser.parts import PASSAGES
from jawad_desktop.core.tools.browser.provenance import wrap_untrusted
from jawad_desktop.core.tools.browser.reading import PageReading
from jawad_desktop.core.tools.browser.tool_running import LOOK_TOOL, TOOLS, browser_of, page_errors
from jawad_desktop.core.tools.registry import ToolError, ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext


@TOOLS.tool(name="read_page", level=PermissionLevel.READ_ONLY, aliases=("read", "get_page", "read_current_page"))
async def read_page_tool(
    ctx: ToolContext,
    part: Annotated[int | None, Field(ge=1, description=(
        "Which part of a long page's content to read: read_page says how many parts there are and its "
        "outline which part holds each heading. Leave it out to read the page as it is now"))] = None,
    section: Annotated[str | None, Field(description=(
        "A section folded out of the element list to list in full, such as 'navigation' "
        "(read_page names the folded sections)"))] = None,
) -> ToolResult:
    """Read the current page: title, URL, product details, the numbered interactive elements and
    the main content as Markdown; a long page's content comes in parts, with an outline. Use it
    before acting on a page, and again after it changes."""
    browser = browser_of(ctx)
    with page_errors():
        if part is None and not section:
            reading, reused = await browser.read(), False
        else:  # a further part or a section of the reading the model has: no new snapshot
            reading, reused = await browser.reading_of_current_page()
    if section:
        return _folded_section(reading, section, ctx.result_chars_for(reading.interactive_elements))
    limit = ctx.result_chars_for(reading.markdown)  # the same for every part of this reading
    count = len(reading.parts(limit))
    if part is not None and part > count:
        raise ToolError(f"The content of this page has {count} part{'s' * (count != 1)}: ask for a part "
                        f"from 1 to {count}, or use find_in_page(query) to find text in it.")
    shown = part or 1
    product = f", product {reading.product.get('name', '')}" if reading.product else ""
    log_text = (f"Read {reading.title or reading.url}"
                + (f" (part {shown} of {count})" if count > 1 else "")
                + ("" if reused else f": {len(reading.elements)} elements{product}")
                + (" — page text looks like instructions to an AI (flagged)" if reading.injections else ""))
    text = reading.for_model(limit, shown, elements=not reused)
    note = "" if reused else await needs_user_note(browser.page)  # a login, CAPTCHA, code or card: hand over
    return ToolResult(for_model=f"{text}\n\n{note}" if note else text, for_log=log_text,
                      data=reading.as_dict(shown, limit), observed_page=True)


def _folded_section(reading: PageReading, section: str, limit: int) -> ToolResult:
    """``read_page(section=...)``: a listing folded out of the element list, in full."""
    names = {name.casefold(): name for name in reading.folded}
    name = names.get(section.strip().casefold())
    if name is None:
        known = ", ".join(f"'{n}'" for n in reading.folded)
        raise ToolError(f"This page has no folded section '{section}'. "
                        + (f"Its folded sections are: {known}." if known else
                           "Nothing was folded out of its element list: read_page() lists every element."))
    listing = reading.folded[name]
    head = f"Section '{name}' of {reading.url}, folded out of read_page's element list:\n"
    lines = listing.splitlines()
    if limit and len(listing) > limit - len(head) - 400:  # room for the wrapper and the note
        kept: list[str] = []
        used = len(head) + 400
        for line in lines:
            used += len(line) + 1
            if used > limit:
                break
            kept.append(line)
        listing = "\n".join(kept) + (f"\n[... {len(lines) - len(kept)} more lines not shown; a selector "
                                     "or scroll_page reaches them]")
    return ToolResult(for_model=head + wrap_untrusted(listing, reading.url),
                      for_log=f"Listed the '{name}' section of {reading.title or reading.url}",
                      data={"url": reading.url, "title": reading.title, "section": name,
                            "listing": reading.folded[name]}, observed_page=True)


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("find", "search_page", "find_text"))
async def find_in_page(
    ctx: ToolContext,
    query: Annotated[str, Field(description="The words or phrase to look for (case does not matter)")],
) -> ToolResult:
    """Find text anywhere in the current page's content, not only the part read_page showed: the
    passages that match, each with the part it is in."""
    if not query.strip():
        raise ToolError("The query is empty: say which words to look for.")
    with page_errors():
        reading, _ = await browser_of(ctx).reading_of_current_page()
    limit = ctx.result_chars_for(reading.markdown)  # the parts read_page numbered
    most = max(2, min(PASSAGES, (limit - 800) // 360)) if limit else PASSAGES
    found = reading.parts(limit).find(query, max_passages=most)
    text = f"Title: {reading.title or '(none)'}\nURL: {reading.url}\n{found.summary()}"
    if found.passages:
        text += "\n" + wrap_untrusted(found.listing(), reading.url)
    shown = "not found" if found.how == "none" else f"{found.count} match{'es' * (found.count != 1)}"
    return ToolResult(for_model=text, for_log=f'Searched {reading.title or reading.url} for "{query}": {shown}',
                      data={"url": reading.url, "title": reading.title, "query": query, "how": found.how,
                            "count": found.count,
                            "passages": [{"part": p.part, "heading": p.heading, "text": p.text}
                                         for p in found.passages]}, observed_page=True)


@TOOLS.tool(level=PermissionLevel.READ_ONLY, aliases=("summarize", "summarise_page", "summarise"))
async def summarize_page(ctx: ToolContext) -> ToolResult:
    """Get the current page's content to summarise it for the user."""
    with page_errors():
        reading = await browser_of(ctx).read()
    ask = ("Summarise this page for the user: the main points in a few short bullet points, "
           "with the product and price if there is one.\n")
    limit = ctx.result_chars_for(reading.markdown)
    text = ask + reading.for_model(max(0, limit - len(ask)) if limit else 0)
    return ToolResult(for_model=text, for_log=f"Read {reading.title or reading.url} to summarise it",
                      observed_page=True)


# -- handing the page to the user -----------------------------------------------------------------


@TOOLS.tool(name=HAND_OVER_TOOL, level=PermissionLevel.READ_ONLY,
             aliases=("take_over", "hand_over", "ask_user_to_log_in", "ask_user_to_act"))
async def ask_user_to_take_over(
    ctx: ToolContext,
    reason: Annotated[str, Field(description=(
        "What the user must do on the page, in a few words, e.g. 'sign in to your account' or "
        "'solve the CAPTCHA'"))],
) -> ToolResult:
    """Hand the page to the user when it needs them: signing in, a CAPTCHA, a two-factor or one-time
    code, payment card details. The user does it in the browser and presses Continue; you then get
    a fresh read_page of the page. Never type a password or card number the user did not give you."""
    browser = browser_of(ctx)
    if browser.hand_over is None:
        raise ToolError("Nobody can take over the page here. Tell the user what they need to do on the page.")
    with page_errors():
        url = await browser.page.url()
    outcome = await browser.hand_over.request(reason, url, run_id=ctx.run_id)
    if outcome != "continued":
        return ToolResult(for_model=(f"The user cancelled the hand-over ({reason}): nothing was done on the page. "
                                     "Do not try it yourself; tell the user what is still needed."),
                          for_log="The user cancelled the hand-over")
    browser.acted_since_reading = True  # the user changed the page
    reading = await read_page_tool(ctx)
    return ToolResult(for_model="The user finished on the page and pressed Continue. The page now:\n\n"
                                + reading.for_model,
                      for_log=f"The user took over and continued; {reading.for_log}", data=reading.data,
                      observed_page=True)


@TOOLS.tool(name=LOOK_TOOL, level=PermissionLevel.READ_ONLY,
             aliases=("screenshot", "take_screenshot", "look_at_page", "view_page"))
async def look_tool(
    ctx: ToolContext,
    question: Annotated[str, Field(description="What to look for (optional; for the log)")] = "",
    boxes: Annotated[bool, Field(description=(
        "false: the page as it is, without the numbered boxes (they can hide small things: cells, dots)"))] = True,
) -> ToolResult:
    """See the visible part of the page as a screenshot, each listed element boxed with its [n], with
    the element list: for what the text does not say (a drawing, a chart, colours, layout, an icon
    without words). Act on what you see with the same [n], or click_at a point of the picture."""
    browser = browser_of(ctx)
    with page_errors():
        reading = await browser.read()  # the numbers drawn are this listing's
        png = await browser.page.screenshot(marks=boxes)
    text = reading.for_model(ctx.result_chars_for(reading.markdown), 1)
    about = f" for {question!r}" if question else ""
    drawn = "elements boxed with their [n]" if boxes else "as the page shows it (no boxes drawn)"
    return ToolResult(for_model=f"Screenshot of the visible part of the page attached, {drawn}.\n\n{text}",
                      for_log=f"Looked at {reading.title or reading.url}{about}", observed_page=True,
                      images=[Image(png, "image/png")])
