"""The harness that lets the suite run on every core (``tests/fixtures/workers.py``, ``home.py``)."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cores import THREAD_VARIABLES, share_cores
from tests.fixtures.home import worker_id
from tests.fixtures.workers import pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent


def test_the_test_process_has_a_home_of_its_own() -> None:
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    home = Path.home()
    assert home != real_home and home.name.startswith(f"jawad-test-home-{worker_id()}-")
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        where = Path(os.environ[variable])
        # The keyring fixture gives its gnome-keyring a data folder of its own, also private to the run.
        assert where.is_relative_to(home) or where.parent.name.startswith("jawad-keyring-"), (variable, where)
        assert not where.is_relative_to(real_home), (variable, where)
    assert (home / "run").stat().st_mode & 0o777 == 0o700  # XDG_RUNTIME_DIR (the keyring fixture may move it)


def test_a_worker_gives_each_engine_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp's server, CTranslate2 and OpenBLAS read their thread counts from the environment
    (tests/fixtures/cores.py): in one of N workers, cores / N threads each; alone, their defaults."""
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    share_cores()
    assert not any(name in os.environ for name in THREAD_VARIABLES)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    share_cores()
    assert {name: os.environ[name] for name in THREAD_VARIABLES} == dict.fromkeys(THREAD_VARIABLES, "1")
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.setenv("N_THREADS", "3")  # what the person running the tests set stays
    for name in ("OMP_NUM_THREADS", "N_THREADS_BATCH"):
        monkeypatch.delenv(name)
    share_cores()
    assert [os.environ[name] for name in THREAD_VARIABLES] == ["8", "3", "8"]


def test_llama_cpps_server_takes_its_thread_counts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's settings as its command line parses them (``core.llm.llama_server`` passes
    llama-cpp-python's own options, which do not set the thread counts)."""
    import argparse

    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings, Settings

    monkeypatch.setenv("N_THREADS", "1")
    monkeypatch.setenv("N_THREADS_BATCH", "1")
    parser = argparse.ArgumentParser()
    add_args_from_model(parser, Settings)
    settings = parse_model_from_args(ModelSettings, parser.parse_args(["--model", "m.gguf", "--n_ctx", "8192"]))
    assert (settings.n_threads, settings.n_threads_batch) == (1, 1)


@dataclass
class _Item:
    """What the ordering hook reads of a test: its name and markers."""

    name: str
    markers: dict[str, Any] = field(default_factory=dict)

    def get_closest_marker(self, name: str) -> Any:
        return self.markers.get(name)

    def iter_markers(self, name: str) -> list[Any]:
        return [self.markers[name]] if name in self.markers else []


def test_slow_tests_and_their_groups_run_first_and_the_rest_keeps_its_order() -> None:
    items = [
        _Item("fast-a"),
        _Item("grouped-fast", {"xdist_group": pytest.mark.xdist_group("bundle").mark}),
        _Item("slow-b", {"slow": pytest.mark.slow.mark}),
        _Item("fast-c"),
        _Item("grouped-slow", {"slow": pytest.mark.slow.mark,
                               "xdist_group": pytest.mark.xdist_group(name="bundle").mark}),
        _Item("other-group", {"xdist_group": pytest.mark.xdist_group("other").mark}),
    ]
    config = type("Config", (), {"option": type("Options", (), {"loadgroup": False})()})()
    pytest_collection_modifyitems(config, items)  # type: ignore[arg-type]
    assert [item.name for item in items] == ["grouped-fast", "slow-b", "grouped-slow", "fast-a", "fast-c",
                                             "other-group"]


GROUPED_SUITE = """
import os, time
import pytest

pytestmark = pytest.mark.xdist_group("shared")

@pytest.mark.parametrize("n", ["1", "2", "a@b"])
def test_grouped(n):
    with open(os.environ["WORKERS_LOG"], "a") as log:
        log.write(f"grouped {os.environ['PYTEST_XDIST_WORKER']}\\n")
    time.sleep(0.3)

@pytest.mark.parametrize("n", range(3))
def test_alone(n):
    time.sleep(0.3)

@pytest.mark.slow
def test_marked():
    time.sleep(0.3)
"""


