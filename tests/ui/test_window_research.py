"""Research mode in the real window: /research in the chat plans, the plan shows in the panel,
Run executes it in the window's browser, the cited answer lands in the chat and is saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.research import PlanStatus
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text


def test_research_from_the_chat(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel,
                                page_server: str, qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.network.max_retries = 0
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    presenter = window.presenter
    assert presenter.research is not None and window.research_action.isEnabled()
    shop = f"{page_server}/research/shop-c.html"
    scripted_model.script(
        text(json.dumps({"steps": [{"agent": "BrowserAgent", "task": "Find the kettle's price at Charlie Kitchen",
                                    "site": shop, "permissions": ["read-only", "navigate"]}]})),
        call("navigate", {"url": shop}), call("read_page", {}), text("Charlie Kitchen: $42.00."),
        text("The Acme Kettle costs $42.00 at Charlie Kitchen [1]."),
    )
    window.chat.input.setPlainText("/research the price of the Acme Kettle at Charlie Kitchen")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    panel = presenter.research.panel
    qtbot.waitUntil(lambda: panel.run_button.isVisible(), timeout=30_000)
    with qtbot.waitSignal(presenter.research.finished, timeout=90_000) as done:
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert done.args[0].status is PlanStatus.COMPLETED
    qtbot.waitUntil(lambda: window.chat.send_button.isEnabled(), timeout=10_000)
    answer = [i for i in window.chat.view.chat_model.items() if i.role == "assistant"][-1]
    assert "$42.00 at Charlie Kitchen" in answer.text and shop in answer.text
    assert window.browser.view.url().toString() == shop
    store = presenter.store
    assert store is not None and presenter.conversation_id
    saved = [s.message.content for s in store.messages(presenter.conversation_id)]
    assert saved[0].startswith("/research") and "$42.00" in saved[-1]


def test_research_button_asks_for_an_intent(make_window: Any, profile_dir: Path) -> None:
    window: MainWindow = make_window(profile_dir)
    window.research_action.trigger()
    assert "Research" in window.chat.view.chat_model.items()[-1].text
