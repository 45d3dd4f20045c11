"""Harbor, the permission engine, and the gate the agent awaits before each tool call.

``Harbor`` holds the policy (persisted site grants, session grants, deny-all) and applies the
user's decisions. ``HarborGate`` implements the agent's ``PermissionGate``: it asks an
optional *inspector* what the call really does (the browser tools resolve and highlight the
element, tell whether it is a critical action, and whether its target or text came from the
page rather than from the user), decides with ``check_permission``, and when it must ask, emits
a ``PermissionRequest`` on the bus and waits for ``respond(request_id, decision)``. No answer
within the timeout means deny.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from jawad_desktop.core.agent.permissions import GateDecision, PermissionCheck, PermissionDecision
from jawad_desktop.core.events import EventBus, PermissionRequest, new_id, now_ms
from jawad_desktop.core.harbor.grants import GrantStore
from jawad_desktop.core.harbor.policy import (
    Grant,
    HarborPolicy,
    PermissionLevel,
    Verdict,
    check_permission,
    normalize_site,
    update_policy_for_decision,
)

log = logging.getLogger("jawad.harbor")


class Harbor:
    """The policy and its persistence. One per app (window or CLI command)."""

    def __init__(
        self,
        store: GrantStore | None = None,
        *,
        auto_levels: Iterable[PermissionLevel | str] = (PermissionLevel.READ_ONLY,),
    ) -> None:
        self.store = store
        self.policy = HarborPolicy(auto_levels={PermissionLevel(x) for x in auto_levels} | {PermissionLevel.READ_ONLY})
        if store is not None:
            for grant in store.load():
                self.policy.site_grants[grant.key] = grant
        self._listeners: list[Callable[[], None]] = []

    @classmethod
    def in_folder(cls, config_dir: Path, **kwargs: Iterable[PermissionLevel | str]) -> Harbor:
        """Harbor with its site grants in ``config_dir`` (``ctx.paths.config``)."""
        return cls(GrantStore.in_folder(config_dir), **kwargs)

    # -- deciding ---------------------------------------------------------------------------

    def check(self, tool: str, level: PermissionLevel | str, site: str, *, current_site: str = "",
              critical: bool = False) -> Verdict:
        return check_permission(self.policy, tool, level, site, current_site=current_site, critical=critical)

    def apply_decision(self, tool: str, site: str, decision: PermissionDecision | str, *,
                       level: str = "") -> Grant | None:
        """Remember the user's answer (site grants are written to disk at once)."""
        grant = update_policy_for_decision(self.policy, tool, site, decision, level=level)
        if grant is not None and grant.scope == "site":
            self._persist()
        if grant is not None:
            self._changed()
        return grant

    # -- grants, for the Settings page ------------------------------------------------------

    def grants(self) -> list[Grant]:
        return self.policy.all_grants()

    def revoke(self, site: str, tool: str, scope: str | None = None) -> bool:
        """Remove a grant (both scopes unless ``scope`` is given); True if one was removed."""
        key = (normalize_site(site), tool)
        removed = False
        if scope in (None, "site") and self.policy.site_grants.pop(key, None) is not None:
            removed = True
            self._persist()
        if scope in (None, "session") and self.policy.session_grants.pop(key, None) is not None:
            removed = True
        if removed:
            self._changed()
        return removed

    def revoke_all(self) -> None:
        self.policy.site_grants.clear()
        self.policy.session_grants.clear()
        self._persist()
        self._changed()

    def end_session(self) -> None:
        """Session grants and deny-all end (the app closes, or the user starts over)."""
        self.policy.session_grants.clear()
        self.policy.deny_all = False
        self._changed()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after grants change; returns a function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("grant listener failed")

    def _persist(self) -> None:
        if self.store is None:
            return
        try:
            self.store.save(list(self.policy.site_grants.values()))
        except OSError as exc:
            # The grant still holds for this session; say so rather than fail the action.
            log.error("could not save site permissions to %s: %s", self.store.path, exc)


