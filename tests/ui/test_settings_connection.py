"""Test Connection and the model list in the Settings dialog, against a real loopback server
(the fault server answers as an OpenAI-compatible provider, or with the errors chosen)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from tests.servers.fault_server import FaultServer


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    s = FaultServer().start()
    yield s
    s.stop()


@pytest.fixture
def dialog(qtbot: Any, profile_dir: Path, secret_store: SecretStore, aio_loop: Any) -> SettingsDialog:
    from jawad_desktop.ui.window.main_window import MainWindow

    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.open_settings()
    dlg = window._settings_dialog
    assert dlg is not None
    yield dlg
    dlg.close()
    window.close()
    window.dispose()


def _fill(dialog: SettingsDialog, base_url: str, model: str) -> None:
    page = dialog.providers
    page.new_provider()
    page.name.setText("Local server")
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI_COMPATIBLE))
    page.base_url.setText(base_url)
    page.model.setEditText(model)


def test_test_connection_succeeds(dialog: SettingsDialog, server: FaultServer, qtbot: Any) -> None:
    _fill(dialog, server.base_url, "ok")
    page = dialog.providers
    assert page.test_button.isVisible()
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.isEnabled() and "Connected" in page.status.text(), timeout=15_000)


def test_test_connection_shows_the_friendly_error(dialog: SettingsDialog, server: FaultServer, qtbot: Any) -> None:
    _fill(dialog, server.scenario_url("status-401-openai"), "ok")
    page = dialog.providers
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.isEnabled() and page.status.text() != "", timeout=15_000)
    qtbot.waitUntil(lambda: "Invalid API key" in page.status.text(), timeout=15_000)
    assert "Traceback" not in page.status.text()


def test_dead_server_says_what_to_do(dialog: SettingsDialog, qtbot: Any) -> None:
    _fill(dialog, "http://127.0.0.1:9/v1", "m")
    page = dialog.providers
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.isEnabled() and "reach" in page.status.text().lower(), timeout=15_000)


def test_model_list_fills_the_field_which_stays_editable(
    dialog: SettingsDialog, server: FaultServer, qtbot: Any
) -> None:
    _fill(dialog, server.base_url, "")
    page = dialog.providers
    page.models_button.click()
    qtbot.waitUntil(lambda: page.model.count() >= 2, timeout=15_000)
    assert page.model.findText("fault-model") >= 0
    page.model.setEditText("a-model-the-list-lacks")
    assert page.save(), page.status.text()
    assert dialog.ctx.settings.provider("Local server").model == "a-model-the-list-lacks"  # type: ignore[union-attr]


def test_settings_has_the_other_pages(dialog: SettingsDialog) -> None:
    titles = [dialog.pages.item(i).text() for i in range(dialog.pages.count())]
    assert titles[:2] == ["Providers", "Appearance"]
    assert "Site permissions" in titles and "Voice" in titles
