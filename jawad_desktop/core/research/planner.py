"""The planner: asks the model for a research plan as JSON and makes it a ``ResearchPlan``.

Structured output by prompt (every provider can do it): the system prompt gives the JSON shape,
the agents and the permission levels. The reply is repaired before it is judged: the JSON is
taken out of code fences or surrounding prose, parsed leniently (trailing commas, single quotes),
and coerced (a bare list of steps, ``"plan"`` instead of ``"steps"``, ``"url"`` for ``"site"``,
permissions as one string, agent names in any case, a missing agent chosen from the site). What
still does not validate goes back to the model with pydantic's errors, at most ``max_attempts``
requests in all; then the user is told what to do.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from jawad_desktop.core.agent.session import ChatClient, resolve_client
from jawad_desktop.core.agent.textcalls import loads_lenient
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.errors import LLMError
from jawad_desktop.core.llm.structured import StructuredOutputError, generate_structured
from jawad_desktop.core.messages import Message
from jawad_desktop.core.research.plan import AGENTS, MAX_STEPS, PlanDraft, ResearchPlan

log = logging.getLogger("jawad.research")

MAX_ATTEMPTS = 3

_FENCE = re.compile(r"```[\w+-]*\s*\n?(.*?)```", re.DOTALL)


class PlanParseError(ValueError):
    """The reply is not a usable plan; ``problems`` say why, in words the model can act on."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _candidates(text: str) -> list[str]:
    """Pieces of ``text`` that may hold the plan's JSON: fenced blocks, then each balanced
    ``{...}`` / ``[...]`` from the first opening bracket, then the whole text."""
    found = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        end = text.rfind(closer)
        if start != -1 and end > start:
            found.append(text[start:end + 1])
    found.append(text.strip())
    return [c for c in found if c]


def _coerce(value: Any) -> Any:
    """The shapes models use for a plan, turned into ``{"steps": [...]}``."""
    if isinstance(value, list):
        value = {"steps": value}
    if isinstance(value, dict):
        if "steps" not in value:
            for key in ("plan", "workflow", "tasks"):
                inner = value.get(key)
                if isinstance(inner, list):
                    return {**value, "steps": inner}
                if isinstance(inner, dict):
                    return _coerce(inner)
        steps = value.get("steps")
        if isinstance(steps, list):
            value = {**value, "steps": [_coerce_step(s) for s in steps]}
    return value


def _coerce_step(step: Any) -> Any:
    if not isinstance(step, dict):
        return step
    step = dict(step)
    for wanted, others in (("task", ("description", "action", "goal")), ("site", ("url", "website", "start_url")),
                           ("permissions", ("permission", "levels")), ("agent", ("agent_type", "role"))):
        if wanted not in step:
            for other in others:
                if other in step:
                    step[wanted] = step.pop(other)
                    break
    if not step.get("agent") and step.get("task"):
        # Weak models often leave the agent out: a step with a site opens it, one without searches.
        step["agent"] = "BrowserAgent" if step.get("site") else "SearchAgent"
    return step


def parse_plan(text: str) -> PlanDraft:
    """The plan in a model's reply, repaired and validated; ``PlanParseError`` says what is wrong."""
    if not text.strip():
        raise PlanParseError(["the reply was empty"])
    decoded: Any = None
    parsed = False
    for candidate in _candidates(text):
        try:
            decoded = loads_lenient(candidate)
        except ValueError:
            continue
        if isinstance(decoded, dict | list):
            parsed = True
            break
    if not parsed:
        raise PlanParseError(["the reply does not contain a JSON object (write only the JSON, no other text)"])
    try:
        return PlanDraft.model_validate(_coerce(decoded))
    except ValidationError as exc:
        raise PlanParseError(_problems(exc)) from None


def _problems(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error.get("loc", ())) or "plan"
        if error.get("type") == "missing":
            problems.append(f"'{where}' is missing")
        else:
            message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
            problems.append(f"'{where}' is invalid: {message}")
    return problems or ["the JSON does not match the plan's shape"]


