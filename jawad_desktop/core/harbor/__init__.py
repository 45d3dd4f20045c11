"""Harbor: the per-site permission engine every agent action passes through (spec 001).

``policy`` holds the pure rules (check_permission, update_policy_for_decision,
is_critical_action), ``grants`` persists site grants, ``engine`` has ``Harbor`` (policy plus
persistence) and ``HarborGate`` (the agent's permission gate, asking through the bus).
"""

from jawad_desktop.core.harbor.engine import CallInsight, Harbor, HarborGate, Inspector
from jawad_desktop.core.harbor.grants import GrantStore
from jawad_desktop.core.harbor.policy import (
    Grant,
    HarborPolicy,
    PermissionDecision,
    PermissionLevel,
    Verdict,
    check_permission,
    is_critical_action,
    normalize_site,
    update_policy_for_decision,
)

__all__ = [
    "CallInsight",
    "Grant",
    "GrantStore",
    "Harbor",
    "HarborGate",
    "HarborPolicy",
    "Inspector",
    "PermissionDecision",
    "PermissionLevel",
    "Verdict",
    "check_permission",
    "is_critical_action",
    "normalize_site",
    "update_policy_for_decision",
]
