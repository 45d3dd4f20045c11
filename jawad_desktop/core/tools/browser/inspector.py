"""What a browser call really does, told to Harbor before it runs, and the browser's navigation guard.

``inspect`` is the ``HarborGate`` inspector (``inspector_for(session)`` binds it to a session). Before
a call is allowed it resolves and highlights the target in the visible browser, and tells
Harbor whether it is a critical action (buy, pay, delete...: by its words, where it leads, and what
surrounds it on the page, ``critical``) and why, whether it changes a privacy or
security setting the user did not ask about (asked always), whether its target or text came
from the page rather than from the user, and what the call sends where (a URL, a link's address, a
submitted form's values and action) for the gate's data-flow check (``core.harbor.dataflow``).
``make_navigation_guard`` lets the page driver refuse a cross-site navigation an action starts
unless Harbor would let ``navigate`` go there without asking and it carries nothing read on
another site. A download an action started is put
to the gate as ``download`` (``downloads``); an upload is always critical (asked every time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import CallInsight, Inspector, PermissionCheck
from jawad_desktop.core.harbor.policy import PermissionLevel, Verdict, is_critical_action, is_sensitive_setting
from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.browser.by_text import find_by_text
from jawad_desktop.core.tools.browser.critical import action_facts, why_critical
from jawad_desktop.core.tools.browser.downloads import DOWNLOAD_TOOL, download_insight
from jawad_desktop.core.tools.browser.provenance import said_by_user
from jawad_desktop.core.tools.keys import parse_keys
from jawad_desktop.core.tools.page import ElementInfo, Page, PageError, Target

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession

NAVIGATING_TOOLS = ("navigate", "search_web")
ACTING_TOOLS = ("click_element", "click_text", "fill_form", "select_option", "set_checked", "press_key", "type_text",
                "drag_and_drop", "upload_file")

TYPING_TOOLS = ("fill_form", "type_text", "select_option")
# What changes a setting: ticking, choosing, clicking a switch or a button (not typing, not a link: an
# article's headline about "third-party cookies" is no setting).
SETTING_TOOLS = ("click_element", "click_text", "select_option", "set_checked")
CLICKING_TOOLS = ("click_element", "click_text")

NavigationGuard = Callable[[str, str], bool]
RequestGuard = Callable[[str, str, str], bool]  # (the page's address, the request's, its method) -> allowed


async def inspect(session: BrowserSession, check: PermissionCheck) -> CallInsight | None:
    """What a call really does, for Harbor, with its target highlighted while it is decided."""
    args = check.arguments
    name = check.tool
    users = [*session.user_texts, *check.user_texts]
    page = session.page
    if name in NAVIGATING_TOOLS:
        return _navigation_insight(session, name, args)
    if name == DOWNLOAD_TOOL:
        return download_insight(session.harbor, check)
    if name not in ACTING_TOOLS:
        return None
    try:
        target = await _target_of(page, name, args)
        if target is None:
            return None
        info = await page.describe(target)
    except PageError:
        return None  # the tool itself will report the element as gone
    page_url = await page.url()
    submits = info.is_submit or (name == "fill_form" and bool(args.get("submit"))) or _presses_enter(name, args)
    leads_to = info.href or (info.form_action if submits else "")
    why = await _why_critical(page, target, name, info, leads_to=leads_to, page_url=page_url, submits=submits)
    critical = bool(why)
    # Without the user's words (nobody noted them) the agent's own hint decides.
    from_page: bool | None = None
    if users:
        from_page = not said_by_user(info.label, users)
        text = str(args.get("text", "") or args.get("option", ""))
        if text and not said_by_user(text, users):
            from_page = True
    reading = session.last_reading
    planted = bool(reading and any(
        info.label and info.label.casefold() in s.casefold() for s in reading.injections))
    notes = []
    # A privacy or security setting the user did not ask about (data shared with partners, two-factor
    # sign-in turned off): asked whatever the levels and grants, as a page may plant the request.
    sensitive = (name in SETTING_TOOLS and not info.href and info.role.upper() != "LINK"
                 and from_page is not False and is_sensitive_setting(info.label))
    if sensitive:
        notes.append(f'"{info.label}" is a privacy or security setting you did not ask to change')
    if planted:
        notes.append(f'The page itself contains text telling the assistant to use "{info.label}"')
    elsewhere = site_of(leads_to) if leads_to and site_of(leads_to) != site_of(page_url) else ""
    if elsewhere:
        notes.append(f"It leads to another site, {elsewhere}")
    if name == "upload_file":
        notes.append(f"It would give the file {args.get('path', '')} to {site_of(page_url) or 'this page'}")
    elif why:
        notes.insert(0, why)
    note = ". ".join(notes)
    sends, sends_to = _what_leaves(session, info, page_url, submits=submits)
    typed = [str(args.get(k, "")) for k in ("text", "option") if args.get(k)] if name in TYPING_TOOLS else []
    hint = f'{info.role} "{info.label}"' + (f" -> {info.selector}" if info.selector else "")
    verdict = None
    if session.harbor is not None:
        verdict = session.harbor.check(name, check.level, check.site, current_site=check.current_site,
                                       critical=critical)
    if verdict is not Verdict.AUTO_APPROVE:
        with contextlib.suppress(PageError):
            await page.highlight(target, "Jawad asks: " + name.replace("_", " "))

    async def settled(allowed: bool) -> None:
        if allowed:
            for text in typed:
                session.note_typed(page_url, text)
        if not allowed:
            await page.clear_highlight()
        elif elsewhere and verdict is not Verdict.AUTO_APPROVE:
            # The user saw where it leads and allowed it: the browser may follow this once.
            page.allow_navigation_once(leads_to)

    return CallInsight(critical=critical, from_page_content=True if planted or sensitive else from_page,
                       force_ask=sensitive, element_hint=hint, note=note, on_settled=settled, sends=sends,
                       sends_to=sends_to)


def _navigation_insight(session: BrowserSession, name: str, args: Mapping[str, Any]) -> CallInsight:
    """A navigate or search_web call: the gate's data-flow check looks at the URL for values read on
    another site, and at what an address the assistant composed carries (``DataFlow.composed``; the
    engine's own address is not)."""
    url = str(args.get("url", "")) if name == "navigate" else session.search_url(str(args.get("query", "")))
    fixed = session.search_url("") if name == "search_web" else ""
    return CallInsight(site=site_of(url), sends=(url,), opens=url, opens_fixed=fixed)


def _what_leaves(session: BrowserSession, info: ElementInfo, page_url: str, *,
                 submits: bool) -> tuple[tuple[str, ...], str]:
    """What leaves with an action, for the gate's data-flow check, and the site it goes to: a link's
    address; for a submit, what the agent typed into this page's fields and the form's action, sent
    to the action's site."""
    if submits:
        return ((*session.typed_on(page_url), *([info.form_action] if info.form_action else [])),
                site_of(info.form_action) or site_of(page_url))
    if info.href:
        return (info.href,), site_of(info.href)
    return (), ""


async def _why_critical(page: Page, target: Target, name: str, info: ElementInfo, *, leads_to: str, page_url: str,
                        submits: bool) -> str:
    """Why the call is a critical action (paying, ordering, deleting, subscribing, setting a password),
    in the question's words; "" when it is not. Its words and destination first (Harbor's lists), then
    what surrounds the control on the page (``critical``): a neutral "Continue" hides nothing."""
    if name == "upload_file":
        return "A file given to a page is the site's at once"
    if is_critical_action(info.label):
        return f'Its label "{info.label}" says it buys, pays, orders, deletes, subscribes or changes a password'
    for url in (leads_to, page_url if submits else ""):
        if url and is_critical_action("", url):
            return f"It leads to {urlsplit(url).path}, an address that pays, orders or deletes"
    if name not in CLICKING_TOOLS and not submits:
        return ""  # typing, choosing, ticking: what surrounds the field is not done by filling it
    facts = await action_facts(page, target)
    return why_critical(facts, info, submits=submits, page_url=page_url) if facts is not None else ""


async def _target_of(page: Page, name: str, args: Mapping[str, Any]) -> Target | None:
    """The element a call acts on: its index or selector, or for ``click_text`` the element showing
    its words (resolved as the tool will resolve them)."""
    if name == "click_text":
        return (await find_by_text(page, str(args.get("text", "")), int(args.get("nth") or 1))).target
    dragged = name == "drag_and_drop"  # what is dragged is what the user is asked about
    index = args.get("from_index" if dragged else "index")
    selector = args.get("from_selector" if dragged else "selector")
    if index is None and not selector:
        return None
    return Target(index=int(index) if index is not None else None,
                  selector=None if index is not None else str(selector))


def _presses_enter(name: str, args: Mapping[str, Any]) -> bool:
    """Whether keys the call sends include Enter, which sends the field's form."""
    if name == "type_text":
        return "\n" in str(args.get("text", ""))
    if name != "press_key":
        return False
    try:
        return parse_keys(str(args.get("key", ""))).key == "Enter"
    except ValueError:
        return False


def make_navigation_guard(harbor: Harbor) -> NavigationGuard:
    """A navigation guard for the page driver: a cross-site navigation an agent action starts
    goes through only when Harbor would let ``navigate`` run there without asking."""

    def guard(from_url: str, to_url: str) -> bool:
        verdict = harbor.check("navigate", PermissionLevel.NAVIGATE, site_of(to_url),
                               current_site=site_of(from_url))
        if verdict is not Verdict.AUTO_APPROVE:
            return False
        # A page that carries what was read elsewhere off in its own redirect (a script that builds
        # ``evil.example/?o=<order>`` after a click) is stopped as the agent's navigate would be asked.
        return not harbor.dataflow.leaks([to_url], site_of(to_url))

    return guard


def make_request_guard(harbor: Harbor, session: BrowserSession) -> RequestGuard:
    """A guard for the requests a page makes itself (its scripts' fetches, beacons, form posts) to
    another site: none may carry what the agent read, in any disguise (issue 28). A request whose
    address carries a read value is refused; so is one that sends a body (POST, PUT, PATCH) from
    a page the agent typed read values into, as its script may be sending them on (VPI-Bench's
    form that a script posts to the attacker): the browser shows no request body to check."""

    def guard(page_url: str, request_url: str, method: str) -> bool:
        to = site_of(request_url)
        if not to or to == site_of(page_url):
            return True
        flow = harbor.dataflow
        if flow.leaks([request_url], to):
            return False
        if method.upper() in ("GET", "HEAD", "OPTIONS"):
            return True
        typed = session.typed_on(page_url)
        return not (typed and flow.leaks(typed, to))

    return guard


def inspector_for(session: BrowserSession) -> Inspector:
    """The ``HarborGate`` inspector for ``session``'s page."""

    async def inspect_call(check: PermissionCheck) -> CallInsight | None:
        return await inspect(session, check)

    return inspect_call
