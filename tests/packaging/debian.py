"""Which Debian packages a built bundle needs from the system, and what a package's
Depends bring in: the facts the bundle test checks the .deb's Depends against.

Libraries are found with ``ldd`` on every ELF file of the bundle (the bundle's own folders
first, as its loader sees them), mapped to packages with ``dpkg -S``, and compared with
the closure of the declared dependencies among the installed packages (``dpkg-query``).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import defaultdict
from pathlib import Path

ELF_MAGIC = b"\x7fELF"


def elf_files(bundle: Path) -> list[Path]:
    found: list[Path] = []
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as fh:
                if fh.read(4) == ELF_MAGIC:
                    found.append(path)
    return sorted(found)


def system_libraries(bundle: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """({system library path: bundle files using it}, {missing soname: bundle files})."""
    internal = bundle / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=f"{internal}:{internal / 'PySide6' / 'Qt' / 'lib'}")
    used: dict[str, set[str]] = defaultdict(set)
    missing: dict[str, set[str]] = defaultdict(set)
    for elf in elf_files(bundle):
        user = elf.relative_to(bundle).as_posix()
        out = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            if "=>" not in line:
                continue
            soname, target = (part.strip() for part in line.split("=>", 1))
            if target.startswith("not found"):
                missing[soname].add(user)
                continue
            path = target.split(" (", 1)[0]
            if path and not Path(path).resolve().is_relative_to(bundle.resolve()):
                used[path].add(user)
    return dict(used), dict(missing)


def owning_packages(paths: list[str]) -> dict[str, str]:
    """{path: Debian package} for the paths dpkg knows (merged /usr aware: the path, where it
    leads, then its /usr or non-/usr twin). One ``dpkg -S`` asks for all of them: each run reads
    dpkg's whole file list (75 ms of CPU)."""
    candidates = {path: list(dict.fromkeys([path, os.path.realpath(path), _usr_variant(path)])) for path in paths}
    asked = sorted({candidate for names in candidates.values() for candidate in names})
    # Exit status 1 when some path belongs to no package: those are not in the output.
    out = subprocess.run(["dpkg", "-S", *asked], capture_output=True, text=True).stdout if asked else ""
    found: dict[str, str] = {}
    for line in out.splitlines():  # "pkg[:arch][, pkg2...]: /path"
        packages, sep, where = line.partition(": ")
        if sep and not line.startswith("diversion by "):
            found.setdefault(where.strip(), packages.split(",")[0].split(":")[0].strip())
    return {path: owner for path, names in candidates.items()
            if (owner := next((found[name] for name in names if name in found), None)) is not None}


def _usr_variant(path: str) -> str:
    return path[4:] if path.startswith("/usr/lib/") else "/usr" + path if path.startswith("/lib/") else path


_NAME = re.compile(r"^\s*([a-z0-9][a-z0-9+.\-]*)")


def _names(field: str) -> list[list[str]]:
    """'a (>= 1) | b, c:any' -> [['a', 'b'], ['c']]"""
    groups: list[list[str]] = []
    for group in field.split(","):
        names = [m.group(1) for alt in group.split("|") if (m := _NAME.match(alt.split(":")[0]))]
        if names:
            groups.append(names)
    return groups


def dependency_closure(roots: list[str]) -> set[str]:
    """The installed packages ``roots`` bring in through Depends and Pre-Depends."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package}\t${Status}\t${Depends}\t${Pre-Depends}\t${Provides}\n"],
        capture_output=True, text=True, check=True,
    ).stdout
    depends: dict[str, list[list[str]]] = {}
    providers: dict[str, set[str]] = defaultdict(set)
    for line in out.splitlines():
        name, status, deps, pre, provides = (line.split("\t") + [""] * 5)[:5]
        if not status.endswith("installed") or "not-installed" in status:
            continue
        depends[name] = _names(deps) + _names(pre)
        providers[name].add(name)
        for group in _names(provides):
            providers[group[0]].add(name)
    seen: set[str] = set()
    todo = [p for name in roots for p in providers.get(name, {name})]
    while todo:
        package = todo.pop()
        if package in seen:
            continue
        seen.add(package)
        for group in depends.get(package, []):
            for alternative in group:
                todo += providers.get(alternative, set())
    return seen


def control_field(control: str, field: str) -> str:
    """A field of a DEBIAN/control text (continuation lines joined)."""
    match = re.search(rf"^{re.escape(field)}:(.*(?:\n[ \t].*)*)", control, re.MULTILINE)
    return " ".join(match.group(1).split()) if match else ""


def package_names(field: str) -> list[str]:
    """Every package named in a Depends-style field, alternatives included."""
    return [name for group in _names(field) for name in group]
