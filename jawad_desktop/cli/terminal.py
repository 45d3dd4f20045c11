"""The terminal face of the ``Assistant``: what ``jawad ask``, ``read-page`` and ``research`` share.

- ``offscreen_page``: a QtWebEngine page in an offscreen view (Jawad's browser profile, or a
  private one), for the commands that work on a web page; ``run_on_qt`` runs a command's
  coroutine on Qt's loop and ends the process the way Qt needs (see ``ui/app/application.py``).
- ``TerminalQuestions``: the terminal asker. It answers the gate's permission requests, plan-first
  mode's plans (y or Enter approves) and hand-overs (the agent gives the user the page for a login
  or a CAPTCHA: Enter continues, c cancels) with questions on the terminal, one at a time, read off
  the loop's thread (the page keeps running) through the one stdin reader (``StdinLines``), whose
  reading ends with its question. Without a terminal the core decides instead (deny, reject,
  cancel: ``core.harbor``, ``core.tools.browser.hand_over``; an MCP server's question is
  declined: ``core.mcp.elicitation``).
- ``printable``/``one_line``/``printable_json``: text from pages and models as a terminal may show
  it (no escape sequences, carriage returns, bells, C1 controls or bidirectional overrides).
- ``TurnPrinter``: the answer streamed to stdout as it comes, the action log and (with
  ``--verbose``) what the turn used to stderr.
- ``permission_options`` / ``allowed_levels``: ``--allow``, ``--deny-all``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import select
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from jawad_desktop.cli.remedies import error_text, with_remedy
from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.pricing import describe
from jawad_desktop.core.sites import address_of, is_web_address, scheme_of
from jawad_desktop.core.tools.page import not_web_address

if TYPE_CHECKING:
    from jawad_desktop.browser.driver import QtWebEnginePage
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.context import AppContext

LEVEL_NAMES = tuple(level.value for level in PermissionLevel)

_CHOICES = {"o": "allow-once", "s": "allow-site", "e": "allow-session", "d": "deny", "a": "deny-all", "": "deny"}


def page_url(text: str) -> str:
    """What the user typed as an address: a web URL or a bare host. Jawad's browser opens web
    addresses only (``core.sites.is_web_address``): a local file or a ``file:``, ``data:`` or other
    address is refused with what to do instead."""
    text = text.strip()
    if not text:
        raise JawadError("No page was given.", suggestions=["Give an address, e.g. https://example.com."])
    serve = "Serve its folder on this computer (python3 -m http.server 8000 --bind 127.0.0.1 in that folder) " \
            "and give its address, e.g. http://127.0.0.1:8000/page.html."
    if not scheme_of(text) and "://" not in text and Path(text).expanduser().exists():
        raise JawadError(f"{text} is a file on this computer: Jawad reads web pages only (http and https).",
                         suggestions=[serve])
    url = address_of(text)
    if not is_web_address(url):
        raise JawadError(not_web_address(url).message,
                         suggestions=["Give an http:// or https:// address.",
                                      *([serve] if scheme_of(url) == "file" else [])])
    return url


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


# -- what may reach the terminal ----------------------------------------------------------------

# Characters a terminal acts on instead of showing: C0 controls but tab and newline (ESC starts the
# sequences that move the cursor, recolour or rewrite the screen, CR returns to the line's start, BEL
# rings), DEL, the C1 controls (U+009B is a one-character CSI), the line and paragraph separators,
# and the bidirectional overrides, embeddings, isolates and marks that reorder what is shown.
_UNPRINTABLE = dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0), 0x061C,
                              0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def printable(text: str) -> str:
    """``text`` (from a page, a model, a tool) without the characters a terminal would act on:
    page text can then neither redraw a question nor hide what it shows. Newlines and tabs stay."""
    return text.translate(_UNPRINTABLE)


def one_line(text: str) -> str:
    """``printable`` text on one line (whitespace runs, newlines included, become one space): a
    page's words inside a question cannot start a line that looks like the question's own."""
    return " ".join(printable(text).split())


def printable_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters ``printable`` drops
    written as ``\\uXXXX`` escapes instead: the same JSON, harmless on a terminal."""
    return "".join(f"\\u{ord(c):04x}" if ord(c) in _UNPRINTABLE and c not in "\n\t" else c for c in text)


# -- questions on the terminal -------------------------------------------------------------------
# The permission requests, plan approvals and hand-overs the core asks; each is settled once by an
# answer, its own clock or Stop (PermissionSettled, PlanSettled, HandOverFinished).

