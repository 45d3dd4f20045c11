"""Harbor, the permission engine: the policy, its persisted site grants, and the user's answers.

``Harbor`` holds the policy (persisted site grants, session grants, deny-all), decides with
``check_permission`` and applies the user's decisions. Every change of the grants is announced
on the bus as ``GrantsChanged`` (the Settings page refreshes itself from it). The gate that
asks the user is ``core.harbor.gate``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from jawad_desktop.core.events import EventBus, GrantsChanged
from jawad_desktop.core.harbor.dataflow import DataFlow
from jawad_desktop.core.harbor.grants import GrantStore
from jawad_desktop.core.harbor.policy import (
    Grant,
    HarborPolicy,
    PermissionDecision,
    PermissionLevel,
    Verdict,
    check_permission,
    update_policy_for_decision,
)
from jawad_desktop.core.sites import site_of

log = logging.getLogger("jawad.harbor")


class Harbor:
    """The policy and its persistence. One per app (window or CLI command)."""

    def __init__(
        self,
        store: GrantStore | None = None,
        *,
        auto_levels: Iterable[PermissionLevel | str] = (PermissionLevel.READ_ONLY,),
        bus: EventBus | None = None,
    ) -> None:
        self.store = store
        self.bus = bus
        self.policy = HarborPolicy(auto_levels={PermissionLevel(x) for x in auto_levels} | {PermissionLevel.READ_ONLY})
        # What the agent read, by site: a call sending it to another site always asks (``dataflow``).
        self.dataflow = DataFlow()
        if store is not None:
            for grant in store.load():
                self.policy.site_grants[grant.key] = grant

    @classmethod
    def in_folder(cls, config_dir: Path, *, auto_levels: Iterable[PermissionLevel | str] = (),
                  bus: EventBus | None = None) -> Harbor:
        """Harbor with its site grants in ``config_dir`` (``ctx.paths.config``)."""
        return cls(GrantStore.in_folder(config_dir), auto_levels=auto_levels, bus=bus)

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
        key = (site_of(site), tool)
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

    def _changed(self) -> None:
        if self.bus is not None:
            self.bus.emit(GrantsChanged())

    def _persist(self) -> None:
        if self.store is None:
            return
        try:
            self.store.save(list(self.policy.site_grants.values()))
        except OSError as exc:
            # The grant still holds for this session; say so rather than fail the action.
            log.error("could not save site permissions to %s: %s", self.store.path, exc)
