"""Fixtures of the MCP tests: a real FastMCP server over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from jawad_desktop.core.llm.local_server import free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-123"


@dataclass
class HttpMcp:
    url: str
    token: str


@contextlib.contextmanager
def server_process(name: str, module: str, *args: str, port: int = 0) -> Iterator[int]:
    """``python -m module args...`` on ``port`` (0: a free loopback port; the argument ``"{port}"`` is
    replaced by it), started and waited for (its port answers), stopped after; yields the port. ``name``
    says which server did not start."""
    port = port or free_port()
    command = [sys.executable, "-m", module, *(a.replace("{port}", str(port)) for a in args)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                err = process.stderr.read().decode() if process.stderr else ""
                pytest.fail(f"the {name} did not start: {err[-2000:]}")
            time.sleep(0.05)
    try:
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def http_mcp() -> Iterator[HttpMcp]:
    with server_process("MCP test server", "tests.servers.mcp_server", "http", "{port}", TOKEN) as port:
        yield HttpMcp(f"http://127.0.0.1:{port}/mcp", TOKEN)
