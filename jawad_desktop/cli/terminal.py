"""The terminal face of the ``Assistant``: what ``jawad ask``, ``read-page`` and ``research`` share.

- ``offscreen_page``: a QtWebEngine page in an offscreen view (Jawad's browser profile, or a
  private one), for the commands that work on a web page; ``run_on_qt`` runs a command's
  coroutine on Qt's loop and ends the process the way Qt needs (see ``ui/app.py``).
- ``TerminalPermissions``: answers the gate's permission requests with a question on the
  terminal (off the loop's thread, so the page keeps running while the user reads it).
- ``TerminalPlans``: plan-first mode's plan printed for approval (y or Enter approves); without a
  terminal the core rejects it at once and says how to run it (``core.harbor.plan``).
- ``TerminalHandOver``: when the agent hands the page to the user (a login, a CAPTCHA), prints
  why and waits for Enter (continue) or c (cancel); without a terminal the hand-over is
  cancelled at once and said on stderr (``core.tools.browser.hand_over``).
- ``TurnPrinter``: the answer streamed to stdout as it comes, the action log and (with
  ``--verbose``) what the turn used to stderr.
- ``permission_options`` / ``allowed_levels``: ``--allow``, ``--deny-all``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from jawad_desktop.cli.remedies import error_text, with_remedy
from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.pricing import describe

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.page_driver import QtWebEnginePage

LEVEL_NAMES = tuple(level.value for level in PermissionLevel)

_CHOICES = {"o": "allow-once", "s": "allow-site", "e": "allow-session", "d": "deny", "a": "deny-all", "": "deny"}


def page_url(text: str) -> str:
    """What the user typed as an address: a URL, a local file, or a bare host."""
    text = text.strip()
    if not text:
        raise JawadError("No page was given.", suggestions=["Give an address, e.g. https://example.com."])
    if "://" in text or text.startswith(("about:", "data:")):
        return text
    path = Path(text).expanduser()
    if path.exists():
        return path.resolve().as_uri()
    scheme = "http://" if text.startswith(("localhost", "127.")) else "https://"
    return scheme + text


def permission_options(parser: argparse.ArgumentParser) -> None:
    """``--allow LEVELS`` and ``--deny-all``, for every command whose agent may act."""
    group = parser.add_argument_group("permissions", "what the agent may do without asking")
    group.add_argument("--allow", metavar="LEVELS", default="",
                       help="comma-separated levels to allow without asking: read-only, navigate, interact, submit "
                            "(buying, paying, deleting always ask)")
    group.add_argument("--deny-all", action="store_true",
                       help="deny every action that needs permission, without asking")


def allowed_levels(text: str) -> list[str]:
    levels = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [level for level in levels if level not in LEVEL_NAMES]
    if unknown:
        raise JawadError(f"Unknown permission level: {', '.join(unknown)}.",
                         suggestions=[f"Use one or more of {', '.join(LEVEL_NAMES)}, e.g. --allow navigate,interact."])
    return levels


def interactive(args: argparse.Namespace) -> bool:
    """Whether a person can answer questions on this terminal (and was not told to deny all)."""
    return sys.stdin.isatty() and sys.stderr.isatty() and not getattr(args, "deny_all", False)


# -- permission questions ---------------------------------------------------------------------

def terminal_question(request: ev.PermissionRequest) -> str:
    """A permission request as the terminal shows it."""
    lines = [f"\nJawad wants to use {request.tool_name} on {request.site or 'this page'} ({request.permission_level})."]
    if request.critical:
        lines.append("  WARNING: this looks like a purchase, payment, deletion or sign-up.")
    if request.from_page_content:
        lines.append("  WARNING: the target or text comes from the web page, not from what you asked.")
    if request.data_flow:
        lines.append(f"  WARNING: {request.data_flow}. A yes allows this one call only.")
    if request.element_hint:
        lines.append(f"  Element: {request.element_hint}")
    if request.parameters:
        lines.append(f"  Arguments: {json.dumps(request.parameters, ensure_ascii=False)[:300]}")
    lines.append(f"  {request.reason}")
    lines.append("  [o] allow once  [s] allow on this site  [e] allow this session  [d] deny  [a] deny all")
    return "\n".join(lines) + "\n  Your choice (Enter = deny): "


def input_answer(question: str) -> str:
    """One keypress-word from the terminal (on a worker thread: the browser keeps running)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower()[:1]
    except (OSError, ValueError):
        return ""


