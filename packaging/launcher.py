"""The bundle's entry point: the same ``main`` as the ``jawad`` command, or, started again by
the app with ``--llama-server`` first, llama.cpp's server for a local model
(``jawad_desktop/core/llm/llama_server.py``: the bundle has no Python interpreter to run it with).

A windowed build on Windows and macOS starts with no console, so ``sys.stdout`` and
``sys.stderr`` are None; the app flushes them on exit and ``--self-test`` prints its
report, so they get a sink instead of failing.
"""

from __future__ import annotations

import os
import sys


def _ensure_streams() -> None:
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115  (lives as long as the process)


if __name__ == "__main__":
    _ensure_streams()
    from jawad_desktop.core.llm.llama_server import FROZEN_FLAG

    if sys.argv[1:2] == [FROZEN_FLAG]:
        from jawad_desktop.core.llm.llama_server import main as serve

        sys.exit(serve(sys.argv[2:]))
    from jawad_desktop.cli import main

    sys.exit(main())
