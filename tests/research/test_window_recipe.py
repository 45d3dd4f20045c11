"""The wiring recipe given to the window, checked on the real main window: the panel above the input,
the controller on the window's browser kit and client, `/research` typed in the chat, the plan run in the
window's browser, the answer in the chat, the steps' tool calls in the action log, everything saved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.agent.commands import research_intent
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.research import PlanStatus, ResearchStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.main_window import MainWindow
from jawad_desktop.ui.research_panel import ResearchController, ResearchPanel
from tests.servers.scripted_model import ScriptedModel, call, text


@pytest.fixture
def window(qtbot: Any, profile_dir: Path, scripted_model: ScriptedModel, aio_loop: Any) -> Iterator[MainWindow]:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.network.max_retries = 0
    main = MainWindow(ctx)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()
    main.dispose()


def test_research_from_the_chat_with_the_recipe(window: MainWindow, scripted_model: ScriptedModel,
                                                page_server: str, qtbot: Any) -> None:
    ctx, chat, controller = window.ctx, window.chat, window.controller
    controller.ensure_assistant()  # the window builds it right after showing; the recipe runs in _build_agent
    # -- the recipe -------------------------------------------------------------------------------
    panel = ResearchPanel(chat)
    chat.insert_above_input(panel)
    research = ResearchController(ctx, panel, client=controller._client_for_run, kit=controller.kit,
                                  page=controller.driver, store=controller.store)
    window.bridge.workflow_update.connect(research.on_workflow_update)
    research.busy_changed.connect(chat.set_busy)

    def send(typed: str) -> None:  # what ChatController.send does first with /research
        intent = research_intent(typed)
        assert intent is not None
        chat.take_input()
        chat.add_message("user", typed)
        controller._save_user_message(typed)
        research.start(intent, controller.conversation_id)
    # ----------------------------------------------------------------------------------------------
    shop = f"{page_server}/research/shop-c.html"
    scripted_model.script(
        text(json.dumps({"steps": [{"agent": "BrowserAgent", "task": "Find the kettle's price at Charlie Kitchen",
                                    "site": shop, "permissions": ["read-only", "navigate"]}]})),
        call("navigate", {"url": shop}), call("read_page", {}), text("Charlie Kitchen: $42.00."),
        text("The Acme Kettle costs $42.00 at Charlie Kitchen [1]."),
    )
    send("/research the price of the Acme Kettle at Charlie Kitchen")
    qtbot.waitUntil(lambda: panel.run_button.isVisible(), timeout=15_000)
    qtbot.waitUntil(chat.send_button.isEnabled, timeout=5_000)  # reviewing the draft blocks nothing
    assert panel.isVisible()
    with qtbot.waitSignal(research.finished, timeout=60_000) as done:
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert not chat.send_button.isEnabled()  # while it runs, the chat waits
    plan = done.args[0]
    assert plan.status is PlanStatus.COMPLETED
    qtbot.waitUntil(lambda: chat.send_button.isEnabled(), timeout=5_000)
    items = chat.view.chat_model.items()
    assert items[0].role == "user" and items[-1].role == "assistant"
    assert "costs $42.00 at Charlie Kitchen [1]" in items[-1].text and shop in items[-1].text
    entries = window.action_log.log_model.entries()
    assert [(e.tool_name, e.result) for e in entries] == [("navigate", "success"), ("read_page", "success")]
    assert controller.driver is not None
    qtbot.waitUntil(lambda: window.browser.view.url().toString() == shop, timeout=5_000)  # the visible browser
    cid = controller.conversation_id
    assert cid is not None and controller.store is not None
    messages = controller.store.messages(cid)
    assert [m.message.role for m in messages] == ["user", "assistant"]
    assert [e.tool_name for e in controller.store.action_log(cid)] == ["navigate", "read_page"]
    (saved,) = ResearchStore(controller.store.db).for_conversation(cid)
    assert saved.id == plan.id and saved.status is PlanStatus.COMPLETED
