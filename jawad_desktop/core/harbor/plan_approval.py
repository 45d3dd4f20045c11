"""Plan-first mode: the plan the user approves before the agent acts, and its round trip.

Before the first action of a turn the agent proposes an ``ActionPlan``: the sites it will use,
the kinds of actions (read, navigate, interact, submit, download), each with a one-line purpose,
and its steps. ``PlanApproval`` is the round trip, the same shape as the permission gate's
(``core.harbor.gate``): ``propose`` emits ``PlanProposed`` and waits for ``respond(id, approved)``
from whoever shows it (the window's plan panel, the terminal); whatever settles it (an answer, the
timeout, Stop) is announced once as ``PlanSettled``. When nobody can answer (``ask=False``: a
terminal without a person) the plan is rejected at once. A plan that only reads is not asked about
(reading runs anyway); it holds all the same, so any action asks.

An approved plan holds for its run: ``HarborGate`` lets a call through without a question when its
site is one of the plan's and its level one of the plan's kinds (``ActionPlan.covers``); anything
else asks, with the note "not in the approved plan". Critical actions and data leaving for another
site ask whatever the plan says.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

from jawad_desktop.core.events import EventBus, PlanOutcome, PlanProposed, PlanSettled, new_id, now_ms
from jawad_desktop.core.harbor.policy import PermissionLevel, Verdict
from jawad_desktop.core.sites import site_of

log = logging.getLogger("jawad.harbor")

__all__ = ["ACTION_KINDS", "NOT_IN_PLAN", "ActionPlan", "PlanAnswer", "PlanApproval", "PlanError", "plan_verdict"]

# The kinds a plan names, and the permission level each lets through. A download is asked under
# its own name (``core.tools.browser.downloads``): only a plan that names it lets it through.
ACTION_KINDS: dict[str, PermissionLevel] = {
    "read": PermissionLevel.READ_ONLY,
    "navigate": PermissionLevel.NAVIGATE,
    "interact": PermissionLevel.INTERACT,
    "submit": PermissionLevel.SUBMIT,
    "download": PermissionLevel.INTERACT,
}
DOWNLOAD_TOOL = "download"

# The words models write for a kind ("click: the Add to cart button", "open the product page").
_SYNONYMS = {
    "read": "read", "reading": "read", "read-only": "read", "readonly": "read", "look": "read", "find": "read",
    "scroll": "read", "extract": "read",
    "navigate": "navigate", "navigation": "navigate", "open": "navigate", "visit": "navigate", "go": "navigate",
    "browse": "navigate", "search": "navigate", "load": "navigate",
    "interact": "interact", "interaction": "interact", "click": "interact", "type": "interact",
    "fill": "interact", "select": "interact", "choose": "interact", "hover": "interact", "press": "interact",
    "drag": "interact", "input": "interact",
    "submit": "submit", "send": "submit", "post": "submit",
    "download": "download",
}
_FIRST_WORD = re.compile(r"[A-Za-z][A-Za-z_-]*")

NOT_IN_PLAN = "This is not in the approved plan"


class PlanError(ValueError):
    """What the model proposed is not a plan the user can approve (``problems`` say why)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def kind_of(action: str) -> str:
    """The kind an action line names ("Click: the Add to cart button" is interact); "" for none."""
    match = _FIRST_WORD.search(action)
    if match is None:
        return ""
    return _SYNONYMS.get(match.group(0).lower().replace("_", "-"), "")


@dataclass(frozen=True, slots=True)
class ActionPlan:
    """What the agent will do: ``sites`` (as ``site_of`` says them), ``actions`` ("kind: what for",
    as shown to the user), ``steps`` in words, and the ``kinds`` the actions name."""

    sites: tuple[str, ...]
    actions: tuple[str, ...]
    steps: tuple[str, ...]
    kinds: frozenset[str]

    @classmethod
    def from_lists(cls, sites: Iterable[object], actions: Iterable[object], steps: Iterable[object]) -> ActionPlan:
        """The plan from what the model gave; ``PlanError`` when its actions name no kind, or it
        acts (beyond reading) on no site. Empty lists are a plan too: nothing beyond reading.

        An action may be a line ("navigate: open the shop") or an object (``{"kind", "purpose"}``).
        """
        site_list: list[str] = []
        for value in sites:
            site = site_of(str(value))
            if site and site not in site_list:
                site_list.append(site)
        action_list: list[str] = []
        kinds: set[str] = set()
        for value in actions:
            if isinstance(value, dict):
                kind_word = str(value.get("kind") or value.get("type") or value.get("action") or "")
                purpose = str(value.get("purpose") or value.get("why") or value.get("description") or "")
                line = f"{kind_word}: {purpose}" if purpose else kind_word
            else:
                line = str(value)
            line = " ".join(line.split())
            if not line:
                continue
            action_list.append(line)
            kind = kind_of(line)
            if kind:
                kinds.add(kind)
        step_list = [" ".join(str(s).split()) for s in steps if str(s).strip()]
        problems = []
        if action_list and not kinds:
            problems.append("'actions' names no kind of action (start each with read, navigate, interact, "
                            "submit or download)")
        if kinds - {"read"} and not site_list:
            problems.append("'sites' names no site (give each as a host or an address, e.g. shop.example)")
        if problems:
            raise PlanError(problems)
        return cls(tuple(site_list), tuple(action_list), tuple(step_list), frozenset(kinds))

    @property
    def levels(self) -> frozenset[PermissionLevel]:
        return frozenset(ACTION_KINDS[kind] for kind in self.kinds)

    def covers(self, tool: str, site: str, level: PermissionLevel) -> bool:
        """Whether ``tool`` at ``level`` on ``site`` is within the plan: the site is one of the
        plan's and the level one of its kinds (a download needs the kind "download")."""
        if site_of(site) not in self.sites:
            return False
        if tool == DOWNLOAD_TOOL:
            return "download" in self.kinds
        return level in self.levels

    def describe(self) -> str:
        """The plan in a few lines (the system prompt of the run, the terminal)."""
        lines = [f"Sites: {', '.join(self.sites)}", "Actions:", *(f"- {a}" for a in self.actions)]
        if self.steps:
            lines += ["Steps:", *(f"{n}. {s}" for n, s in enumerate(self.steps, 1))]
        return "\n".join(lines)


