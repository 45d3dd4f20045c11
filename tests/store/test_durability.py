"""A writer killed with SIGKILL mid-stream loses nothing it had committed, and the file stays sound."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jawad_desktop.core.store.conversations import ConversationStore
from tests.store.durability_writer import content_for

REPO = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("durability_writer.py")


def _run_and_kill(data_dir: Path, cid: str, start: int, kill_after: int, big: bool) -> int:
    """Start the writer, wait until it reports ``kill_after`` commits, SIGKILL it; return the
    highest position it reported as committed."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(data_dir), cid, str(start), "big" if big else "small"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    assert proc.stdout is not None
    last = start - 1
    deadline = time.monotonic() + 30
    try:
        while last < start + kill_after - 1:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"writer stopped early: {proc.stderr.read() if proc.stderr else ''}")
            last = int(line.split()[1])
            assert time.monotonic() < deadline, "writer too slow"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    return last


@pytest.mark.parametrize("big", [False, True], ids=["small-messages", "300kB-messages"])
def test_sigkill_mid_stream_loses_no_committed_message(tmp_path: Path, big: bool) -> None:
    rounds = 3
    data = tmp_path / "data"
    with ConversationStore.open(data) as store:
        cid = store.create().id

    start = 0
    for i in range(rounds):
        # Different kill points, and each round reopens the file the previous kill left behind.
        last_reported = _run_and_kill(data, cid, start, kill_after=(3 if big else 15) + 7 * i, big=big)
        store = ConversationStore.open(data)
        try:
            assert store.db.integrity_check() == "ok"
            with store.db.read() as conn:
                # Raises if the full-text index disagrees with the messages table.
                conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
                assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            saved = store.messages(cid)
            # Every message the writer reported as committed is there, whole and in order;
            # anything after it is also whole (no torn message), never a partial one.
            assert len(saved) >= last_reported + 1
            for pos, stored in enumerate(saved):
                assert stored.position == pos
                assert stored.message.content == content_for(pos, big)
                assert stored.message.role == ("user" if pos % 2 == 0 else "assistant")
                if pos % 2 and pos % 3 == 0:
                    assert stored.message.tool_calls[0].arguments == {"n": pos}
            assert store.get(cid).message_count == len(saved)
            assert store.search(f"message {last_reported}")
            start = len(saved)
        finally:
            store.close()
