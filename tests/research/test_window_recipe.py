"""Research in the real main window: `/research` typed in the chat plans through the window's
assistant, the panel above the input shows the draft, the plan runs in the window's browser, the
answer lands in the chat, the steps' tool calls in the action log, and everything is saved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.research import PlanStatus, ResearchStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.window.main_window import MainWindow
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


def test_research_typed_in_the_chat(window: MainWindow, scripted_model: ScriptedModel, page_server: str,
                                    qtbot: Any) -> None:
    chat, presenter = window.chat, window.presenter
    qtbot.waitUntil(lambda: window.research_panel is not None, timeout=30_000)  # right after showing
    # Research drives the assistant, built at its first need: this message.
    assert window.research_action.isEnabled() and window.research is None
    panel = window.research_panel
    shop = f"{page_server}/research/shop-c.html"
    scripted_model.script(
        text(json.dumps({"steps": [{"agent": "BrowserAgent", "task": "Find the kettle's price at Charlie Kitchen",
                                    "site": shop, "permissions": ["read-only", "navigate"]}]})),
        call("navigate", {"url": shop}), call("read_page", {}), text("Charlie Kitchen: $42.00."),
        text("The Acme Kettle costs $42.00 at Charlie Kitchen [1]."),
    )
    chat.input.setPlainText("/research the price of the Acme Kettle at Charlie Kitchen")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    research = window.research
    assert research is not None and research.panel is panel
    qtbot.waitUntil(lambda: panel.run_button.isVisible(), timeout=15_000)
    qtbot.waitUntil(chat.send_button.isEnabled, timeout=5_000)  # reviewing the draft blocks nothing
    assert panel.isVisible() and chat.input.toPlainText() == ""
    with qtbot.waitSignal(research.finished, timeout=60_000) as done:
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert not chat.send_button.isEnabled()  # while it runs, the chat waits
    plan = done.args[0]
    assert plan.status is PlanStatus.COMPLETED
    qtbot.waitUntil(lambda: chat.send_button.isEnabled(), timeout=5_000)
    items = chat.view.chat_model.items()
    assert items[0].role == "user" and items[0].text.startswith("/research the price")
    assert items[-1].role == "assistant"
    assert "costs $42.00 at Charlie Kitchen [1]" in items[-1].text and shop in items[-1].text
    entries = window.action_log.log_model.entries()
    assert [(e.tool_name, e.result) for e in entries] == [("navigate", "success"), ("read_page", "success")]
    qtbot.waitUntil(lambda: window.browser.view.url().toString() == shop, timeout=5_000)  # the visible browser
    cid, store = presenter.conversation_id, presenter.store
    assert cid is not None and store is not None
    messages = store.messages(cid)
    assert [m.message.role for m in messages] == ["user", "assistant"]
    assert [e.tool_name for e in store.action_log(cid)] == ["navigate", "read_page"]
    (saved,) = ResearchStore(store.db).for_conversation(cid)
    assert saved.id == plan.id and saved.status is PlanStatus.COMPLETED
