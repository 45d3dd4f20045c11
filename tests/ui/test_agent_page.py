"""Settings → Agent: the step limit, tool format, temperature, output tokens and the user's own
instructions save as they are made, say what they do, and reach the agent: a scripted model on
loopback receives the instructions and the settings the page saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.agent.prompts import USER_INSTRUCTIONS_HEADING
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.config.settings import SYSTEM_PROMPT_MAX_CHARS
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.agent_page import AgentPage
from jawad_desktop.ui.settings.dialog import SettingsDialog
from tests.servers.scripted_model import ScriptedModel, call, text
from tests.ui.page_checks import assert_named_and_labelled


@pytest.fixture
def dialog(qtbot: Any, profile_dir: Path, secret_store: SecretStore, aio_loop: Any) -> Iterator[SettingsDialog]:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dlg = SettingsDialog(ctx)
    qtbot.addWidget(dlg)
    dlg.open()
    dlg.show_page("Agent")
    yield dlg
    dlg.close()


def saved_agent(profile_dir: Path, secret_store: SecretStore) -> Any:
    return AppContext.open(str(profile_dir), secrets=secret_store).settings.agent


def test_every_control_is_named_labelled_and_explained(dialog: SettingsDialog) -> None:
    assert dialog.current_page() is dialog.agent
    assert_named_and_labelled(dialog.agent)
    page: AgentPage = dialog.agent
    assert "stops" in page.max_steps.toolTip()  # what happens when the steps run out
    assert page.instructions.accessibleDescription() == page.instructions.toolTip()
    assert [page.tool_format.itemData(i) for i in range(page.tool_format.count())] == ["auto", "native", "xml", "json"]


def test_settings_save_as_made(
    dialog: SettingsDialog, profile_dir: Path, secret_store: SecretStore, qtbot: Any
) -> None:
    page: AgentPage = dialog.agent
    page.max_steps.setValue(4)
    page.tool_format.setCurrentIndex(page.tool_format.findData("json"))
    page.temperature.setValue(0.9)
    page.max_tokens.setValue(1024)
    saved = saved_agent(profile_dir, secret_store)
    assert (saved.max_iterations, saved.tool_format, saved.temperature, saved.max_tokens) == (4, "json", 0.9, 1024)
    assert saved.system_prompt == ""
    assert page.max_run_tokens.text() == "No limit" and page.max_run_cost.text() == "No limit"
    page.max_run_tokens.setValue(50_000)
    page.max_run_cost.setValue(0.25)
    saved = saved_agent(profile_dir, secret_store)
    assert (saved.max_run_tokens, saved.max_run_cost_usd) == (50_000, 0.25)
    assert page.library_embeddings.currentData() == "local"  # documents stay on this computer by default
    page.library_embeddings.setCurrentIndex(page.library_embeddings.findData("off"))
    assert saved_agent(profile_dir, secret_store).library_embeddings == "off"

    page.instructions.setPlainText("  Answer in Arabic.  ")  # saved once the typing pauses
    qtbot.waitUntil(lambda: saved_agent(profile_dir, secret_store).system_prompt == "Answer in Arabic.",
                    timeout=5_000)

    page.instructions.setPlainText("Be brief.")  # and at once when the page is left
    dialog.show_page("Network")
    assert saved_agent(profile_dir, secret_store).system_prompt == "Be brief."

    page.instructions.setPlainText("x" * (SYSTEM_PROMPT_MAX_CHARS + 1))
    assert not page.save()
    assert "They were not saved" in page.status.text()
    assert saved_agent(profile_dir, secret_store).system_prompt == "Be brief."


def test_the_agent_uses_what_the_page_saved(
    dialog: SettingsDialog, scripted_model: ScriptedModel, arun: Any
) -> None:
    page: AgentPage = dialog.agent
    page.instructions.setPlainText("Always answer in French.")
    page.max_steps.setValue(1)
    page.temperature.setValue(0.7)
    page.max_tokens.setValue(777)
    assert page.save()

    assistant = Assistant(dialog.ctx, client=LLMClient(scripted_model.provider()), save=False)
    try:
        scripted_model.script(text("Bonjour."))
        assert arun(assistant.send("Hello")).content == "Bonjour."
        request = scripted_model.requests[0]
        assert request["messages"][0]["role"] == "system"
        assert f"{USER_INSTRUCTIONS_HEADING}\nAlways answer in French." in request["messages"][0]["content"]
        assert (request["temperature"], request["max_tokens"]) == (0.7, 777)

        # One step only: a tool call uses it up, and the answer says where the limit is raised.
        scripted_model.script(call("calculate", {"expression": "1+1"}))
        response = arun(assistant.send("What is 1+1?"))
        assert len(scripted_model.requests) == 1
        assert response.metadata.get("remedy", {}).get("place") == "agent", response.metadata
    finally:
        arun(assistant.aclose())
