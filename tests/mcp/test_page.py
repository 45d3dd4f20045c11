"""Settings → MCP: servers saved in the settings, header values only in the real keyring,
"Check" lists the tools of a real FastMCP server (stdio and HTTP) for the allow-list."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.config.mcp import mcp_header_key_name
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.mcp_page import McpPage
from tests.mcp.conftest import HttpMcp


@pytest.fixture
def page(qtbot: Any, profile_dir: Path, secret_store: SecretStore, aio_loop: Any) -> Iterator[McpPage]:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    mcp = McpPage(ctx, dialog)
    dialog.add_page("MCP", mcp)
    dialog.open()
    dialog.show_page("MCP")
    yield mcp  # the dialog stays referenced (and alive) until the test ends


def _tools(page: McpPage) -> list[tuple[str, bool]]:
    return [(page.tools.item(i).text(), page.tools.item(i).checkState() == Qt.CheckState.Checked)
            for i in range(page.tools.count())]


def test_stdio_server_check_allow_list_and_save(page: McpPage, qtbot: Any, profile_dir: Path) -> None:
    page.new_server()
    page.name.setText("calc")
    page.command.setText(shlex.join([sys.executable, "-m", "tests.servers.mcp_server", "stdio"]))
    page.check()
    qtbot.waitUntil(lambda: page.tools.count() == 4, timeout=30000)
    assert _tools(page) == [("add", True), ("echo", True), ("fail", True), ("whoami", True)]
    assert "has 4 tools" in page.status.text()
    page.tools.item(2).setCheckState(Qt.CheckState.Unchecked)  # not "fail"
    page.permission.setCurrentIndex(page.permission.findData("read-only"))
    assert page.save(), page.status.text()
    saved = page.ctx.settings.mcp.server("calc")
    assert saved is not None and saved.command == sys.executable
    assert saved.args == ["-m", "tests.servers.mcp_server", "stdio"]
    assert saved.allowed_tools == ["add", "echo", "whoami"] and saved.permission == "read-only"
    assert "tests.servers.mcp_server" in (profile_dir / "config" / "settings.json").read_text()


def test_http_headers_go_to_the_keyring(page: McpPage, qtbot: Any, http_mcp: HttpMcp, profile_dir: Path,
                                        secret_store: SecretStore) -> None:
    page.new_server()
    page.name.setText("remote")
    page.transport.setCurrentIndex(page.transport.findData("http"))
    page.url.setText(http_mcp.url)
    page.headers.setPlainText("Authorization: Bearer wrong")
    page.check()
    qtbot.waitUntil(lambda: "refused the credentials" in page.status.text(), timeout=30000)
    page.headers.setPlainText(f"Authorization: Bearer {http_mcp.token}")
    page.check()
    qtbot.waitUntil(lambda: page.tools.count() == 4, timeout=30000)
    assert page.save(), page.status.text()
    assert secret_store.get(mcp_header_key_name("remote", "Authorization")) == f"Bearer {http_mcp.token}"
    assert http_mcp.token not in (profile_dir / "config" / "settings.json").read_text()
    # Shown again as stored; checking again uses the stored value.
    page.load(page.ctx.settings.mcp.server("remote"))  # type: ignore[arg-type]
    assert page.headers.toPlainText() == "Authorization: (stored)"
    page.check()
    qtbot.waitUntil(lambda: "has 4 tools" in page.status.text(), timeout=30000)
    page.list.setCurrentRow(0)
    page.remove_selected()
    assert page.ctx.settings.mcp.servers == []
    assert secret_store.get(mcp_header_key_name("remote", "Authorization")) is None


def test_bad_input_is_shown(page: McpPage) -> None:
    page.new_server()
    page.transport.setCurrentIndex(page.transport.findData("http"))
    page.url.setText("ftp://nowhere")
    assert not page.save() and "http://" in page.status.text()
    page.url.setText("http://127.0.0.1:9/mcp")
    page.headers.setPlainText("no colon here")
    assert not page.save() and "Name: value" in page.status.text()


def test_sign_in_state_sign_out_and_the_oauth_settings_kept_on_save(
        page: McpPage, qtbot: Any, secret_store: SecretStore) -> None:
    from jawad_desktop.core.config.mcp import McpOAuth, McpServerConfig, mcp_oauth_key_name
    from jawad_desktop.core.mcp.auth import signed_in

    page.ctx.settings.mcp = page.ctx.settings.mcp.model_copy(update={"servers": [McpServerConfig(
        name="crm", transport="http", url="https://crm.example/mcp", oauth=McpOAuth(client_id="jawad-app"))]})
    secret_store.set(mcp_oauth_key_name("crm"), '{"tokens": {"access_token": "at", "token_type": "Bearer"}}')
    page.refresh()
    page.list.setCurrentRow(0)
    assert page.editing == "crm"
    assert page.sign_in_state.text() == "Signed in" and page.sign_out_button.isEnabled()
    page.permission.setCurrentIndex(page.permission.findData("read-only"))
    assert page.save(), page.status.text()
    saved = page.ctx.settings.mcp.server("crm")
    assert saved is not None and saved.oauth.client_id == "jawad-app" and saved.permission == "read-only"
    page.list.setCurrentRow(0)
    qtbot.mouseClick(page.sign_out_button, Qt.MouseButton.LeftButton)
    assert not signed_in(secret_store, "crm")
    assert page.sign_in_state.text() == "Not signed in" and not page.sign_out_button.isEnabled()
    assert page.sign_in_button.isEnabled()
    page.new_server()
    assert not page.sign_in_button.isEnabled()


def test_a_well_known_server_fills_the_form_and_the_roots_are_saved(page: McpPage, qtbot: Any, profile_dir: Path,
                                                                      tmp_path: Path) -> None:
    page.catalog.setCurrentIndex(page.catalog.findData("github"))
    page.catalog.activated.emit(page.catalog.currentIndex())
    assert page.name.text() == "github" and page.transport.currentData() == "http"
    assert page.url.text() == "https://api.githubcopilot.com/mcp" and page.editing is None
    assert page.needs.text().startswith("Needs: A GitHub account: Sign in after saving")
    page.catalog.setCurrentIndex(page.catalog.findData("time"))
    page.catalog.activated.emit(page.catalog.currentIndex())
    assert page.command.text() == "uvx mcp-server-time" and page.permission.currentData() == "read-only"
    page.save()
    assert AppContext.open(str(profile_dir)).settings.mcp.server("time") is not None
    page.roots.setText(f"{tmp_path}; /no/such/folder")
    page.roots.editingFinished.emit()
    assert "/no/such/folder is not a folder" in page.status.text()
    page.roots.setText(str(tmp_path))
    page.roots.editingFinished.emit()
    assert AppContext.open(str(profile_dir)).settings.mcp.roots == [str(tmp_path.resolve())]
