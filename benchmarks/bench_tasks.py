"""Issue 18's task suite, done end to end: each task page of ``tests/pages/tasks`` for seeds 1, 2 and 3,
through ``jawad ask --url <page> "<instruction>"`` in a real process, judged by the page itself.

The model is the oracle (``tests/servers/oracle_model.py``): a loopback OpenAI-compatible server that
decides only from the instruction and what the tools return, so a task it fails is one the tools,
the listing or the agent failed. Then the built-in local model (SmolLM2 through ``--kind local``,
the llama.cpp server the app starts itself) with seed 1, however low its rate.

How a run goes (``tests/fixtures/task_runner.py``): a throwaway profile whose agent may take 25
steps (Settings → Agent; the default 10 is short for the tasks that read the page between actions),
``--allow read-only,navigate,interact,submit``, and on the pseudo-terminal the user answers "allow
once" to what always asks (deleting, buying), which the instruction asked for. The verdict is the
page's first ``/done`` report; none is a failure.

Figures, per task: the success rate over its seeds; in the note, the mean tool calls ("steps") and
model requests, the mean tokens (prompt + completion, the oracle's count: 4 characters a token over
the request's messages and tools, and over its reply), the mean seconds of a run (process start to
exit), and for each failed run why: the oracle gave up (a missing tool, a listing gap: what it could
not find, an action that failed), the agent stopped (same action three times, step limit), or the
page said no or never confirmed while the tools said it was done (an action that misreported).
Overall: the oracle's rate (goal >= 95 %) and the built-in model's.

**WebGames mode** (``JAWAD_BENCH_TASKS=webgames``; issue 35): the public WebGames suite
(``benchmarks/webgames.py`` builds and serves it on loopback), each task's page through
``jawad ask --url <page>`` with the same prompt for all (it names two files made for the run, for the
upload challenges), and as the model the WebGames policy (``tests/servers/webgames_policy.py``), which
acts only on what a real model that sees images gets: it passes the app's own image-input test before
each run (``jawad providers test --vision``), so the agent offers it ``look`` and ``click_at``, and its
pictures are counted as such a model counts them. A task counts as
solved when its password (the suite's ``analysis/webgames_tasks.jsonl``) is in what the tools returned:
a check that our tools suffice for the page, never a task success. Reported: tasks attempted, solved,
the reason for each unsolved one, tool calls and tokens per task and per step; the tasks left out as
impossible for a text-and-screenshot agent (``LEFT_OUT``) with why. ``JAWAD_BENCH_WEBGAMES=id,id``
runs only those tasks. Details go to ``benchmarks/results/webgames-latest.json``.

The built-in model does every task with seed 1 (one request takes it 15 to 75 s on two cores).
``--quick``: the oracle with seed 1 only, the built-in model on three tasks;
``JAWAD_BENCH_BUILTIN=0`` skips the built-in model. Every run's details (the calls, the answer, the
transcript of a failed run) go to ``benchmarks/results/tasks-latest.json``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks import Figure
from tests.fixtures.task_runner import TaskRun, run_task, write_settings
from tests.fixtures.task_server import TaskServer
from tests.fixtures.task_suite import TaskSpec, load_manifest, seeds, task_instance
from tests.servers.oracle_model import MODEL, OracleModel

HERE = Path(__file__).resolve().parent
GOAL = 95.0
SETTINGS = {"agent": {"max_iterations": 25}}
# The built-in model's tasks in a quick run: the simplest kinds.
QUICK_BUILTIN = ("click_button", "click_link", "enter_text")
ORACLE_TIMEOUT_S = 180.0
BUILTIN_TIMEOUT_S = 300.0


@dataclass
class Outcome:
    """One run and what it cost."""

    task: str
    seed: int
    solved: bool
    why: str  # "" when solved
    seconds: float
    steps: int  # tool calls the model made
    requests: int
    tokens: int
    questions: int


def _why(run: TaskRun, steps: int, gave_up: str = "", final: str = "", *, oracle: bool = True) -> str:
    """Why a run failed, in the words the lead needs: who stopped it and on what."""
    if run.solved:
        return ""
    content = " ".join(str(run.answer.get("content", "")).split())
    if gave_up:
        return f"oracle gave up ({gave_up}): {final.split(': ', 1)[-1][:160]}"
    if run.stopped_because == "timeout":
        return "timeout: the run did not end"
    if run.stopped_because:
        return f"agent stopped ({run.stopped_because}): {content[:160]}"
    if not steps:
        return f"answered without a tool call: {content[:100]!r}"
    if run.ok is False:
        return (f"page said no ({run.detail[:100]})"
                + (" after the tools said it was done: wrong target or misreported action" if oracle else ""))
    if oracle:
        return "page never confirmed though the tools said it was done: an action misreported"
    return f"page never confirmed after {steps} tool calls: {content[:100]!r}"


def _oracle_runs(specs: tuple[TaskSpec, ...], run_seeds: list[int], server: TaskServer, profile: Path,
                 log: list[dict[str, Any]]) -> list[Outcome]:
    oracle = OracleModel(specs)
    oracle.start()
    outcomes = []
    try:
        for spec in specs:
            for seed in run_seeds:
                inst = task_instance(spec, seed)
                key = f"{spec.id}-{seed}-{time.monotonic_ns()}"
                provider = ["--kind", "openai-compatible", "--base-url", oracle.run_url(key), "--model", MODEL]
                run = run_task(inst, server, profile, provider, timeout=ORACLE_TIMEOUT_S)
                record = oracle.record(key)
                outcome = Outcome(task=spec.id, seed=seed, solved=run.solved,
                                  why=_why(run, record.tool_calls, record.gave_up, record.final),
                                  seconds=run.seconds,
                                  steps=record.tool_calls, requests=record.requests, tokens=record.tokens,
                                  questions=run.questions)
                outcomes.append(outcome)
                print(f"  oracle {spec.id} seed {seed}: {'ok' if run.solved else 'FAILED'} in {run.seconds:.1f} s"
                      + (f" - {outcome.why}" if outcome.why else ""), file=sys.stderr, flush=True)
                log.append({"model": "oracle", **asdict(outcome), "instruction": inst.instruction,
                            "calls": record.calls, "answer": run.answer.get("content", ""),
                            "transcript": "" if run.solved else _tail(run.transcript)})
    finally:
        oracle.stop()
    return outcomes


def _builtin_runs(specs: tuple[TaskSpec, ...], server: TaskServer, profile: Path,
                  log: list[dict[str, Any]]) -> list[Outcome]:
    outcomes = []
    for spec in specs:
        inst = task_instance(spec, 1)
        run = run_task(inst, server, profile, ["--kind", "local"], timeout=BUILTIN_TIMEOUT_S)
        meta = run.answer.get("metadata") or {}
        steps = int(meta.get("tool_calls") or 0)
        # Tokens as llama.cpp's server reports them (its stream reports none: then 0).
        outcome = Outcome(task=spec.id, seed=1, solved=run.solved, why=_why(run, steps, oracle=False),
                          seconds=run.seconds, steps=steps, requests=int(meta.get("api_calls") or 0),
                          tokens=int(meta.get("total_tokens") or 0), questions=run.questions)
        outcomes.append(outcome)
        print(f"  built-in {spec.id}: {'ok' if run.solved else 'failed'} in {run.seconds:.0f} s", file=sys.stderr,
              flush=True)
        log.append({"model": "built-in", **asdict(outcome), "instruction": inst.instruction,
                    "answer": run.answer.get("content", ""), "transcript": _tail(run.transcript)})
    return outcomes


def _tail(text: str, keep: int = 4000) -> str:
    lines = [line for line in text.splitlines() if "dbus" not in line]
    return "\n".join(lines)[-keep:]


def _rate(outcomes: list[Outcome]) -> float:
    return 100.0 * sum(o.solved for o in outcomes) / len(outcomes) if outcomes else float("nan")


def _table(specs: tuple[TaskSpec, ...], outcomes: list[Outcome]) -> str:
    lines = [f"{'task':<18} {'solved':>6} {'rate':>5} {'steps':>5} {'reqs':>5} {'tokens':>8} {'secs':>5}  why not"]
    for spec in specs:
        mine = [o for o in outcomes if o.task == spec.id]
        if not mine:
            continue
        whys = "; ".join(f"seed {o.seed}: {o.why}" for o in mine if o.why)
        mean = {name: statistics.mean(getattr(o, name) for o in mine) for name in ("steps", "requests", "tokens",
                                                                                   "seconds")}
        lines.append(f"{spec.id:<18} {sum(o.solved for o in mine):>3}/{len(mine):<2} {_rate(mine):>5.0f} "
                     f"{mean['steps']:>5.1f} {mean['requests']:>5.1f} {mean['tokens']:>8.0f} {mean['seconds']:>5.1f}  "
                     f"{whys}")
    return "\n".join(lines)


def run(quick: bool) -> list[Figure]:
    if os.environ.get("JAWAD_BENCH_TASKS", "") == "webgames":
        from benchmarks.webgames_runs import run_webgames
        return run_webgames(quick)
    specs = load_manifest()
    run_seeds = [1] if quick else seeds()
    skip_builtin = os.environ.get("JAWAD_BENCH_BUILTIN", "") == "0"
    builtin_ids = [] if skip_builtin else list(QUICK_BUILTIN) if quick else [s.id for s in specs]
    log: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jawad-tasks-") as tmp, TaskServer() as server:
        profile = Path(tmp) / "profile"
        write_settings(profile, SETTINGS)
        oracle = _oracle_runs(specs, run_seeds, server, profile, log)
        builtin_profile = Path(tmp) / "builtin"
        write_settings(builtin_profile, SETTINGS)
        builtin = _builtin_runs(tuple(s for s in specs if s.id in builtin_ids), server, builtin_profile, log)
    print("\nThe oracle, per task:\n" + _table(specs, oracle), file=sys.stderr)
    if builtin:
        print("\nThe built-in model (SmolLM2), per task:\n" + _table(specs, builtin), file=sys.stderr)
    out = HERE / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "tasks-latest.json").write_text(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "runs": log},
                                                      indent=2, ensure_ascii=False), encoding="utf-8")

    figures = []
    for spec in specs:
        mine = [o for o in oracle if o.task == spec.id]
        whys = "; ".join(f"seed {o.seed}: {o.why}" for o in mine if o.why)
        figures.append(Figure(
            name=f"tasks: oracle {spec.id}", value=_rate(mine), unit="%",
            note=(f"{statistics.mean(o.steps for o in mine):.1f} steps, "
                  f"{statistics.mean(o.requests for o in mine):.1f} requests, "
                  f"{statistics.mean(o.tokens for o in mine):,.0f} tokens, "
                  f"{statistics.mean(o.seconds for o in mine):.1f} s" + (f" | {whys}" if whys else ""))))
    failed = sorted({o.task for o in oracle if not o.solved})
    figures.append(Figure(
        name=f"tasks: oracle overall ({len(oracle)} runs)", value=_rate(oracle), unit="%", goal=f">= {GOAL:.0f} %",
        ok=_rate(oracle) >= GOAL,
        note=(f"{len(specs)} tasks x {len(run_seeds)} seeds; mean {statistics.mean(o.steps for o in oracle):.1f} "
              f"steps, {statistics.mean(o.tokens for o in oracle):,.0f} tokens, "
              f"{statistics.mean(o.seconds for o in oracle):.1f} s a run"
              + (f"; failed: {', '.join(failed)}" if failed else ""))))
    if builtin:
        figures.append(Figure(
            name=f"tasks: built-in model ({len(builtin)} runs)", value=_rate(builtin), unit="%",
            note=(f"SmolLM2 through --kind local, seed 1 of {len(builtin)} tasks; "
                  f"mean {statistics.mean(o.steps for o in builtin):.1f} steps, "
                  f"{statistics.mean(o.seconds for o in builtin):.0f} s a run")))
    return figures
