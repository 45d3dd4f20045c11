"""Running an approved research plan: one agent run per step, then the final synthesis.

``ResearchExecutor.execute(plan)`` runs the steps in order, each as its own ``AgentSession`` in
the same browser page, with:

- only the tools the step's permission levels allow, and a ``StepGate``: a call above the step's
  levels is denied; a call within them was approved with the plan, so Harbor lets it run
  without asking, except what Harbor always asks about (critical actions such as buying or
  deleting, page text sent to another site) and what deny-all refuses;
- its own event bus, so its tool calls reach the action log (``ActionLogUpdate`` and ``Notice``
  are forwarded) but its chat text does not land in the chat; its result goes to the plan;
- the pages it read recorded from the read tools' results (URL and title as read), the
  citations of the final answer (only completed steps' pages are cited).

A step fails when its run ends in an error or every action it tried failed or was denied; the
next steps run anyway. ``cancel()`` stops at once: the running step's agent run is cancelled,
it and the steps after it are marked skipped, and no synthesis is written. After every change
the whole plan is published (``WorkflowUpdate``) and, with a conversation, saved
(``ResearchStore``); the final answer is emitted as a ``ChatResponse`` (streamed as
``ChatDelta``) and saved as an assistant message with the plan id and citations.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ActionLogEntry, ActionLogUpdate, ChatDelta, EventBus, Notice, WorkflowUpdate
from jawad_desktop.core.harbor.gate import GateDecision, HarborGate, PermissionCheck, PermissionGate
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.errors import LLMError
from jawad_desktop.core.messages import Message
from jawad_desktop.core.research.plan import AGENTS, PlanStatus, ResearchPlan, ResearchStep, Source, StepStatus
from jawad_desktop.core.research.plan_store import ResearchStore
from jawad_desktop.core.research.synthesis import (
    clean_answer,
    fallback_answer,
    synthesis_messages,
    with_sources,
)
from jawad_desktop.core.tools.registry import Tool, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from jawad_desktop.core.store.conversations import ConversationStore
    from jawad_desktop.core.tools.browser import BrowserSession

log = logging.getLogger("jawad.research")

READ_TOOLS = ("read_page", "summarize_page", "find_in_page")
RESULT_LIMIT = 4_000  # characters of a step's result kept in the plan


class StepGate:
    """The permission gate of one step: its levels only; Harbor for what Harbor always decides.

    ``run_ids`` collects the agent runs it was asked for, so the step's action-log entries can be
    told from others'.
    """

    def __init__(self, inner: PermissionGate, levels: Iterable[PermissionLevel], *, step_label: str = "") -> None:
        self.inner = inner
        self.levels = frozenset(PermissionLevel(level) for level in levels)
        self.step_label = step_label or "this research step"
        self.run_ids: set[str] = set()

    async def check(self, request: PermissionCheck) -> GateDecision:
        self.run_ids.add(request.run_id)
        if request.level not in self.levels:
            allowed = ", ".join(level.value for level in sorted(self.levels, key=lambda lv: lv.rank))
            return GateDecision.denied(
                f"{self.step_label} may only use {allowed} actions (the approved plan says so); "
                "edit the step's permissions in the plan to allow more"
            )
        if not isinstance(self.inner, HarborGate):
            return await self.inner.check(request)
        # The user approved these levels with the plan: Harbor counts them as allowed for this
        # one decision, and still asks for critical actions and page data leaving the site.
        policy = self.inner.harbor.policy
        added = set(self.levels) - policy.auto_levels
        policy.auto_levels |= added
        try:
            return await self.inner.check(request)
        finally:
            policy.auto_levels -= added

    def record_result(self, site: str, text: str) -> None:
        """What a step's call read goes to the data-flow record of the gate it wraps."""
        record = getattr(self.inner, "record_result", None)
        if record is not None:
            record(site, text)


