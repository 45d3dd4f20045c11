"""``core.store.jsonfile``: a write leaves the old or the new file, a bad file is kept aside."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jawad_desktop.core.store import jsonfile
from jawad_desktop.core.store.jsonfile import move_aside, write_atomic, write_json

REPO = Path(__file__).resolve().parents[2]

# Rewrites one file forever with two large contents in turn, so a SIGKILL is likely to land
# inside a write.
_WRITER = """
import sys
from pathlib import Path
from jawad_desktop.core.store.jsonfile import write_atomic
path = Path(sys.argv[1])
contents = ["A" * 2_000_000, "B" * 3_000_000]
i = 0
while True:
    write_atomic(path, contents[i % 2])
    i += 1
    if i == 3:
        print("writing", flush=True)
"""


def test_write_creates_folders_and_is_private(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "data.json"
    write_json(path, {"x": [1, 2]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"x": [1, 2]}
    if os.name == "posix":
        assert oct(path.stat().st_mode & 0o777) == "0o600"
    write_atomic(path, "café", mode=0o644)
    assert path.read_text(encoding="utf-8") == "café"
    if os.name == "posix":
        assert oct(path.stat().st_mode & 0o777) == "0o644"
    assert [p.name for p in path.parent.iterdir()] == ["data.json"], "a temp file was left behind"


def test_a_failed_rename_leaves_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.json"
    write_atomic(path, "old")

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonfile.os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["data.json"]


def test_a_value_that_is_not_json_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    write_json(path, {"ok": True})
    with pytest.raises(TypeError):
        write_json(path, {"bad": object()})
    assert json.loads(path.read_text()) == {"ok": True}
    assert [p.name for p in tmp_path.iterdir()] == ["data.json"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_writer_killed_mid_write_leaves_old_or_new_content(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for delay in (0.0, 0.05, 0.13):  # a few kill points, each on the file the last one left
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert proc.stdout is not None
        try:
            line = proc.stdout.readline()
            assert line == "writing\n", proc.stderr.read() if proc.stderr else ""
            time.sleep(delay)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        text = path.read_text()
        assert text in ("A" * 2_000_000, "B" * 3_000_000), f"torn file of {len(text)} characters"
        # A temp file may be left by the kill; it is hidden and never the target.
        assert all(p.name == "big.txt" or p.name.startswith(".big-") for p in tmp_path.iterdir())


def test_an_unwritable_folder_is_an_oserror_the_caller_sees(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        write_atomic(blocker / "data.json", "x")
    if os.name == "posix" and os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            with pytest.raises(PermissionError):
                write_atomic(locked / "data.json", "x")
        finally:
            locked.chmod(0o700)


def test_move_aside_names_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    when = time.mktime((2024, 3, 5, 14, 7, 9, 0, 0, -1))
    kept = []
    for content in ("first", "second", "third"):
        path.write_text(content)
        kept.append(move_aside(path, now=when))
    assert [p.name for p in kept] == [
        "settings.corrupt-20240305-140709.json",
        "settings.corrupt-20240305-140709-1.json",
        "settings.corrupt-20240305-140709-2.json",
    ]
    assert [p.read_text() for p in kept] == ["first", "second", "third"]
    assert not path.exists()


def test_move_aside_of_a_missing_file_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        move_aside(tmp_path / "gone.json")
