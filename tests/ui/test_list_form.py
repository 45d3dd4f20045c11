"""The list-and-form pages (Providers, MCP servers) and the Voice page's background work: a
failure in the background is shown on the page, never only in the log; the list and the form
stay in step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.mcp import McpServerConfig
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import Event, Notice
from jawad_desktop.core.llm.connection import list_models, test_connection
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.look.theme import current
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.mcp_page import McpPage
from jawad_desktop.ui.settings.providers_page import ProvidersPage
from tests.servers.fault_server import FaultServer


@pytest.fixture
def ctx(profile_dir: Path, secret_store: SecretStore) -> AppContext:
    return AppContext.open(str(profile_dir), secrets=secret_store)


@pytest.fixture
def notices(ctx: AppContext) -> list[Notice]:
    """What reached the window's banner (there is none here: the bus is watched instead)."""
    seen: list[Notice] = []

    def collect(event: Event) -> None:
        if isinstance(event, Notice):
            seen.append(event)

    ctx.bus.subscribe(collect)
    return seen


_dialogs: list[SettingsDialog] = []


@pytest.fixture(autouse=True)
def _keep_dialogs() -> Iterator[None]:
    yield
    _dialogs.clear()


def providers_page(qtbot: Any, ctx: AppContext, **hooks: Any) -> ProvidersPage:
    dialog = SettingsDialog(ctx, **hooks)
    qtbot.addWidget(dialog)
    _dialogs.append(dialog)  # the page lives as long as its dialog: keep it until the test ends
    dialog.open()
    page = dialog.providers
    page.new_provider()
    page.name.setText("Local server")
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI_COMPATIBLE))
    page.base_url.setText("http://127.0.0.1:9/v1")
    page.model.setEditText("m")
    return page


# -- Test connection and Fetch models ------------------------------------------------------------

def test_a_tester_that_raises_is_shown_on_the_page(qtbot: Any, ctx: AppContext, aio_loop: Any) -> None:
    async def tester(provider: ProviderConfig, key: str | None) -> tuple[bool, str]:
        raise RuntimeError("the socket library broke")

    page = providers_page(qtbot, ctx, tester=tester)
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.isEnabled() and "broke" in page.status.text(), timeout=5000)
    assert page.status.text() == ("Testing the connection to Local server failed: "
                                  "RuntimeError: the socket library broke")
    assert current().colours.danger in page.status.styleSheet()  # shown as an error


def test_a_failing_model_list_says_what_to_do(qtbot: Any, ctx: AppContext, aio_loop: Any) -> None:
    async def lister(provider: ProviderConfig, key: str | None) -> list[str]:
        raise JawadError("The server refused the key.", suggestions=["Paste the key again."])

    page = providers_page(qtbot, ctx, model_lister=lister)
    page.models_button.click()
    assert not page.models_button.isEnabled() and "Fetching" in page.status.text()
    qtbot.waitUntil(lambda: page.models_button.isEnabled(), timeout=5000)
    assert page.status.text() == "The server refused the key.\n  - Paste the key again."


def test_real_connection_failures_are_shown(qtbot: Any, ctx: AppContext, aio_loop: Any) -> None:
    """The window's hooks, against a real loopback server that answers 401 and a dead port."""
    server = FaultServer().start()
    try:
        async def tester(provider: ProviderConfig, key: str | None) -> tuple[bool, str]:
            result = await test_connection(provider, key)
            return result.success, "Connected." if result.success else result.error

        async def lister(provider: ProviderConfig, key: str | None) -> list[str]:
            return await list_models(provider, key)

        page = providers_page(qtbot, ctx, tester=tester, model_lister=lister)
        page.test_button.click()
        qtbot.waitUntil(lambda: page.test_button.isEnabled() and "reach" in page.status.text().lower(),
                        timeout=15_000)
        page.base_url.setText(server.scenario_url("status-401-openai"))
        page.models_button.click()
        qtbot.waitUntil(lambda: page.models_button.isEnabled() and page.status.text() != "Fetching the model list…",
                        timeout=15_000)
        assert "Invalid API key" in page.status.text() and "Traceback" not in page.status.text()
        page.base_url.setText(server.base_url)
        page.test_button.click()
        qtbot.waitUntil(lambda: page.test_button.isEnabled() and page.status.text() == "Connected.", timeout=15_000)
    finally:
        server.stop()


# -- the list and the form ------------------------------------------------------------------------

