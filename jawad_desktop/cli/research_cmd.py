"""``jawad research "INTENT"``: plan a multi-step browser research, approve it, run it, print the answer.

The plan is made first, without a browser, and printed. ``--yes`` approves it; otherwise it is
asked on an interactive terminal, and refused (exit 1, nothing run) when nobody can answer.
The approved plan runs in an offscreen browser on Jawad's profile (``--private`` for a
throwaway one); each step's progress goes to stderr, the answer and its sources to stdout
(``--json``: the whole plan as spec 001's WorkflowPlan). With ``--save`` or ``--conversation``
the plan, its results and the answer are kept in a conversation (see ``jawad history``).
Permission questions a step raises (critical actions...) are asked on the terminal, or denied.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Any

from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.research.plan import MAX_STEPS, ResearchPlan

log = logging.getLogger("jawad.research")


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "research",
        help="plan a multi-step browser research, approve it, and get an answer with sources",
        description="Ask the model for a research plan (steps done in a browser), print it, and once you approve "
        "it run each step in an offscreen browser with that step's permissions. The answer cites the pages read.",
    )
    parser.add_argument("intent", help='what to research, e.g. "compare the price of the Acme kettle in 3 shops" '
                                       '("-" reads it from standard input)')
    parser.add_argument("--yes", "-y", action="store_true", help="run the plan without asking for approval")
    parser.add_argument("--plan-only", action="store_true", help="print the plan and stop")
    parser.add_argument("--json", action="store_true", help="print the finished plan (answer, citations) as JSON")
    parser.add_argument("--max-steps", type=int, default=MAX_STEPS, metavar="N",
                        help=f"at most N steps (1 to {MAX_STEPS}, default {MAX_STEPS})")
    parser.add_argument("--private", action="store_true",
                        help="use a private browser profile (no cookies kept) instead of Jawad's own")
    saving = parser.add_mutually_exclusive_group()
    saving.add_argument("--save", action="store_true", help="save the research in a new conversation")
    saving.add_argument("--conversation", metavar="ID", help="save the research in this conversation (id or prefix)")
    add_provider_selection(parser)
    parser.set_defaults(handler=run)
    return parser


def read_intent(value: str) -> str:
    intent = sys.stdin.read() if value == "-" else value
    intent = " ".join(intent.split())
    if not intent:
        raise JawadError("The research intent is empty.",
                         suggestions=['Run `jawad research "compare the price of X in three shops"`.'])
    return intent


def plan_text(plan: ResearchPlan) -> str:
    """The plan as the terminal shows it."""
    lines = [f"Research plan for: {plan.intent}"]
    for number, step in enumerate(plan.steps, 1):
        levels = ", ".join(level.value for level in step.permissions)
        lines.append(f"  {number}. [{step.agent}] {step.task}")
        if step.site:
            lines.append(f"     site: {step.site}")
        lines.append(f"     permissions: {levels}")
    return "\n".join(lines)


def _ask_approval() -> bool:
    sys.stderr.write("Run this plan? [y/N] ")
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (OSError, ValueError):
        return False


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    intent = read_intent(args.intent)
    if not 1 <= args.max_steps <= MAX_STEPS:
        raise JawadError(f"--max-steps must be between 1 and {MAX_STEPS}.")
    plan = asyncio.run(_make_plan(args, ctx, intent))
    print(plan_text(plan), file=sys.stderr if args.json else sys.stdout, flush=True)
    if args.plan_only:
        if args.json:
            print(json.dumps(plan.to_payload(), ensure_ascii=False, indent=2))
        return 0
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    if not args.yes:
        if not interactive:
            raise JawadError("The plan was not run: nobody can approve it here (no interactive terminal).",
                             suggestions=["Add --yes to run it without asking, or run the command in a terminal.",
                                          "Use --plan-only to only see the plan."])
        if not _ask_approval():
            print("The plan was not run.", file=sys.stderr)
            return 1
    return _run_plan(args, ctx, plan, interactive)


async def _make_plan(args: argparse.Namespace, ctx: AppContext, intent: str) -> ResearchPlan:
    from jawad_desktop.core.research.planner import Planner

    print("Planning…", file=sys.stderr, flush=True)
    async with client_from_args(args, ctx) as client:
        return await Planner(client, max_steps=args.max_steps).plan(intent)


class _Progress:
    """Prints each step's changes of status, once each, from the WorkflowUpdate events."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, payload: dict[str, Any]) -> None:
        steps = payload.get("steps") or []
        for number, step in enumerate(steps, 1):
            status = str(step.get("status", ""))
            if self.seen.get(step["id"]) == status or status == "pending":
                continue
            self.seen[step["id"]] = status
            head = f"[{number}/{len(steps)}] {status}: {step.get('task', '')}"
            result = " ".join(str(step.get("result", "")).split())
            if status in ("completed", "failed", "skipped") and result:
                head += f"\n      {result[:300]}"
            print(head, file=sys.stderr, flush=True)
        steps_done = bool(steps) and all(s.get("status") not in ("pending", "running") for s in steps)
        if payload.get("status") == "running" and steps_done and "_answer" not in self.seen:
            self.seen["_answer"] = "writing"
            print("Writing the answer…", file=sys.stderr, flush=True)


