"""The gate every tool call passes before it runs, decided by Harbor and asked through the bus.

The agent knows only the ``PermissionGate`` protocol: ``await gate.check(PermissionCheck)``
returns a ``GateDecision``. ``HarborGate`` is the one implementation. It asks an optional
*inspector* what the call really does (the browser tools resolve and highlight the element,
tell whether it is a critical action, and whether its target or text came from the page rather
than from the user), decides with Harbor's policy, and when it must ask, emits a
``PermissionRequest`` on the bus and waits for ``respond(request_id, decision)``.

The clock is here and only here: a request carries its ``timeout_s``, and whatever settles it
(the user's answer, the timeout, Stop) is announced once as ``PermissionSettled``, so whoever
shows the request (the window's panel, a terminal) closes it without keeping time itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from jawad_desktop.core.events import (
    EventBus,
    PermissionOutcome,
    PermissionRequest,
    PermissionSettled,
    new_id,
    now_ms,
)
from jawad_desktop.core.harbor.dataflow import describe_composed, describe_leaks, outgoing_strings
from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.plan_approval import NOT_IN_PLAN, PlanApproval, plan_verdict
from jawad_desktop.core.harbor.policy import PermissionDecision, PermissionLevel, Verdict
from jawad_desktop.core.sites import site_of

log = logging.getLogger("jawad.harbor")

__all__ = [
    "CallInsight",
    "GateDecision",
    "HarborGate",
    "Inspector",
    "LogDecision",
    "PermissionCheck",
    "PermissionGate",
]

LogDecision = Literal["auto-approved", "allowed", "denied"]


@dataclass(frozen=True, slots=True)
class PermissionCheck:
    """One call waiting for permission: which tool, with what, at which level, where.

    ``site`` is the site the call acts on; ``current_site`` the site of the page the user is on.
    ``user_texts`` is what the user asked in this run (the inspector tells page data from the
    user's words with it); ``from_page_content`` is the agent's own hint of the same.
    """

    tool: str
    call_id: str
    arguments: Mapping[str, Any]
    level: PermissionLevel
    site: str
    current_site: str = ""
    run_id: str = ""
    from_page_content: bool = False
    user_texts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GateDecision:
    """The gate's verdict, as the action log records it.

    ``decision`` is the action log's word (auto-approved, allowed, denied); ``user_decision``
    the user's answer when one was asked; ``stop_run`` is set by deny-all: the agent denies
    every further call of this run.
    """

    allowed: bool
    decision: LogDecision
    reason: str = ""
    user_decision: PermissionDecision | None = None
    stop_run: bool = False

    @classmethod
    def auto(cls) -> GateDecision:
        return cls(allowed=True, decision="auto-approved")

    @classmethod
    def denied(cls, reason: str, *, stop_run: bool = False) -> GateDecision:
        return cls(allowed=False, decision="denied", reason=reason, stop_run=stop_run)

    @classmethod
    def from_user(cls, answer: PermissionDecision) -> GateDecision:
        if answer.allows:
            return cls(allowed=True, decision="allowed", user_decision=answer)
        stop = answer is PermissionDecision.DENY_ALL
        return cls(
            allowed=False,
            decision="denied",
            reason="the user denied it" + (" and every further action of this request" if stop else ""),
            user_decision=answer,
            stop_run=stop,
        )


class PermissionGate(Protocol):
    """Anything that decides whether a tool call may run (``HarborGate``, a research step's gate)."""

    async def check(self, request: PermissionCheck) -> GateDecision: ...


@dataclass(slots=True)
class CallInsight:
    """What an inspector learned about a call before it runs.

    ``critical``: buy/pay/delete-like (always asks). ``from_page_content``: the target or the text
    came from the page, not from the user (None: not checked, the agent's own hint is used).
    ``force_ask``: ask even if the policy would allow it. ``site``: the site the call really acts
    on, when it differs from the request's.
    ``element_hint``: what is highlighted, in words. ``note``: added to the reason shown to the
    user. ``on_settled``: called once the decision is made (e.g. to clear a highlight after a
    denial), with whether the call was allowed.
    """

    critical: bool = False
    from_page_content: bool | None = None
    force_ask: bool = False
    site: str = ""
    element_hint: str = ""
    note: str = ""
    on_settled: Callable[[bool], Awaitable[None]] | None = None
    # More of what the call sends, beside its arguments (the URL a search opens, a link's href, a
    # submitted form's values and action), and where that goes when not to ``site`` (``dataflow``).
    sends: tuple[str, ...] = ()
    sends_to: str = ""
    # An address the assistant chose to open (``navigate``'s URL, a web search's results address), for
    # the rule on composed addresses (``DataFlow.composed``); ``opens_fixed``: the part of it that is
    # not the assistant's (the search engine's own address).
    opens: str = ""
    opens_fixed: str = ""


Inspector = Callable[[PermissionCheck], Awaitable[CallInsight | None]]


class HarborGate:
    """The agent's ``PermissionGate``, decided by Harbor and asked through the bus.

    ``ask=False`` (a terminal without a person) denies whatever would ask, with a reason that
    says how to allow it. ``respond`` resolves a pending request; ``cancel_pending`` settles every
    open request as stopped (the run was stopped).
    """

    def __init__(
        self,
        harbor: Harbor,
        bus: EventBus,
        *,
        timeout_s: float = 120.0,
        inspector: Inspector | None = None,
        ask: bool = True,
    ) -> None:
        self.harbor = harbor
        self.bus = bus
        self.timeout_s = timeout_s
        self.inspector = inspector
        self.ask_enabled = ask
        self._pending: dict[str, asyncio.Future[PermissionDecision]] = {}
        self._deny_all_run: str | None = None
        # Plan-first mode: the plan's round trip, and the plan approved for a run (``plan``).
        self.plans = PlanApproval(bus, timeout_s=timeout_s, ask=ask)

    async def check(self, request: PermissionCheck) -> GateDecision:
        if self._deny_all_run is not None and request.run_id != self._deny_all_run:
            # Deny-all holds for the request it was given in; a new request starts afresh.
            self.harbor.policy.deny_all = False
            self._deny_all_run = None
        insight: CallInsight | None = None
        if self.inspector is not None:
            try:
                insight = await self.inspector(request)
            except Exception:
                log.exception("inspecting %s failed; asking without details", request.tool)
                insight = CallInsight(force_ask=request.level is not PermissionLevel.READ_ONLY)
        insight = insight or CallInsight()
        site = site_of(insight.site or request.site)
        verdict = self.harbor.check(request.tool, request.level, site,
                                    current_site=request.current_site, critical=insight.critical)
        if verdict is Verdict.AUTO_APPROVE and insight.force_ask:
            verdict = Verdict.DENY if self.harbor.policy.deny_all else Verdict.ASK
        plan = self.plans.approved_for(request.run_id)
        if plan is not None:  # within the approved plan no question (but see below); outside it, one
            verdict, outside = plan_verdict(plan, request.tool, site, request.level, verdict,
                                            critical=insight.critical, force_ask=insight.force_ask,
                                            deny_all=self.harbor.policy.deny_all)
            if outside:
                insight.note = f"{insight.note}. {NOT_IN_PLAN}" if insight.note else NOT_IN_PLAN
        leaving, composed = self._data_leaving(request, insight, site)
        if leaving:
            # Data read on one site, about to go to another (or an address the assistant composed for
            # another site): no level, grant or "allow for this site" lets it go; only a yes to this one
            # call (spec: nothing leaves without a yes).
            verdict = Verdict.DENY if self.harbor.policy.deny_all else Verdict.ASK
        decision: GateDecision
        if verdict is Verdict.AUTO_APPROVE:
            decision = GateDecision.auto()
        elif verdict is Verdict.DENY:
            decision = GateDecision.denied("you chose to deny all further actions of this request", stop_run=True)
        elif not self.ask_enabled and leaving:
            why = ("an address the assistant composed for another site needs a yes every time, so give the address "
                   "in your request, or run it from an interactive terminal or the window") if composed else (
                "sending what was read on one site to another needs a yes every time, so run it from an "
                "interactive terminal or the window")
            decision = GateDecision.denied(f"{leaving[0].lower()}{leaving[1:]}, and nobody can be asked here; {why}")
        elif not self.ask_enabled and insight.critical:
            # No level, grant or --allow lets a critical action run: only a person's yes does.
            why = f" ({insight.note})" if insight.note else ""
            decision = GateDecision.denied(
                f"critical actions (buying, paying, deleting, changing a password...) need your yes every time{why}, "
                "and nobody can be asked here; ask from an interactive terminal or the window"
            )
        elif not self.ask_enabled:
            decision = GateDecision.denied(
                f"'{request.level.value}' actions need your permission and nobody can be asked here; "
                "allow the level, or ask from an interactive terminal or the window"
            )
        else:
            answer = await self._ask(request, insight, site, leaving, from_page=bool(leaving) and not composed)
            decision = GateDecision.from_user(answer) if answer is not None else GateDecision.denied(
                f"nobody answered the permission request within {self.timeout_s:.0f} s"
            )
            # A yes to data leaving is for this call only: it never becomes a grant.
            if answer is not None and (not leaving or answer is PermissionDecision.DENY_ALL):
                self.harbor.apply_decision(request.tool, site, answer, level=request.level.value)
                if answer is PermissionDecision.DENY_ALL:
                    self._deny_all_run = request.run_id
        if insight.on_settled is not None:
            try:
                await insight.on_settled(decision.allowed)
            except Exception:
                log.debug("on_settled failed", exc_info=True)
        return decision

    def _data_leaving(self, request: PermissionCheck, insight: CallInsight, site: str) -> tuple[str, bool]:
        """The question's sentence when the call would send values read on another site, or opens an
        address the assistant composed for another site (then True); else ("", False).

        A read-only call on the page the user is on sends nothing anywhere (reading, finding
        text); every other call is checked: its arguments and what the inspector says it sends.
        """
        flow = self.harbor.dataflow
        for text in request.user_texts:
            flow.note_user(text)
        destination = site_of(insight.sends_to) or site
        if request.level is PermissionLevel.READ_ONLY and destination == site_of(request.current_site):
            return "", False
        outgoing = [*outgoing_strings(request.arguments), *insight.sends]
        leaks = flow.leaks(outgoing, destination)
        if not leaks:
            # An e-mail address among what is sent takes it to that address's site (a "share by
            # e-mail" form on the same site); the address itself is no leak to its own owner.
            for address in flow.recipients(outgoing, request.user_texts):
                leaks = [leak for leak in flow.leaks(outgoing, address.rpartition("@")[2])
                         if address not in leak.value.casefold()]
                if leaks:
                    destination = address
                    break
        if leaks:
            log.info("data flow: %s would send %d value(s) read elsewhere to %s", request.tool, len(leaks),
                     destination)
            return describe_leaks(leaks, destination), False
        carried = flow.composed(insight.opens, current_site=request.current_site, user_texts=request.user_texts,
                                fixed=insight.opens_fixed) if insight.opens else []
        if carried:
            log.info("data flow: %s opens an address it composed for %s carrying %d piece(s)", request.tool,
                     site_of(insight.opens), len(carried))
            return describe_composed(carried, site_of(insight.opens)), True
        return "", False

    def record_result(self, site: str, text: str) -> None:
        """What a call that ran returned to the model (a page, an MCP result) was read on ``site``."""
        self.harbor.dataflow.record(text, site)

    async def _ask(self, request: PermissionCheck, insight: CallInsight, site: str,
                   leaving: str = "", *, from_page: bool = False) -> PermissionDecision | None:
        request_id = new_id("perm")
        future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        where = f" on {site}" if site else ""
        reason = f"Jawad wants to use '{request.tool}'{where}"
        if insight.critical:
            reason += ". This looks like a purchase, payment, deletion or sign-up: check it carefully"
        from_page = from_page or (
            request.from_page_content if insight.from_page_content is None else insight.from_page_content)
        if from_page:
            reason += ". The target or text comes from the web page, not from what you asked"
        if insight.note:
            reason += f". {insight.note}"
        if leaving:
            reason += f". {leaving}. A yes allows this one call only"
        self.bus.emit(
            PermissionRequest(
                id=request_id,
                tool_name=request.tool,
                parameters=dict(request.arguments),
                site=site,
                permission_level=request.level.value,
                reason=reason + ".",
                timestamp=now_ms(),
                critical=insight.critical,
                from_page_content=from_page,
                element_hint=insight.element_hint,
                timeout_s=self.timeout_s,
                data_flow=leaving,
            )
        )
        outcome: PermissionOutcome = "stopped"
        try:
            async with asyncio.timeout(self.timeout_s):  # not wait_for: on 3.11 it swallows a Stop with the answer
                answer = await future
        except TimeoutError:
            log.info("permission request %s for %s timed out: denied", request_id, request.tool)
            outcome = "timeout"
            return None
        else:
            outcome = answer.value
            return answer
        finally:
            self._pending.pop(request_id, None)
            self.bus.emit(PermissionSettled(id=request_id, outcome=outcome))

    def respond(self, request_id: str, decision: PermissionDecision | str) -> bool:
        """Answer a pending request; False when it is unknown or already settled."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        try:
            chosen = PermissionDecision(decision)
        except ValueError:
            log.warning("unknown permission decision %r: treated as deny", decision)
            chosen = PermissionDecision.DENY
        future.set_result(chosen)
        return True

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)
