"""Fixtures of the packaging tests: the build rules and records, and a built bundle.

``packaging/`` is not a Python package (its name would shadow the PyPI ``packaging``
library), so its modules are loaded from their files.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGING = ROOT / "packaging"
BUILD_TIMEOUT_S = 1200


def load_packaging_module(name: str) -> ModuleType:
    """``packaging/<name>.py`` as a module (cached in sys.modules under a private name)."""
    key = f"_jawad_packaging_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, PACKAGING / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bundle_rules() -> ModuleType:
    return load_packaging_module("bundle_rules")


@pytest.fixture(scope="session")
def build_info() -> ModuleType:
    return load_packaging_module("build_info")


@pytest.fixture(scope="session")
def built(build_info: ModuleType) -> Any:
    """The BuildInfo of a bundle made from the current sources: the last build's when it is
    still fresh, otherwise a new ``packaging/build``'s (sources edited while it ran do not
    make it stale for this run).

    One process builds at a time (``build/bundle.lock``): another one waiting for it then
    finds the fresh build. The bundle's tests are one ``xdist_group``, so a parallel run
    builds it once, on one worker."""
    lock_path = ROOT / "build" / "bundle.lock"
    lock_path.parent.mkdir(exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        info = build_info.fresh_build()
        if info is None:
            result = subprocess.run(
                ["bash", str(PACKAGING / "build")], cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                env={**os.environ, "JAWAD_GZIP_LEVEL": "1"},  # quicker archives; their size is not tested
            )
            assert result.returncode == 0, f"packaging/build failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
            info = build_info.load()
            assert info is not None, "packaging/build finished without writing its record"
    return info


def runtime_debs() -> list[str]:
    """RUNTIME_DEBS of scripts/_common.sh, as the shell sees them."""
    out = subprocess.run(
        ["bash", "-c", f'source "{ROOT}/scripts/_common.sh"; printf "%s\\n" "${{RUNTIME_DEBS[@]}}"'],
        capture_output=True, text=True, check=True,
    ).stdout
    return out.split()
