"""The log: keys are masked, and a window's start keeps its first records until the file
is opened (after the frame is on screen), or writes them at exit."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.logging_setup import open_log_file, redact, setup_logging

KEY = "sk-abcdefghijklmnopqrstuvwxyz0123"


@pytest.fixture
def jawad_logger() -> Iterator[logging.Logger]:
    root = logging.getLogger("jawad")
    saved = (list(root.handlers), root.level, root.propagate)
    yield root
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.handlers[:], root.level, root.propagate = saved[0], saved[1], saved[2]


def test_redact_masks_keys_and_keeps_words() -> None:
    assert KEY not in redact(f"key {KEY} used")
    assert "task-management" in redact("task-management")


def test_the_file_opens_at_once_by_default(tmp_path: Path, jawad_logger: logging.Logger) -> None:
    log_file = setup_logging(tmp_path / "logs")
    assert log_file == tmp_path / "logs" / "jawad.log"
    logging.getLogger("jawad.test").info("with key %s", KEY)
    text = log_file.read_text()
    assert "with key sk-a" in text and KEY not in text
    assert open_log_file() is None  # nothing left to open


def test_early_records_are_written_first_when_the_file_opens(tmp_path: Path, jawad_logger: logging.Logger) -> None:
    log_file = setup_logging(tmp_path / "logs", open_file=False)
    assert log_file == tmp_path / "logs" / "jawad.log"
    logging.getLogger("jawad.test").debug("before the frame, key %s", KEY)
    assert not log_file.exists()
    assert open_log_file() == log_file
    logging.getLogger("jawad.test").info("after the frame")
    lines = log_file.read_text().splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == ["before the frame, key sk-a…[redacted]", "after the frame"]


def test_a_log_folder_that_cannot_be_made_loses_nothing_else(tmp_path: Path, jawad_logger: logging.Logger) -> None:
    blocker = tmp_path / "logs"
    blocker.write_text("a file where the folder goes")
    setup_logging(blocker, open_file=False)
    logging.getLogger("jawad.test").warning("still logged to stderr")
    assert open_log_file() is None
    logging.getLogger("jawad.test").warning("and again")  # no handler error


def test_an_exit_before_the_file_opened_still_writes_the_records(tmp_path: Path) -> None:
    script = (
        "import logging, sys; from pathlib import Path\n"
        "from jawad_desktop.core.logging_setup import setup_logging\n"
        "setup_logging(Path(sys.argv[1]), open_file=False)\n"
        "logging.getLogger('jawad.test').error('failed before the window')\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "logs")], check=True, timeout=60)
    assert "failed before the window" in (tmp_path / "logs" / "jawad.log").read_text()
