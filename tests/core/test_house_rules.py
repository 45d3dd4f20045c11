"""Issue 29's house limits, checked on the product's own code: no module over 600 lines and no function
over 80 lines (vendored files aside, of which the product has none in Python), and no two modules of the
same name unless the name is one per layer by design.

A newcomer should be able to read any module in one sitting and any function on one screen; the limits
are the guide's, and this test is where they are kept rather than remembered.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "jawad_desktop"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
# Names kept once per layer on purpose: each layer's errors (ground, llm, voice) and each face's wording
# of a Remedy (cli, ui). Any other name says what its module is for, so it is found once.
PER_LAYER_NAMES = {"__init__.py", "errors.py", "remedies.py"}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "vendor" not in p.parts)


def long_modules(paths: list[Path], root: Path = PACKAGE.parent) -> list[str]:
    """The modules over the limit, as 'path: lines'."""
    found = []
    for path in paths:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def long_functions(paths: list[Path], root: Path = PACKAGE.parent) -> list[str]:
    """The functions and methods over the limit, as 'path:line name: lines'."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {length} lines")
    return found


def shared_names(paths: list[Path], root: Path = PACKAGE.parent) -> dict[str, list[str]]:
    """The module names two or more modules carry (the per-layer ones aside), with their paths."""
    by_name: dict[str, list[str]] = {}
    for path in paths:
        if path.name not in PER_LAYER_NAMES:
            by_name.setdefault(path.name, []).append(str(path.relative_to(root)))
    return {name: places for name, places in by_name.items() if len(places) > 1}


def test_no_module_is_over_600_lines() -> None:
    assert long_modules(_modules()) == []


def test_no_function_is_over_80_lines() -> None:
    assert long_functions(_modules()) == []


def test_the_checks_see_a_long_module_and_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    long = tmp_path / "long.py"
    long.write_text("def f():\n" + body + "\n" + "\n" * MAX_MODULE_LINES, encoding="utf-8")
    short = tmp_path / "short.py"
    short.write_text("def g():\n    return 1\n", encoding="utf-8")
    assert long_modules([long, short], tmp_path) == [f"long.py: {MAX_MODULE_LINES + MAX_FUNCTION_LINES + 1} lines"]
    assert long_functions([long, short], tmp_path) == [f"long.py:1 f: {MAX_FUNCTION_LINES + 1} lines"]


def test_module_names_are_unique_by_purpose(tmp_path: Path) -> None:
    """Three ``context.py``, three ``session.py`` and two each of ``hub.py``, ``tts.py`` and ``tools.py`` were
    renamed by purpose; ``wake``, ``store`` and ``audio`` came back twice each, in later work, and were too."""
    assert shared_names(_modules()) == {}
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        for name in ("store.py", "errors.py", "__init__.py"):
            (tmp_path / folder / name).write_text("", encoding="utf-8")
    assert shared_names(sorted(tmp_path.rglob("*.py")), tmp_path) == {"store.py": ["a/store.py", "b/store.py"]}
