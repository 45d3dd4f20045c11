"""Settings → MCP: the MCP servers whose tools the assistant may use.

List, add, edit and remove servers: a command started over stdio, or a streamable-HTTP
URL with headers. Header values go straight to the keyring (a stored value shows as
"stored"; leave it empty to keep it). "Check" connects and lists the server's tools, each
with a box for the allow-list. An HTTP server without headers signs in with OAuth: the page
says whether it is signed in, Sign in opens the sign-in page in the system browser (the
redirect comes back to a loopback listener, ``core.mcp.auth``) and Sign out forgets it.
A catalog of well-known servers (``core.config.mcp_catalog``) fills in the form with what each needs;
the folders servers may work in (their roots) are set under the list.
Changes are saved at once and announced with ``changed``, after which the window reconnects
(``core.mcp.adapter.mcp_registry``). The page is a ``ListFormPage`` (``ui.settings.list_form``),
like the Providers page.

Add it to the dialog with ``dialog.add_page("MCP", McpPage(ctx, dialog))``.
"""

from __future__ import annotations

import logging
import shlex

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.config.mcp import (
    McpOAuth,
    McpServerConfig,
    McpSettings,
    mcp_header_key_name,
    mcp_oauth_id_token_key_name,
    mcp_oauth_key_name,
    mcp_oauth_secret_key_name,
)
from jawad_desktop.core.config.mcp_catalog import CATALOG, catalog_entry
from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.look.controls import combo, line_edit, validation_message
from jawad_desktop.ui.settings.list_form import Entry, ListFormPage, PageWords

log = logging.getLogger("jawad.ui.mcp")

_PERMISSIONS = (("Ask before each call", "ask"), ("Read-only (runs at once)", "read-only"),
                ("Navigate", "navigate"), ("Interact", "interact"), ("Submit", "submit"))
STORED = "(stored)"