@pytest.mark.slow  # two worker processes started: a few seconds of waiting
def test_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    """What scripts/test runs (``-n N --dist loadgroup``) with the suite's ordering plugin: every
    test of an ``xdist_group`` on one worker. On pytest 9.2 xdist's own grouping is lost
    (pytest-xdist issue #1386) and the bundle was built by one worker while another waited for it.
    The summary names the tests over the slow mark's threshold that lack it."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_grouped.py").write_text(GROUPED_SUITE)
    log = tmp_path / "workers.log"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "WORKERS_LOG": str(log),
           "JAWAD_TEST_SLOW_S": "0.25"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "tests.fixtures.workers",
         "-p", "no:cacheprovider", "-q", "-o", "markers=slow", str(tmp_path),
         *("-p", "no:pytestqt", "-p", "no:hypothesispytest", "-p", "no:anyio")],  # what the suite needs here
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    workers = log.read_text().split()[1::2]
    assert len(workers) == 3 and len(set(workers)) == 1, workers
    named = result.stdout.split("without pytest.mark.slow", 1)[-1]
    assert "test_grouped.py::test_alone[2]" in named and "test_marked" not in named, result.stdout[-3000:]


def test_a_test_over_its_time_ends_its_process_instead_of_hanging(pytestconfig: pytest.Config) -> None:
    """With SIGALRM a timeout inside a qtbot wait is swallowed by Qt and the run hangs for good
    (seen with the llama.cpp context test on a loaded machine): the thread method ends the worker."""
    assert pytestconfig.getini("timeout_method") == "thread"


COSTLY_SUITE = """
import subprocess, sys, time

BUSY = ("import time\\nstart = time.process_time()\\nwhile time.process_time() - start < 0.6: pass\\n"
        "print('done', flush=True)")
running = []

def test_waits():
    time.sleep(0.6)

def test_waits_for_a_busy_child():
    subprocess.run([sys.executable, "-c", BUSY], check=True)

def test_leaves_a_busy_child_running():
    child = subprocess.Popen([sys.executable, "-c", BUSY + "\\ntime.sleep(60)"], stdout=subprocess.PIPE, text=True)
    running.append(child)
    assert child.stdout.readline() == "done\\n"

def test_last():
    running.pop().kill()
"""


def test_the_run_names_the_tests_that_cost_the_most_cpu(tmp_path: Path) -> None:
    """``--cpu-top`` (tests/fixtures/cpu.py) counts a test's own CPU and its processes', finished or
    still running, and not the seconds it only waited."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_costly.py").write_text(COSTLY_SUITE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.fixtures.cpu", "--cpu-top=3", "-p", "no:cacheprovider", "-q",
         str(tmp_path), *("-p", "no:pytestqt", "-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:xdist")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = result.stdout.split("tests that cost the most CPU", 1)[-1]
    rows = {line.split("::")[-1]: float(line.split()[0]) for line in report.splitlines() if "::" in line}
    assert list(rows)[:2] == ["test_waits_for_a_busy_child", "test_leaves_a_busy_child_running"] or \
        list(rows)[:2] == ["test_leaves_a_busy_child_running", "test_waits_for_a_busy_child"], report
    assert len(rows) == 3 and all(rows[name] >= 0.6 for name in list(rows)[:2]), report
    assert "test_waits" not in rows or rows["test_waits"] < 0.3, report


def test_the_rerun_takes_the_failed_ids_whole_from_the_runs_summary() -> None:
    """scripts/test runs the failed tests once more by the ids its summary names: a parameter with
    spaces, a grouped test's @group and a module that failed to import each come out as pytest
    takes them (the ids were cut at the first space, and the re-run stopped with "not found")."""
    summary = "\n".join([
        "FAILED tests/ui/test_form.py::test_invalid[--must not be empty] - Failed: it was saved",
        "ERROR tests/packaging/test_bundle.py::test_self_test@bundle - RuntimeError: no build",
        "ERROR tests/llm/test_connection.py - ImportError while importing test module",
        "FAILED tests/a.py::test_b",
        "FAILED tests/a.py::test_b - the same test twice",
        "tests/x.py::test_y PASSED",
        "",
    ])
    out = subprocess.run(["bash", str(ROOT / "scripts" / "failed-tests")], input=summary, capture_output=True,
                         text=True, timeout=30, check=True)
    assert out.stdout.splitlines() == [
        "tests/a.py::test_b",
        "tests/llm/test_connection.py",
        "tests/packaging/test_bundle.py::test_self_test",
        "tests/ui/test_form.py::test_invalid[--must not be empty]",
    ]
    nothing = subprocess.run(["bash", str(ROOT / "scripts" / "failed-tests")], input="1 passed\n",
                             capture_output=True, text=True, timeout=30, check=True)
    assert nothing.stdout == ""


STALLING_SUITE = """
import os, time
import pytest

def test_fails():
    assert False

@pytest.mark.xdist_group("g")
def test_stops_moving():
    time.sleep(120)

@pytest.mark.xdist_group("g")
def test_after_it():
    pass

def test_passes():
    pass
"""

CRASHING_SUITE = """
import os, signal, time
import pytest

def test_crashes_its_worker():
    os.kill(os.getpid(), signal.SIGKILL)

@pytest.mark.xdist_group("g")
def test_stops_moving():
    time.sleep(120)
"""

WORKERS_NEVER_END = """
import time

def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        time.sleep(120)
"""


def _run_watched(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], float]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "tests.fixtures.workers",
         "-p", "tests.fixtures.watchdog", f"--stall-file={tmp_path / 'left'}", *options,
         "-p", "no:cacheprovider", "-q", str(tmp_path),
         *("-p", "no:pytestqt", "-p", "no:hypothesispytest", "-p", "no:anyio")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=100,
    )
    return result, time.monotonic() - started


