"""core/procmem: handing the C heap's free pages back after the start."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jawad_desktop.core import procmem

# 40 MB in C-heap blocks (bytes over 512 bytes come from malloc), freed, with small blocks
# allocated among them still in use: malloc keeps the freed pages between them until trimmed.
SCRIPT = """
import sys
from jawad_desktop.core.procmem import release_freed_heap

def anon_kb():
    with open("/proc/self/smaps_rollup") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("Pss_Anon:"))

blocks, keepers = [], []
for i in range(10_000):
    blocks.append(bytes(4000))
    if i % 50 == 0:
        keepers.append(bytearray(700))
del blocks
before = anon_kb()
released = release_freed_heap()
print(released, before - anon_kb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_heaps_free_pages_go_back_to_the_system() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    released, freed_kb = out.stdout.split()
    assert released == "True"
    assert int(freed_kb) > 20_000  # most of the 40 MB


def test_off_linux_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(procmem.sys, "platform", "darwin")
    assert procmem.release_freed_heap() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc's smaps_rollup")
def test_the_trees_anonymous_memory_is_its_heaps_share_of_pss() -> None:
    before = procmem.tree_pss_kb(part="Pss_Anon")
    block = b"x" * 30_000_000  # written: 30 MB of anonymous pages
    grown = procmem.tree_pss_kb(part="Pss_Anon") - before
    assert 25_000 < grown < 40_000
    assert 0 < procmem.tree_pss_kb(part="Pss_Anon") < procmem.tree_pss_kb()
    del block
