"""The llama.cpp server process itself: llama-cpp-python's OpenAI-compatible server, run by the app.

``local_server.LocalServer`` starts this module's ``main`` in a process of its own: in the dev
install as ``python -m jawad_desktop.core.llm.llama_server``, in the packaged app as the frozen
executable started again with ``--llama-server`` first (``packaging/launcher.py``), so the bundle
runs GGUF models with the same runtime and no Python interpreter of its own.

The process watches the app that started it (``--parent PID``) and ends itself within
``PARENT_CHECK_S`` once that process is gone, however the app ended (SIGTERM while a model was
answering, a kill, a crash): Linux's parent-death signal follows the spawning *thread*, so it is
set only when the main thread starts the server, and the other systems have none.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence

log = logging.getLogger("jawad.llm.local")

FROZEN_FLAG = "--llama-server"  # the packaged app's executable runs this module's main
PARENT_CHECK_S = 0.5


def parent_alive(pid: int) -> bool:
    """True while the process ``pid`` that started this one runs."""
    if sys.platform == "win32":
        import ctypes

        synchronize, wait_timeout = 0x00100000, 0x00000102
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(synchronize, False, pid)
        if not handle:
            return False
        try:
            return bool(kernel32.WaitForSingleObject(handle, 0) == wait_timeout)
        finally:
            kernel32.CloseHandle(handle)
    return os.getppid() == pid  # an orphan is handed to init or a subreaper


def watch_parent(pid: int, *, interval_s: float = PARENT_CHECK_S) -> threading.Thread:
    """A daemon thread that ends this process as soon as ``pid`` is gone."""

    def watch() -> None:
        while parent_alive(pid):
            time.sleep(interval_s)
        os._exit(0)  # nothing to save: the server holds only the model in memory

    thread = threading.Thread(target=watch, name="jawad-parent-watch", daemon=True)
    thread.start()
    return thread


def main(argv: Sequence[str] | None = None) -> int:
    """Run llama-cpp-python's server with ``argv`` (its own options, after ``--parent PID``)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--parent", type=int, default=0)
    known, rest = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if known.parent:
        watch_parent(known.parent)
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *rest]
    serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
