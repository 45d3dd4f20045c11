"""Settings → MCP: the MCP servers whose tools the assistant may use.

List, add, edit and remove servers: a command started over stdio, or a streamable-HTTP
URL with headers. Header values go straight to the keyring (a stored value shows as
"stored"; leave it empty to keep it). "Check" connects and lists the server's tools, each
with a box for the allow-list. Changes are saved at once and announced with ``changed``,
after which the window reconnects (``core.mcp.adapter.mcp_registry``).

Add it to the dialog with ``dialog.add_page("MCP", McpPage(ctx, dialog))``.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from collections.abc import Coroutine
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.mcp.config import McpServerConfig, McpSettings, mcp_header_key_name
from jawad_desktop.ui.settings_dialog import ERROR_STYLE, OK_STYLE, validation_message

log = logging.getLogger("jawad.ui.mcp")

_PERMISSIONS = (("Ask before each call", "ask"), ("Read-only (runs at once)", "read-only"),
                ("Navigate", "navigate"), ("Interact", "interact"), ("Submit", "submit"))
STORED = "(stored)"


class McpPage(QWidget):
    """The MCP servers, with their tools and allow-list."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._editing: str | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

        self.list = QListWidget(self)
        self.list.setAccessibleName("MCP servers")
        self.add_button = QPushButton("Add", self)
        self.add_button.setAccessibleName("Add an MCP server")
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setAccessibleName("Remove the selected MCP server and its header values")

        self.name = QLineEdit(self)
        self.name.setAccessibleName("MCP server name")
        self.transport = QComboBox(self)
        self.transport.setAccessibleName("How to reach the server")
        self.transport.addItem("Command (stdio)", "stdio")
        self.transport.addItem("URL (streamable HTTP)", "http")
        self.command = QLineEdit(self)
        self.command.setAccessibleName("Command line")
        self.command.setPlaceholderText("npx -y @modelcontextprotocol/server-memory")
        self.url = QLineEdit(self)
        self.url.setAccessibleName("Server URL")
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = QPlainTextEdit(self)
        self.headers.setAccessibleName("HTTP headers, one 'Name: value' per line; values go to the keyring")
        self.headers.setPlaceholderText("Authorization: Bearer …")
        self.headers.setMaximumHeight(70)
        self.permission = QComboBox(self)
        self.permission.setAccessibleName("Permission for the server's tools")
        for label, value in _PERMISSIONS:
            self.permission.addItem(label, value)
        self.enabled = QCheckBox("Use this server", self)
        self.enabled.setChecked(True)
        self.tools = QListWidget(self)
        self.tools.setAccessibleName("The server's tools; checked ones are allowed")
        self.check_button = QPushButton("Check and list tools", self)
        self.check_button.setAccessibleName("Connect to the server and list its tools")
        self.save_button = QPushButton("Save server", self)
        self.save_button.setAccessibleName("Save this MCP server")
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setAccessibleName("MCP status")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        left.addLayout(row)
        form = QFormLayout()
        form.addRow("&Name", self.name)
        form.addRow("&Reach by", self.transport)
        form.addRow("&Command", self.command)
        form.addRow("&URL", self.url)
        form.addRow("&Headers", self.headers)
        form.addRow("&Permission", self.permission)
        form.addRow("", self.enabled)
        form.addRow("&Tools", self.tools)
        buttons = QHBoxLayout()
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(buttons)
        right.addWidget(self.status)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 2)

        self.list.currentItemChanged.connect(self._selected)
        self.add_button.clicked.connect(self.new_server)
        self.remove_button.clicked.connect(self.remove_selected)
        self.transport.currentIndexChanged.connect(self._transport_changed)
        self.save_button.clicked.connect(self.save)
        self.check_button.clicked.connect(self.check)
        self.refresh()
        if self.list.count():
            self.list.setCurrentRow(0)
        else:
            self.new_server()

    # -- list ------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for server in self.ctx.settings.mcp.servers:
            item = QListWidgetItem(server.name + ("" if server.enabled else " (off)"))
            item.setData(Qt.ItemDataRole.UserRole, server.name)
            item.setToolTip(server.where)
            self.list.addItem(item)
        self.list.blockSignals(False)

    def _selected(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            found = self.ctx.settings.mcp.server(str(item.data(Qt.ItemDataRole.UserRole)))
            if found is not None:
                self.load(found)

    def load(self, server: McpServerConfig) -> None:
        self._editing = server.name
        self.name.setText(server.name)
        self.transport.setCurrentIndex(self.transport.findData(server.transport))
        self.command.setText(shlex.join([server.command, *server.args]) if server.command else "")
        self.url.setText(server.url)
        self.headers.setPlainText("\n".join(f"{h}: {STORED}" for h in server.headers))
        self.permission.setCurrentIndex(max(0, self.permission.findData(server.permission)))
        self.enabled.setChecked(server.enabled)
        self._show_tools([(name, True) for name in server.allowed_tools])
        self._transport_changed()
        self._show("")

    def new_server(self) -> None:
        self._editing = None
        self.list.clearSelection()
        name, n = "Server", 2
        while self.ctx.settings.mcp.server(name) is not None:
            name, n = f"Server {n}", n + 1
        self.name.setText(name)
        self.transport.setCurrentIndex(0)
        self.command.clear()
        self.url.clear()
        self.headers.clear()
        self.permission.setCurrentIndex(0)
        self.enabled.setChecked(True)
        self.tools.clear()
        self._transport_changed()
        self._show("")

    def _transport_changed(self) -> None:
        stdio = self.transport.currentData() == "stdio"
        self.command.setEnabled(stdio)
        self.url.setEnabled(not stdio)
        self.headers.setEnabled(not stdio)

    def _show_tools(self, tools: list[tuple[str, bool]]) -> None:
        self.tools.clear()
        for name, allowed in tools:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if allowed else Qt.CheckState.Unchecked)
            self.tools.addItem(item)

    def _allowed(self) -> list[str]:
        """The checked tools; all of them checked (or none listed) means no allow-list."""
        items = [self.tools.item(i) for i in range(self.tools.count())]
        checked = [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]
        return [] if len(checked) == len(items) else checked

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else OK_STYLE)
        self.status.setText(text)

    # -- editing ---------------------------------------------------------------------------
    def _header_lines(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        for line in self.headers.toPlainText().splitlines():
            if not line.strip():
                continue
            name, sep, value = line.partition(":")
            if not sep or not name.strip():
                raise ValueError(f"Write each header as 'Name: value' (not {line.strip()!r})")
            headers[name.strip()] = value.strip()
        return headers

    def form_config(self) -> tuple[McpServerConfig, dict[str, str]]:
        """The server in the form and the header values to store; ValueError says what is wrong."""
        headers = self._header_lines() if self.transport.currentData() == "http" else {}
        try:
            parts = shlex.split(self.command.text()) if self.transport.currentData() == "stdio" else []
        except ValueError as exc:
            raise ValueError(f"The command line cannot be read: {exc}") from None
        try:
            config = McpServerConfig(
                name=self.name.text(), transport=self.transport.currentData(),
                command=parts[0] if parts else "", args=parts[1:], url=self.url.text(),
                headers=list(headers), allowed_tools=self._allowed(),
                permission=self.permission.currentData(), enabled=self.enabled.isChecked(),
            )
        except ValidationError as exc:
            raise ValueError(validation_message(exc)) from None
        clash = self.ctx.settings.mcp.server(config.name)
        if clash is not None and (self._editing is None or clash.name.casefold() != self._editing.casefold()):
            raise ValueError(f"Another MCP server is already named {config.name!r}")
        new_values = {k: v for k, v in headers.items() if v and v != STORED}
        return config, new_values

    def save(self) -> bool:
        try:
            config, values = self.form_config()
        except ValueError as exc:
            self._show(str(exc), error=True)
            return False
        old = self.ctx.settings.mcp.server(self._editing) if self._editing else None
        try:
            for header, value in values.items():
                self.ctx.secrets.set(mcp_header_key_name(config.name, header), value)
            if old is not None and self.ctx.secrets.available:
                for header in old.headers:
                    if header not in config.headers or old.name != config.name:
                        if old.name != config.name and header in config.headers and header not in values:
                            moved = self.ctx.secrets.get(mcp_header_key_name(old.name, header))
                            if moved is not None:
                                self.ctx.secrets.set(mcp_header_key_name(config.name, header), moved)
                        self.ctx.secrets.delete(mcp_header_key_name(old.name, header))
        except JawadError as exc:
            self._show(exc.user_text(), error=True)
            return False
        servers = [s for s in self.ctx.settings.mcp.servers if s is not old]
        index = self.ctx.settings.mcp.servers.index(old) if old is not None else len(servers)
        servers.insert(index, config)
        self.ctx.settings.mcp = McpSettings.model_validate(
            {**self.ctx.settings.mcp.model_dump(), "servers": [s.model_dump() for s in servers]})
        self.ctx.save_settings()
        self._editing = config.name
        self.refresh()
        self._show(f"Saved {config.name}.")
        self.changed.emit()
        return True

    def remove_selected(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        server = self.ctx.settings.mcp.server(str(item.data(Qt.ItemDataRole.UserRole)))
        if server is None:
            return
        try:
            if self.ctx.secrets.available:
                for header in server.headers:
                    self.ctx.secrets.delete(mcp_header_key_name(server.name, header))
        except JawadError as exc:
            self._show(exc.user_text(), error=True)
            return
        self.ctx.settings.mcp = self.ctx.settings.mcp.model_copy(
            update={"servers": [s for s in self.ctx.settings.mcp.servers if s is not server]})
        self.ctx.save_settings()
        self.refresh()
        self.new_server()
        self._show(f"Removed {server.name}.")
        self.changed.emit()

    # -- checking --------------------------------------------------------------------------
    def check(self) -> None:
        """Connect with the form's settings (new header values included) and list the tools."""
        try:
            config, values = self.form_config()
        except ValueError as exc:
            self._show(str(exc), error=True)
            return
        self.check_button.setEnabled(False)
        self._show(f"Connecting to {config.where}…")
        previously_allowed = set(self._allowed())
        editing = self._editing

        async def run() -> None:
            from jawad_desktop.core.mcp.adapter import McpConnections

            secrets = _Overlay(self.ctx, values, config.name, editing)
            settings = self.ctx.settings.mcp.model_copy(
                update={"servers": [config.model_copy(update={"allowed_tools": [], "enabled": True})]})
            connections = McpConnections(settings, secrets, log_dir=self.ctx.paths.logs)
            try:
                await connections.connect()
            finally:
                await connections.aclose()
            problem = connections.problems.get(config.name)
            if problem:
                self._show(problem, error=True)
                return
            tools = connections.tools()
            self._show_tools([(t.name, not previously_allowed or t.name in previously_allowed) for t in tools])
            self._show(f"{config.name} has {len(tools)} tools. Uncheck the ones Jawad must not use, then save.")

        self._spawn(run())

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        async def guarded() -> None:
            try:
                await coro
            except Exception as exc:  # shown, never lost in a task nobody awaits
                log.exception("MCP check failed")
                self._show(f"The check failed: {type(exc).__name__}: {exc}", error=True)
            finally:
                self.check_button.setEnabled(True)

        task = asyncio.ensure_future(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class _Overlay:
    """The keyring as the check sees it: the form's new header values over the stored ones."""

    def __init__(self, ctx: AppContext, values: dict[str, str], name: str, editing: str | None) -> None:
        self.ctx = ctx
        self.values = {mcp_header_key_name(name, k): v for k, v in values.items()}
        self.name = name
        self.editing = editing

    def get(self, key: str) -> str | None:
        if key in self.values:
            return self.values[key]
        if not self.ctx.secrets.available:
            return None
        if self.editing and self.editing != self.name:  # renamed in the form, not saved yet
            key = key.replace(f"mcp:{self.name}:", f"mcp:{self.editing}:", 1)
        return self.ctx.secrets.get(key)
