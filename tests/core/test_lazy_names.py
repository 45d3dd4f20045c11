"""The packages whose names are imported on first use (core.harbor, core.research, core.tools,
core.voice): importing the package loads none of its modules; a name loads its own module once."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
import {package} as package
before = set(sys.modules)
assert not [m for m in before if m.startswith("{package}.")], sorted(m for m in before if m.startswith("{package}."))
value = getattr(package, "{name}")
loaded = sorted(m for m in set(sys.modules) - before if m.startswith("{package}."))
assert "{package}.{source}" in loaded, loaded
assert vars(package)["{name}"] is value  # kept: the next lookup does not import again
try:
    package.NoSuchName
except AttributeError as exc:
    assert "{package}" in str(exc) and "NoSuchName" in str(exc), exc
else:
    raise AssertionError("an unknown name was found")
"""


@pytest.mark.parametrize(
    ("package", "name", "source"),
    [
        ("jawad_desktop.core.harbor", "HarborGate", "gate"),
        ("jawad_desktop.core.research", "Planner", "planner"),
        ("jawad_desktop.core.tools", "ToolRegistry", "registry"),
        ("jawad_desktop.core.voice", "write_wav", "audio"),
    ],
)
def test_a_name_is_imported_at_its_first_use_and_kept(package: str, name: str, source: str) -> None:
    script = SCRIPT.format(package=package, name=name, source=source)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
