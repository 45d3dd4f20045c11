"""The research plan: what the model must write (``PlanDraft``, validated with pydantic) and the
plan the user edits, approves and watches run (``ResearchPlan``, spec 001's WorkflowPlan).

``ResearchPlan.to_payload()`` is the WORKFLOW_UPDATE payload: ``{id, intent, steps: [{id, agent,
task, site, permissions, status, result}], status, createdAt}`` plus what this app adds: each
step's ``sources`` (pages it read), and the plan's ``answer``, ``citations`` and ``updatedAt``.
Editing (``update_step``, ``remove_step``, ``move_step``, ``add_step``) is allowed only while the
plan is a draft, before the user approves it.
"""

from __future__ import annotations

import enum
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import new_id, now_ms
from jawad_desktop.core.harbor.policy import PermissionLevel

MAX_STEPS = 8


class StepStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"


class PlanStatus(enum.StrEnum):
    DRAFT = "draft"  # shown to the user, editable, waiting for Run
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


# The agents a step can be given: what each is for (told to the planner) and how it works
# (told to the step's agent run). All of them use the browser tools their permissions allow.
AGENTS: dict[str, tuple[str, str]] = {
    "BrowserAgent": (
        "opens a given site or page and reads it (prices, facts, details)",
        "Open the page the step names with navigate, read it with read_page, and report what the task asks for.",
    ),
    "SearchAgent": (
        "searches the web for something and reads the most relevant results",
        "Search with search_web (or open the site given), read the best results with read_page, "
        "and report what the task asks for.",
    ),
    "ReaderAgent": (
        "reads the page that is already open, without leaving it",
        "Read the page that is open now with read_page and report what the task asks for; do not navigate.",
    ),
}
DEFAULT_AGENT = "BrowserAgent"

_LEVEL_WORDS = {
    "read": PermissionLevel.READ_ONLY, "readonly": PermissionLevel.READ_ONLY, "read_only": PermissionLevel.READ_ONLY,
    "read-only": PermissionLevel.READ_ONLY, "navigate": PermissionLevel.NAVIGATE,
    "navigation": PermissionLevel.NAVIGATE, "browse": PermissionLevel.NAVIGATE, "interact": PermissionLevel.INTERACT,
    "interaction": PermissionLevel.INTERACT, "click": PermissionLevel.INTERACT, "submit": PermissionLevel.SUBMIT,
}


def parse_level(value: Any) -> PermissionLevel:
    """A permission level as a model or a person writes it ("read only", "Navigate", "read_only")."""
    key = re.sub(r"[\s]+", "-", str(value).strip().lower())
    level = _LEVEL_WORDS.get(key) or _LEVEL_WORDS.get(key.replace("-", "_")) or _LEVEL_WORDS.get(key.replace("-", ""))
    if level is None:
        names = ", ".join(level.value for level in PermissionLevel)
        raise ValueError(f"unknown permission level {value!r} (use {names})")
    return level


def normalize_levels(values: Any) -> list[PermissionLevel]:
    """Levels in rank order, without repeats, read-only always included (a step must read)."""
    if values is None or values == "":
        values = []
    if isinstance(values, str):
        values = [part for part in re.split(r"[,;/|]", values) if part.strip()]
    if not isinstance(values, list | tuple | set):
        raise ValueError("permissions must be a list such as [\"read-only\", \"navigate\"]")
    levels = {parse_level(v) for v in values} | {PermissionLevel.READ_ONLY}
    return sorted(levels, key=lambda level: level.rank)


def agent_name(value: Any) -> str:
    """The agent's canonical name: "search", "search agent" and "SearchAgent" are one."""
    key = re.sub(r"[^a-z]", "", str(value or "").lower()).removesuffix("agent")
    for name in AGENTS:
        if name.lower().removesuffix("agent") == key:
            return name
    raise ValueError(f"unknown agent {value!r} (use one of {', '.join(AGENTS)})")


# -- what the planner asks the model for ----------------------------------------------------------