def test_after_add_the_entry_shown_before_can_be_picked_again(qtbot: Any, ctx: AppContext) -> None:
    page = providers_page(qtbot, ctx)
    page.save_button.click()
    assert [p.name for p in ctx.settings.providers] == ["Local server"], page.status.text()
    page.add_button.click()
    assert page.editing is None and page.list.currentItem() is None
    assert page.name.text() == "OpenAI"
    page.list.setCurrentRow(0)  # the row that was current before Add
    assert page.editing == "Local server" and page.name.text() == "Local server"


def test_remove_without_a_selection_does_nothing(qtbot: Any, ctx: AppContext) -> None:
    page = providers_page(qtbot, ctx)
    assert page.save()
    page.add_button.click()
    page.remove_button.click()
    assert [p.name for p in ctx.settings.providers] == ["Local server"]
    page.list.setCurrentRow(0)
    page.remove_button.click()
    assert ctx.settings.providers == [] and page.status.text() == "Removed Local server and its key."
    assert page.editing is None and page.name.text() == "OpenAI"  # a new provider, ready to fill in


@pytest.fixture
def mcp(qtbot: Any, ctx: AppContext, aio_loop: Any) -> Iterator[McpPage]:
    ctx.settings.mcp.servers = [McpServerConfig(name="calc", transport="stdio", command="calc-mcp",
                                                allowed_tools=["add"], permission="read-only")]
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    page = McpPage(ctx, dialog)
    dialog.add_page("MCP", page)
    dialog.open()
    yield page


def test_saving_a_loaded_server_keeps_its_allow_list(mcp: McpPage, ctx: AppContext) -> None:
    assert mcp.editing == "calc" and mcp.tools.count() == 1
    mcp.permission.setCurrentIndex(mcp.permission.findData("interact"))
    assert mcp.save(), mcp.status.text()
    saved = ctx.settings.mcp.server("calc")
    assert saved is not None and saved.allowed_tools == ["add"] and saved.permission == "interact"


def test_unchecking_every_tool_is_refused(mcp: McpPage, ctx: AppContext) -> None:
    from PySide6.QtCore import Qt

    mcp.tools.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert not mcp.save()
    assert "Use this server" in mcp.status.text()
    assert ctx.settings.mcp.server("calc").allowed_tools == ["add"]  # type: ignore[union-attr]


def test_a_server_that_cannot_start_is_shown(mcp: McpPage, qtbot: Any) -> None:
    mcp.command.setText("/nonexistent/jawad-test-mcp-server")
    mcp.check()
    assert not mcp.test_button.isEnabled()
    qtbot.waitUntil(lambda: mcp.test_button.isEnabled(), timeout=30_000)
    assert mcp.status.text() and current().colours.danger in mcp.status.styleSheet()
    assert mcp.tools.count() == 1, "a failed check keeps the list the user had"


# -- the Voice page's background work ---------------------------------------------------------------

def test_an_unexpected_download_failure_is_shown(qtbot: Any, ctx: AppContext, aio_loop: Any,
                                                 monkeypatch: pytest.MonkeyPatch, notices: list[Notice]) -> None:
    from jawad_desktop.ui.settings import voice_page as voice_settings
    from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

    page = VoiceSettingsPage(ctx)
    qtbot.addWidget(page)
    real = voice_settings.resolve_model

    def broken(name: str, cache: Path, *, download: bool = False, **kwargs: Any) -> Path:
        if download:
            raise OSError(28, "No space left on device")
        return real(name, cache, **kwargs)

    monkeypatch.setattr(voice_settings, "resolve_model", broken)
    page.model.setCurrentText("base")
    page.download_model()
    qtbot.waitUntil(lambda: page.download.isEnabled(), timeout=10_000)
    assert page.download_progress.isHidden()
    assert "No space left on device" in page.model_status.text()
    assert page.model_status.text().startswith("Downloading the speech model base failed: OSError")
    assert notices == []  # shown where the user looks, once


def test_a_microphone_that_cannot_open_is_shown(qtbot: Any, ctx: AppContext, aio_loop: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from jawad_desktop.core.voice import LevelMonitor
    from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage

    closed: list[LevelMonitor] = []

    def broken_open(self: LevelMonitor) -> None:
        raise OSError("PortAudio: device unavailable")

    monkeypatch.setattr(LevelMonitor, "open", broken_open)
    monkeypatch.setattr(LevelMonitor, "close", lambda self: closed.append(self))
    page = VoiceSettingsPage(ctx)
    qtbot.addWidget(page)
    page.start_level_meter()
    qtbot.waitUntil(lambda: "device unavailable" in page.device_status.text(), timeout=10_000)
    assert page.device_status.text().startswith("Opening the microphone failed")
    qtbot.waitUntil(lambda: len(closed) == 1, timeout=5_000)  # nothing left half open
    assert page._monitor is None
