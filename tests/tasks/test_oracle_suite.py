"""Issue 18's task suite end to end, on a few representative tasks: ``jawad ask --url`` in a real
process, driven by the oracle model (``tests/servers/oracle_model.py``, which decides only from the
instruction and what the tools return), judged by the task page's own ``/done`` report.

``python -m benchmarks tasks`` runs every task with three seeds; these are one of each kind of
difficulty: plain buttons, clickable spans in an inbox (open, reply, send), a date picker's anchors
without href, a date input that wants another format, a deletion Harbor asks about (answered on the
terminal), a multi-step form. And an impossible task: the oracle looks where the docs say (scrolling,
click_text) and says it could not, and the page reports nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.task_runner import TaskRun, run_task, write_settings
from tests.fixtures.task_server import TaskServer
from tests.fixtures.task_suite import TaskInstance, load_manifest, task_instance
from tests.servers.oracle_model import MODEL, OracleModel, decide

# One task of each difficulty, and the three the listing once missed (a table flattened by the
# extractor, a menu only CSS :hover opens, cards dragged with the mouse); a seed picks the kind of
# inbox task, so the inbox's is found below.
CASES = [("click_button", 1), ("email_inbox", "reply"), ("date_picker", 3), ("enter_date", 1),
         ("confirm_dialog", 1), ("wizard", 2), ("read_table", 2), ("hover_menu", 3), ("drag_drop", 1)]


@pytest.fixture(scope="module")
def oracle() -> Iterator[OracleModel]:
    server = OracleModel()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One profile for the module's runs (they run one after the other), with room for 25 steps."""
    path = tmp_path_factory.mktemp("oracle") / "profile"
    write_settings(path, {"agent": {"max_iterations": 25}})
    return path


def _instance(task: str, seed_or_kind: int | str) -> TaskInstance:
    if isinstance(seed_or_kind, int):
        return task_instance(task, seed_or_kind)
    return next(inst for seed in range(1, 40) if (inst := task_instance(task, seed)).data.get("kind") == seed_or_kind)


def _run(oracle: OracleModel, server: TaskServer, profile: Path, inst: TaskInstance, key: str) -> TaskRun:
    provider = ["--kind", "openai-compatible", "--base-url", oracle.run_url(key), "--model", MODEL]
    return run_task(inst, server, profile, provider, timeout=120)


@pytest.mark.parametrize(("task", "seed_or_kind"), CASES, ids=[c[0] for c in CASES])
def test_the_oracle_does_the_task_through_jawad_ask(task: str, seed_or_kind: int | str, qapp: Any,
                                                    oracle: OracleModel, task_server: TaskServer,
                                                    profile: Path) -> None:
    # qapp first: the instance is computed in QJSEngine, which needs the application object.
    inst = _instance(task, seed_or_kind)
    run = _run(oracle, task_server, profile, inst, f"{task}-{inst.seed}")
    record = oracle.record(f"{task}-{inst.seed}")
    where = f"{task} seed {inst.seed} ({inst.instruction})"
    assert run.ok is True, (f"{where}: the page said {run.ok} ({run.detail}); the oracle made {record.calls} and "
                            f"answered {record.final!r}\n{run.transcript[-3000:]}")
    assert run.exit_code == 0 and not run.answer.get("is_error"), run.answer
    assert record.gave_up == "" and record.tool_calls >= 2 and record.tokens > 0
    assert record.calls[0] == "read_page()"  # it looks before it acts
    if task == "confirm_dialog":  # deleting always asks: the user allowed it on the terminal
        assert run.questions >= 1 and "Your choice" in run.transcript


def test_an_impossible_task_ends_with_an_honest_answer_and_no_verdict(qapp: Any, oracle: OracleModel,
                                                                       task_server: TaskServer, profile: Path) -> None:
    inst = task_instance("click_button", 2)
    impossible = dataclasses.replace(inst, instruction="Click the button labelled Teleport.")
    assert "Teleport" not in inst.data["labels"]
    run = _run(oracle, task_server, profile, impossible, "impossible")
    record = oracle.record("impossible")
    assert run.ok is None, f"the page reported {run.detail!r} though nothing should have been clicked"
    assert record.gave_up == "listing gap", record
    assert "could not find 'Teleport'" in str(run.answer.get("content")), run.answer
    assert "nowhere on the page" in str(run.answer.get("content")), run.answer
    # It looked where the tools say to look before giving up: further down, then in the page's text.
    assert any(c.startswith("scroll_page") for c in record.calls), record.calls
    assert 'find_in_page(query="Teleport")' in record.calls, record.calls
    assert not any(c.startswith("click_element") for c in record.calls), record.calls
    assert run.exit_code == 0


def _request(instruction: str, tools: list[str]) -> dict[str, Any]:
    """A chat request as the agent sends it: the instruction and the tools it offers."""
    return {"model": MODEL, "stream": True,
            "messages": [{"role": "system", "content": "You are Jawad."}, {"role": "user", "content": instruction}],
            "tools": [{"type": "function", "function": {"name": name, "parameters": {"type": "object",
                                                                                   "properties": {}}}}
                      for name in tools]}


def test_the_oracle_uses_only_the_tools_the_request_offers() -> None:
    instruction = "In the terminal, run the command: ls"
    offered = ["read_page", "click_element", "fill_form", "scroll_page", "find_in_page"]
    reply, record = decide(_request(instruction, offered), load_manifest())
    assert not reply.tool_calls and record.gave_up == "missing tool" and record.task == "terminal"
    assert "no type_text tool" in reply.content
    reply, record = decide(_request(instruction, [*offered, "type_text", "press_key"]), load_manifest())
    assert [c["name"] for c in reply.tool_calls] == ["read_page"] and record.gave_up == ""
    reply, record = decide(_request("Make me a sandwich.", offered), load_manifest())
    assert not reply.tool_calls and record.gave_up == "unknown task"