def terminal_question(request: ev.PermissionRequest) -> str:
    """A permission request as the terminal shows it (the page's words on one line each, printable)."""
    site = one_line(request.site)
    lines = [f"\nJawad wants to use {one_line(request.tool_name)} on {site or 'this page'} "
             f"({one_line(request.permission_level)})."]
    if request.critical:
        lines.append("  WARNING: this looks like a purchase, payment, deletion or sign-up.")
    if request.from_page_content:
        lines.append("  WARNING: the target or text comes from the web page, not from what you asked.")
    if request.data_flow:
        lines.append(f"  WARNING: {one_line(request.data_flow)}. A yes allows this one call only.")
    if request.element_hint:
        lines.append(f"  Element: {one_line(request.element_hint)}")
    if request.parameters:
        lines.append(f"  Arguments: {one_line(json.dumps(request.parameters, ensure_ascii=False)[:300])}")
    lines.append(f"  {one_line(request.reason)}")
    # A page with no site (a local file, a data: page) is never granted: once or not at all.
    lines.append("  [o] allow once  [s] allow on this site  [e] allow this session  [d] deny  [a] deny all" if site
                 else "  [o] allow once  [d] deny  [a] deny all")
    return "\n".join(lines) + "\n  Your choice (Enter = deny): "


def hand_over_question(request: ev.HandOverRequested) -> str:
    """A hand-over as the terminal shows it."""
    where = f" ({one_line(request.url)})" if request.url else ""
    return (f"\nJawad needs you: {one_line(request.reason).rstrip('.')}.\n  Use the page{where}, then press Enter "
            "to continue (type c and Enter to cancel): ")


def plan_question(plan: ev.PlanProposed) -> str:
    """A proposed plan as the terminal shows it, ending with the question."""
    lines = ["\nJawad proposes a plan" + (f" for: {one_line(plan.request)[:200]}" if plan.request else ":"),
             f"  Sites: {one_line(', '.join(plan.sites)) or '(none)'}", "  Actions:"]
    lines += [f"    - {one_line(action)}" for action in plan.actions] or ["    (none)"]
    if plan.steps:
        lines.append("  Steps:")
        lines += [f"    {n}. {one_line(step)}" for n, step in enumerate(plan.steps, 1)]
    lines.append("  Approved, what stays within it runs without asking; anything else asks.")
    return "\n".join(lines) + "\n  Approve this plan? [Y/n]: "


class StdinLines:
    """The one reader of the terminal's input: one question reads at a time, and its reading ends
    when its question does (answered elsewhere, timed out, stopped), so a question that timed out
    never keeps a reader that would swallow the answer to the next. What was typed before a
    question shows is dropped (a late answer to the last question does not answer this one)."""

    POLL_S = 0.1

    def __init__(self, fd: int | None = None) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self._pending = b""
        self._closed = False

    def _input_fd(self) -> int:
        return sys.stdin.fileno() if self._fd is None else self._fd

    def read_line(self, question: str, done: threading.Event) -> str | None:
        """Show ``question`` on stderr and read one line; None when stdin ended or ``done`` was set
        first (the question was settled without this answer)."""
        with self._lock:
            if done.is_set():
                return None
            self._drop_typed_ahead()
            sys.stderr.write(question)
            sys.stderr.flush()
            while not done.is_set():
                if b"\n" in self._pending:
                    line, self._pending = self._pending.split(b"\n", 1)
                    return line.decode("utf-8", "replace")
                if self._closed:
                    return None
                self._read_some()
            sys.stderr.write("\n  (This question was settled without your answer: it timed out or the task "
                             "stopped.)\n")
            sys.stderr.flush()
            return None

    def _read_some(self) -> None:
        try:
            fd = self._input_fd()
            ready, _, _ = select.select([fd], [], [], self.POLL_S)
            if not ready:
                return
            chunk = os.read(fd, 4096)
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            self._closed = True
            self._pending += b"\n" if self._pending else b""  # a last line without its newline counts
            return
        self._pending += chunk

    def _drop_typed_ahead(self) -> None:
        self._pending = b""
        with contextlib.suppress(OSError, ValueError, ImportError):
            import termios  # POSIX terminals: what was typed and not yet read is discarded

            fd = self._input_fd()
            if os.isatty(fd):
                termios.tcflush(fd, termios.TCIFLUSH)


STDIN = StdinLines()

Answer = Callable[["Assistant", Any, "str | None"], None]


