"""The window end to end: a message goes through the real agent and client to a scripted
model on loopback, the answer streams into the chat, tools show in the action log, every
message is saved, the history sidebar lists the conversation and reopening restores it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text


def _window_with_provider(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    # A window like today's models' (the fake reports none: an unknown model is budgeted as 8k
    # tokens, which the tools' descriptions and the rules nearly fill, leaving no history).
    ctx.settings.providers = [scripted_model.provider("Scripted").model_copy(update={"context_window": 32_768})]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    return window


def _send(qtbot: Any, window: MainWindow, message: str) -> None:
    window.chat.input.setPlainText(message)
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)


def test_a_turn_streams_runs_a_tool_and_is_saved(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(call("calculate", {"expression": "19.99 * 3"}), text("Three cost **59.97**."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    assert "Scripted" in window.provider_label.text()
    _send(qtbot, window, "What do three cost at 19.99?")
    assert window.chat.input.toPlainText() == ""
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    items = window.chat.view.chat_model.items()
    assert [i.role for i in items] == ["user", "tool", "assistant"], [(i.role, i.text) for i in items]
    assert "59.97" in items[-1].text
    card = items[1]
    assert card.tool_name == "calculate" and card.tool_status == "success"
    assert card.tool_args == {"expression": "19.99 * 3"} and "59.97" in card.tool_result
    entries = window.action_log.log_model.entries()
    assert [(e.tool_name, e.result) for e in entries] == [("calculate", "success")]
    # The model got the tool's result.
    assert scripted_model.requests[1]["messages"][-1]["role"] == "tool"
    # Saved: the conversation, its messages and its action log.
    store = window.presenter.store
    assert store is not None
    cid = window.presenter.conversation_id
    assert cid is not None
    roles = [s.message.role for s in store.messages(cid)]
    assert roles == ["user", "assistant", "tool", "assistant"], roles
    assert [e.tool_name for e in store.action_log(cid)] == ["calculate"]
    assert store.get(cid).title.startswith("What do three cost")


def test_sidebar_reopens_a_saved_conversation(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("Lisbon has a famous tram 28."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "Tell me about Lisbon trams")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    first = window.presenter.conversation_id
    window.new_chat_action.trigger()
    assert window.chat.view.chat_model.items() == []
    assert window.presenter.conversation_id is None
    assert window.sidebar is not None
    window.presenter.open_conversation(first)  # type: ignore[arg-type]
    texts = [i.text for i in window.chat.view.chat_model.items()]
    assert texts == ["Tell me about Lisbon trams", "Lisbon has a famous tram 28."]
    # The agent continues the conversation with its history.
    scripted_model.script(text("Yes, it is yellow."))
    _send(qtbot, window, "Is it yellow?")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    sent = [m["content"] for m in scripted_model.requests[-1]["messages"] if m["role"] in ("user", "assistant")]
    assert sent[:2] == ["Tell me about Lisbon trams", "Lisbon has a famous tram 28."]


def test_last_conversation_is_restored_on_start(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("Hello again."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "Remember me")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    cid = window.presenter.conversation_id
    window.close()
    window.dispose()
    again: MainWindow = make_window(profile_dir)
    assert again.presenter.conversation_id == cid
    assert [i.text for i in again.chat.view.chat_model.items()] == ["Remember me", "Hello again."]


def test_regenerate_replaces_the_last_answer(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("First try."), text("Second try."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "Say something")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    window.regenerate_action.trigger()
    qtbot.waitUntil(lambda: not window.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    qtbot.waitUntil(lambda: window.chat.view.chat_model.items()[-1].text == "Second try.", timeout=5000)
    assert [i.text for i in window.chat.view.chat_model.items()] == ["Say something", "Second try."]
    store = window.presenter.store
    assert store is not None and window.presenter.conversation_id
    saved = [s.message.content for s in store.messages(window.presenter.conversation_id)]
    assert saved == ["Say something", "Second try."]


def test_stop_keeps_what_was_shown(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("partial answer that keeps going " * 40, chunk_delay_s=0.05))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "Write a lot")
    qtbot.waitUntil(lambda: any("keeps going" in i.text for i in window.chat.view.chat_model.items()), timeout=60_000)
    assert window.chat.stop_button.isEnabled()
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=5000)
    last = window.chat.view.chat_model.items()[-1]
    assert "partial answer" in last.text and "stopped" in last.text
    assert not window.chat.stop_button.isEnabled()


def test_store_is_shared_with_the_cli(profile_dir: Path) -> None:
    store = ConversationStore.open(profile_dir / "data")
    cid = store.create("from the window").id
    store.close()
    again = ConversationStore.open(profile_dir / "data")
    assert again.get(cid).title == "from the window"
    again.close()


def test_summarize_button_asks_the_agent(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(call("summarize_page", {}), text("This page is Jawad's start page."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    assert window.browser.summarize_button.accessibleName() == "Summarize this page"
    window.browser.summarize_button.click()
    qtbot.waitUntil(lambda: not window.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    qtbot.waitUntil(lambda: window.chat.view.chat_model.items()[-1].role == "assistant", timeout=10_000)
    assert window.chat.view.chat_model.items()[-1].text == "This page is Jawad's start page."
    assert [e.tool_name for e in window.action_log.log_model.entries()] == ["summarize_page"]


def _turns(store: ConversationStore, cid: str) -> list[tuple[str, str, list[str]]]:
    return [(s.message.role, s.message.content, [c.name for c in s.message.tool_calls]) for s in store.messages(cid)]


def test_the_window_and_the_cli_save_the_same_turns(
    make_window: Any, profile_dir: Path, tmp_path: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    """One recorder, fed by the Assistant's events, saves for both faces: the same exchange
    through the window and through `jawad ask` leaves the same messages and action log."""
    script = (call("calculate", {"expression": "19.99 * 3"}), text("Three cost **59.97**."))
    question = "What do three cost at 19.99?"
    scripted_model.script(*script)
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, question)
    qtbot.waitUntil(lambda: not window.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    store, cid = window.presenter.store, window.presenter.conversation_id
    assert store is not None and cid is not None
    from_window, window_log = _turns(store, cid), [e.tool_name for e in store.action_log(cid)]

    scripted_model.script(*script)
    cli_profile = tmp_path / "cli-profile"
    out = subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "ask", "--profile", str(cli_profile), "--kind", "openai-compatible",
         "--base-url", scripted_model.base_url, "--model", "scripted", question],
        capture_output=True, text=True, timeout=60, env=dict(os.environ), stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, out.stderr
    with ConversationStore.open(cli_profile / "data") as cli_store:
        (conversation,) = cli_store.list_conversations()
        from_cli = _turns(cli_store, conversation.id)
        cli_log = [e.tool_name for e in cli_store.action_log(conversation.id)]
    assert from_window == from_cli
    assert [role for role, _text, _calls in from_window] == ["user", "assistant", "tool", "assistant"]
    assert window_log == cli_log == ["calculate"]


def test_clear_starts_a_fresh_view_and_conversation(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(text("Hello."))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    _send(qtbot, window, "hi")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    old = window.presenter.conversation_id
    _send(qtbot, window, "/clear")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=10_000)
    items = window.chat.view.chat_model.items()
    assert [i.role for i in items] == ["assistant"] and items[0].text.startswith("Started a new conversation")
    assert window.presenter.conversation_id is None and window.action_log.log_model.entries() == []
    store = window.presenter.store
    assert store is not None and old is not None
    assert [s.message.content for s in store.messages(old)] == ["hi", "Hello."]  # still in the history


def test_the_step_shows_in_the_status_bar_and_a_new_chat_is_selected(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    scripted_model.script(call("calculate", {"expression": "2*2"}, delay_s=0.6), text("Four.", delay_s=0.6))
    window = _window_with_provider(make_window, profile_dir, scripted_model)
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    _send(qtbot, window, "2*2?")
    qtbot.waitUntil(lambda: not window.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    assert "Step 1 of 10: thinking…" in shown and "Step 1 of 10: calculating 2*2" in shown
    assert "Step 2 of 10: thinking…" in shown
    assert window.statusBar().currentMessage() == ""  # cleared when the turn ends
    # The history list follows the conversation: the new one is selected once it is saved.
    sidebar = window.sidebar
    assert sidebar is not None
    first = window.presenter.conversation_id
    qtbot.waitUntil(lambda: sidebar.current_id == first, timeout=5000)  # type: ignore[attr-defined]
    window.new_chat_action.trigger()
    scripted_model.script(text("Fresh."))
    _send(qtbot, window, "a new question")
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    second = window.presenter.conversation_id
    assert second not in (None, first)
    qtbot.waitUntil(lambda: sidebar.current_id == second, timeout=5000)  # type: ignore[attr-defined]
