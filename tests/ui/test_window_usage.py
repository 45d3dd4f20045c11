"""What an answer used, in the window: a small usage line under each answer, the conversation's
total in the history sidebar's tooltip, and a run stopped by its budget, through the real agent
and client to the scripted model on loopback (priced by the profile's prices.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.chat.chat_view import ChatPanel
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text

USAGE = {"prompt_tokens": 1000, "completion_tokens": 234, "total_tokens": 1234}


def _window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, **agent: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    for key, value in agent.items():
        setattr(ctx.settings.agent, key, value)
    ctx.save_settings()
    # The scripted model runs on this machine (free by default): the user's table prices it.
    (ctx.paths.config / "prices.json").write_text(json.dumps({"scripted": {"input": 2.5, "output": 10}}))
    window: MainWindow = make_window(profile_dir)
    return window


def _send(qtbot: Any, window: MainWindow, message: str) -> None:
    window.chat.input.setPlainText(message)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)


def _painted_text(panel: ChatPanel, row: int) -> str:
    view = panel.view
    item = view.chat_model.item_at(row)
    return view.chat_delegate.document(item, view.chat_delegate.text_width(view.viewport().width())).toPlainText()


def test_each_answer_shows_its_tokens_and_cost_and_the_sidebar_the_total(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("Lisbon has a famous tram 28.", usage=dict(USAGE)),
                          text("Yes, it is yellow.", usage={"prompt_tokens": 2000, "completion_tokens": 100}))
    window = _window(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "Tell me about Lisbon trams")
    items = window.chat.view.chat_model.items()
    assert items[-1].role == "assistant" and items[-1].text == "Lisbon has a famous tram 28."
    # 1,000 input and 234 output tokens at $2.50 and $10 per million: $0.00484.
    assert items[-1].usage == "1,234 tokens · about $0.0048"
    painted = _painted_text(window.chat, len(items) - 1)
    assert painted.startswith("Lisbon has a famous tram 28.") and painted.rstrip().endswith(items[-1].usage)
    assert items[0].usage == ""  # the user's message has none
    _send(qtbot, window, "Is it yellow?")
    assert window.chat.view.chat_model.items()[-1].usage == "2,100 tokens · about $0.006"
    # The history sidebar: the conversation's total in its row's tooltip.
    sidebar = window.sidebar
    assert sidebar is not None
    cid = window.presenter.conversation_id
    qtbot.waitUntil(lambda: sidebar.model.row_of(cid or "") >= 0, timeout=10_000)
    index = sidebar.model.index(sidebar.model.row_of(cid or ""))
    tooltip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip == "Tell me about Lisbon trams\n3,334 tokens · about $0.011"
    # Reopened from the history, each answer shows what its turn used again.
    window.new_chat_action.trigger()
    window.presenter.open_conversation(cid or "")
    shown = [(i.role, i.usage) for i in window.chat.view.chat_model.items()]
    assert shown == [("user", ""), ("assistant", "1,234 tokens · about $0.0048"), ("user", ""),
                     ("assistant", "2,100 tokens · about $0.006")]


def test_a_run_over_its_token_budget_stops_with_a_clear_message(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(call("calculate", {"expression": "1+1"}, usage=dict(USAGE)),
                          call("calculate", {"expression": "2+2"}, usage=dict(USAGE)),
                          text("never sent"))
    window = _window(make_window, profile_dir, scripted_model, max_run_tokens=2000)
    _send(qtbot, window, "Keep adding")
    last = window.chat.view.chat_model.items()[-1]
    assert last.role == "error"
    assert "2,468 tokens, more than the budget of 2,000 tokens" in last.text
    assert "Settings → Agent" in last.text and "budgets" in last.text  # where the window's user changes it
    assert last.usage == "2,468 tokens · about $0.0097"
    assert scripted_model.remaining == 1  # stopped after the request that crossed the budget


def test_the_usage_line_is_drawn_small_under_the_answer_and_not_copied(qtbot: Any) -> None:
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 400)
    panel.show()
    qtbot.waitExposed(panel)
    panel.stream_answer("An answer")
    panel.end_answer("An answer with <b>no</b> markup", usage="15 tokens · cost unknown")
    panel.end_answer("A notice without usage")
    model = panel.view.chat_model
    assert _painted_text(panel, 0).splitlines() == ["An answer with <b>no</b> markup", "15 tokens · cost unknown"]
    assert _painted_text(panel, 1).strip() == "A notice without usage"
    panel.view.setCurrentIndex(model.index(0))
    panel.view.copy_selected()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == "An answer with <b>no</b> markup"
