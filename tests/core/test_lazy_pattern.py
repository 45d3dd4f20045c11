"""Regular expressions compiled at their first use (core/lazy_pattern.py): the same answers as
``re.compile``'s, and the browser tools load without compiling theirs (start-up CPU, issue 29)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from jawad_desktop.core.lazy_pattern import LazyPattern


def test_a_lazy_pattern_answers_as_the_compiled_one_and_compiles_once() -> None:
    lazy = LazyPattern(r"(\d+)\s*(kg|g)\b", re.I)
    real = re.compile(r"(\d+)\s*(kg|g)\b", re.I)
    assert lazy._compiled is None  # nothing compiled until it is used
    text = "2 KG of flour, 500g of sugar, 3 kgs"
    assert lazy.search(text).group(0) == real.search(text).group(0)  # type: ignore[union-attr]
    first = lazy.compiled
    assert lazy.compiled is first
    assert lazy.match(text) is not None and lazy.match(text, 1) is None
    assert lazy.fullmatch("12 g") is not None and lazy.fullmatch("12 g!") is None
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.findall(text) == real.findall(text) == [("2", "KG"), ("500", "g")]
    assert lazy.sub("W", text) == real.sub("W", text)
    assert lazy.sub(lambda m: m.group(1), text, 1) == real.sub(lambda m: m.group(1), text, 1)
    assert lazy.split(text, 1) == real.split(text, 1)
    assert lazy.search(text, 3, 10) is None and real.search(text, 3, 10) is None
    assert lazy.pattern == real.pattern


COUNT = """
import re, sys
compiled = []
original = re.compile
def counting(pattern, flags=0):
    caller = sys._getframe(1).f_code.co_filename
    if "core/tools/browser" in caller.replace("\\\\", "/"):
        compiled.append(pattern)
    return original(pattern, flags)
re.compile = counting
import jawad_desktop.core.tools.browser
print(len(compiled))
"""


def test_the_browser_tools_load_without_compiling_their_patterns() -> None:
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", COUNT], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["0"]
