"""``python -m benchmarks --json`` prints the results as JSON (for a script to read) instead of the table,
and writes the same file either way."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

import benchmarks.__main__ as runner
from benchmarks import Figure


@pytest.fixture()
def one_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("benchmarks.bench_tiny")
    figure = Figure(name="tiny: cases stopped", value=3.0, unit="", goal="3", ok=True, note="by source: ours 3")
    module.run = lambda quick: [figure]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "benchmarks.bench_tiny", module)
    monkeypatch.setattr(runner, "_modules", lambda: ["tiny"])


@pytest.mark.usefixtures("one_benchmark")
def test_json_prints_the_report_and_the_table_is_the_default(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.main(["tiny", "--json", "--out", str(tmp_path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["results"]["tiny"][0] == {"name": "tiny: cases stopped", "value": 3.0, "unit": "", "goal": "3",
                                             "ok": True, "note": "by source: ours 3"}
    assert json.loads((tmp_path / "latest.json").read_text()) == printed
    assert runner.main(["tiny", "--out", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("benchmark") and "tiny: cases stopped" in table and "yes  by source: ours 3" in table
