"""The window's MCP resources with a real server of notes (written with the SDK, over streamable HTTP): a
resource template chosen from the composer's menu, its parameters completed by the server while typed,
the note attached, and followed: another client changes it, the server says so, the attached copy is
read again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from jawad_desktop.core import events as ev
from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.store.secrets import SecretStore
from tests.mcp.test_offers import notes_http  # noqa: F401  (the fixture)
from tests.servers.scripted_model import ScriptedModel


def test_a_template_filled_with_completions_attached_and_followed(
        notes_http: str, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any, secret_store: SecretStore,  # noqa: F811
        arun: Any) -> None:
    from jawad_desktop.ui.window.main_window import MainWindow

    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.mcp.servers = [McpServerConfig(name="notes", transport="http", url=notes_http)]
    notices: list[str] = []
    ctx.bus.subscribe(lambda e: notices.append(e.text) if isinstance(e, ev.Notice) else None)
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    try:
        presenter, chat = window.presenter, window.chat
        qtbot.waitUntil(lambda: presenter.assistant is not None and presenter.assistant.mcp is not None,
                        timeout=30_000)
        qtbot.mouseClick(chat.resource_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: presenter.resource_menu is not None and presenter.resource_menu.isVisible(),
                        timeout=20_000)
        texts = [a.text() for a in presenter.resource_menu.actions() if not a.isSeparator()]
        assert texts == ["The work plan (notes)", "shopping (notes)", "A note by folder and name… (notes)"]
        presenter.resource_menu.actions()[-1].trigger()
        qtbot.waitUntil(lambda: presenter.template_dialog is not None and presenter.template_dialog.isVisible())
        dialog = presenter.template_dialog
        assert list(dialog.fields) == ["folder", "name"]
        qtbot.keyClicks(dialog.fields["folder"], "w")
        qtbot.waitUntil(lambda: dialog.offered("folder") == ["work"], timeout=15_000)
        dialog.fields["folder"].setText("work")
        dialog.fields["name"].setFocus()
        qtbot.keyClicks(dialog.fields["name"], "p")  # the server narrows the names to the folder's notes
        qtbot.waitUntil(lambda: dialog.offered("name") == ["plan"], timeout=15_000)
        dialog.fields["name"].completer().popup().hide()
        dialog.fields["name"].setText("plan")
        attach = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert attach.text() == "Attach"
        qtbot.mouseClick(attach, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(chat.attachments.files()) or bool(notices), timeout=20_000)
        assert [p.name for p in chat.attachments.files()] == ["plan.txt"], notices
        attached = chat.attachments.files()[0]
        assert attached.read_text() == "Ship the release on Friday."
        qtbot.waitUntil(lambda: ("notes", "notes://work/plan") in presenter._followed, timeout=10_000)
        qtbot.wait(500)  # the subscription reaches the server

        async def change() -> None:
            config = McpServerConfig(name="editor", transport="http", url=notes_http)
            connections = McpConnections(McpSettings(servers=[config]))
            try:
                await connections.connect()
                await connections.call("editor", "write_note", {"folder": "work", "name": "plan",
                                                                "text": "Ship on Monday."})
            finally:
                await connections.aclose()

        arun(change(), timeout=60)
        qtbot.waitUntil(lambda: attached.read_text() == "Ship on Monday.", timeout=20_000)
        qtbot.waitUntil(lambda: any("notes://work/plan changed on notes" in n for n in notices), timeout=10_000)
    finally:
        window.close()
        window.dispose()
