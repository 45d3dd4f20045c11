"""Speed and memory figures, measured: ``python -m benchmarks [NAME ...] [--quick]``.

Each ``benchmarks/bench_<name>.py`` defines ``run(quick: bool) -> list[Figure]``. The
runner prints one table and writes ``benchmarks/results/<time>.json`` (and ``latest.json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
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