@dataclass(slots=True)
class CallInsight:
    """What an inspector learned about a call before it runs.

    ``critical``: buy/pay/delete-like (always asks). ``from_page_content``: the target or the text
    came from the page, not from the user (None: not checked, the agent's own hint is used).
    ``force_ask``: ask even if the policy would allow it
    (page data about to be sent to another site). ``site``: the site the call really acts on,
    when it differs from the request's. ``element_hint``: what is highlighted, in words.
    ``note``: added to the reason shown to the user. ``on_settled``: called once the decision is
    made (e.g. to clear a highlight after a denial), with whether the call was allowed.
    """

    critical: bool = False
    from_page_content: bool | None = None  # None: the inspector did not check; the agent's hint stands
    force_ask: bool = False
    site: str = ""
    element_hint: str = ""
    note: str = ""
    on_settled: Callable[[bool], Awaitable[None]] | None = None


Inspector = Callable[[PermissionCheck], Awaitable[CallInsight | None]]


class HarborGate:
    """The agent's ``PermissionGate``, decided by Harbor and asked through the bus.

    ``ask=False`` (a CLI without a terminal) denies whatever would ask, with a reason that says
    how to allow it. ``respond`` (alias ``answer``) resolves a pending request.
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
                log.exception("inspecting %s failed; asking without details", request.tool.name)
                insight = CallInsight(force_ask=request.level is not PermissionLevel.READ_ONLY)
        insight = insight or CallInsight()
        site = normalize_site(insight.site or request.site)
        verdict = self.harbor.check(request.tool.name, request.level, site,
                                    current_site=request.context.site, critical=insight.critical)
        if verdict is Verdict.AUTO_APPROVE and insight.force_ask:
            verdict = Verdict.DENY if self.harbor.policy.deny_all else Verdict.ASK
        decision: GateDecision
        if verdict is Verdict.AUTO_APPROVE:
            decision = GateDecision.auto()
        elif verdict is Verdict.DENY:
            decision = GateDecision.denied("you chose to deny all further actions of this request", stop_run=True)
        elif not self.ask_enabled:
            what = "critical actions (buying, paying, deleting...)" if insight.critical else (
                f"'{request.level.value}' actions")
            decision = GateDecision.denied(
                f"{what} need your permission and nobody can be asked here; "
                "run with --allow LEVELS or from an interactive terminal"
            )
        else:
            answer = await self._ask(request, insight, site)
            decision = GateDecision.from_user(answer) if answer is not None else GateDecision.denied(
                f"nobody answered the permission request within {self.timeout_s:.0f} s"
            )
            if answer is not None:
                self.harbor.apply_decision(request.tool.name, site, answer, level=request.level.value)
                if answer is PermissionDecision.DENY_ALL:
                    self._deny_all_run = request.run_id
        if insight.on_settled is not None:
            try:
                await insight.on_settled(decision.allowed)
            except Exception:
                log.debug("on_settled failed", exc_info=True)
        return decision

    async def _ask(self, request: PermissionCheck, insight: CallInsight, site: str) -> PermissionDecision | None:
        request_id = new_id("perm")
        future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        where = f" on {site}" if site else ""
        reason = f"Jawad wants to use '{request.tool.name}'{where}"
        if insight.critical:
            reason += ". This looks like a purchase, payment, deletion or sign-up: check it carefully"
        from_page = request.from_page_content if insight.from_page_content is None else insight.from_page_content
        if from_page:
            reason += ". The target or text comes from the web page, not from what you asked"
        if insight.note:
            reason += f". {insight.note}"
        self.bus.emit(
            PermissionRequest(
                id=request_id,
                tool_name=request.tool.name,
                parameters=dict(request.arguments),
                site=site,
                permission_level=request.level.value,
                reason=reason + ".",
                timestamp=now_ms(),
                critical=insight.critical,
                from_page_content=from_page,
                element_hint=insight.element_hint,
            )
        )
        try:
            return await asyncio.wait_for(future, self.timeout_s)
        except TimeoutError:
            log.info("permission request %s for %s timed out: denied", request_id, request.tool.name)
            return None
        finally:
            self._pending.pop(request_id, None)

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

    answer = respond  # the name PermissionAsker uses, so the UI can treat both alike

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)