def _answer_permission(assistant: Assistant, request: ev.PermissionRequest, line: str | None) -> None:
    choice = (line or "").strip().lower()[:1]
    assistant.gate.respond(request.id, _CHOICES.get(choice, "deny"))


def _answer_plan(assistant: Assistant, plan: ev.PlanProposed, line: str | None) -> None:
    assistant.gate.plans.respond(plan.id, line is not None and line.strip().lower() in ("", "y", "yes"))


def _answer_hand_over(assistant: Assistant, request: ev.HandOverRequested, line: str | None) -> None:
    if assistant.hand_over is not None:
        assistant.hand_over.respond(request.id, line is not None and line.strip().lower() not in ("c", "cancel"))


# What each kind of question is: how it is shown, how a line answers it, and the event that settles it.
_KINDS: dict[type[ev.Event], tuple[Callable[[Any], str], Answer]] = {
    ev.PermissionRequest: (terminal_question, _answer_permission),
    ev.PlanProposed: (plan_question, _answer_plan),
    ev.HandOverRequested: (hand_over_question, _answer_hand_over),
}
_SETTLED = (ev.PermissionSettled, ev.PlanSettled, ev.HandOverFinished, ev.ElicitationSettled)


def elicitation_question(request: ev.ElicitationRequested) -> str:
    """An MCP server's question as the terminal shows it first: what it asks, and the choice."""
    lines = [f"\nThe MCP server {one_line(request.server)} asks you: {one_line(request.message)}"]
    if request.url:
        lines.append(f"  It wants you to open this page: {one_line(request.url)}")
        return "\n".join(lines) + "\n  [o] open it  [d] decline  [c] cancel (Enter = decline): "
    return "\n".join(lines) + "\n  [a] answer  [d] decline  [c] cancel (Enter = decline): "


def elicitation_field(name: str, spec: dict[str, Any], required: bool) -> str:
    """One field of a server's form as a terminal question (its default kept on Enter)."""
    from jawad_desktop.core.mcp.elicitation import choices

    label = one_line(str(spec.get("title") or name))
    about = f" ({one_line(str(spec['description']))})" if spec.get("description") else ""
    options = choices(spec)
    kind = spec.get("type", "string")
    if options:
        hint = ", ".join(one_line(v if v == t else f"{v} = {t}") for v, t in options)
        hint = ("one or more of " if kind == "array" else "one of ") + hint + (", comma-separated" if kind == "array"
                                                                                else "")
    else:
        hint = {"boolean": "yes or no", "integer": "a whole number", "number": "a number"}.get(kind, "text")
    default = f"; Enter = {one_line(json.dumps(spec['default'], ensure_ascii=False))}" if "default" in spec else ""
    need = "" if required or default else "; Enter = leave empty"
    return f"  {label}{about} [{hint}{default}{need}]: "


