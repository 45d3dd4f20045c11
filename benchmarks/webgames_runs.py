"""The WebGames mode of ``python -m benchmarks tasks`` (``JAWAD_BENCH_TASKS=webgames``; see
``benchmarks/bench_tasks.py``): every task of the suite that a text-and-screenshot agent can do in
principle, through ``jawad ask --url`` in a real process, with the WebGames policy as the model.

The figure is a check that our tools are sufficient (the password reached the model), never a task
success. Beside it: tool calls and tokens per task and per step, and for each unsolved task why (the
policy's own words, or how the run ended).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks import Figure
from benchmarks.webgames import Site, WebGame, WebGamesMissing, tasks
from tests.fixtures.task_runner import ask_command, write_settings
from tests.fixtures.terminal import every, run_on_terminal
from tests.servers.webgames_policy import MODEL, PROMPT, WebGamesPolicy

HERE = Path(__file__).resolve().parent
GOAL = 90.0
TIMEOUT_S = 150.0
SETTINGS = {"agent": {"max_iterations": 50}}  # the most Settings allows
# The benchmark machine has no GPU, and Chromium's blocklist then turns WebGL off although its
# software renderer (SwiftShader) draws it: a user's browser with a GPU has WebGL, so the runs do too
# (without it the WebGL challenges show "WebGL2 not supported" in an alert and draw nothing).
GPU_FLAG = "--ignore-gpu-blocklist"

# Tasks a text-and-screenshot agent cannot do in principle, by base task (all its variants) or by a
# variant's own id, with why. An agent acts a second or more after it looks; it has no camera, phone or
# printer; the suite's CAPTCHA is Google's (no network here). (Bullseye, once here, is not: its moving
# target is a button, and click_element clicks it where it is at that instant. Herding is not either:
# the sheep stay put unless the pointer comes near, so look and click_at can push them one by one.)
LEFT_OUT = {
    "brick-buster": "a real-time arcade game: the paddle must follow the ball many times a second",
    "frog-crossing": "a real-time game: cars move a cell every 0.3 to 0.6 s, faster than an agent looks and acts, "
                     "so a crossing is luck",
    "block-stack": "a physics game on a canvas: blocks must be dropped at the right moment as they swing",
    "robo-check": "Google reCAPTCHA: needs Google's servers (no network here) and is made to stop software",
    "print-reveal": "the password shows only in a printout (print-only styles): the tools have no print preview "
                    "or print to PDF",
    "otp-entry-hard": "the code comes from scanning a QR code with an authenticator app: decoding the QR and "
                      "computing the time-based code need tools the agent has not (a model's eye reads neither)",
    # The suite's own faults: the item the task names is not in the data its page uses, so no answer a
    # reader of the page could give is accepted.
    "shop-admin-hard": "the suite's fault: the Coffee Grinder it asks to reprice is not among the shop's products "
                       "(searching for it lists nothing), and only that product's edit page shows the password",
    "recipe-calculator-easy": "the suite's fault: the Simple Tomato Soup recipe it names is not in the recipe "
                              "collection; the page then expects 0 g, not the 400 g its own text implies",
    "recipe-calculator-hard": "the suite's fault: the Hearty Beef Stew recipe it names is not in the recipe "
                              "collection; the page then expects 0 g",
}


@dataclass
class GameRun:
    """One task's run."""

    task: str
    solved: bool
    why: str
    seconds: float
    steps: int
    requests: int
    tokens: int
    answer: str


def left_out(game: WebGame) -> str:
    """Why ``game`` is left out ("" when it is attempted): its own id first, then its base task."""
    return LEFT_OUT.get(game.id) or LEFT_OUT.get(game.base_task, "")


