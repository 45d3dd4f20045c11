"""Jawad against MCP's reference server of every feature, ``@modelcontextprotocol/server-everything`` (npm,
pinned in ``tests/mcp/conformance/package.json``): a resource attached to a message, a prompt run as a slash
command with its argument completed, the user's folders as roots, structured output, sampling approved (and
denied) through Harbor, an elicitation answered in the window's form, progress on the chat's tool card and
a long call stopped. The assistant runs in process on the scripted model; the server is the real one."""

from __future__ import annotations

import asyncio
import logging
import shlex
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.config.mcp import McpServerConfig
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.secrets import SecretStore
from tests.mcp import conformance
from tests.servers.scripted_model import ScriptedModel, call, text


@pytest.fixture(scope="module")
def everything() -> McpServerConfig:
    try:
        conformance.install()
    except conformance.ConformanceUnavailable as exc:
        pytest.skip(str(exc))
    return McpServerConfig(name="everything", transport="stdio", command=str(conformance.NODE),
                           args=[str(conformance.EVERYTHING), "stdio"], permission="read-only")


def _assistant(profile: Path, model: ScriptedModel, server: McpServerConfig, roots: list[str] = ()) -> Assistant:
    ctx = AppContext.open(str(profile), secrets=SecretStore(session_only=True))
    ctx.settings.mcp.servers = [server]
    ctx.settings.mcp.roots = list(roots)
    provider = ProviderConfig(name="scripted", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=model.base_url,
                              model="scripted")
    return Assistant(ctx, client=make_client(provider, network=ctx.settings.network), ask=True, save=False)


def _tool_results(model: ScriptedModel) -> list[str]:
    return [m["content"] for r in model.requests for m in r["messages"] if m["role"] == "tool"]


def test_a_resource_attached_a_prompt_run_roots_and_structured_output(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, tmp_path: Path,
        arun: Any) -> None:
    folder = tmp_path / "project"
    folder.mkdir()

    async def main() -> dict[str, Any]:
        assistant = _assistant(profile_dir, scripted_model, everything, roots=[str(folder)])
        seen: dict[str, Any] = {}
        try:
            assert await assistant.connect_mcp() == []
            assert assistant.mcp is not None
            connections = assistant.mcp.connections
            resources = await connections.resources()
            seen["resources"] = [r.uri for r in resources]
            # A resource attached to a message reaches the model as the file's text.
            attached = await assistant.read_mcp_resource("everything",
                                                        "demo://resource/static/document/architecture.md")
            scripted_model.script(text("It describes the server."))
            await assistant.send("What does this say?", [attached])
            seen["attached"] = scripted_model.requests[-1]["messages"][-1]["content"]
            # A prompt as a slash command, its required argument given in order; completion of an argument.
            scripted_model.script(text("Sunny."))
            await assistant.send("/args-prompt Paris")
            seen["prompt"] = scripted_model.requests[-1]["messages"][-1]["content"]
            seen["completed"] = await connections.complete("everything", "completable-prompt", "department", "Sa")
            seen["team"] = await connections.complete("everything", "completable-prompt", "name", "",
                                                      {"department": "Engineering"})
            # The user's folder is the server's root; structured output is validated and given to the model.
            scripted_model.script(call("get-roots-list", {}), call("get-structured-content", {"location": "New York"}),
                                  text("Done."))
            await assistant.send("Which roots, and the weather?")
            seen["tools"] = _tool_results(scripted_model)
        finally:
            await assistant.aclose()
        return seen

    seen = arun(main(), timeout=90)
    assert "demo://resource/static/document/architecture.md" in seen["resources"]
    assert "Attached files: everything: architecture.md" in seen["attached"]
    assert "# Everything Server – Architecture" in seen["attached"]
    assert seen["prompt"].startswith("What's weather in Paris?")
    assert seen["completed"] == ["Sales"] and seen["team"] == ["Alice", "Bob", "Charlie"]
    roots, weather = seen["tools"][-2:]
    assert folder.as_uri() in roots
    assert '{"temperature":33,"conditions":"Cloudy"' in weather