class PlanPublisher:
    """Publishes the whole plan after each change: a ``WorkflowUpdate`` and, with a
    conversation, a save. A save that fails is told once and does not stop the research."""

    def __init__(self, bus: EventBus, store: ConversationStore | None = None,
                 conversation_id: str | None = None) -> None:
        self.bus = bus
        self.conversation_store = store
        self.conversation_id = conversation_id
        self.research_store = ResearchStore(store.db) if store is not None else None
        self._save_failed = False

    def publish(self, plan: ResearchPlan) -> None:
        plan.touch()
        self.bus.emit(WorkflowUpdate(plan=plan.to_payload()))
        if self.research_store is None or not self.conversation_id or self._save_failed:
            return
        try:
            self.research_store.save(plan, self.conversation_id)
        except JawadError as exc:
            self._save_failed = True
            log.warning("research plan %s not saved: %s", plan.id, exc.message)
            self.bus.emit(Notice(level="warning", text="The research plan could not be saved: " + exc.user_text()))

    def save_answer(self, plan: ResearchPlan, content: str) -> None:
        if self.conversation_store is None or not self.conversation_id:
            return
        metadata = {"research_plan_id": plan.id, "research_status": plan.status.value,
                    "citations": [{"index": i, **c.as_dict()} for i, c in enumerate(plan.citations, 1)]}
        try:
            self.conversation_store.append_message(self.conversation_id, Message(role="assistant", content=content),
                                                   metadata=metadata)
        except JawadError as exc:
            log.warning("research answer not saved: %s", exc.message)
            self.bus.emit(Notice(level="error", text="The research answer could not be saved: " + exc.user_text()))


