"""The core imports no Qt: every module under jawad_desktop.core, imported in a fresh process."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import jawad_desktop.core

FORBIDDEN = ("PySide6", "shiboken6", "qasync", "PyQt5", "PyQt6")


def test_every_core_module_imports_without_qt() -> None:
    modules = sorted(
        info.name for info in pkgutil.walk_packages(jawad_desktop.core.__path__, "jawad_desktop.core.")
    )
    assert len(modules) >= 8, modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"Qt was imported by the core: {out.stdout.strip()}"