class TerminalPermissions:
    """Asks the assistant's permission requests on the terminal, one at a time."""

    def __init__(self, assistant: Assistant, ask: Callable[[str], str] = input_answer) -> None:
        self.assistant = assistant
        self._ask = ask
        self._tasks: set[asyncio.Task[None]] = set()
        assistant.bus.subscribe(self._on_event)

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.PermissionRequest):
            task = asyncio.get_running_loop().create_task(self._answer(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: ev.PermissionRequest) -> None:
        answer = await asyncio.to_thread(self._ask, terminal_question(request))
        self.assistant.gate.respond(request.id, _CHOICES.get(answer, "deny"))


# -- hand-over: the user acts on the page --------------------------------------------------------

def hand_over_question(request: ev.HandOverRequested) -> str:
    """A hand-over as the terminal shows it."""
    where = f" ({request.url})" if request.url else ""
    return (f"\nJawad needs you: {request.reason.strip().rstrip('.')}.\n  Use the page{where}, then press Enter "
            "to continue (type c and Enter to cancel): ")


def input_line(question: str) -> str | None:
    """A line from the terminal (on a worker thread); None when stdin is closed."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        line = sys.stdin.readline()
    except (OSError, ValueError):
        return None
    return line if line else None


class TerminalHandOver:
    """Answers the assistant's hand-overs on the terminal: Enter continues, c cancels."""

    def __init__(self, assistant: Assistant, ask: Callable[[str], str | None] = input_line) -> None:
        self.assistant = assistant
        self._ask = ask
        self._tasks: set[asyncio.Task[None]] = set()
        assistant.bus.subscribe(self._on_event)

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.HandOverRequested):
            task = asyncio.get_running_loop().create_task(self._answer(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: ev.HandOverRequested) -> None:
        line = await asyncio.to_thread(self._ask, hand_over_question(request))
        continued = line is not None and line.strip().lower() not in ("c", "cancel")
        if self.assistant.hand_over is not None:
            self.assistant.hand_over.respond(request.id, continued)


# -- plan-first: the plan approved before the agent acts ----------------------------------------

def plan_question(plan: ev.PlanProposed) -> str:
    """A proposed plan as the terminal shows it, ending with the question."""
    lines = ["\nJawad proposes a plan" + (f" for: {' '.join(plan.request.split())[:200]}" if plan.request else ":"),
             f"  Sites: {', '.join(plan.sites) or '(none)'}", "  Actions:"]
    lines += [f"    - {action}" for action in plan.actions] or ["    (none)"]
    if plan.steps:
        lines.append("  Steps:")
        lines += [f"    {n}. {step}" for n, step in enumerate(plan.steps, 1)]
    lines.append("  Approved, what stays within it runs without asking; anything else asks.")
    return "\n".join(lines) + "\n  Approve this plan? [Y/n]: "


class TerminalPlans:
    """Asks for the approval of the assistant's proposed plans on the terminal: y or Enter approves."""

    def __init__(self, assistant: Assistant, ask: Callable[[str], str | None] = input_line) -> None:
        self.assistant = assistant
        self._ask = ask
        self._tasks: set[asyncio.Task[None]] = set()
        assistant.bus.subscribe(self._on_event)

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.PlanProposed):
            task = asyncio.get_running_loop().create_task(self._answer(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, plan: ev.PlanProposed) -> None:
        line = await asyncio.to_thread(self._ask, plan_question(plan))
        approved = line is not None and line.strip().lower() in ("", "y", "yes")
        self.assistant.gate.plans.respond(plan.id, approved)


# -- the answer on the terminal ------------------------------------------------------------------

class TurnPrinter:
    """Streams the answer to stdout (unless ``json``) and the action log to stderr (when ``verbose``)."""

    def __init__(self, bus: ev.EventBus, *, json_output: bool, verbose: bool) -> None:
        self.json_output = json_output
        self.verbose = verbose
        self.streamed: list[str] = []
        bus.subscribe(self._on_event)

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.ChatDelta) and not self.json_output:
            self.streamed.append(event.text)
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, ev.ActionLogUpdate) and self.verbose and event.entry.result != "pending":
            print(action_log_line(event.entry), file=sys.stderr, flush=True)
        elif isinstance(event, ev.Notice) and event.level != "info":
            print(f"jawad: {event.text}", file=sys.stderr, flush=True)

    def finish(self, response: ev.ChatResponse, extra: dict[str, Any] | None = None) -> int:
        """Print the end of the answer (or, with --json, the whole response); the exit code."""
        streamed = "".join(self.streamed)
        if self.json_output:
            print(json.dumps({"content": response.content, "is_error": response.is_error,
                              "interrupted": response.interrupted, **(extra or {}), "metadata": response.metadata},
                             ensure_ascii=False, indent=2))
        elif response.is_error:
            if streamed and not streamed.endswith("\n"):
                print()
            remedy = Remedy.from_json(response.metadata.get("remedy"))  # the turn's error: where to fix it
            print(f"jawad: {with_remedy(response.content, remedy)}", file=sys.stderr)
        elif not streamed.strip():
            print(response.content)
        elif not streamed.endswith("\n"):
            print()
        usage = describe(response.metadata)
        if self.verbose and usage:
            print(f"jawad: used {usage}", file=sys.stderr)
        return 1 if response.is_error else 0


