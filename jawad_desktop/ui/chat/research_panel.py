"""Research mode in the window: the plan panel and the controller that plans and runs research.

``ResearchPanel`` shows a plan. While it is a draft every step can be edited (agent, task, site,
permissions: ``research_step_editor``), removed, moved up or down, and steps added; Run approves it, Cancel drops it.
While it runs the panel shows each step's status and result from the WORKFLOW_UPDATE events,
and Cancel stops it at once. It never opens a dialog.

``ResearchController`` holds no research logic: it asks the window's ``Assistant`` for the plan
and for the executor that runs the approved plan with the assistant's tools, permissions and
page, and keeps the panel in step with the plan. Wiring: see the class docstring.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.research.plan import PlanStatus, ResearchPlan, ResearchStep, StepStatus
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.chat.research_step_editor import StepEditor
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.prompts.prompt_panel import panel_text

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.research.executor import ResearchExecutor

log = logging.getLogger("jawad.research")

# A step's state as an icon (ui.look.icons) beside its row, not a character the fonts may lack.
STATUS_ICONS = {StepStatus.PENDING: ("clock", "muted"), StepStatus.RUNNING: ("loader-circle", "accent"),
                StepStatus.COMPLETED: ("circle-check", "success"), StepStatus.FAILED: ("circle-x", "danger"),
                StepStatus.SKIPPED: ("chevron-right", "muted")}
PLAN_STATUS_TEXT = {
    PlanStatus.DRAFT: "Review the plan: edit, remove or reorder steps, then press Run.",
    PlanStatus.RUNNING: "Running…",
    PlanStatus.COMPLETED: "Done: the answer is in the chat.",
    PlanStatus.FAILED: "The research could not be completed: see the steps and the chat.",
    PlanStatus.CANCELLED: "Cancelled.",
}
STEP_ID_ROLE = int(Qt.ItemDataRole.UserRole)


def step_text(number: int, step: ResearchStep) -> str:
    """One step as its list row shows it."""
    levels = ", ".join(level.value for level in step.permissions)
    lines = [f"{number}. [{step.agent}] {step.task}",
             f"     {step.site + ' · ' if step.site else ''}{levels} · {step.status.value}"]
    if step.result:
        result = " ".join(step.result.split())
        lines.append(f"     → {result[:240]}{'…' if len(result) > 240 else ''}")
    return "\n".join(lines)


class ResearchPanel(QFrame):
    """The plan: editable while a draft, live while it runs. Emits what the user decides."""

    run_requested = Signal(object)  # the approved ResearchPlan
    cancel_requested = Signal()
    plan_edited = Signal(object)  # the draft ResearchPlan after an edit
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("researchPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Research plan")
        self.plan: ResearchPlan | None = None
        self._loading = False

        self.title = panel_text(self, "researchTitle")
        self.status = panel_text(self, "researchStatus")
        self.steps = QListWidget(self)
        self.steps.setObjectName("researchSteps")
        self.steps.setAccessibleName("Research steps")
        self.steps.setWordWrap(True)
        self.steps.currentRowChanged.connect(self._load_editor)

        self.editor = StepEditor(self)
        self.agent, self.task, self.site = self.editor.agent, self.editor.task, self.editor.site
        self.levels = self.editor.levels
        self.editor.edited.connect(lambda change: self._edit(**change))

        edit_row = QHBoxLayout()
        self.up_button = self._button("Move &up", "researchUp", lambda: self._move(-1))
        self.down_button = self._button("Move do&wn", "researchDown", lambda: self._move(1))
        self.remove_button = self._button("Re&move step", "researchRemove", self._remove)
        self.add_button = self._button("Add s&tep", "researchAdd", self._add)
        for button in (self.up_button, self.down_button, self.remove_button, self.add_button):
            edit_row.addWidget(button)
        edit_row.addStretch(1)
        run_row = QHBoxLayout()
        run_row.addStretch(1)
        self.run_button = self._button("&Run", "researchRun", self._run)
        self.cancel_button = self._button("Ca&ncel", "researchCancel", self.cancel_requested.emit)
        self.close_button = self._button("C&lose", "researchClose", self._dismiss)
        for button in (self.run_button, self.cancel_button, self.close_button):
            run_row.addWidget(button)
        for button, name in ((self.up_button, "chevron-up"), (self.down_button, "chevron-down"),
                             (self.remove_button, "trash-2"), (self.add_button, "plus"), (self.run_button, "play"),
                             (self.cancel_button, "circle-stop"), (self.close_button, "x")):
            button.setIcon(icon(name))

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.status)
        layout.addWidget(self.steps, 1)
        layout.addWidget(self.editor)
        layout.addLayout(edit_row)
        layout.addLayout(run_row)
        self.hide()

    def _button(self, text: str, name: str, slot: Callable[[], Any]) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAccessibleName(text.replace("&", ""))
        button.setAutoDefault(False)
        button.clicked.connect(lambda _=False: slot())
        return button

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def editable(self) -> bool:
        return self.plan is not None and self.plan.status is PlanStatus.DRAFT

    def show_planning(self, intent: str) -> None:
        """The model is writing the plan: only Cancel."""
        self.plan = None
        self.title.setText(f"<b>Research:</b> {html.escape(intent)}")
        self.status.setText("Planning the steps…")
        self.steps.clear()
        self._set_mode(planning=True)
        self.show()

    def show_plan(self, plan: ResearchPlan) -> None:
        """Show ``plan``: editable when it is a draft, read-only otherwise."""
        self.plan = plan
        self.title.setText(f"<b>Research:</b> {html.escape(plan.intent)}")
        self._refresh()
        self.show()

    def show_update(self, payload: dict[str, Any]) -> None:
        """A WORKFLOW_UPDATE for the plan shown (others are ignored)."""
        if self.plan is None or payload.get("id") != self.plan.id:
            return
        self.plan = ResearchPlan.from_payload(payload)
        self._refresh()

    def show_error(self, text: str) -> None:
        self.status.setText(f"<span style='color:{theme.current().colours.danger}'>{html.escape(text)}</span>")
        if self.plan is None or self.plan.finished:
            self._set_mode(planning=False, finished=True)

    def _refresh(self, select: int | None = None) -> None:
        plan = self.plan
        assert plan is not None
        row = select if select is not None and select >= 0 else max(0, self.steps.currentRow())
        self._loading = True
        self.steps.clear()
        for number, step in enumerate(plan.steps, 1):
            item = QListWidgetItem(icon(*STATUS_ICONS[step.status]), step_text(number, step))
            item.setData(STEP_ID_ROLE, step.id)
            item.setToolTip(step.result or step.task)
            self.steps.addItem(item)
        self._loading = False
        if plan.steps:
            self.steps.setCurrentRow(min(row, len(plan.steps) - 1))
        text = PLAN_STATUS_TEXT[plan.status]
        if plan.status is PlanStatus.RUNNING:
            done = sum(1 for s in plan.steps if s.status not in (StepStatus.PENDING, StepStatus.RUNNING))
            text = f"Running: {done} of {len(plan.steps)} steps done…" if done < len(plan.steps) else (
                "Writing the answer…")
        self.status.setText(text)
        self._set_mode(planning=False, finished=plan.finished)
        self._load_editor(self.steps.currentRow())

    def _set_mode(self, *, planning: bool, finished: bool = False) -> None:
        editable = self.editable
        self.editor.setVisible(editable)
        for button in (self.up_button, self.down_button, self.remove_button, self.add_button):
            button.setVisible(editable)
        self.run_button.setVisible(editable)
        self.run_button.setEnabled(editable and bool(self.plan and self.plan.steps))
        self.cancel_button.setVisible(not finished)
        self.cancel_button.setText("S&top" if self.plan is not None and self.plan.status is PlanStatus.RUNNING
                                   else "Ca&ncel")
        self.cancel_button.setAccessibleName(self.cancel_button.text().replace("&", ""))
        self.close_button.setVisible(finished)
        self.steps.setEnabled(not planning)

    def _current_step(self) -> ResearchStep | None:
        item = self.steps.currentItem()
        if self.plan is None or item is None:
            return None
        step_id = item.data(STEP_ID_ROLE)
        return next((s for s in self.plan.steps if s.id == step_id), None)

    def _load_editor(self, _row: int) -> None:
        step = self._current_step() if not self._loading else None
        if step is None or not self.editable:
            return
        self._loading = True
        try:
            self.editor.load(step)
        finally:
            self._loading = False
        number = self.steps.currentRow()
        self.up_button.setEnabled(number > 0)
        self.down_button.setEnabled(number < self.steps.count() - 1)
        self.remove_button.setEnabled(self.steps.count() > 0)

    # -- editing ---------------------------------------------------------------------------------

    def _edit(self, **change: Any) -> None:
        step = self._current_step()
        if self._loading or step is None or self.plan is None or not self.editable:
            return
        current = {"agent": step.agent, "task": step.task, "site": step.site,
                   "permissions": [level.value for level in step.permissions]}
        if all(current[key] == value for key, value in change.items()):
            return
        try:
            self.plan.update_step(step.id, **change)
        except JawadError as exc:
            danger = theme.current().colours.danger
            self.status.setText(f"<span style='color:{danger}'>{html.escape(error_text(exc))}</span>")
            self._load_editor(self.steps.currentRow())  # put the step's valid values back
            return
        self._changed()

    def _move(self, offset: int) -> None:
        step = self._current_step()
        if step is None or self.plan is None or not self.editable:
            return
        target = self.steps.currentRow() + offset
        if not 0 <= target < len(self.plan.steps):
            return
        self.plan.move_step(step.id, target)
        self._changed(select=target)

    def _remove(self) -> None:
        step = self._current_step()
        if step is None or self.plan is None or not self.editable:
            return
        row = self.steps.currentRow()
        self.plan.remove_step(step.id)
        self._changed(select=min(row, len(self.plan.steps) - 1))

    def _add(self) -> None:
        if self.plan is None or not self.editable:
            return
        try:
            self.plan.add_step("Describe what this step should find")
        except JawadError as exc:
            self.status.setText(html.escape(error_text(exc)))
            return
        self._changed(select=len(self.plan.steps) - 1)
        self.task.setFocus()
        self.task.selectAll()

    def _changed(self, select: int | None = None) -> None:
        assert self.plan is not None
        self._refresh(select)
        self.plan_edited.emit(self.plan)

    def _run(self) -> None:
        if self.plan is None or not self.editable or not self.plan.steps:
            return
        # A task being typed counts: editingFinished has not fired yet when Run is clicked by keyboard.
        if self.task.hasFocus():
            self._edit(task=self.task.text())
        self.run_requested.emit(self.plan)

    def _dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()


class ResearchController(QObject):
    """Plans, shows and runs research through the window's ``Assistant``; holds no research logic.

    Wiring (the window, once the assistant is built)::

        panel = ResearchPanel(chat); chat.insert_above_input(panel)
        research = ResearchController(assistant, panel)
        bridge.workflow_update.connect(research.on_workflow_update)
        research.start(intent)  # /research INTENT or the Research button

    ``start`` saves ``/research INTENT`` as the user's message (the assistant announces it as a
    turn), plans, and shows the draft; Run executes it in the same browser page with the same
    tools and permissions. ``busy_changed(bool)`` says when planning or a run is in progress;
    ``finished(plan)`` is emitted with the finished plan (its answer is already in the chat and saved).
    """

    busy_changed = Signal(bool)
    finished = Signal(object)

    def __init__(self, assistant: Assistant, panel: ResearchPanel, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else panel)
        self.assistant = assistant
        self.panel = panel
        self.executor: ResearchExecutor | None = None
        self._task: asyncio.Task[Any] | None = None
        self._phase = ""  # "planning", "running" or "" (idle, or a draft waiting for Run)
        panel.run_requested.connect(self.run)
        panel.cancel_requested.connect(self.cancel)
        panel.plan_edited.connect(self._publish)

    @property
    def busy(self) -> bool:
        return bool(self._phase)

    def _set_phase(self, phase: str) -> None:
        was = self.busy
        self._phase = phase
        if self.busy != was:
            self.busy_changed.emit(self.busy)

    def start(self, intent: str) -> bool:
        """Plan a research for ``intent`` and show the plan (START_WORKFLOW). False when busy or empty."""
        intent = " ".join(intent.split())
        if self.busy:
            self.panel.show()
            self.panel.show_error("A research is already in progress: wait for it or press Cancel first.")
            return False
        if not intent:
            self.panel.show_planning("")
            self.panel.show_error("Say what to research, e.g. /research compare the price of X in three shops.")
            return False
        self.executor = self.assistant.research_executor(intent)
        self.panel.show_planning(intent)
        self._spawn("planning", self._plan(intent))
        return True

    def run(self, plan: ResearchPlan) -> None:
        """Run the approved plan (the panel's Run)."""
        if self.busy or self.executor is None:
            return
        self._spawn("running", self._execute(plan))

    def cancel(self) -> None:
        """Stop planning or the run at once; drop a draft (CANCEL_WORKFLOW)."""
        if self.executor is not None and self.executor.running:
            self.executor.cancel()
        elif self.busy and self._task is not None:
            self._task.cancel()
        elif self.panel.plan is not None and self.panel.plan.status is PlanStatus.DRAFT:
            plan = self.panel.plan
            plan.status = PlanStatus.CANCELLED
            for step in plan.steps:
                step.status = StepStatus.SKIPPED
            self._publish(plan)
            self.panel.show_plan(plan)
        else:
            self.panel.hide()

    def on_workflow_update(self, event: ev.WorkflowUpdate) -> None:
        """Connect ``bridge.workflow_update`` here: the panel follows the running plan."""
        if event.plan.get("status") != PlanStatus.DRAFT.value:
            self.panel.show_update(event.plan)

    def restore(self, conversation_id: str) -> None:
        """Show the last research of a conversation opened from the history (or hide the panel)."""
        if self.busy:
            return
        plans = []
        store = self.assistant.store
        if store is not None:
            from jawad_desktop.core.research.plan_store import ResearchStore

            try:
                plans = ResearchStore(store.db).for_conversation(conversation_id)
            except JawadError as exc:
                log.warning("research plans of %s not loaded: %s", conversation_id, exc.message)
        if not plans:
            self.panel.hide()
            return
        from jawad_desktop.core.research.executor import PlanPublisher

        plan = plans[-1]
        if plan.status is PlanStatus.RUNNING:  # Jawad closed while it ran: say so, once
            for step in plan.steps:
                if step.status in (StepStatus.PENDING, StepStatus.RUNNING):
                    step.status = StepStatus.SKIPPED
            plan.status = PlanStatus.CANCELLED
            plan.error = "Jawad was closed before this research finished"
            PlanPublisher(self.assistant.bus, store, conversation_id).publish(plan)
        self.panel.show_plan(plan)

    # -- work ------------------------------------------------------------------------------------

    def _publish(self, plan: ResearchPlan) -> None:
        if self.executor is not None:
            self.executor.publish(plan)

    async def _settled(self, work: Awaitable[ResearchPlan], cancelled: str) -> ResearchPlan | None:
        """``work``'s plan once it ends, the phase over; None when it failed (said in the panel).
        Cancelled, it says ``cancelled`` and stays cancelled."""
        try:
            plan = await work
        except asyncio.CancelledError:
            self._set_phase("")
            self.panel.show_error(cancelled)
            raise
        except JawadError as exc:
            self._set_phase("")
            self.panel.show_error(error_text(exc))
            return None
        self._set_phase("")
        return plan

    async def _plan(self, intent: str) -> None:
        plan = await self._settled(self.assistant.plan_research(intent), "Planning was cancelled.")
        if plan is not None:  # the draft waits for the user: nothing is running
            self.panel.show_plan(plan)
            self._publish(plan)

    async def _execute(self, plan: ResearchPlan) -> None:
        assert self.executor is not None
        finished = await self._settled(self.executor.execute(plan), "The research was cancelled.")
        if finished is not None:
            self.panel.show_plan(finished)
            self.finished.emit(finished)

    def _spawn(self, phase: str, coro: Coroutine[Any, Any, None]) -> None:
        self._set_phase(phase)

        def failed(exc: BaseException) -> None:
            log.error("research task failed", exc_info=exc)
            self.panel.show_error(f"Something went wrong in the research: {exc}")
            self._set_phase("")

        self._task = run_async(coro, what="the research", bus=self.assistant.bus,
                               on_done=lambda _r: self._set_phase(""), on_error=failed)
        self._task.add_done_callback(lambda t: self._set_phase("") if t.cancelled() else None)
