"""The layers import downward only: import-linter's contract in pyproject.toml, run as a test.

The contract lists the layers from the faces (cli, ui) and the page driver (browser) down to the
ground floor (events, messages, errors, sites); a module that imports from a layer above its own
breaks it. A second contract does the same for the rooms of ``ui/`` (app, window, settings,
desktop, chat, prompts, look, base).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports() -> str:
    found = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert found, "import-linter is not installed (it is in the test extras)"
    return found


def test_no_layer_imports_a_higher_one() -> None:
    out = subprocess.run([_lint_imports(), "--no-logo", "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    """The same contract on a copy of the package with one upward import added is broken."""
    copy = tmp_path / "jawad_desktop"
    shutil.copytree(ROOT / "jawad_desktop", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    sites = copy / "core" / "sites.py"
    sites.write_text(sites.read_text() + "\nfrom jawad_desktop.core.assistant import Assistant  # noqa\n")
    out = subprocess.run([_lint_imports(), "--no-logo", "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, check=False, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode != 0
    assert "jawad_desktop.core.sites -> jawad_desktop.core.assistant" in out.stdout
