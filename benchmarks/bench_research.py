"""Research mode's own costs, without the model and the browser: what runs on the GUI thread.

- parsing and repairing a plan reply (fenced JSON with prose, 8 steps), per reply;
- cleaning a long final answer (citations checked, unvisited links removed), per answer;
- saving the whole plan after a change (one durable SQLite transaction, as after every step's
  status change), median and 95th percentile. Goal: under 16 ms, one frame, so progress never
  stutters the window.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.research import ResearchPlan, ResearchStore, Source, StepStatus, parse_plan
from jawad_desktop.core.research.synthesis import clean_answer
from jawad_desktop.core.store.conversations import ConversationStore

SAVE_GOAL_MS = 16.0


def _reply() -> str:
    steps = [{"agent": "browser agent", "task": f"Find the price of the kettle at shop {i}",
              "site": f"https://shop{i}.example/kettle", "permissions": "read only, navigate"} for i in range(8)]
    return "Here is the plan:\n```json\n" + json.dumps({"plan": steps}, indent=2) + "\n```\nShall I run it?"


def _median_us(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1e6)
    return statistics.median(times)


def run(quick: bool) -> list[Figure]:
    repeat = 50 if quick else 500
    reply = _reply()
    parse_us = _median_us(lambda: parse_plan(reply), repeat)
    sources = [Source(f"https://shop{i}.example/kettle", f"Kettle — Shop {i}") for i in range(8)]
    answer = " ".join(f"Shop {i} sells it for ${30 + i}.99 [{i + 1}], see https://shop{i}.example/kettle or "
                      f"[a deal](https://elsewhere.example/{i}) [{i + 20}]." for i in range(8)) * 10
    clean_us = _median_us(lambda: clean_answer(answer, sources), repeat)
    figures = [Figure("research: parse and repair an 8-step plan reply", parse_us, "µs"),
               Figure("research: clean a 10 kB cited answer", clean_us, "µs")]
    with tempfile.TemporaryDirectory() as folder, ConversationStore.open(Path(folder)) as store:
        cid = store.create().id
        research = ResearchStore(store.db)
        plan = ResearchPlan.from_draft("compare kettles", parse_plan(reply))
        saves = []
        for n in range(40 if quick else 200):
            step = plan.steps[n % len(plan.steps)]
            step.status = StepStatus.COMPLETED
            step.result = f"Shop {n}: $39.99, in stock. " * 20
            step.sources = [sources[n % len(sources)]]
            started = time.perf_counter()
            research.save(plan, cid)
            saves.append((time.perf_counter() - started) * 1000)
        saves.sort()
        median = statistics.median(saves)
        p95 = saves[int(len(saves) * 0.95) - 1]
    figures.append(Figure("research: save the plan after a change, median", median, "ms",
                          goal=f"<= {SAVE_GOAL_MS:g} ms", ok=median <= SAVE_GOAL_MS, note="8 steps with results"))
    figures.append(Figure("research: save the plan after a change, p95", p95, "ms",
                          goal=f"<= {SAVE_GOAL_MS:g} ms", ok=p95 <= SAVE_GOAL_MS))
    return figures