def _run_plan(args: argparse.Namespace, ctx: AppContext, plan: ResearchPlan, interactive: bool) -> int:
    """Run the approved plan in an offscreen browser; ends the process (Qt, see ui/app.py)."""
    from jawad_desktop.cli.read_page_cmd import terminal_asker
    from jawad_desktop.core import events
    from jawad_desktop.ui.app import create_application, end_process, run_loop

    create_application(headless=True)
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.core.research.executor import ResearchExecutor
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.core.tools.browser import browser_kit
    from jawad_desktop.ui.browser_pane import make_profile
    from jawad_desktop.ui.page_driver import QtWebEnginePage

    store: ConversationStore | None = None
    conversation_id: str | None = None
    if args.save or args.conversation:
        store = ConversationStore.open(ctx.paths.data)
        conversation_id = store.resolve_id(args.conversation) if args.conversation else store.create().id
        from jawad_desktop.core.llm.types import Message

        store.append_message(conversation_id, Message(role="user", content=f"/research {plan.intent}"))
    private = args.private or ctx.settings.browser.off_the_record
    profile = make_profile(None if private else ctx.paths.data / "browser")
    view = QWebEngineView()
    view.resize(1280, 900)
    view.show()
    page = QtWebEnginePage(view, profile=profile)
    kit = browser_kit(ctx.settings, ctx.bus, page, config_dir=ctx.paths.config, data_dir=ctx.paths.data,
                      ask=interactive)
    progress = _Progress()
    outcome: dict[str, Any] = {}

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.WorkflowUpdate) and event.plan.get("id") == plan.id:
            progress(event.plan)
        elif isinstance(event, events.PermissionRequest) and interactive:
            ask_terminal(event)

    ask_terminal = terminal_asker(kit)

    ctx.bus.subscribe(on_event)

    async def main() -> int:
        client = client_from_args(args, ctx, announce_retries=False)
        try:
            # A view that never loaded a page has no page script to read it with: start on a blank page.
            await page.navigate("about:blank")
            executor = ResearchExecutor.for_kit(ctx, client, kit, page, store=store, conversation_id=conversation_id)
            finished = await executor.execute(plan)
            outcome["plan"] = finished
            return 0 if finished.status.value == "completed" else 1
        finally:
            await client.aclose()
            kit.close()
            await page.close(release_profile=True)

    try:
        code = run_loop(main)
    except KeyboardInterrupt:
        print("\njawad: interrupted", file=sys.stderr)
        end_process(130)
    finished: ResearchPlan | None = outcome.get("plan")
    if finished is not None:
        if args.json:
            print(json.dumps(finished.to_payload(), ensure_ascii=False, indent=2))
        elif finished.status.value == "completed":
            print("\n" + finished.answer)
        else:
            print(f"jawad: {finished.answer}", file=sys.stderr)
        if conversation_id and store is not None:
            print(f"Saved in conversation {conversation_id[:8]} (jawad history show {conversation_id[:8]}).",
                  file=sys.stderr)
    if store is not None:
        store.close()
    end_process(code)