@pytest.mark.slow  # two parallel runs of two workers each
def test_a_parallel_run_that_stops_moving_is_ended_and_names_what_it_left(tmp_path: Path) -> None:
    """tests/fixtures/watchdog.py: no report for --stall-s ends the run (status 3) with the failed and
    unfinished tests in the stall file, which scripts/test runs again; every test reported and the
    run not ended (xdist's controller waited for ever once, after a worker crashed) ends it with the
    run's own status and the failures named as the summary names them."""
    (tmp_path / "test_stalling.py").write_text(STALLING_SUITE)
    result, took = _run_watched(tmp_path, "--stall-s", "3")
    assert result.returncode == 3 and took < 60, (took, result.stdout[-3000:] + result.stderr[-3000:])
    left = (tmp_path / "left").read_text().splitlines()
    assert left[0] == "test_stalling.py::test_fails"
    stalled = {"test_stalling.py::test_after_it@g", "test_stalling.py::test_stops_moving@g"}
    # A worker runs the last test it was given once it knows the next (or that none comes): it may be left too.
    assert stalled <= set(left[1:]) <= stalled | {"test_stalling.py::test_passes"}, left
    assert "no test reported for 3 s" in result.stdout

    # Once a worker crashed, the run is ended sooner (the controller's wait for ever came after a crash).
    (tmp_path / "test_stalling.py").unlink()
    (tmp_path / "left").unlink()
    (tmp_path / "test_crashing.py").write_text(CRASHING_SUITE)
    result, took = _run_watched(tmp_path, "--stall-s", "90", "--after-crash-stall-s", "3")
    assert result.returncode == 3 and took < 60, (took, result.stdout[-3000:] + result.stderr[-3000:])
    assert "no test reported for 3 s after a worker crashed" in result.stdout
    assert set((tmp_path / "left").read_text().splitlines()) == {
        "test_crashing.py::test_crashes_its_worker", "test_crashing.py::test_stops_moving@g"}

    (tmp_path / "test_crashing.py").unlink()
    (tmp_path / "left").unlink()
    (tmp_path / "conftest.py").write_text(WORKERS_NEVER_END)
    (tmp_path / "test_quick.py").write_text("def test_fails():\n    assert False\n\ndef test_passes():\n    pass\n")
    result, took = _run_watched(tmp_path, "--finish-grace-s", "2")
    assert result.returncode == 1 and took < 60, (took, result.stdout[-3000:] + result.stderr[-3000:])
    assert "all 2 tests reported" in result.stdout
    failed = subprocess.run(["bash", str(ROOT / "scripts" / "failed-tests")], input=result.stdout,
                            capture_output=True, text=True, timeout=30, check=True)
    assert failed.stdout.splitlines() == ["test_quick.py::test_fails"]
    assert not (tmp_path / "left").exists()