def test_prompts_are_listed_and_a_missing_argument_is_completed_by_the_server(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, arun: Any) -> None:
    from jawad_desktop.core.errors import JawadError

    async def main() -> tuple[str, list[str]]:
        assistant = _assistant(profile_dir, scripted_model, everything)
        refusals: list[str] = []
        try:
            await assistant.connect_mcp()
            listed = (await assistant.send("/prompts")).content
            for typed in ("/args-prompt", "/completable-prompt", "/completable-prompt department=Sales"):
                with pytest.raises(JawadError) as raised:
                    await assistant.send(typed)
                refusals.append(str(raised.value) + " " + " ".join(raised.value.suggestions))
            return listed, refusals
        finally:
            await assistant.aclose()

    listed, (no_city, no_department, no_name) = arun(main(), timeout=60)
    assert "- `/args-prompt city=… [state=…]` (everything) — A prompt with two arguments" in listed
    assert "- `/simple-prompt` (everything)" in listed
    assert "needs city" in no_city and "/args-prompt city=... state=..." in no_city
    assert "needs department, name" in no_department
    assert "The server offers department: Engineering, Sales, Marketing, Support." in no_department
    assert "needs name" in no_name and "The server offers name: David, Eve, Frank." in no_name
    assert scripted_model.requests == []  # nothing was sent to the model


@pytest.mark.parametrize("decision", ["allow-once", "deny"])
def test_sampling_is_asked_through_harbor_and_answered_by_the_model(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, arun: Any,
        decision: str) -> None:
    async def main() -> list[ev.PermissionRequest]:
        assistant = _assistant(profile_dir, scripted_model, everything)
        asked: list[ev.PermissionRequest] = []

        def answer(event: Any) -> None:
            if isinstance(event, ev.PermissionRequest):
                asked.append(event)
                asyncio.get_running_loop().call_soon(assistant.gate.respond, event.id, decision)

        assistant.bus.subscribe(answer)
        try:
            await assistant.connect_mcp()
            replies = [call("trigger-sampling-request", {"prompt": "Name a colour", "maxTokens": 50})]
            if decision == "allow-once":
                replies.append(text("Teal."))  # the model's answer to the server
            replies.append(text("The server heard back."))
            scripted_model.script(*replies)
            await assistant.send("Let the server ask the model")
        finally:
            await assistant.aclose()
        return asked

    asked = arun(main(), timeout=90)
    (request,) = asked  # the tool is read-only here: only the server's request for the model asks
    assert request.tool_name == "mcp_sampling" and request.site == "mcp.everything"
    assert request.permission_level == "submit"
    assert request.parameters["messages"] == ["user: Resource trigger-sampling-request context: Name a colour"]
    assert request.parameters["system_prompt"] == "You are a helpful test server."
    result = _tool_results(scripted_model)[-1]
    if decision == "allow-once":
        sampled = scripted_model.requests[1]
        assert [m["role"] for m in sampled["messages"]] == ["system", "user"] and not sampled.get("tools")
        assert sampled["max_tokens"] == 50
        assert '"text": "Teal."' in result and '"model": "scripted"' in result
    else:
        assert len(scripted_model.requests) == 2  # the model was never asked for the server
        assert "User rejected sampling request" in result


def test_an_elicitation_is_answered_in_the_window(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, arun: Any,
        qtbot: Any) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QLineEdit

    from jawad_desktop.ui.prompts.elicitation_panel import ElicitationPanel

    async def main() -> None:
        assistant = _assistant(profile_dir, scripted_model, everything)
        panel = ElicitationPanel(assistant.elicitations.respond)
        qtbot.addWidget(panel)

        def fill() -> None:
            name = panel.findChild(QLineEdit, "elicit_name")
            assert name is not None
            name.setText("Ada Lovelace")
            qtbot.mouseClick(panel.send_button, Qt.MouseButton.LeftButton)

        def on_event(event: Any) -> None:
            if isinstance(event, ev.ElicitationRequested):
                panel.show_request(event)
                QTimer.singleShot(0, fill)
            elif isinstance(event, ev.ElicitationSettled):
                panel.settle(event)

        assistant.bus.subscribe(on_event)
        assistant.elicitations.answered_here()
        try:
            await assistant.connect_mcp()
            scripted_model.script(call("trigger-elicitation-request", {}), text("Thanks."))
            await assistant.send("Ask me something")
        finally:
            await assistant.aclose()

    arun(main(), timeout=90)
    result = _tool_results(scripted_model)[-1]
    assert "User provided the requested information" in result
    assert "- Name: Ada Lovelace" in result and "- Favorite Integer: 42" in result  # the schema's default


