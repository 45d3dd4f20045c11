"""Harbor: the per-site permission engine every agent action passes through (spec 001).

The permission vocabulary lives here and is imported downward by the tools and the agent:
``policy`` has the levels, the five decisions and the pure rules (``check_permission``,
``update_policy_for_decision``, ``is_critical_action``: import them from ``policy``); ``grants``
persists site grants; ``engine`` has ``Harbor`` (policy plus persistence, announcing
``GrantsChanged``); ``gate`` has the checks and ``HarborGate``, which asks the user through the
bus and announces ``PermissionSettled``. This package's face offers what its users build with.
"""

from jawad_desktop.core.harbor.engine import Harbor
from jawad_desktop.core.harbor.gate import (
    CallInsight,
    GateDecision,
    HarborGate,
    Inspector,
    PermissionCheck,
    PermissionGate,
)
from jawad_desktop.core.harbor.grants import GrantStore
from jawad_desktop.core.harbor.policy import Grant, PermissionDecision, PermissionLevel, Verdict

__all__ = [
    "CallInsight",
    "GateDecision",
    "Grant",
    "GrantStore",
    "Harbor",
    "HarborGate",
    "Inspector",
    "PermissionCheck",
    "PermissionDecision",
    "PermissionGate",
    "PermissionLevel",
    "Verdict",
]
