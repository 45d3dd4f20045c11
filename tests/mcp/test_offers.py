"""Resources, resource templates, subscriptions and completions against a real MCP server of notes
(``tests.servers.notes_mcp_server``, written with the SDK): in the core, and on the terminal
(``jawad mcp resources --templates / --read / --subscribe``)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.mcp import McpServerConfig, McpSettings
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.mcp.offers import fill_template, template_parameters
from tests.llm.test_cli import jawad
from tests.mcp.conftest import server_process

ROOT = Path(__file__).resolve().parents[2]
NOTES = McpServerConfig(name="notes", transport="stdio", command=sys.executable,
                        args=["-m", "tests.servers.notes_mcp_server", "stdio"], cwd=str(ROOT))


@pytest.fixture
def notes_http() -> Iterator[str]:
    """The notes server over streamable HTTP (shared by every client that connects)."""
    with server_process("notes server", "tests.servers.notes_mcp_server", "http", "{port}") as port:
        yield f"http://127.0.0.1:{port}/mcp"


def test_uri_templates_are_filled_as_rfc_6570_says() -> None:
    assert template_parameters("notes://{folder}/{name}{?rev,lang}") == ["folder", "name", "rev", "lang"]
    values = {"folder": "my work", "name": "a/b", "rev": "3", "path": "x/y z"}
    assert fill_template("notes://{folder}/{name}", values) == "notes://my%20work/a%2Fb"
    assert fill_template("file:///{+path}", values) == "file:///x/y%20z"
    assert fill_template("notes://{folder}{?rev,lang}", values) == "notes://my%20work?rev=3"
    assert fill_template("x{/folder,name}", values) == "x/my%20work/a%2Fb"
    assert fill_template("notes://{nothing}", values) == "notes://"


def test_templates_are_listed_completed_by_the_server_filled_and_read(arun: Any) -> None:
    async def main() -> dict[str, Any]:
        connections = McpConnections(McpSettings(servers=[NOTES]))
        try:
            await connections.connect()
            assert connections.problems == {}
            templates = await connections.resource_templates()
            template = templates[0]
            folders = await connections.complete("notes", "", "folder", "wo", template=template.uri_template)
            names = await connections.complete("notes", "", "name", "", {"folder": "home"},
                                               template=template.uri_template)
            found = await connections.read_resource("notes", template.uri({"folder": "work", "name": "plan"}))
            return {"templates": templates, "folders": folders, "names": names, "text": found.parts[0].text,
                    "resources": await connections.resources()}
        finally:
            await connections.aclose()

    seen = arun(main(), timeout=60)
    [template] = seen["templates"]
    assert (template.server, template.uri_template, template.label) == ("notes", "notes://{folder}/{name}",
                                                                        "A note by folder and name")
    assert template.parameters == ["folder", "name"]
    assert seen["folders"] == ["work"]
    assert seen["names"] == ["shopping"]  # the folder already chosen narrows the names
    assert seen["text"] == "Ship the release on Friday."
    assert {r.uri for r in seen["resources"]} == {"notes://work/plan", "notes://home/shopping"}


def _add_notes(profile: Path, *where: str) -> None:
    added = jawad(profile, "mcp", "add", "notes", *where)
    assert added.returncode == 0, added.stderr


def test_the_terminal_lists_templates_and_reads_one_with_its_parameters(profile_dir: Path) -> None:
    _add_notes(profile_dir, "--command", f"{sys.executable} -m tests.servers.notes_mcp_server stdio")
    env = {"PYTHONPATH": str(ROOT)}
    listed = jawad(profile_dir, "mcp", "resources", "--templates", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "notes notes://{folder}/{name} A note by folder and name" in listed.stdout
    read = jawad(profile_dir, "mcp", "resources", "--read", "notes", "notes://{folder}/{name}",
                 "--set", "folder=home", "--set", "name=shopping", env=env)
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == "Milk, bread, olives."
    missing = jawad(profile_dir, "mcp", "resources", "--read", "notes", "notes://{folder}/{name}",
                    "--set", "folder=work", env=env)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "needs name" in missing.stderr and "The server offers name: plan" in missing.stderr, missing.stderr


def test_jawad_mcp_resources_subscribe_prints_each_change(profile_dir: Path, notes_http: str, arun: Any) -> None:
    """`jawad mcp resources --subscribe` follows a note; another client changes it on the shared server,
    and the server's notifications/resources/updated reach the terminal."""
    _add_notes(profile_dir, "--url", notes_http)
    follower = subprocess.Popen(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), "mcp", "resources", "--subscribe",
         "notes", "notes://work/plan"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    watchdog = threading.Timer(60, follower.kill)  # a line that never comes fails the test, never hangs it
    watchdog.start()
    try:
        assert follower.stdout is not None
        first = follower.stdout.readline()
        assert first.startswith("Following notes://work/plan on notes"), first + follower.stderr.read()  # type: ignore[union-attr]

        async def change() -> None:
            config = McpServerConfig(name="editor", transport="http", url=notes_http)
            connections = McpConnections(McpSettings(servers=[config]))
            try:
                await connections.connect()
                await connections.call("editor", "write_note", {"folder": "work", "name": "plan",
                                                                "text": "Ship on Monday."})
                await connections.call("editor", "write_note", {"folder": "home", "name": "shopping",
                                                                "text": "Not followed."})
            finally:
                await connections.aclose()

        arun(change(), timeout=60)
        assert follower.stdout.readline().strip() == "changed: notes://work/plan"
    finally:
        watchdog.cancel()
        follower.terminate()
        out, _ = follower.communicate(timeout=10)
    assert "shopping" not in out  # only the note followed
