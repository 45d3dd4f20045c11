"""Settings → Providers: "Test tool calling" against the scripted model server shows how the
model calls tools and learns it; what was learned is shown and forgotten on the page; the
context window is a field of the provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.client import forget_capabilities
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.learned_facts import NOTHING_LEARNED
from jawad_desktop.ui.settings.providers_page import ProvidersPage
from tests.servers.scripted_model import Reply, ScriptedModel, call, reject_tools, text


@pytest.fixture
def page(qtbot: Any, profile_dir: Path, secret_store: SecretStore, aio_loop: Any,
         scripted_model: ScriptedModel) -> Iterator[ProvidersPage]:
    forget_capabilities()  # nothing this process learned in other tests
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.open()
    providers = dialog.providers
    providers.new_provider()
    providers.name.setText("Scripted")
    providers.kind.setCurrentIndex(providers.kind.findData(ProviderKind.OPENAI_COMPATIBLE))
    providers.base_url.setText(scripted_model.base_url)
    providers.model.setEditText("scripted")
    assert providers.save(), providers.status.text()
    yield providers
    dialog.close()
    forget_capabilities()


def _test_tools(page: ProvidersPage, qtbot: Any, scripted_model: ScriptedModel, *replies: Reply) -> str:
    scripted_model.script(*replies)
    assert page.tools_button.isVisible() and page.tools_button.text() == "Test tool calling"
    page.tools_button.click()
    qtbot.waitUntil(lambda: page.tools_button.isEnabled() and "Testing" not in page.status.text(), timeout=20_000)
    return page.status.text()


@pytest.mark.parametrize("replies, says, learned", [
    ([call("get_time", {})], "Native tool calls work.", "tool calls: native"),
    ([reject_tools(), text("<get_time />")], "Uses the XML format", "tool calls: xml"),
    ([reject_tools(), text("It is noon."), text("Noon.")], "Could not call a tool: it refuses native tools",
     "tool calls: none"),
])
def test_the_button_shows_the_result_and_what_was_learned(
    page: ProvidersPage, qtbot: Any, scripted_model: ScriptedModel, replies: list[Reply], says: str, learned: str
) -> None:
    assert page.learned.text() == NOTHING_LEARNED
    assert says in _test_tools(page, qtbot, scripted_model, *replies)
    assert learned in page.learned.text() and "why: Tool-calling test:" in page.learned.text()
    key = make_client(page.ctx.settings.provider("Scripted")).model_key  # type: ignore[arg-type]
    assert page.ctx.model_facts.get(key).tool_format == learned.split(": ")[1]


def test_forget_what_was_learned(
    page: ProvidersPage, qtbot: Any, scripted_model: ScriptedModel, profile_dir: Path
) -> None:
    _test_tools(page, qtbot, scripted_model, call("get_time", {}))
    assert "tool calls: native" in page.learned.text()
    page.forget_button.click()
    assert page.learned.text() == NOTHING_LEARNED and page.ctx.model_facts.all() == {}
    assert "the next request learns again" in page.status.text()
    again = AppContext.open(str(profile_dir), secrets=page.ctx.secrets)  # kept forgotten on disk
    assert again.model_facts.all() == {}


def test_the_context_window_is_saved_with_the_provider(page: ProvidersPage) -> None:
    assert page.context_window.value() == 0 and page.context_window.text() == "Automatic"
    page.context_window.setValue(16_384)
    assert page.save(), page.status.text()
    assert page.ctx.settings.provider("Scripted").context_window == 16_384  # type: ignore[union-attr]
    page.load(page.ctx.settings.provider("Scripted"))  # type: ignore[arg-type]
    assert page.context_window.value() == 16_384
