"""Speed and memory figures, measured: ``python -m benchmarks [NAME ...] [--quick]``.

Each ``benchmarks/bench_<name>.py`` defines ``run(quick: bool) -> list[Figure]``. The
runner prints one table and writes ``benchmarks/results/<time>.json`` (and ``latest.json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class Figure:
    """One measured figure, with the goal it is held to when the issue names one."""

    name: str
    value: float
    unit: str
    goal: str = ""  # e.g. "<= 1.3x baseline"
    ok: bool | None = None  # None: no goal, just reported
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def serve_folder(folder: Path) -> str:
    """Serve ``folder`` on 127.0.0.1 from a daemon thread (for the life of the process); its base URL."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"
