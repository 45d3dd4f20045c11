"""``jawad mcp`` as a real subprocess: servers saved in the settings, header values only in
the real (private) keyring, tools listed from real FastMCP servers over stdio and HTTP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jawad_desktop.core.config.mcp import mcp_header_key_name
from jawad_desktop.core.store.secrets import SecretStore
from tests.llm.test_cli import jawad
from tests.mcp.conftest import ROOT, HttpMcp


@pytest.mark.slow  # 9-10 s in CI: first, not at the end of a parallel run (tests/fixtures/workers.py)
def test_mcp_add_list_remove(profile_dir: Path, secret_store: SecretStore, http_mcp: HttpMcp) -> None:
    added = jawad(profile_dir, "mcp", "add", "calc", "--command", f"{sys.executable} -m tests.servers.mcp_server stdio",
                  "--cwd", str(ROOT), "--allow", "add,echo")
    assert added.returncode == 0, added.stderr
    remote = jawad(profile_dir, "mcp", "add", "remote", "--url", http_mcp.url, "--permission", "read-only",
                   "--header-env", "Authorization=MCP_TOKEN", env={"MCP_TOKEN": f"Bearer {http_mcp.token}"})
    assert remote.returncode == 0, remote.stderr
    assert secret_store.get(mcp_header_key_name("remote", "Authorization")) == f"Bearer {http_mcp.token}"
    settings = (profile_dir / "config" / "settings.json").read_text()
    assert http_mcp.token not in settings and '"Authorization"' in settings

    listed = jawad(profile_dir, "mcp", "list", "--tools", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert [(t["name"], t["allowed"]) for t in rows["calc"]["tools"]] == [
        ("add", True), ("echo", True), ("fail", False), ("whoami", False)]
    assert rows["calc"]["permission"] == "ask" and rows["remote"]["permission"] == "read-only"
    assert {t["name"] for t in rows["remote"]["tools"]} == {"add", "echo", "fail", "whoami"}
    assert rows["remote"]["problem"] == ""

    text = jawad(profile_dir, "mcp", "list", "--tools")
    assert "calc: stdio" in text.stdout and "  + add: Add two whole numbers." in text.stdout
    assert "  - fail:" in text.stdout

    removed = jawad(profile_dir, "mcp", "remove", "remote")
    assert removed.returncode == 0 and "header values" in removed.stdout
    assert secret_store.get(mcp_header_key_name("remote", "Authorization")) is None
    assert [r["name"] for r in json.loads(jawad(profile_dir, "mcp", "list", "--json").stdout)] == ["calc"]


def test_mcp_failures_are_friendly(profile_dir: Path, secret_store: SecretStore) -> None:
    bad = jawad(profile_dir, "mcp", "add", "x", "--url", "ftp://host/mcp")
    assert bad.returncode == 1 and "must start with http://" in bad.stderr and "Traceback" not in bad.stderr
    missing = jawad(profile_dir, "mcp", "remove", "nothing")
    assert missing.returncode == 1 and "No MCP server is named 'nothing'" in missing.stderr
    assert jawad(profile_dir, "mcp", "add", "gone", "--command", "no-such-mcp-command").returncode == 0
    listed = jawad(profile_dir, "mcp", "list", "--tools")
    assert listed.returncode == 1 and "was not found" in listed.stderr