class StepDraft(BaseModel):
    """One step as the model writes it."""

    model_config = ConfigDict(extra="ignore")

    agent: str = Field(description=f"Who does the step: one of {', '.join(AGENTS)}")
    task: str = Field(min_length=3, description="What to find or do in this step, in one sentence")
    site: str = Field(default="", description="The URL or site to start from; empty when unknown")
    permissions: list[PermissionLevel] = Field(
        default_factory=lambda: [PermissionLevel.READ_ONLY],
        description="The least the step needs: read-only, navigate, interact, submit",
    )

    @field_validator("agent", mode="before")
    @classmethod
    def _agent(cls, value: Any) -> str:
        return agent_name(value)

    @field_validator("task", mode="before")
    @classmethod
    def _task(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value

    @field_validator("site", mode="before")
    @classmethod
    def _site(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()

    @field_validator("permissions", mode="before")
    @classmethod
    def _permissions(cls, value: Any) -> list[PermissionLevel]:
        return normalize_levels(value)


class PlanDraft(BaseModel):
    """The plan as the model writes it: ``{"steps": [...]}``."""

    model_config = ConfigDict(extra="ignore")

    steps: list[StepDraft] = Field(min_length=1, max_length=MAX_STEPS)


# -- the plan the user sees -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """A page a step actually read: its address and title, from the read tools' results."""

    url: str
    title: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"url": self.url, "title": self.title}


def _step_id(index: int) -> str:
    return f"step_{index}_{secrets.token_hex(3)}"


@dataclass
class ResearchStep:
    id: str
    agent: str
    task: str
    site: str = ""
    permissions: list[PermissionLevel] = field(default_factory=lambda: [PermissionLevel.READ_ONLY])
    status: StepStatus = StepStatus.PENDING
    result: str = ""
    sources: list[Source] = field(default_factory=list)

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": self.id, "agent": self.agent, "task": self.task, "site": self.site,
            "permissions": [level.value for level in self.permissions], "status": self.status.value,
        }
        if self.result:
            payload["result"] = self.result
        if self.sources:
            payload["sources"] = [s.as_dict() for s in self.sources]
        return payload

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> ResearchStep:
        return cls(
            id=str(data.get("id") or _step_id(0)),
            agent=str(data.get("agent") or DEFAULT_AGENT),
            task=str(data.get("task") or ""),
            site=str(data.get("site") or ""),
            permissions=normalize_levels(data.get("permissions") or []),
            status=StepStatus(data.get("status") or StepStatus.PENDING),
            result=str(data.get("result") or ""),
            sources=[Source(str(s.get("url", "")), str(s.get("title", ""))) for s in data.get("sources") or []
                     if isinstance(s, dict) and s.get("url")],
        )


