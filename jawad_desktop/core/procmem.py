"""The proportional memory (PSS) of a process and all its descendants (no Qt, standard library only),
and handing the C heap's free pages back to the system once the window is built.

The app's start-up report (``ui/app/application.py``) and the benchmark's bare baseline window
(``benchmarks/baseline_window.py``, which loads this file by its path so that it imports nothing
else of the app) measure memory with this one function.
"""

from __future__ import annotations

import os
import sys


def tree_pss_kb(root: int | None = None, *, part: str = "Pss") -> int:
    """PSS of ``root`` (this process) and every descendant (Chromium's helpers), in KB: shared
    pages counted once across the tree. 0 off Linux. ``part="Pss_Anon"``: its anonymous memory
    only (the heaps, not the libraries' pages, whose share moves with whatever else on the machine
    maps the same libraries)."""
    children: dict[int, list[int]] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [os.getpid() if root is None else root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
                total += sum(int(line.split()[1]) for line in fh if line.startswith(f"{part}:"))
        except (OSError, ValueError):
            continue
    return total


def release_freed_heap() -> bool:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``): starting the app
    frees megabytes of temporary memory (compiling, building the window, the start page) that
    malloc otherwise keeps, about 5 MB of the idle window. False where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # another C library (musl)
        return False
    trim(0)
    return True
