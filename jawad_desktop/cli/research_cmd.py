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
import threading
from typing import Any

from jawad_desktop.cli.providers_cmd import add_provider_selection, client_from_args
from jawad_desktop.cli.terminal import (
    STDIN,
    TerminalQuestions,
    offscreen_page,
    printable,
    printable_json,
    run_on_qt,
)
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
    line = STDIN.read_line("Run this plan? [y/N] ", threading.Event())
    return line is not None and line.strip().lower() in ("y", "yes")


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    intent = read_intent(args.intent)
    if not 1 <= args.max_steps <= MAX_STEPS:
        raise JawadError(f"--max-steps must be between 1 and {MAX_STEPS}.")
    plan = asyncio.run(_make_plan(args, ctx, intent))
    print(printable(plan_text(plan)), file=sys.stderr if args.json else sys.stdout, flush=True)
    if args.plan_only:
        if args.json:
            print(printable_json(json.dumps(plan.to_payload(), ensure_ascii=False, indent=2)))
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
    from jawad_desktop.core.assistant import Assistant

    print("Planning…", file=sys.stderr, flush=True)
    assistant = Assistant(ctx, client=client_from_args(args, ctx), ask=False, save=False)
    try:
        return await assistant.plan_research(intent, max_steps=args.max_steps)
    finally:
        await assistant.aclose()


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
            print(printable(head), file=sys.stderr, flush=True)
        steps_done = bool(steps) and all(s.get("status") not in ("pending", "running") for s in steps)
        if payload.get("status") == "running" and steps_done and "_answer" not in self.seen:
            self.seen["_answer"] = "writing"
            print("Writing the answer…", file=sys.stderr, flush=True)


def _run_plan(args: argparse.Namespace, ctx: AppContext, plan: ResearchPlan, interactive: bool) -> int:
    """Run the approved plan in an offscreen browser; ends the process (Qt, see ui/app/application.py)."""
    from jawad_desktop.core import events
    from jawad_desktop.core.assistant import Assistant

    conversation_id: str | None = None
    if args.conversation:
        from jawad_desktop.core.store.conversations import ConversationStore

        with ConversationStore.open(ctx.paths.data) as store:
            conversation_id = store.resolve_id(args.conversation)
    page = offscreen_page(ctx, private=args.private)
    progress = _Progress()
    outcome: dict[str, Any] = {}

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.WorkflowUpdate) and event.plan.get("id") == plan.id:
            progress(event.plan)

    ctx.bus.subscribe(on_event)

    async def main() -> int:
        assistant = Assistant(ctx, page=page, client=client_from_args(args, ctx, announce_retries=False),
                              ask=interactive, save=bool(args.save or args.conversation),
                              conversation_id=conversation_id)
        if interactive:
            TerminalQuestions(assistant)  # permissions, and a step that needs a login or a CAPTCHA
        try:
            # A view that never loaded a page has no page script to read it with: start on a blank page.
            await page.navigate("about:blank")
            await assistant.connect_mcp()
            finished = await assistant.research_executor(plan.intent).execute(plan)
            outcome["plan"], outcome["conversation"] = finished, assistant.conversation_id
            return 0 if finished.status.value == "completed" else 1
        finally:
            await assistant.aclose()
            await page.close(release_profile=True)

    def after() -> None:
        finished: ResearchPlan | None = outcome.get("plan")
        if finished is None:
            return
        if args.json:
            print(printable_json(json.dumps(finished.to_payload(), ensure_ascii=False, indent=2)))
        elif finished.status.value == "completed":
            print("\n" + printable(finished.answer))
        else:
            print(f"jawad: {printable(finished.answer)}", file=sys.stderr)
        saved_in = outcome.get("conversation")
        if saved_in:
            print(f"Saved in conversation {saved_in[:8]} (jawad history show {saved_in[:8]}).", file=sys.stderr)

    run_on_qt(main, after=after)
