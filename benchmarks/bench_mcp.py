"""Issue 30's figure: the MCP client conformance scenarios Jawad passes.

Material: the protocol's own client conformance suite, ``@modelcontextprotocol/conformance`` (pinned in
``tests/mcp/conformance/package.json``, installed from the npm registry on first run). For each client
scenario the suite starts its server (an MCP server, and for the ``auth/`` scenarios an authorization
server that approves by itself) and runs Jawad's MCP client on it (``tests/mcp/conformance_client.py``);
the suite's checks decide pass or fail. One figure per scenario (1 passed, 0 failed) and the total.
"""

from __future__ import annotations

import sys

from benchmarks import Figure
from tests.mcp.conformance import run_scenario, scenarios


def run(quick: bool) -> list[Figure]:
    names = scenarios()
    figures: list[Figure] = []
    for name in names:
        result = run_scenario(name)
        note = "; ".join(result.failures)[:160] if not result.passed else ""
        if not result.passed and not result.failures:
            note = result.output.strip().splitlines()[-1][:160] if result.output.strip() else "no checks"
        print(f"  {name}: {'passed' if result.passed else 'FAILED'} {note}", file=sys.stderr, flush=True)
        figures.append(Figure(name=f"mcp conformance: {name}", value=float(result.passed), unit="pass",
                              ok=result.passed, note=note))
    passed = sum(int(f.value) for f in figures)
    figures.append(Figure(name="mcp conformance: client scenarios passed", value=float(passed),
                          unit=f"/{len(names)}", goal=f"{len(names)} of {len(names)}", ok=passed == len(names)))
    return figures