def planner_prompt(max_steps: int = MAX_STEPS) -> str:
    agents = "\n".join(f"- {name}: {what}" for name, (what, _how) in AGENTS.items())
    levels = ", ".join(level.value for level in PermissionLevel)
    example = {"steps": [{"agent": "BrowserAgent", "task": "Find the price of the Acme kettle on shop-a.example",
                          "site": "https://shop-a.example/kettle", "permissions": ["read-only", "navigate"]}]}
    return (
        "You plan research for Jawad, an assistant that works in a web browser the user watches.\n"
        "Break the user's research intent into 1 to "
        f"{max_steps} steps. Each step is done by one agent in the browser, one after the other; a final "
        "summary combines their results, so do not add a step for comparing or summarising.\n"
        f"Agents:\n{agents}\n"
        f"Permission levels (give each step the least it needs): {levels}. read-only reads the open page; "
        "navigate opens pages and searches; interact clicks and types; submit sends forms. Never plan purchases, "
        "payments, sign-ups or deletions.\n"
        "When the user names sites or addresses, give each one its own step with that address as \"site\".\n"
        "Answer with ONLY a JSON object of this shape, no prose and no code fence:\n"
        f"{json.dumps(example)}"
    )


class Planner:
    """Turns an intent into a validated ``ResearchPlan`` (a draft the user reviews)."""

    def __init__(self, client: ChatClient | Callable[[], ChatClient], *, max_attempts: int = MAX_ATTEMPTS,
                 max_steps: int = MAX_STEPS, temperature: float | None = 0.2) -> None:
        self._client_source = client
        self.max_attempts = max(1, max_attempts)
        self.max_steps = max(1, min(max_steps, MAX_STEPS))
        self.temperature = temperature
        self.attempts = 0  # requests made by the last ``plan`` call

    def _client(self) -> ChatClient:
        return resolve_client(self._client_source)

    async def plan(self, intent: str, *, page_hint: str = "") -> ResearchPlan:
        """Ask for a plan; repaired and retried with the validation errors; ``JawadError`` at the end."""
        intent = " ".join(intent.split())
        if not intent:
            raise JawadError("The research intent is empty.",
                             suggestions=["Say what to research, e.g. compare the price of X in 3 shops."])
        client = self._client()
        user = f"Research intent: {intent}"
        if page_hint:
            user += f"\nThe page open in the browser now: {page_hint}"
        messages = [Message(role="system", content=planner_prompt(self.max_steps)), Message(role="user", content=user)]
        self.attempts = 0
        # Structured generation (core.llm.structured): the provider's JSON-schema mode where it has
        # one, else the schema in the prompt; validated with pydantic, the problems fed back.
        try:
            result = await generate_structured(client, messages, PlanDraft, max_attempts=self.max_attempts,
                                               temperature=self.temperature, max_tokens=2048, prepare=_coerce)
        except LLMError as exc:
            raise JawadError(f"The plan could not be made: {exc.message}", suggestions=exc.suggestions,
                             remedy=exc.remedy) from exc
        except StructuredOutputError as exc:
            self.attempts = self.max_attempts
            raise JawadError(
                f"The model did not write a usable research plan in {self.max_attempts} tries "
                f"(last problem: {'; '.join(exc.problems)}).",
                suggestions=["Try again, or say more precisely what to compare and where.",
                             "A more capable model plans better: choose another model."],
                remedy=exc.remedy,
            ) from None
        self.attempts = result.attempts
        draft = result.value
        if len(draft.steps) > self.max_steps:
            draft.steps = draft.steps[: self.max_steps]
        plan = ResearchPlan.from_draft(intent, draft)
        log.info("plan %s for %r: %d steps after %d request(s)", plan.id, intent, len(plan.steps), result.attempts)
        return plan