def test_progress_on_the_tool_card_and_stop_cancels_a_long_call(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, arun: Any, qtbot: Any,
        caplog: pytest.LogCaptureFixture) -> None:
    from jawad_desktop.ui.chat.chat_view import ChatPanel

    chat = ChatPanel()
    qtbot.addWidget(chat)
    caplog.set_level(logging.INFO, logger="jawad.mcp")

    async def main() -> tuple[ev.ChatResponse, float, list[str]]:
        assistant = _assistant(profile_dir, scripted_model, everything)
        cards: list[str] = []

        def on_event(event: Any) -> None:
            if isinstance(event, ev.ActionLogUpdate):
                e = event.entry
                chat.show_tool_call(e.id, e.tool_name, dict(e.parameters), e.details, e.result, tool_call_id=e.call_id)
            elif isinstance(event, ev.ToolProgress):
                chat.show_progress(event.call_id, event.progress, event.total, event.message)
                (card,) = [i for i in chat.view.chat_model.items() if i.role == "tool"]
                cards.append(card.markdown())
                if event.progress >= 2:
                    assistant.stop()

        assistant.bus.subscribe(on_event)
        try:
            await assistant.connect_mcp()
            scripted_model.script(call("trigger-long-running-operation", {"duration": 60, "steps": 60}))
            started = asyncio.get_running_loop().time()
            response = await assistant.send("Run the long operation")
            return response, asyncio.get_running_loop().time() - started, cards
        finally:
            await assistant.aclose()

    response, took, cards = arun(main(), timeout=90)
    assert response.interrupted and took < 30
    assert "**trigger_long_running_operation** — 1 of 60 (2%)" in cards[0]
    assert "2 of 60 (3%)" in cards[1]
    assert any("told to stop request" in r.getMessage() for r in caplog.records)


@pytest.mark.slow  # 8-12 s in CI: first, not at the end of a parallel run (tests/fixtures/workers.py)
def test_the_terminal_lists_resources_and_prompts_attaches_a_resource_and_runs_a_prompt(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, tmp_path: Path) -> None:
    from tests.llm.test_cli import jawad

    command = shlex.join([everything.command, *everything.args])
    added = jawad(profile_dir, "mcp", "add", "everything", "--command", command, "--permission", "read-only")
    assert added.returncode == 0, added.stderr
    roots = jawad(profile_dir, "mcp", "roots", "--add", str(tmp_path))
    assert roots.returncode == 0 and roots.stdout.strip() == str(tmp_path.resolve()), roots.stderr
    resources = jawad(profile_dir, "mcp", "resources")
    assert resources.returncode == 0, resources.stderr
    assert "everything demo://resource/static/document/architecture.md architecture.md (text/markdown)" in \
        resources.stdout
    prompts = jawad(profile_dir, "mcp", "prompts")
    assert prompts.returncode == 0, prompts.stderr
    assert "/args-prompt city [state] (everything) A prompt with two arguments" in prompts.stdout
    ask = ["ask", "--no-save", "--kind", "openai-compatible", "--base-url", scripted_model.base_url, "--model",
           "scripted"]
    scripted_model.script(text("It is about the architecture."))
    attached = jawad(profile_dir, *ask, "--resource", "everything", "demo://resource/static/document/architecture.md",
                     "What is this?")
    assert attached.returncode == 0, attached.stderr
    assert "# Everything Server – Architecture" in scripted_model.requests[-1]["messages"][-1]["content"]
    scripted_model.script(text("Rainy."))
    prompted = jawad(profile_dir, *ask, "/args-prompt city=Lyon state=Rhône")
    assert prompted.returncode == 0, prompted.stderr
    assert scripted_model.requests[-1]["messages"][-1]["content"].startswith("What's weather in Lyon, Rhône?")