@dataclass
class ResearchPlan:
    """One research workflow: the intent, its steps, and, once run, the answer and its citations."""

    intent: str
    steps: list[ResearchStep]
    id: str = field(default_factory=lambda: new_id("wf"))
    status: PlanStatus = PlanStatus.DRAFT
    created_at: int = field(default_factory=now_ms)
    updated_at: int = field(default_factory=now_ms)
    answer: str = ""
    citations: list[Source] = field(default_factory=list)
    error: str = ""

    @classmethod
    def from_draft(cls, intent: str, draft: PlanDraft) -> ResearchPlan:
        steps = [ResearchStep(id=_step_id(i), agent=s.agent, task=s.task, site=s.site,
                              permissions=list(s.permissions)) for i, s in enumerate(draft.steps)]
        return cls(intent=intent, steps=steps)

    def to_payload(self) -> dict[str, Any]:
        """The WORKFLOW_UPDATE payload (spec 001's WorkflowPlan, plus answer and citations)."""
        payload: dict[str, Any] = {
            "id": self.id, "intent": self.intent, "steps": [s.to_payload() for s in self.steps],
            "status": self.status.value, "createdAt": self.created_at, "updatedAt": self.updated_at,
        }
        if self.answer:
            payload["answer"] = self.answer
        if self.citations:
            payload["citations"] = [{"index": i, **c.as_dict()} for i, c in enumerate(self.citations, 1)]
        if self.error:
            payload["error"] = self.error
        return payload

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> ResearchPlan:
        return cls(
            intent=str(data.get("intent") or ""),
            steps=[ResearchStep.from_payload(s) for s in data.get("steps") or [] if isinstance(s, dict)],
            id=str(data.get("id") or new_id("wf")),
            status=PlanStatus(data.get("status") or PlanStatus.DRAFT),
            created_at=int(data.get("createdAt") or now_ms()),
            updated_at=int(data.get("updatedAt") or data.get("createdAt") or now_ms()),
            answer=str(data.get("answer") or ""),
            citations=[Source(str(c.get("url", "")), str(c.get("title", ""))) for c in data.get("citations") or []
                       if isinstance(c, dict) and c.get("url")],
            error=str(data.get("error") or ""),
        )

    def touch(self) -> None:
        self.updated_at = now_ms()

    @property
    def finished(self) -> bool:
        return self.status in (PlanStatus.COMPLETED, PlanStatus.FAILED, PlanStatus.CANCELLED)

    # -- editing (draft only) ---------------------------------------------------------------

    def _editable(self) -> None:
        if self.status is not PlanStatus.DRAFT:
            raise JawadError("This plan can no longer be changed: it has already run or is running.",
                             suggestions=["Start a new research to change the steps."])

    def step(self, step_id: str) -> ResearchStep:
        for item in self.steps:
            if item.id == step_id:
                return item
        raise JawadError(f"The plan has no step {step_id!r}.")

    def update_step(self, step_id: str, *, agent: str | None = None, task: str | None = None,
                    site: str | None = None, permissions: Any = None) -> ResearchStep:
        """Change a step; values are checked as the planner checks the model's (ValueError -> JawadError)."""
        self._editable()
        item = self.step(step_id)
        try:
            if agent is not None:
                item.agent = agent_name(agent)
            if permissions is not None:
                item.permissions = normalize_levels(permissions)
        except ValueError as exc:
            raise JawadError(f"That change is not valid: {exc}.") from None
        if task is not None:
            if len(task.strip()) < 3:
                raise JawadError("A step needs a task of at least a few words.",
                                 suggestions=["Say what the step should find, or remove the step."])
            item.task = " ".join(task.split())
        if site is not None:
            item.site = site.strip()
        self.touch()
        return item

    def remove_step(self, step_id: str) -> None:
        self._editable()
        self.steps.remove(self.step(step_id))
        self.touch()

    def move_step(self, step_id: str, to_index: int) -> None:
        """Put a step at ``to_index`` (clamped to the list)."""
        self._editable()
        item = self.step(step_id)
        self.steps.remove(item)
        self.steps.insert(max(0, min(to_index, len(self.steps))), item)
        self.touch()

    def add_step(self, task: str, *, agent: str = DEFAULT_AGENT, site: str = "",
                 permissions: Any = ("read-only", "navigate")) -> ResearchStep:
        self._editable()
        if len(self.steps) >= MAX_STEPS:
            raise JawadError(f"A plan has at most {MAX_STEPS} steps.", suggestions=["Remove a step first."])
        item = ResearchStep(id=_step_id(len(self.steps)), agent=DEFAULT_AGENT, task=task or "New step")
        self.steps.append(item)
        try:
            self.update_step(item.id, agent=agent, task=item.task, site=site, permissions=list(permissions))
        except JawadError:
            self.steps.remove(item)
            raise
        return item

    def all_sources(self, *, completed_only: bool = False) -> list[Source]:
        """Every page the steps read (only completed steps' with ``completed_only``), once each,
        in the order they were first read."""
        seen: dict[str, Source] = {}
        for item in self.steps:
            if completed_only and item.status is not StepStatus.COMPLETED:
                continue
            for source in item.sources:
                seen.setdefault(source.url, source)
        return list(seen.values())
