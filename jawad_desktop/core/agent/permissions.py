"""The permission check the agent awaits before every tool call, and a default policy.

The agent only knows the ``PermissionGate`` protocol: ``await gate.check(request)`` returns
a ``GateDecision``. Harbor (``core.harbor``) is the real policy engine and implements it;
``LevelPolicyGate`` here is the default: levels it allows run at once, the others are asked
through a ``PermissionAsker`` when one is given, else denied. ``PermissionAsker`` emits
spec 001's PERMISSION_REQUEST on the bus and waits for ``answer(request_id, decision)``
from whoever shows it (the window's panel, a terminal prompt); no answer in time means deny.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from jawad_desktop.core.events import EventBus, PermissionRequest, new_id, now_ms
from jawad_desktop.core.tools.context import ToolContext
from jawad_desktop.core.tools.registry import PermissionLevel, Tool

log = logging.getLogger("jawad.agent.permissions")


class PermissionDecision(enum.StrEnum):
    """The five answers a user can give to a permission request (spec 001)."""

    ALLOW_ONCE = "allow-once"
    ALLOW_SITE = "allow-site"
    ALLOW_SESSION = "allow-session"
    DENY = "deny"
    DENY_ALL = "deny-all"

    @property
    def allows(self) -> bool:
        return self in (self.ALLOW_ONCE, self.ALLOW_SITE, self.ALLOW_SESSION)


LogDecision = Literal["auto-approved", "allowed", "denied"]


@dataclass(frozen=True, slots=True)
class PermissionCheck:
    """One call waiting for permission: what would run, where, at which level."""

    tool: Tool
    call_id: str
    arguments: dict[str, Any]
    level: PermissionLevel
    site: str
    context: ToolContext
    run_id: str = ""
    from_page_content: bool = False  # the target or text came from page content, not the user


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
    """Anything that decides whether a tool call may run. Harbor implements it."""

    async def check(self, request: PermissionCheck) -> GateDecision: ...


@dataclass
class PermissionAsker:
    """Asks the user through the bus and waits for the answer.

    Emits ``PermissionRequest``; the UI calls ``answer(request.id, "allow-once")``. An
    unanswered request is denied after ``timeout_s`` (spec: no answer means deny).
    """

    bus: EventBus
    timeout_s: float = 120.0
    _pending: dict[str, asyncio.Future[PermissionDecision]] = field(default_factory=dict)

    async def ask(
        self, request: PermissionCheck, *, reason: str = "", critical: bool = False
    ) -> GateDecision:
        request_id = new_id("perm")
        future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        site_text = f" on {request.site}" if request.site else ""
        self.bus.emit(
            PermissionRequest(
                id=request_id,
                tool_name=request.tool.name,
                parameters=dict(request.arguments),
                site=request.site,
                permission_level=request.level.value,
                reason=reason or f"Jawad wants to use '{request.tool.name}'{site_text}",
                timestamp=now_ms(),
                critical=critical,
                from_page_content=request.from_page_content,
            )
        )
        try:
            answer = await asyncio.wait_for(future, self.timeout_s)
        except TimeoutError:
            log.info("permission request %s for %s timed out", request_id, request.tool.name)
            waited = f"{self.timeout_s:.0f} s"
            return GateDecision.denied(f"nobody answered the permission request within {waited}")
        finally:
            self._pending.pop(request_id, None)
        return GateDecision.from_user(answer)

    def answer(self, request_id: str, decision: str | PermissionDecision) -> bool:
        """Resolve a pending request; False when it is unknown or already settled."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        try:
            chosen = PermissionDecision(decision)
        except ValueError:
            log.warning("unknown permission decision %r for %s: treated as deny", decision, request_id)
            chosen = PermissionDecision.DENY
        future.set_result(chosen)
        return True

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)


class LevelPolicyGate:
    """The default policy: levels in ``allow`` run; the rest are asked, or denied.

    With no asker (``jawad ask`` without a terminal) anything above the allowed levels is
    denied with a reason the model and the user can read.
    """

    def __init__(
        self,
        allow: Iterable[PermissionLevel | str] = (PermissionLevel.READ_ONLY,),
        asker: PermissionAsker | None = None,
    ) -> None:
        self.allow = {PermissionLevel(level) for level in allow}
        self.asker = asker
        self._session_grants: set[tuple[str, str]] = set()  # (tool, site) granted for the session

    async def check(self, request: PermissionCheck) -> GateDecision:
        if request.level in self.allow:
            return GateDecision.auto()
        key = (request.tool.name, request.site)
        if key in self._session_grants or (request.tool.name, "*") in self._session_grants:
            return GateDecision(allowed=True, decision="allowed", reason="allowed earlier")
        if self.asker is None:
            return GateDecision.denied(
                f"'{request.level.value}' actions are not allowed here; allow them to let Jawad do this"
            )
        decision = await self.asker.ask(request)
        if decision.user_decision is PermissionDecision.ALLOW_SITE:
            self._session_grants.add(key)
        elif decision.user_decision is PermissionDecision.ALLOW_SESSION:
            self._session_grants.add((request.tool.name, "*"))
        return decision