def test_a_catalog_server_is_added_from_the_terminal(profile_dir: Path, tmp_path: Path) -> None:
    from tests.llm.test_cli import jawad

    listed = jawad(profile_dir, "mcp", "catalog")
    assert listed.returncode == 0 and "filesystem: Files." in listed.stdout and "github: GitHub." in listed.stdout
    added = jawad(profile_dir, "mcp", "add", "files", "--from", "filesystem", "--folder", str(tmp_path))
    assert added.returncode == 0, added.stderr
    assert "Files needs: Node.js (npx)." in added.stdout
    shown = jawad(profile_dir, "mcp", "list")
    assert f"files: stdio npx -y @modelcontextprotocol/server-filesystem {tmp_path}  [all tools; permission ask]" \
        in shown.stdout
    timed = jawad(profile_dir, "mcp", "add", "clock", "--from", "time")
    assert "clock: stdio uvx mcp-server-time  [all tools; permission read-only]" in jawad(profile_dir, "mcp",
                                                                                          "list").stdout, timed.stderr
    unknown = jawad(profile_dir, "mcp", "add", "x", "--from", "nothing")
    assert unknown.returncode != 0 and "The catalog has no server 'nothing'" in unknown.stderr


def test_the_window_attaches_a_resource_shows_progress_and_edits_a_sampling_request(
        everything: McpServerConfig, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any,
        secret_store: SecretStore, aio_loop: Any) -> None:
    from PySide6.QtCore import Qt

    from jawad_desktop.ui.window.main_window import MainWindow

    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.settings.network.max_retries = 0
    ctx.settings.mcp.servers = [everything]
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    try:
        presenter, chat = window.presenter, window.chat
        qtbot.waitUntil(lambda: presenter.assistant is not None and presenter.assistant.mcp is not None,
                        timeout=30_000)
        assert chat.resource_button.isVisible()
        qtbot.mouseClick(chat.resource_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: presenter.resource_menu is not None and presenter.resource_menu.isVisible(),
                        timeout=20_000)
        (action,) = [a for a in presenter.resource_menu.actions() if a.text() == "architecture.md (everything)"]
        action.trigger()
        qtbot.waitUntil(lambda: [p.name for p in chat.attachments.files()] == ["architecture.md"], timeout=20_000)
        scripted_model.script(text("It is the server's architecture."))
        chat.input.setPlainText("What is this about?")
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: scripted_model.remaining == 0 and not presenter.busy, timeout=30_000)
        sent = scripted_model.requests[-1]["messages"][-1]["content"]
        assert sent.startswith("What is this about?\n\nAttached files: architecture.md")
        assert "# Everything Server – Architecture" in sent
        # A long call: its progress on its card in the chat, and the Stop button ends it.
        scripted_model.script(call("trigger-long-running-operation", {"duration": 60, "steps": 60}))
        chat.input.setPlainText("Run the long operation")
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)

        def card() -> str:
            cards = [i for i in chat.view.chat_model.items() if i.role == "tool"]
            return cards[-1].markdown() if cards else ""

        qtbot.waitUntil(lambda: "** — 2 of 60 (3%)" in card(), timeout=30_000)
        qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not presenter.busy, timeout=10_000)
        assert "2 of 60" not in card()  # no longer running: the card says how it ended
        # The server asks the model: the permission panel shows its message, the user edits it and allows.
        scripted_model.script(call("trigger-sampling-request", {"prompt": "Name a colour", "maxTokens": 20}),
                              text("Teal."), text("Done."))
        chat.input.setPlainText("Let the server ask")
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
        panel = presenter.permissions
        qtbot.waitUntil(lambda: panel.current is not None and panel.current.tool_name == "mcp_sampling",
                        timeout=20_000)
        assert panel.sample_text.isVisible()
        assert panel.sample_text.toPlainText() == "Resource trigger-sampling-request context: Name a colour"
        panel.sample_text.setPlainText("Name a shade of blue")
        qtbot.mouseClick(panel.buttons["allow-once"], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: scripted_model.remaining == 0 and not presenter.busy, timeout=30_000)
        sampled = scripted_model.requests[1]["messages"]
        assert sampled[-1] == {"role": "user", "content": "Name a shade of blue"}
        assert '"text": "Teal."' in scripted_model.requests[2]["messages"][-1]["content"]
    finally:
        window.close()
        window.dispose()


