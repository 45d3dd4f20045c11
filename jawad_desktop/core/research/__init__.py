"""Research mode (spec 001 START_WORKFLOW, CANCEL_WORKFLOW, WORKFLOW_UPDATE): an intent becomes
a plan of browser steps the user reviews and edits, the approved plan runs step by step in the
visible browser with each step's own permissions, and a final answer cites the pages read.

``plan`` holds the plan's shapes, ``planner`` asks the model for one (validated, repaired,
retried), ``executor`` runs it, ``synthesis`` writes the cited answer, ``store`` keeps plans
with their conversation. No Qt here: the window's panel and ``jawad research`` drive these.
"""

from jawad_desktop.core.research.executor import PlanPublisher, ResearchExecutor, StepGate
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
from jawad_desktop.core.research.planner import Planner, PlanParseError, parse_plan
from jawad_desktop.core.research.store import ResearchStore

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