class McpPage(ListFormPage[McpServerConfig]):
    """The MCP servers, with their tools and allow-list."""

    WORDS = PageWords(
        noun="MCP server", new_name="Server", list_name="MCP servers", add_name="Add an MCP server",
        remove_name="Remove the selected MCP server and its header values", name_field="MCP server name",
        test_text="Check and list tools", test_name="Connect to the server and list its tools",
        save_text="Save server", save_name="Save this MCP server", status_name="MCP status",
    )

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(self.WORDS, ctx.bus, parent)
        self.ctx = ctx
        # Whether ``tools`` lists every tool of the server (after a check), or only the saved
        # allow-list (after loading): all boxes checked means "no allow-list" only in the first case.
        self._all_tools_listed = False

        self.catalog = combo("Fill in a well-known server", self,
                             (("Choose a well-known server…", ""), *((e.title, e.key) for e in CATALOG)))
        self.catalog.activated.connect(self._from_catalog)
        self.needs = QLabel(self)
        self.needs.setWordWrap(True)
        self.needs.setAccessibleName("What the chosen well-known server needs")
        self.roots = line_edit("Folders MCP servers may work in, separated by ;", self,
                               hint="No folder (servers that ask get none)")
        self.roots.setText("; ".join(ctx.settings.mcp.roots))
        self.roots.editingFinished.connect(self._save_roots)
        roots_label = QLabel("Folders servers may work in:", self)
        roots_label.setWordWrap(True)  # the list keeps its width
        self.left.addWidget(roots_label)
        self.left.addWidget(self.roots)
        self.transport = combo("How to reach the server", self,
                               (("Command (stdio)", "stdio"), ("URL (streamable HTTP)", "http")))
        self.command = line_edit("Command line", self, hint="npx -y @modelcontextprotocol/server-memory")
        self.url = line_edit("Server URL", self, hint="https://example.com/mcp")
        self.headers = QPlainTextEdit(self)
        self.headers.setAccessibleName("HTTP headers, one 'Name: value' per line; values go to the keyring")
        self.headers.setPlaceholderText("Authorization: Bearer …")
        self.headers.setMaximumHeight(70)
        self.permission = combo("Permission for the server's tools", self, _PERMISSIONS)
        self.enabled = QCheckBox("Use this server", self)
        self.enabled.setChecked(True)
        self.tools = QListWidget(self)
        self.tools.setAccessibleName("The server's tools; checked ones are allowed")
        self.sign_in_state = QLabel(self)
        self.sign_in_state.setAccessibleName("Whether Jawad is signed in to this server")
        self.sign_in_button = QPushButton("Sign in", self)
        self.sign_in_button.setAccessibleName("Sign in to this server in the browser")
        self.sign_in_button.clicked.connect(self.sign_in)
        self.sign_in_here_button = QPushButton("Sign in inside Jawad", self)
        self.sign_in_here_button.setAccessibleName("Sign in to this server in a window of Jawad's own browser")
        self.sign_in_here_button.clicked.connect(lambda: self.sign_in(here=True))
        self.sign_in_window: QDialog | None = None  # the embedded browser of a sign-in inside Jawad
        self.sign_out_button = QPushButton("Sign out", self)
        self.sign_out_button.setAccessibleName("Forget the sign-in to this server")
        self.sign_out_button.clicked.connect(self.sign_out)
        sign_in_row = QHBoxLayout()
        sign_in_row.addWidget(self.sign_in_state, 1)
        sign_in_row.addWidget(self.sign_in_button)
        sign_in_row.addWidget(self.sign_in_here_button)
        sign_in_row.addWidget(self.sign_out_button)
        rows: tuple[tuple[str, QWidget | QLayout], ...] = (
            ("Catal&og", self.catalog), ("", self.needs),
            ("&Reach by", self.transport), ("&Command", self.command), ("&URL", self.url),
            ("&Headers", self.headers), ("Sign-in", sign_in_row), ("&Permission", self.permission),
            ("", self.enabled), ("&Tools", self.tools),
        )
        for label, field in rows:
            self.form.addRow(label, field)

        self.transport.currentIndexChanged.connect(self._transport_changed)
        self.refresh()

    # -- the entries (ListFormPage) ----------------------------------------------------------
    def entries(self) -> list[Entry]:
        return [Entry(s.name, s.name + ("" if s.enabled else " (off)"), s.where) for s in self.ctx.settings.mcp.servers]

    def entry_named(self, name: str) -> McpServerConfig | None:
        return self.ctx.settings.mcp.server(name)

    def fill_form(self, entry: McpServerConfig) -> None:
        self.form.setRowVisible(self.needs, False)  # what a catalog entry needs: only while adding it
        self.transport.setCurrentIndex(self.transport.findData(entry.transport))
        self.command.setText(shlex.join([entry.command, *entry.args]) if entry.command else "")
        self.url.setText(entry.url)
        self.headers.setPlainText("\n".join(f"{h}: {STORED}" for h in entry.headers))
        self.permission.setCurrentIndex(max(0, self.permission.findData(entry.permission)))
        self.enabled.setChecked(entry.enabled)
        self._show_tools([(name, True) for name in entry.allowed_tools], all_listed=False)
        self._transport_changed()

    def clear_form(self) -> None:
        self.needs.clear()
        self.form.setRowVisible(self.needs, False)
        self.transport.setCurrentIndex(0)
        self.command.clear()
        self.url.clear()
        self.headers.clear()
        self.permission.setCurrentIndex(0)
        self.enabled.setChecked(True)
        self._show_tools([], all_listed=False)
        self._transport_changed()

    new_server = ListFormPage.new_entry  # the Add button, in the page's words

    def _from_catalog(self) -> None:
        """A new server filled in from the catalog's entry, with what it needs said; not saved yet."""
        entry = catalog_entry(str(self.catalog.currentData() or ""))
        if entry is None:
            return
        self.new_entry()
        config = entry.config()
        self.name.setText(self.free_name(entry.key))
        self.transport.setCurrentIndex(self.transport.findData(config.transport))
        self.command.setText(shlex.join([config.command, *config.args]) if config.command else "")
        self.url.setText(config.url)
        self.permission.setCurrentIndex(max(0, self.permission.findData(config.permission)))
        self._transport_changed()
        self.needs.setText(f"Needs: {entry.needs}")
        self.form.setRowVisible(self.needs, True)
        self.show_status(f"{entry.title} filled in, not saved yet: check it, then press “Save server”.")

    def _save_roots(self) -> None:
        """The folders servers may work in, saved as typed (each must exist)."""
        from pathlib import Path

        folders = [part.strip() for part in self.roots.text().split(";") if part.strip()]
        missing = [f for f in folders if not Path(f).expanduser().is_dir()]
        if missing:
            self.show_status(f"{', '.join(missing)} is not a folder; the folders were not changed.", error=True)
            return
        roots = [str(Path(f).expanduser().resolve()) for f in folders]
        if roots == self.ctx.settings.mcp.roots:
            return
        self.ctx.settings.mcp = self.ctx.settings.mcp.model_copy(update={"roots": roots})
        self.ctx.save_settings()
        self.show_status("Saved the folders MCP servers may work in.")
        self.changed.emit()  # the window reconnects: servers ask for the roots again

    def _transport_changed(self) -> None:
        stdio = self.transport.currentData() == "stdio"
        self.command.setEnabled(stdio)
        self.url.setEnabled(not stdio)
        self.headers.setEnabled(not stdio)
        self._show_sign_in()

    def _show_sign_in(self) -> None:
        """Signed in or not, for the saved HTTP server being edited that signs in with OAuth."""
        server = self.entry_named(self.editing) if self.editing else None
        if server is None or not server.signs_in:
            self.sign_in_state.setText("Only for a saved HTTP server without headers.")
            self.sign_in_button.setEnabled(False)
            self.sign_in_here_button.setEnabled(False)
            self.sign_out_button.setEnabled(False)
            return
        from jawad_desktop.core.mcp.auth import signed_in

        done = self.ctx.secrets.available and signed_in(self.ctx.secrets, server.name)
        self.sign_in_state.setText("Signed in" if done else "Not signed in")
        self.sign_in_button.setEnabled(self.ctx.secrets.available)
        self.sign_in_here_button.setEnabled(self.ctx.secrets.available)
        self.sign_out_button.setEnabled(done)

    def sign_in(self, *, here: bool = False) -> None:
        """Sign in to the server being edited: in the system browser, or (``here``) in a window of Jawad's
        own browser (a private profile: nothing of it stays)."""
        server = self.entry_named(self.editing) if self.editing else None
        if server is None or not server.signs_in:
            return

        def show(tools: list[str]) -> None:
            self._close_sign_in_window()
            self._show_sign_in()
            self.show_status(f"Signed in to {server.name}; it has {len(tools)} tool{'' if len(tools) == 1 else 's'}.")
            self.changed.emit()  # the window reconnects with the new sign-in

        button = self.sign_in_here_button if here else self.sign_in_button
        self.run_busy(button, self._sign_in(server, here), what=f"signing in to {server.name}",
                      busy_text="Sign in in the window that opened…" if here else
                      "Sign in in the browser window that opened…", on_done=show)

    async def _sign_in(self, server: McpServerConfig, here: bool = False) -> list[str]:
        from jawad_desktop.core.mcp.adapter import sign_in  # the MCP SDK loads when first needed
        from jawad_desktop.core.mcp.auth import open_in_browser

        try:
            tools = await sign_in(self.ctx.settings.mcp, server, self.ctx.secrets,
                                  self._open_here if here else open_in_browser, log_dir=self.ctx.paths.logs,
                                  network=self.ctx.settings.network)
        except BaseException:
            self._close_sign_in_window()  # the failure is told on the status line
            raise
        return [tool.name for tool in tools]

    async def _open_here(self, url: str) -> None:
        """The sign-in page in a window of the embedded browser (QtWebEngine, off the record)."""
        from PySide6.QtCore import QUrl
        from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
        from PySide6.QtWebEngineWidgets import QWebEngineView

        self._close_sign_in_window()
        window = QDialog(self)
        window.setWindowTitle("Sign in — Jawad")
        window.resize(720, 760)
        view = QWebEngineView(window)
        profile = QWebEngineProfile(window)  # no storage name: off the record; outlives the view and its page
        view.setPage(QWebEnginePage(profile, view))
        layout = QVBoxLayout(window)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(view)
        view.load(QUrl(url))
        window.show()
        self.sign_in_window = window

    def _close_sign_in_window(self) -> None:
        if self.sign_in_window is not None:
            self.sign_in_window.close()
            self.sign_in_window.deleteLater()
            self.sign_in_window = None

    def sign_out(self) -> None:
        server = self.entry_named(self.editing) if self.editing else None
        if server is None or not self.ctx.secrets.available:
            return
        from jawad_desktop.core.mcp.auth import sign_out

        sign_out(self.ctx.secrets, server.name)
        self._show_sign_in()
        self.show_status(f"Signed out of {server.name}.")
        self.changed.emit()

    def _show_tools(self, tools: list[tuple[str, bool]], *, all_listed: bool) -> None:
        self._all_tools_listed = all_listed
        self.tools.clear()
        for name, allowed in tools:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if allowed else Qt.CheckState.Unchecked)
            self.tools.addItem(item)

    def _allowed(self) -> list[str]:
        """The allow-list: the checked tools, or none (every tool) when all the server's tools are
        checked. Raises ValueError when every box is unchecked (no allow-list would allow all)."""
        items = [self.tools.item(i) for i in range(self.tools.count())]
        checked = [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]
        if items and not checked:
            raise ValueError("Check at least one tool, or untick \u201cUse this server\u201d to use none")
        return [] if self._all_tools_listed and len(checked) == len(items) else checked

    # -- saving ------------------------------------------------------------------------------
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
        old = self.entry_named(self.editing) if self.editing else None
        try:
            config = McpServerConfig(
                name=self.name.text(), transport=self.transport.currentData(),
                command=parts[0] if parts else "", args=parts[1:], url=self.url.text(),
                headers=list(headers), allowed_tools=self._allowed(),
                permission=self.permission.currentData(), enabled=self.enabled.isChecked(),
                oauth=old.oauth if old is not None else McpOAuth(),  # set with `jawad mcp add`: kept
            )
        except ValidationError as exc:
            raise ValueError(validation_message(exc)) from None
        self.check_name_free(config.name)
        new_values = {k: v for k, v in headers.items() if v and v != STORED}
        return config, new_values

    def store(self) -> tuple[str, str]:
        """Save the server in the form; new header values go to the keyring (moved with a rename)."""
        config, values = self.form_config()
        old = self.entry_named(self.editing) if self.editing else None
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
        servers = [s for s in self.ctx.settings.mcp.servers if s is not old]
        index = self.ctx.settings.mcp.servers.index(old) if old is not None else len(servers)
        servers.insert(index, config)
        self.ctx.settings.mcp = McpSettings.model_validate(
            {**self.ctx.settings.mcp.model_dump(), "servers": [s.model_dump() for s in servers]})
        self.ctx.save_settings()
        return config.name, f"Saved {config.name}."

    def delete(self, name: str) -> str:
        server = self.entry_named(name)
        if server is not None and self.ctx.secrets.available:
            for header in server.headers:
                self.ctx.secrets.delete(mcp_header_key_name(server.name, header))
            self.ctx.secrets.delete(mcp_oauth_key_name(server.name))
            self.ctx.secrets.delete(mcp_oauth_secret_key_name(server.name))
            self.ctx.secrets.delete(mcp_oauth_id_token_key_name(server.name))
        self.ctx.settings.mcp = self.ctx.settings.mcp.model_copy(
            update={"servers": [s for s in self.ctx.settings.mcp.servers if s is not server]})
        self.ctx.save_settings()
        return f"Removed {name}."

    # -- checking --------------------------------------------------------------------------
    def run_test(self) -> None:
        """Connect with the form's settings (new header values included) and list the tools."""
        try:
            config, values = self.form_config()
        except ValueError as exc:
            self.show_status(str(exc), error=True)
            return
        previously_allowed = set(config.allowed_tools)

        def show(tools: list[str]) -> None:
            self._show_tools([(t, not previously_allowed or t in previously_allowed) for t in tools], all_listed=True)
            self.show_status(f"{config.name} has {len(tools)} tools. Uncheck the ones Jawad must not use, then save.")

        self.run_busy(self.test_button, self._list_tools(config, values, self.editing),
                      what=f"checking {config.name}", busy_text=f"Connecting to {config.where}…", on_done=show)

    check = run_test  # "Check and list tools", in the page's words

    async def _list_tools(self, config: McpServerConfig, values: dict[str, str], editing: str | None) -> list[str]:
        """The names of the server's tools; raises JawadError with the server's problem."""
        from jawad_desktop.core.mcp.adapter import server_tools  # the MCP SDK loads when first needed

        tools = await server_tools(self.ctx.settings.mcp, config, _Overlay(self.ctx, values, config.name, editing),
                                   log_dir=self.ctx.paths.logs, network=self.ctx.settings.network, every_tool=True)
        return [tool.name for tool in tools]


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

    def set(self, key: str, value: str) -> None:
        """A sign-in made by the check (a refreshed token) is kept, as a connection's would be."""
        self.ctx.secrets.set(key, value)

    def delete(self, key: str) -> None:
        self.ctx.secrets.delete(key)