def test_a_subscribed_resource_that_changes_is_announced(everything: McpServerConfig, arun: Any) -> None:
    from jawad_desktop.core.config.mcp import McpSettings
    from jawad_desktop.core.mcp.adapter import McpConnections

    uri = "demo://resource/static/document/architecture.md"
    bus = ev.EventBus()
    changed: list[ev.McpResourceUpdated] = []

    async def main() -> None:
        connections = McpConnections(McpSettings(servers=[everything]), bus=bus)
        arrived = asyncio.Event()
        bus.subscribe(lambda e: (changed.append(e), arrived.set()) if isinstance(e, ev.McpResourceUpdated) else None)
        try:
            await connections.connect()
            # No folder chosen: roots are not offered (the server then has no tool to list them).
            assert "get-roots-list" not in [tool.name for tool in connections.tools()]
            await connections.subscribe("everything", uri)
            await connections.call("everything", "toggle-subscriber-updates", {})  # then every 5 s
            await asyncio.wait_for(arrived.wait(), 20)
            await connections.subscribe("everything", uri, on=False)
        finally:
            await connections.aclose()

    arun(main(), timeout=40)
    assert changed[0] == ev.McpResourceUpdated(server="everything", uri=uri)


def test_sampling_is_approved_on_the_terminal(everything: McpServerConfig, profile_dir: Path,
                                              scripted_model: ScriptedModel) -> None:
    import os
    import sys

    from tests.fixtures.terminal import prompts, run_on_terminal
    from tests.llm.test_cli import jawad
    from tests.mcp.conformance import ROOT

    added = jawad(profile_dir, "mcp", "add", "everything", "--command", shlex.join([everything.command,
                                                                                   *everything.args]),
                  "--permission", "read-only")
    assert added.returncode == 0, added.stderr
    scripted_model.script(call("trigger-sampling-request", {"prompt": "Name a colour", "maxTokens": 20}),
                          text("Teal."), text("The server heard Teal."))
    run = run_on_terminal(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "ask", "--no-save", "--kind",
         "openai-compatible", "--base-url", scripted_model.base_url, "--model", "scripted",
         "Let the server ask the model"],
        prompts([(b"Your choice", b"o\n")]), env=dict(os.environ), timeout_s=120, cwd=ROOT)
    assert run.returncode == 0, run.transcript
    assert "Jawad wants to use mcp_sampling on mcp.everything (submit)." in run.transcript
    assert "user: Resource trigger-sampling-request context: Name a colour" in run.transcript
    assert "The server heard Teal." in run.stdout
    assert '"text": "Teal."' in scripted_model.requests[-1]["messages"][-1]["content"]


def test_resource_links_and_audio_reach_the_model_as_words(everything: McpServerConfig, arun: Any) -> None:
    from mcp import types

    from jawad_desktop.core.config.mcp import McpSettings
    from jawad_desktop.core.mcp.adapter import McpConnections
    from jawad_desktop.core.mcp.tool_bridge import result_text

    async def main() -> str:
        connections = McpConnections(McpSettings(servers=[everything]))
        try:
            await connections.connect()
            return result_text(await connections.call("everything", "get-resource-links", {"count": 2}))
        finally:
            await connections.aclose()

    links = arun(main(), timeout=40)
    assert "[resource " in links and " at demo://resource/" in links and "base64" not in links
    audio = types.CallToolResult(content=[types.AudioContent(type="audio", data="UklGRg" * 1000, mimeType="audio/wav")])
    assert result_text(audio) == "[audio audio/wav, 6000 bytes base64]"
    from jawad_desktop.core.mcp.tool_bridge import result_audio

    (sound,) = result_audio(audio)  # the sound itself, for a model that hears it (tests/llm/test_audio.py)
    assert sound.media_type == "audio/wav" and sound.data.startswith(b"RIFF")