def _sees_images(profile: Path, provider: list[str], env: dict[str, str]) -> None:
    """The app's own image-input test on this run's model (``jawad providers test --vision``): the policy
    answers by the picture's colour, the profile learns that it sees, and the agent offers it look and
    click_at, as it would any model that passed the test."""
    command = [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "providers", "test",
               *provider, "--vision"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print(f"  webgames: the image-input test failed: {(done.stdout + done.stderr).strip()[-300:]}",
              file=sys.stderr, flush=True)


def _why(record: Any, answer: dict[str, Any], exit_code: int | None) -> str:
    if record.gave_up:
        return record.gave_up
    meta = answer.get("metadata") or {}
    for key in ("repeated_action", "iteration_limit", "budget_exceeded", "empty_answer"):
        if meta.get(key):
            return f"agent stopped ({key})"
    if exit_code is None:
        return "timeout: the run did not end"
    return "the password never reached the model: " + " ".join(str(answer.get("content", "")).split())[:160]


# A person asking for a challenge that wants a file gives one: the message names two, made for the run
# (a few words of text; an MP3 file: an ID3 tag and one silent MPEG-1 Layer III frame).
FILES_SAID = " If it asks you to upload a file, you may use {text} (a text file) or {mp3} (an MP3 file)."
_MP3 = b"ID3\x03\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x00" + bytes(413)


def files_for(folder: Path) -> str:
    """The files a run may upload, written into ``folder``; the sentence of the message that names them."""
    text, mp3 = folder / "notes.txt", folder / "sample.mp3"
    text.write_text("Notes for the upload challenge.\n", encoding="utf-8")
    mp3.write_bytes(_MP3)
    return FILES_SAID.format(text=text, mp3=mp3)


def _one(game: WebGame, site: Site, policy: WebGamesPolicy, profile: Path) -> GameRun:
    key = f"{game.id.replace('/', '_')}-{time.monotonic_ns()}"
    provider = ["--kind", "openai-compatible", "--base-url", policy.run_url(key), "--model", MODEL]
    command = ask_command(profile, site.url(game.route), PROMPT + files_for(profile.parent), provider)
    flags = " ".join([os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", ""), GPU_FLAG]).strip()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QTWEBENGINE_CHROMIUM_FLAGS=flags)
    _sees_images(profile, provider, env)
    run = run_on_terminal(command, every(b"Your choice", b"o\n"), env=env, timeout_s=TIMEOUT_S)
    try:
        answer = dict(json.loads(run.stdout)) if run.stdout.strip() else {}
    except ValueError:
        answer = {"content": run.stdout}
    record = policy.record(key)
    solved = any(game.password in text for text in record.seen)
    return GameRun(task=game.id, solved=solved, why="" if solved else _why(record, answer, run.returncode),
                   seconds=run.seconds, steps=record.tool_calls, requests=record.requests, tokens=record.tokens,
                   answer=str(answer.get("content", ""))[:300])


def run_webgames(quick: bool) -> list[Figure]:
    try:
        games = tasks()
        site = Site()
    except WebGamesMissing as missing:
        print(str(missing), file=sys.stderr)
        return [Figure(name="tasks: webgames (not built)", value=float("nan"), unit="", ok=False, note=str(missing))]
    only = [t for t in os.environ.get("JAWAD_BENCH_WEBGAMES", "").split(",") if t]
    chosen = [g for g in games if (g.id in only if only else not left_out(g))]
    if quick and not only:
        chosen = chosen[::3]  # a third of the tasks, every variant kind among them
    omitted = [g for g in games if left_out(g)]
    outcomes: list[GameRun] = []
    policy = WebGamesPolicy()
    policy.start()
    try:
        with tempfile.TemporaryDirectory(prefix="jawad-webgames-") as tmp, site:
            profile = Path(tmp) / "profile"
            write_settings(profile, SETTINGS)
            for game in chosen:
                outcome = _one(game, site, policy, profile)
                outcomes.append(outcome)
                print(f"  webgames {game.id}: {'ok' if outcome.solved else 'unsolved'} in {outcome.seconds:.1f} s, "
                      f"{outcome.steps} steps, {outcome.tokens} tokens" + (f" - {outcome.why}" if outcome.why else ""),
                      file=sys.stderr, flush=True)
    finally:
        policy.stop()
    out = HERE / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "webgames-latest.json").write_text(json.dumps({
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "runs": [asdict(o) for o in outcomes],
        "left_out": {g.id: left_out(g) for g in omitted}}, indent=2, ensure_ascii=False), encoding="utf-8")
    print("\n" + table(outcomes), file=sys.stderr)
    return figures(outcomes, omitted, len(games))


def table(outcomes: list[GameRun]) -> str:
    lines = [f"{'task':<32} {'solved':>6} {'steps':>5} {'tokens':>8} {'tok/step':>8} {'secs':>5}  why not"]
    for o in outcomes:
        per = o.tokens / o.steps if o.steps else 0
        lines.append(f"{o.task:<32} {'yes' if o.solved else 'no':>6} {o.steps:>5} {o.tokens:>8} {per:>8.0f} "
                     f"{o.seconds:>5.1f}  {o.why[:150]}")
    return "\n".join(lines)


def figures(outcomes: list[GameRun], left_out: list[WebGame], total: int) -> list[Figure]:
    if not outcomes:
        return [Figure(name="tasks: webgames (nothing run)", value=float("nan"), unit="", ok=False)]
    solved = [o for o in outcomes if o.solved]
    rate = 100.0 * len(solved) / len(outcomes)
    steps = sum(o.steps for o in outcomes)
    tokens = sum(o.tokens for o in outcomes)
    out = [Figure(
        name=f"tasks: webgames tools sufficient ({len(outcomes)} attempted)", value=rate, unit="%",
        goal=f">= {GOAL:.0f} %", ok=rate >= GOAL,
        note=(f"{len(solved)} of {len(outcomes)} attempted tasks had their password reach the model "
              f"(a check of our tools with a policy written here, not task success); {total} in the suite, "
              f"{len(left_out)} left out as impossible for a text-and-screenshot agent; "
              f"mean {statistics.mean(o.steps for o in outcomes):.1f} steps and "
              f"{statistics.mean(o.tokens for o in outcomes):,.0f} tokens a task, "
              f"{tokens / steps if steps else 0:,.0f} tokens a step"))]
    for o in outcomes:
        out.append(Figure(name=f"tasks: webgames {o.task}", value=100.0 if o.solved else 0.0, unit="%",
                          note=(f"{o.steps} steps, {o.tokens:,} tokens, "
                                f"{o.tokens / o.steps if o.steps else 0:,.0f} tokens a step, {o.seconds:.1f} s"
                                + (f" | {o.why}" if o.why else ""))))
    return out