class ResearchExecutor:
    """Runs approved plans in one browser page; see the module docstring."""

    def __init__(
        self,
        session: AgentSession,
        *,
        store: ConversationStore | None = None,
        conversation_id: str | None = None,
    ) -> None:
        """Steps run in siblings of ``session``: its client, settings, secrets and browser page,
        a subset of its tools, its gate narrowed to the step's levels; the plan's updates,
        the steps' action-log entries and the answer go to its bus."""
        self.session = session
        self.bus = session.bus
        self.gate = session.gate
        self.browser = session.browser  # the page, its context, the last product, what was read
        self.publisher = PlanPublisher(session.bus, store, conversation_id)
        self.plan: ResearchPlan | None = None
        self._task: asyncio.Task[ResearchPlan] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def cancel(self) -> bool:
        """Stop the research now (spec 001 CANCEL_WORKFLOW). False when nothing runs."""
        if not self.running:
            return False
        assert self._task is not None
        self._task.cancel()
        return True

    def publish(self, plan: ResearchPlan) -> None:
        """Publish a plan changed outside a run (the user edited the draft)."""
        self.publisher.publish(plan)

    async def execute(self, plan: ResearchPlan) -> ResearchPlan:
        """Run the approved plan; returns it finished (completed, failed or cancelled)."""
        if self.running:
            raise JawadError("A research is already running.", suggestions=["Wait for it, or press Cancel first."])
        if not plan.steps:
            raise JawadError("The plan has no steps left to run.", suggestions=["Add a step, or start a new research."])
        if plan.status is not PlanStatus.DRAFT:
            raise JawadError("This plan has already run.", suggestions=["Start a new research to run it again."])
        self.plan = plan
        self._task = asyncio.get_running_loop().create_task(self._execute(plan), name=f"jawad-research-{plan.id}")
        try:
            return await asyncio.shield(self._task)
        except asyncio.CancelledError:
            self._task.cancel()  # our caller was cancelled: stop the research too
            await asyncio.wait({self._task})
            raise

    # -- the run ------------------------------------------------------------------------------

    async def _execute(self, plan: ResearchPlan) -> ResearchPlan:
        run_id = f"research_{plan.id}"
        plan.status = PlanStatus.RUNNING
        self.publisher.publish(plan)
        try:
            for number, step in enumerate(plan.steps, 1):
                step.status = StepStatus.RUNNING
                self.publisher.publish(plan)
                try:
                    await self._run_step(plan, step, number)
                except JawadError as exc:
                    step.status, step.result = StepStatus.FAILED, exc.user_text()
                except Exception as exc:  # one broken step must not lose the others
                    log.exception("research %s: step %d failed unexpectedly", plan.id, number)
                    step.status = StepStatus.FAILED
                    step.result = f"The step failed inside Jawad ({type(exc).__name__}: {exc}); see the log file."
                self.publisher.publish(plan)
            done = [s for s in plan.steps if s.status is StepStatus.COMPLETED]
            if not done:
                plan.status = PlanStatus.FAILED
                plan.citations = []
                plan.error = "none of the steps could be completed"
                content = ("None of the research steps could be completed, so there is no answer: "
                           + " ".join(f"{s.task}: {s.result}" for s in plan.steps)[:1500]
                           + "\nCheck the addresses in the plan and your connection, then run the research again.")
                return self._finish(plan, run_id, content, is_error=True)
            return await self._synthesize(plan, run_id)
        except asyncio.CancelledError:
            for step in plan.steps:
                if step.status is StepStatus.RUNNING:
                    step.status = StepStatus.SKIPPED
                    step.result = (step.result + "\n" if step.result else "") + "Stopped by the user while it ran."
                elif step.status is StepStatus.PENDING:
                    step.status = StepStatus.SKIPPED
            plan.status = PlanStatus.CANCELLED
            plan.citations = plan.all_sources(completed_only=True)
            log.info("research %s cancelled", plan.id)
            return self._finish(plan, run_id, "The research was cancelled.", interrupted=True)

    async def _run_step(self, plan: ResearchPlan, step: ResearchStep, number: int) -> None:
        label = f"Step {number} ({step.agent})"
        gate = StepGate(self.gate, step.permissions, step_label=label)
        step_bus = EventBus()
        entries: dict[str, ActionLogEntry] = {}

        def forward(event: events.Event) -> None:
            if isinstance(event, ActionLogUpdate):
                entries[event.entry.id] = event.entry
                self.bus.emit(event)
            elif isinstance(event, Notice):
                self.bus.emit(event)

        step_bus.subscribe(forward)

        def record(url: str, title: str) -> None:
            # Browser error pages (chrome-error://) and blank pages are not sources.
            if url.startswith(("http://", "https://", "file://")) and all(s.url != url for s in step.sources):
                step.sources.append(Source(url=url, title=title))
                self.publisher.publish(plan)

        session = self.session.sibling(
            registry=self._step_registry(step, record),
            bus=step_bus,
            gate=gate,
            extras={"user_request": f"{plan.intent}\n{step.task}"},
            system_extra=self._step_instructions(plan, step, number),
        )
        log.info("research %s: %s starts: %s", plan.id, label, step.task)
        response = await session.run(self._step_prompt(plan, step, number))
        outcomes = [e for e in entries.values() if e.run_id in gate.run_ids and e.result != "pending"]
        content = response.content.strip()
        if len(content) > RESULT_LIMIT:
            content = content[:RESULT_LIMIT] + " […]"
        if response.is_error:
            step.status = StepStatus.FAILED
            step.result = content or "The step failed."
        elif outcomes and not any(e.result == "success" for e in outcomes):
            step.status = StepStatus.FAILED
            problems = "; ".join(f"{e.tool_name}: {e.details}" for e in outcomes if e.details)[:600]
            step.result = (content + "\n" if content else "") + f"Every action of this step failed ({problems})."
        else:
            step.status = StepStatus.COMPLETED
            step.result = content or "Done (the agent gave no details)."
        log.info("research %s: %s %s", plan.id, label, step.status.value)

    def _step_registry(self, step: ResearchStep, record: Callable[[str, str], None]) -> ToolRegistry:
        """The tools the step's levels allow; the read tools also record the page they read."""
        allowed = set(step.permissions)
        registry = ToolRegistry()
        for tool in self.session.registry:
            if tool.level not in allowed:
                continue
            registry.add(_recording(tool, record, self.browser) if tool.name in READ_TOOLS else tool)
        return registry

    def _step_instructions(self, plan: ResearchPlan, step: ResearchStep, number: int) -> str:
        how = AGENTS.get(step.agent, AGENTS["BrowserAgent"])[1]
        levels = ", ".join(level.value for level in step.permissions)
        lines = [
            f"You are the {step.agent} doing step {number} of {len(plan.steps)} of a research the user approved. "
            f"{how} Stay on this step's task; other steps cover the rest. Allowed actions: {levels}.",
            "Finish with a short factual result: names, prices with their currency, availability, and the page "
            "you found them on. If you could not do the task, say so and why.",
        ]
        earlier = [(i, s) for i, s in enumerate(plan.steps[: number - 1], 1) if s.result]
        if earlier:
            lines.append("Results of the earlier steps:")
            lines += [f"{i}. {s.task}: {' '.join(s.result.split())[:300]}" for i, s in earlier]
        return "\n".join(lines)

    @staticmethod
    def _step_prompt(plan: ResearchPlan, step: ResearchStep, number: int) -> str:
        text = f"Research: {plan.intent}\nStep {number}: {step.task}"
        if step.site:
            text += f"\nStart at: {step.site}"
        return text

    # -- the end --------------------------------------------------------------------------------

    async def _synthesize(self, plan: ResearchPlan, run_id: str) -> ResearchPlan:
        sources = plan.all_sources(completed_only=True)
        plan.citations = sources
        agent = self.session.settings.agent
        stream = self.session.client().chat(synthesis_messages(plan, sources), None, stream=True,
                                     temperature=agent.temperature, max_tokens=agent.max_tokens)
        streamed: list[str] = []
        try:
            async for delta in stream:
                if delta.text:
                    streamed.append(delta.text)
                    self.bus.emit(ChatDelta(run_id=run_id, text=delta.text))
            response = await stream.response()
        except LLMError as exc:
            plan.status = PlanStatus.FAILED
            plan.error = exc.message
            return self._finish(plan, run_id, with_sources(fallback_answer(plan, exc.message), sources), is_error=True)
        except asyncio.CancelledError:
            plan.answer = "".join(streamed)
            raise
        answer = clean_answer(response.content, sources)
        if not answer:
            plan.status = PlanStatus.FAILED
            plan.error = "the model sent an empty summary"
            return self._finish(plan, run_id, with_sources(fallback_answer(plan, plan.error), sources), is_error=True)
        plan.status = PlanStatus.COMPLETED
        return self._finish(plan, run_id, with_sources(answer, sources))

    def _finish(self, plan: ResearchPlan, run_id: str, content: str, *, is_error: bool = False,
                interrupted: bool = False) -> ResearchPlan:
        plan.answer = content
        self.publisher.publish(plan)
        if not interrupted:
            self.publisher.save_answer(plan, content)
        self.bus.emit(events.ChatResponse(
            run_id=run_id, content=content, is_error=is_error, interrupted=interrupted,
            metadata={"research_plan_id": plan.id, "research_status": plan.status.value,
                      "citations": [{"index": i, **c.as_dict()} for i, c in enumerate(plan.citations, 1)]},
        ))
        return plan


def _recording(tool: Tool, record: Callable[[str, str], None], browser: BrowserSession | None) -> Tool:
    """A copy of a read tool that records the page it read (URL and title from its result)."""
    original = tool.fn

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        value = original(*args, **kwargs)
        if asyncio.iscoroutine(value):
            value = await value
        data = value.data if isinstance(value, ToolResult) else None
        if isinstance(data, dict) and data.get("url"):
            record(str(data["url"]), str(data.get("title") or ""))
        elif browser is not None and browser.last_reading is not None:
            record(browser.last_reading.url, browser.last_reading.title)
        return value

    return dataclasses.replace(tool, fn=recorded)
