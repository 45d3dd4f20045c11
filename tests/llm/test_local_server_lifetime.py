"""The built-in model's server never outlives the app: not after ``end_process`` (``os._exit``, which
runs no atexit handler), not after the app's process is killed, and not after a SIGTERM ends an app
whose server was started by another thread than the main one (no parent-death signal then)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jawad_desktop.core.llm.local_server import bundled_model_path

pytestmark = pytest.mark.skipif(bundled_model_path() is None, reason="the built-in model is not installed")

CHILD = """
import asyncio, sys, threading
from jawad_desktop.core.llm.local_server import shared_local_server
from jawad_desktop.ui.app.application import end_process
server = shared_local_server()
if sys.argv[1] == "term":  # started by the core's loop thread, as in the app: no parent-death signal
    worker = threading.Thread(target=lambda: asyncio.run(server.ensure_started()))
    worker.start()
    worker.join()
else:
    asyncio.run(server.ensure_started())
print(server._proc.pid, flush=True)
if sys.argv[1] == "end":
    end_process(0)
sys.stdin.readline()  # "kill": wait to be killed
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.is_file() and "\nState:\tZ" in status.read_text())


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["end", "kill", "term"])
def test_the_model_server_ends_with_the_app(how: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, how], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    try:
        assert _alive(pid)
        if how == "kill":
            proc.send_signal(signal.SIGKILL)  # no handler of the app runs: the kernel's signal must
        if how == "term":  # issue 31: SIGTERM left the server at 96 % CPU; it watches the app and ends itself
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert _gone_within(pid, 10), f"the model server {pid} outlived the app ({how})"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