class TerminalQuestions:
    """Asks the assistant's questions on the terminal, one at a time: permission requests (o, s, e, d
    or a; Enter denies), plan-first mode's plans (y or Enter approves), hand-overs (Enter
    continues, c cancels) and MCP servers' questions (a answers the form field by field, d or Enter
    declines, c cancels). The reading happens off the loop's thread (the page keeps running); a
    question settled without its answer (its clock, Stop) stops its reading and says so."""

    def __init__(self, assistant: Assistant, lines: StdinLines = STDIN) -> None:
        self.assistant = assistant
        self.lines = lines
        self._tasks: set[asyncio.Task[None]] = set()
        self._open: dict[str, threading.Event] = {}  # question id -> set when it is settled
        assistant.bus.subscribe(self._on_event)
        assistant.elicitations.answered_here()  # for the life of the command

    def _on_event(self, event: ev.Event) -> None:
        kind = _KINDS.get(type(event))
        if isinstance(event, ev.ElicitationRequested):
            self._open[event.id] = threading.Event()
            task = asyncio.get_running_loop().create_task(self._elicit(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif kind is not None:
            question_id = str(getattr(event, "id", ""))
            self._open[question_id] = threading.Event()
            task = asyncio.get_running_loop().create_task(self._ask(event, question_id, *kind))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif isinstance(event, _SETTLED):
            done = self._open.get(str(getattr(event, "id", "")))
            if done is not None and not done.is_set():
                done.set()

    async def _elicit(self, request: ev.ElicitationRequested, tries: int = 3) -> None:
        """An MCP server's question: the choice, then (to answer) one line per field of its form,
        checked by the core; what does not fit is said and the form asked again."""
        from jawad_desktop.core.mcp.elicitation import fields

        done = self._open[request.id]
        elicitations = self.assistant.elicitations
        try:
            line = await asyncio.to_thread(self.lines.read_line, elicitation_question(request), done)
            choice = (line or "").strip().lower()[:1]
            if done.is_set():
                return
            if choice == "c":
                elicitations.respond(request.id, "cancel")
                return
            if choice not in ("a", "o"):
                elicitations.respond(request.id, "decline")
                return
            if request.url:
                import webbrowser

                await asyncio.to_thread(webbrowser.open, request.url)
                elicitations.respond(request.id, "accept")
                return
            for _ in range(tries):
                values: dict[str, Any] = {}
                for name, spec, required in fields(request.schema):
                    answer = await asyncio.to_thread(self.lines.read_line, elicitation_field(name, spec, required),
                                                     done)
                    if answer is None:
                        if not done.is_set():
                            elicitations.respond(request.id, "cancel")
                        return
                    values[name] = answer.strip()
                problems = elicitations.respond(request.id, "accept", values)
                if not problems:
                    return
                sys.stderr.write("".join(f"  ! {one_line(problem)}\n" for problem in problems))
            elicitations.respond(request.id, "cancel")
        finally:
            self._open.pop(request.id, None)

    async def _ask(self, event: ev.Event, question_id: str, show: Callable[[Any], str], answer: Answer) -> None:
        done = self._open[question_id]
        try:
            line = await asyncio.to_thread(self.lines.read_line, show(event), done)
        finally:
            self._open.pop(question_id, None)
        if not done.is_set():  # else settled meanwhile: the line, if any, answers nothing
            done.set()
            answer(self.assistant, event, line)


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
            sys.stdout.write(printable(event.text))
            sys.stdout.flush()
        elif isinstance(event, ev.ActionLogUpdate) and self.verbose and event.entry.result != "pending":
            print(action_log_line(event.entry), file=sys.stderr, flush=True)
        elif isinstance(event, ev.Notice) and event.level != "info":
            print(f"jawad: {printable(event.text)}", file=sys.stderr, flush=True)

    def finish(self, response: ev.ChatResponse, extra: dict[str, Any] | None = None) -> int:
        """Print the end of the answer (or, with --json, the whole response); the exit code."""
        streamed = "".join(self.streamed)
        if self.json_output:
            print(printable_json(json.dumps({"content": response.content, "is_error": response.is_error,
                                             "interrupted": response.interrupted, **(extra or {}),
                                             "metadata": response.metadata}, ensure_ascii=False, indent=2)))
        elif response.is_error:
            if streamed and not streamed.endswith("\n"):
                print()
            remedy = Remedy.from_json(response.metadata.get("remedy"))  # the turn's error: where to fix it
            print(f"jawad: {printable(with_remedy(response.content, remedy))}", file=sys.stderr)
        elif not streamed.strip():
            print(printable(response.content))
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
    details = one_line(entry.details)[:300]
    return one_line(f"[{entry.decision}] {entry.tool_name}({arguments}){site} [{entry.permission_level}]: "
                    f"{entry.result}") + (f" - {details}" if details else "")


# -- a page in an offscreen browser ----------------------------------------------------------------

def offscreen_page(ctx: AppContext | None, *, private: bool) -> QtWebEnginePage:
    """A page in an offscreen view: on Jawad's browser profile, or a private one (nothing kept)."""
    from jawad_desktop.ui.app.application import create_application

    create_application(headless=True)
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.browser.driver import QtWebEnginePage
    from jawad_desktop.browser.guarded_page import make_profile

    off_record = private or ctx is None or ctx.settings.browser.off_the_record
    profile = make_profile(None if off_record or ctx is None else ctx.paths.data / "browser")
    view = QWebEngineView()
    view.resize(1280, 900)
    view.show()
    return QtWebEnginePage(view, profile=profile)


def run_on_qt(main: Callable[[], Coroutine[Any, Any, int]], *, after: Callable[[], None] | None = None) -> NoReturn:
    """Run ``main`` on Qt's loop, call ``after`` (printing), and end the process (``ui/app/application.py``)."""
    from jawad_desktop.ui.app.application import end_process, run_loop

    try:
        code = run_loop(main)
    except KeyboardInterrupt:
        print("\njawad: interrupted", file=sys.stderr)
        end_process(130)
    except JawadError as exc:
        print(f"jawad: {printable(error_text(exc))}", file=sys.stderr)
        end_process(1)
    if after is not None:
        after()
    end_process(code)
