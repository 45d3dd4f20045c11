"""The model picker above the chat (issue 32): the provider and model in use, a searchable list
of the saved ones with what each can do, a choice that answers the next message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.model_card import model_card
from jawad_desktop.core.llm.provider_clients import facts_key
from jawad_desktop.core.store.model_facts import ModelFacts
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def test_a_card_says_where_a_model_runs_and_what_it_can_do(profile_dir: Path) -> None:
    ctx = AppContext.open(str(profile_dir))
    cloud = ProviderConfig(name="Work", kind=ProviderKind.OPENAI, model="gpt-4o")
    local = ProviderConfig(name="Home", kind=ProviderKind.OLLAMA, model="qwen3:1.7b")
    assert model_card(cloud, ctx.model_facts).details == "cloud · tools not tested yet · sees images"
    kind, base_url = facts_key(local)

    def learned(facts: ModelFacts) -> None:
        facts.tool_format, facts.vision = "xml", False

    ctx.model_facts.learn((kind, base_url, "qwen3:1.7b"), learned)
    card = model_card(local, ctx.model_facts)
    assert card.title == "Home · qwen3:1.7b"
    assert card.details == "on this computer · calls tools (by text) · text only"


def test_choosing_another_model_in_the_picker_answers_the_next_message(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    ctx = AppContext.open(str(profile_dir))
    first = scripted_model.provider("First")
    second = scripted_model.provider("Second").model_copy(update={"model": "second-model"})
    ctx.settings.providers = [first, second]
    ctx.settings.active_provider = "First"
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    picker = window.provider_label
    assert picker.text().startswith("First · ") and picker.isVisible()
    window.choose_model_action.trigger()  # Ctrl+Shift+K
    popup = picker.popup
    qtbot.waitUntil(popup.isVisible)
    assert popup.list.count() == 2 and popup.search.hasFocus()
    qtbot.keyClicks(popup.search, "second")
    assert [popup.list.item(r).isHidden() for r in range(2)] == [True, False]
    qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    assert not popup.isVisible()
    assert window.ctx.settings.active_provider == "Second"
    assert AppContext.open(str(profile_dir)).settings.active_provider == "Second"  # saved
    assert picker.text() == "Second · second-model"
    scripted_model.script(text("From the second."))
    window.chat.input.setPlainText("Who answers?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    assert scripted_model.requests[-1]["model"] == "second-model"


def test_with_no_provider_the_picker_opens_settings(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    window.provider_label.click()
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.pages.currentItem().text() == "Providers"
    dialog.close()