def plan_verdict(plan: ActionPlan, tool: str, site: str, level: PermissionLevel, verdict: Verdict, *,
                 critical: bool = False, force_ask: bool = False, deny_all: bool = False) -> tuple[Verdict, bool]:
    """The gate's verdict under an approved ``plan``, and whether the call is outside it.

    Within the plan a question becomes a yes, except for a critical action and a call the
    inspector insists on asking (a download is the plan's to allow); outside it, what would run
    without a question asks (or is denied under deny-all). Reading is never outside a plan.
    """
    if level is PermissionLevel.READ_ONLY and tool != DOWNLOAD_TOOL:
        return verdict, False
    if plan.covers(tool, site, level):
        if verdict is Verdict.ASK and not critical and (not force_ask or tool == DOWNLOAD_TOOL):
            return Verdict.AUTO_APPROVE, False
        return verdict, False
    if verdict is Verdict.AUTO_APPROVE:
        return (Verdict.DENY if deny_all else Verdict.ASK), True
    return verdict, True


@dataclass(frozen=True, slots=True)
class PlanAnswer:
    """How a proposed plan was settled; ``reason`` says why when it was not approved."""

    outcome: PlanOutcome
    reason: str = ""
    asked: bool = True  # False: nobody could be asked (rejected at once)

    @property
    def approved(self) -> bool:
        return self.outcome == "approved"


class PlanApproval:
    """The plan's round trip (see the module docstring) and the plan approved for each run.

    ``ask``: whether a person can answer (without one a plan is rejected at once). ``timeout_s``:
    the plan is rejected when nobody answers within it.
    """

    def __init__(self, bus: EventBus, *, timeout_s: float = 120.0, ask: bool = True) -> None:
        self.bus = bus
        self.timeout_s = timeout_s
        self.ask_enabled = ask
        self._pending: dict[str, asyncio.Future[bool]] = {}
        self._approved: tuple[str, ActionPlan] | None = None  # (run id, plan): one run at a time
        self._standing: ActionPlan | None = None  # approved ahead of every run (``hold``)

    def hold(self, plan: ActionPlan | None) -> None:
        """Approve ``plan`` ahead, for every run (a scheduled task's scope, approved when the user
        made the task): no plan is proposed, and what is outside it is asked for (or denied without
        a person). None ends it."""
        self._standing = plan

    async def propose(self, plan: ActionPlan, *, run_id: str, request: str = "") -> PlanAnswer:
        """Show ``plan`` and wait for the user's answer; Stop cancels the wait (announced as "stopped")."""
        if self._approved is not None and self._approved[0] != run_id:
            self._approved = None
        if self.reads_only(plan):
            # Nothing to approve: reading runs anyway, and under this plan every action asks.
            self._approved = (run_id, plan)
            return PlanAnswer("approved")
        if not self.ask_enabled:
            log.info("plan for run %s rejected: nobody can approve it here", run_id)
            return PlanAnswer("rejected", "plan-first mode needs someone to approve the plan, and nobody can be "
                                          "asked here", asked=False)
        plan_id = new_id("plan")
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending[plan_id] = future
        self.bus.emit(PlanProposed(id=plan_id, run_id=run_id, request=request, sites=plan.sites,
                                   actions=plan.actions, steps=plan.steps, timestamp=now_ms(),
                                   timeout_s=self.timeout_s))
        outcome: PlanOutcome = "stopped"
        try:
            async with asyncio.timeout(self.timeout_s):  # not wait_for: on 3.11 it swallows a Stop with the answer
                approved = await future
        except TimeoutError:
            outcome = "timeout"
            return PlanAnswer(outcome, f"nobody approved the plan within {self.timeout_s:.0f} s")
        else:
            outcome = "approved" if approved else "rejected"
            if approved:
                self._approved = (run_id, plan)
            return PlanAnswer(outcome, "" if approved else "you rejected the plan")
        finally:
            self._pending.pop(plan_id, None)
            log.info("plan %s for run %s: %s", plan_id, run_id, outcome)
            self.bus.emit(PlanSettled(id=plan_id, outcome=outcome))

    @staticmethod
    def reads_only(plan: ActionPlan) -> bool:
        return plan.kinds <= {"read"}

    def respond(self, plan_id: str, approved: bool) -> bool:
        """Approve (True) or reject (False) a waiting plan; False when it is unknown or settled."""
        future = self._pending.get(plan_id)
        if future is None or future.done():
            return False
        future.set_result(bool(approved))
        return True

    def approved_for(self, run_id: str) -> ActionPlan | None:
        """The plan the user approved for ``run_id``, if any (a standing plan: for every run)."""
        if self._standing is not None:
            return self._standing
        if self._approved is not None and run_id and self._approved[0] == run_id:
            return self._approved[1]
        return None

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)
