"""The research panel under pytest-qt: a draft plan edited, removed, reordered and approved with real
clicks and typing; then the controller on a real browser kit plans, runs and cancels from the panel."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.research import PlanStatus, ResearchPlan, ResearchStore, StepStatus, parse_plan
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.base.bridge import EventBridge
from jawad_desktop.ui.chat.research_panel import ResearchController, ResearchPanel
from tests.servers.scripted_model import ScriptedModel, call, text

STEPS = [
    {"agent": "BrowserAgent", "task": "Find the price at Alpha", "site": "http://a.example/k",
     "permissions": ["read-only", "navigate"]},
    {"agent": "BrowserAgent", "task": "Find the price at Bravo", "site": "http://b.example/k",
     "permissions": ["read-only", "navigate"]},
    {"agent": "SearchAgent", "task": "Search for kettle reviews", "site": "", "permissions": ["navigate"]},
]


def _draft() -> ResearchPlan:
    return ResearchPlan.from_draft("compare kettles", parse_plan(json.dumps({"steps": STEPS})))


@pytest.fixture
def panel(qtbot: Any) -> ResearchPanel:
    widget = ResearchPanel()
    qtbot.addWidget(widget)
    widget.resize(640, 600)
    return widget


def _click(qtbot: Any, button: QPushButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.objectName()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_edit_remove_reorder_and_approve(panel: ResearchPanel, qtbot: Any) -> None:
    plan = _draft()
    edits: list[ResearchPlan] = []
    panel.plan_edited.connect(edits.append)
    panel.show_plan(plan)
    qtbot.waitExposed(panel)
    assert panel.steps.count() == 3 and panel.run_button.isVisible() and not panel.close_button.isVisible()
    assert "[BrowserAgent] Find the price at Alpha" in panel.steps.item(0).text()

    # Edit the second step's task and site by typing, and allow it to interact.
    panel.steps.setCurrentRow(1)
    panel.task.clear()
    qtbot.keyClicks(panel.task, "Find the price at Bravo Home")
    qtbot.keyClick(panel.task, Qt.Key.Key_Return)
    panel.site.clear()
    qtbot.keyClicks(panel.site, "http://bravo.example/kettle")
    qtbot.keyClick(panel.site, Qt.Key.Key_Return)
    panel.levels[PermissionLevel.INTERACT].click()  # as a click or the space bar does
    bravo = plan.steps[1]
    assert (bravo.task, bravo.site) == ("Find the price at Bravo Home", "http://bravo.example/kettle")
    assert [level.value for level in bravo.permissions] == ["read-only", "navigate", "interact"]
    assert "Bravo Home" in panel.steps.item(1).text()

    # An invalid edit is refused and the step keeps its task.
    panel.task.clear()
    qtbot.keyClick(panel.task, Qt.Key.Key_Return)
    assert bravo.task == "Find the price at Bravo Home" and panel.task.text() == bravo.task
    assert "task" in panel.status.text()

    # Remove the search step, move Bravo to the top, add a step.
    panel.steps.setCurrentRow(2)
    _click(qtbot, panel.remove_button)
    panel.steps.setCurrentRow(1)
    _click(qtbot, panel.up_button)
    assert [s.task for s in plan.steps] == ["Find the price at Bravo Home", "Find the price at Alpha"]
    assert panel.steps.currentRow() == 0 and not panel.up_button.isEnabled()
    _click(qtbot, panel.add_button)
    assert len(plan.steps) == 3 and panel.steps.currentRow() == 2
    qtbot.keyClicks(panel.task, "Read the reviews on Charlie")
    qtbot.keyClick(panel.task, Qt.Key.Key_Return)
    panel.agent.setCurrentText("ReaderAgent")
    assert (plan.steps[2].task, plan.steps[2].agent) == ("Read the reviews on Charlie", "ReaderAgent")
    assert edits and edits[-1] is plan

    with qtbot.waitSignal(panel.run_requested) as approved:
        _click(qtbot, panel.run_button)
    assert approved.args == [plan]
    assert [s.task for s in approved.args[0].steps] == ["Find the price at Bravo Home", "Find the price at Alpha",
                                                         "Read the reviews on Charlie"]


def test_a_running_plan_is_read_only_and_can_be_stopped(panel: ResearchPanel, qtbot: Any) -> None:
    plan = _draft()
    panel.show_plan(plan)
    plan.status = PlanStatus.RUNNING
    plan.steps[0].status = StepStatus.COMPLETED
    plan.steps[0].result = "Alpha: $39.99"
    plan.steps[1].status = StepStatus.RUNNING
    panel.show_update(plan.to_payload())
    assert not panel.editor.isVisible() and not panel.run_button.isVisible() and not panel.remove_button.isVisible()
    # Each step's state in words and as its icon (no glyph a font may lack).
    assert "· completed" in panel.steps.item(0).text() and "Alpha: $39.99" in panel.steps.item(0).text()
    assert "· running" in panel.steps.item(1).text() and "Running: 1 of 3" in panel.status.text()
    assert not panel.steps.item(0).icon().isNull() and not panel.steps.item(1).icon().isNull()
    assert not any(mark in panel.steps.item(0).text() for mark in "✓✗▶")
    assert panel.cancel_button.text() == "S&top"
    with qtbot.waitSignal(panel.cancel_requested):
        _click(qtbot, panel.cancel_button)
    other = _draft()
    panel.show_update({**other.to_payload(), "status": "completed"})  # another plan's update: ignored
    assert "Running" in panel.status.text()
    plan.status = PlanStatus.CANCELLED
    panel.show_update(plan.to_payload())
    assert panel.close_button.isVisible() and not panel.cancel_button.isVisible()
    with qtbot.waitSignal(panel.dismissed):
        _click(qtbot, panel.close_button)
    assert not panel.isVisible()


@pytest.fixture
def controller(panel: ResearchPanel, web_page: QtWebEnginePage, scripted_model: ScriptedModel, tmp_path: Path,
               arun: Callable[..., Any]) -> Iterator[tuple[ResearchController, AppContext, ConversationStore]]:
    ctx = AppContext.open(str(tmp_path / "profile"), secrets=SecretStore())
    ctx.settings.network.max_retries = 0
    client = LLMClient(scripted_model.provider(), network=ctx.settings.network, bus=ctx.bus)
    assistant = Assistant(ctx, page=web_page, client=client)
    assert assistant.browser is not None and assistant.store is not None
    assistant.browser.highlight_s = 0.0
    research = ResearchController(assistant, panel)
    bridge = EventBridge(ctx.bus, panel)
    bridge.workflow_update.connect(research.on_workflow_update)
    arun(web_page.navigate("about:blank"))
    yield research, ctx, assistant.store
    bridge.detach()
    arun(assistant.aclose())


def test_the_controller_plans_runs_and_saves(controller: tuple[ResearchController, AppContext, ConversationStore],
                                             panel: ResearchPanel, scripted_model: ScriptedModel, page_server: str,
                                             qtbot: Any) -> None:
    research, ctx, store = controller
    cid = store.create().id
    research.assistant.open_conversation(cid)
    shop = f"{page_server}/research/shop-b.html"
    steps = [{"agent": "BrowserAgent", "task": "Find the kettle's price at Bravo Home", "site": shop,
              "permissions": ["read-only", "navigate"]},
             {"agent": "ReaderAgent", "task": "Note the availability", "permissions": ["read-only"]}]
    scripted_model.script(
        text(json.dumps({"steps": steps})),
        call("navigate", {"url": shop}), call("read_page", {}), text("Bravo Home: $34.50, in stock."),
        text("Bravo Home sells it for $34.50 [1]."),
    )
    answers: list[events.ChatResponse] = []
    ctx.bus.subscribe(lambda e: answers.append(e) if isinstance(e, events.ChatResponse) else None)
    assert research.start("  price of the Acme kettle at Bravo ")
    assert "Planning" in panel.status.text() and panel.cancel_button.isVisible()
    qtbot.waitUntil(lambda: panel.plan is not None and panel.run_button.isVisible(), timeout=15_000)
    assert "The page open in the browser now" in scripted_model.requests[0]["messages"][-1]["content"]
    # The user drops the second step before approving.
    panel.steps.setCurrentRow(1)
    _click(qtbot, panel.remove_button)
    with qtbot.waitSignal(research.finished, timeout=60_000) as done:
        _click(qtbot, panel.run_button)
    plan: ResearchPlan = done.args[0]
    assert plan.status is PlanStatus.COMPLETED and len(plan.steps) == 1
    assert panel.close_button.isVisible() and "Done" in panel.status.text()
    assert "· completed" in panel.steps.item(0).text() and not panel.steps.item(0).icon().isNull()
    assert answers[-1].content.startswith("Bravo Home sells it for $34.50 [1].")
    assert f"[1] Acme Kettle 1.7 L — Bravo Home — {shop}" in answers[-1].content
    (saved,) = ResearchStore(store.db).for_conversation(cid)
    assert saved.status is PlanStatus.COMPLETED and len(saved.steps) == 1
    saved_messages = store.messages(cid)
    assert saved_messages[0].message.content == "/research price of the Acme kettle at Bravo"
    assert saved_messages[-1].metadata["research_plan_id"] == plan.id
    qtbot.waitUntil(lambda: not research.busy)
    # Restoring the conversation shows its last research.
    panel.hide()
    research.restore(cid)
    assert panel.isVisible() and panel.plan is not None and panel.plan.id == plan.id
    # A research left running when Jawad closed comes back as cancelled, not running forever.
    left = ResearchPlan.from_draft("kettles", parse_plan(json.dumps({"steps": STEPS})))
    left.status = PlanStatus.RUNNING
    left.steps[0].status = StepStatus.COMPLETED
    left.steps[1].status = StepStatus.RUNNING
    ResearchStore(store.db).save(left, cid)
    research.restore(cid)
    assert panel.plan is not None and panel.plan.id == left.id and panel.plan.status is PlanStatus.CANCELLED
    assert [s.status for s in panel.plan.steps] == [StepStatus.COMPLETED, StepStatus.SKIPPED, StepStatus.SKIPPED]
    assert ResearchStore(store.db).get(left.id).status is PlanStatus.CANCELLED  # type: ignore[union-attr]
    assert panel.close_button.isVisible()


def test_cancel_while_planning_and_drop_a_draft(controller: tuple[ResearchController, AppContext, ConversationStore],
                                                panel: ResearchPanel, scripted_model: ScriptedModel,
                                                qtbot: Any) -> None:
    research, _ctx, _store = controller
    scripted_model.script(text("{}", delay_s=5))
    research.start("compare kettles")
    qtbot.waitUntil(lambda: len(scripted_model.requests) == 1, timeout=5_000)
    _click(qtbot, panel.cancel_button)
    qtbot.waitUntil(lambda: not research.busy, timeout=3_000)
    assert "cancelled" in panel.status.text() and panel.close_button.isVisible()
    qtbot.wait(5_200)  # let the slow reply go by before the next script
    scripted_model.script(text(json.dumps({"steps": STEPS})))
    research.start("compare kettles")
    qtbot.waitUntil(lambda: panel.run_button.isVisible(), timeout=15_000)
    _click(qtbot, panel.cancel_button)
    assert panel.plan is not None and panel.plan.status is PlanStatus.CANCELLED
    assert all(s.status is StepStatus.SKIPPED for s in panel.plan.steps) and panel.close_button.isVisible()
    assert not research.start("")  # nothing to research: told, not planned
    assert "Say what to research" in panel.status.text()
