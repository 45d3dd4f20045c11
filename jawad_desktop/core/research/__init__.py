"""Research mode (spec 001 START_WORKFLOW, CANCEL_WORKFLOW, WORKFLOW_UPDATE): an intent becomes
a plan of browser steps the user reviews and edits, the approved plan runs step by step in the
visible browser with each step's own permissions, and a final answer cites the pages read.

``plan`` holds the plan's shapes, ``planner`` asks the model for one (validated, repaired,
retried), ``executor`` runs it, ``synthesis`` writes the cited answer, ``store`` keeps plans
with their conversation. No Qt here: the window's panel and ``jawad research`` drive these.
Each name is imported on its first use: the window's research panel shows plans (``plan``) long
before an executor runs one (which brings the agent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jawad_desktop.core.lazy_names import names_on_first_use

if TYPE_CHECKING:
    from jawad_desktop.core.research.executor import (
        PlanPublisher,
        ResearchExecutor,
        StepGate,
    )
    from jawad_desktop.core.research.plan import (
        AGENTS,
        MAX_STEPS,
        PlanDraft,
        PlanStatus,
        ResearchPlan,
        ResearchStep,
        Source,
        StepDraft,
        StepStatus,
    )
    from jawad_desktop.core.research.plan_store import (
        ResearchStore,
    )
    from jawad_desktop.core.research.planner import (
        Planner,
        PlanParseError,
        parse_plan,
    )

# Each name's module, imported on the name's first use (``__getattr__``).
_SOURCES = {
    "AGENTS": "plan",
    "MAX_STEPS": "plan",
    "PlanDraft": "plan",
    "PlanParseError": "planner",
    "PlanPublisher": "executor",
    "PlanStatus": "plan",
    "Planner": "planner",
    "ResearchExecutor": "executor",
    "ResearchPlan": "plan",
    "ResearchStep": "plan",
    "ResearchStore": "plan_store",
    "Source": "plan",
    "StepDraft": "plan",
    "StepGate": "executor",
    "StepStatus": "plan",
    "parse_plan": "planner",
}

__all__ = [
    "AGENTS",
    "MAX_STEPS",
    "PlanDraft",
    "PlanParseError",
    "PlanPublisher",
    "PlanStatus",
    "Planner",
    "ResearchExecutor",
    "ResearchPlan",
    "ResearchStep",
    "ResearchStore",
    "Source",
    "StepDraft",
    "StepGate",
    "StepStatus",
    "parse_plan",
]


__getattr__ = names_on_first_use(__name__, _SOURCES)