def action_log_line(entry: ev.ActionLogEntry) -> str:
    """One action-log entry as a line for stderr: decision, tool, arguments, site, result."""
    arguments = json.dumps(entry.parameters, ensure_ascii=False)
    if len(arguments) > 200:
        arguments = arguments[:199] + "…"
    site = f" on {entry.site}" if entry.site else ""
    details = " ".join(entry.details.split())[:300]
    return f"[{entry.decision}] {entry.tool_name}({arguments}){site} [{entry.permission_level}]: {entry.result}" + (
        f" - {details}" if details else "")


# -- a page in an offscreen browser ----------------------------------------------------------------

def offscreen_page(ctx: AppContext | None, *, private: bool) -> QtWebEnginePage:
    """A page in an offscreen view: on Jawad's browser profile, or a private one (nothing kept)."""
    from jawad_desktop.ui.app import create_application

    create_application(headless=True)
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.ui.browser_pane import make_profile
    from jawad_desktop.ui.page_driver import QtWebEnginePage

    off_record = private or ctx is None or ctx.settings.browser.off_the_record
    profile = make_profile(None if off_record or ctx is None else ctx.paths.data / "browser")
    view = QWebEngineView()
    view.resize(1280, 900)
    view.show()
    return QtWebEnginePage(view, profile=profile)


def run_on_qt(main: Callable[[], Coroutine[Any, Any, int]], *, after: Callable[[], None] | None = None) -> NoReturn:
    """Run ``main`` on Qt's loop, call ``after`` (printing), and end the process (``ui/app.py``)."""
    from jawad_desktop.ui.app import end_process, run_loop

    try:
        code = run_loop(main)
    except KeyboardInterrupt:
        print("\njawad: interrupted", file=sys.stderr)
        end_process(130)
    except JawadError as exc:
        print(f"jawad: {error_text(exc)}", file=sys.stderr)
        end_process(1)
    if after is not None:
        after()
    end_process(code)
