"""What a build of the bundle was made from and what it produced: ``dist/jawad-desktop-build.json``.

``packaging/build`` writes it after a successful build; the bundle test and the bundle
benchmark read it to reuse a bundle that is still fresh (same sources, same installed
packages) instead of building again, and to report the build's time and sizes. It also
seals the voice pack into the app: the app's ``jawad_desktop/voice-pack.json`` gets the
size and SHA-256 of the pack's archive, which the app checks before installing a pack.

    python packaging/build_info.py digest
    python packaging/build_info.py seal-pack --bundle DIR --pack-tar FILE
    python packaging/build_info.py write --version V --seconds S --pyinstaller-seconds S
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import site
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
APP_ID = "jawad-desktop"
PACK_ID = f"{APP_ID}-voice"
INFO_FILE = f"{APP_ID}-build.json"
PACK_RELEASE = Path("_internal") / "jawad_desktop" / "voice-pack.json"  # in the bundle

# What the bundle is made from, besides the installed packages.
SOURCE_PATHS = ["jawad_desktop", "resources", "packaging", "pyproject.toml"]
IGNORED_PARTS = {"__pycache__", ".mypy_cache", ".ruff_cache"}


@dataclass
class BuildInfo:
    version: str
    digest: str
    build_seconds: float
    pyinstaller_seconds: float
    bundle_bytes: int
    bundle_files: int
    tar_gz_bytes: int
    deb_bytes: int
    bundle_dir: str
    tar_gz: str
    deb: str
    # The voice pack (offline speech, installed on demand).
    pack_bytes: int
    pack_files: int
    pack_tar_gz_bytes: int
    pack_sha256: str
    pack_dir: str
    pack_tar_gz: str


def tar_gz_name(version: str) -> str:
    return f"{APP_ID}-{version}-linux-x86_64.tar.gz"


def deb_name(version: str) -> str:
    return f"{APP_ID}_{version}_amd64.deb"


def pack_tar_gz_name(version: str) -> str:
    return f"{PACK_ID}-{version}-linux-{platform.machine()}.tar.gz"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def seal_pack(bundle: Path, pack_tar: Path) -> dict[str, object]:
    """Record the pack archive's size and SHA-256 in the bundle's ``voice-pack.json``."""
    path = bundle / PACK_RELEASE
    release = json.loads(path.read_text(encoding="utf-8"))
    if release["file"] != pack_tar.name:
        raise ValueError(f"the bundle expects {release['file']}, not {pack_tar.name}")
    release.update(bytes=pack_tar.stat().st_size, sha256=file_sha256(pack_tar))
    path.write_text(json.dumps(release, indent=2) + "\n", encoding="utf-8")
    return dict(release)


def _source_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in SOURCE_PATHS:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [
                p for p in path.rglob("*")
                if p.is_file() and not IGNORED_PARTS.intersection(p.parts) and p.suffix != ".pyc"
            ]
    return sorted(files)


def source_digest(root: Path = ROOT) -> str:
    """A hash of the app's sources, resources, packaging files and installed packages."""
    digest = hashlib.sha256()
    for path in _source_files(root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    # Only the environment's site folders: a checkout's stale *.egg-info on sys.path (the
    # current folder in a test run) must not change the digest.
    installed = sorted({
        f"{dist.metadata['Name']}=={dist.version}"
        for dist in importlib.metadata.distributions(path=site.getsitepackages())
    })
    digest.update("\n".join(installed).encode())
    return digest.hexdigest()


def tree_size(folder: Path) -> tuple[int, int]:
    """(bytes, files) of the regular files under ``folder``; symlinks count as links."""
    total = files = 0
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                total += path.stat().st_size
                files += 1
    return total, files


def load(dist: Path = DIST) -> BuildInfo | None:
    """The last build's record, or None when there is none."""
    path = dist / INFO_FILE
    try:
        return BuildInfo(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def fresh_build(root: Path = ROOT, dist: Path = DIST) -> BuildInfo | None:
    """The last build's record if its outputs exist and it was made from the current sources."""
    info = load(dist)
    if info is None or info.digest != source_digest(root):
        return None
    outputs = [Path(info.bundle_dir) / APP_ID, Path(info.tar_gz), Path(info.deb), Path(info.pack_tar_gz)]
    return info if all(p.exists() for p in outputs) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_info.py", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("digest", help="print the digest of the current sources")
    seal = commands.add_parser("seal-pack", help="record the voice pack archive's size and SHA-256 in the bundle")
    seal.add_argument("--bundle", type=Path, required=True)
    seal.add_argument("--pack-tar", type=Path, required=True)
    write = commands.add_parser("write", help="record a finished build")
    write.add_argument("--version", required=True)
    write.add_argument("--digest", required=True)
    write.add_argument("--seconds", type=float, required=True)
    write.add_argument("--pyinstaller-seconds", type=float, required=True)
    write.add_argument("--dist", type=Path, default=DIST)
    args = parser.parse_args(argv)
    if args.command == "digest":
        print(source_digest())
        return 0
    if args.command == "seal-pack":
        print(json.dumps(seal_pack(args.bundle, args.pack_tar), indent=2))
        return 0
    dist: Path = args.dist.resolve()
    bundle = dist / APP_ID
    size, files = tree_size(bundle)
    pack_dir = dist / PACK_ID
    pack_size, pack_files = tree_size(pack_dir)
    pack_tar = dist / pack_tar_gz_name(args.version)
    info = BuildInfo(
        version=args.version,
        digest=args.digest,
        build_seconds=round(args.seconds, 1),
        pyinstaller_seconds=round(args.pyinstaller_seconds, 1),
        bundle_bytes=size,
        bundle_files=files,
        tar_gz_bytes=(dist / tar_gz_name(args.version)).stat().st_size,
        deb_bytes=(dist / deb_name(args.version)).stat().st_size,
        bundle_dir=str(bundle),
        tar_gz=str(dist / tar_gz_name(args.version)),
        deb=str(dist / deb_name(args.version)),
        pack_bytes=pack_size,
        pack_files=pack_files,
        pack_tar_gz_bytes=pack_tar.stat().st_size,
        pack_sha256=file_sha256(pack_tar),
        pack_dir=str(pack_dir),
        pack_tar_gz=str(pack_tar),
    )
    (dist / INFO_FILE).write_text(json.dumps(asdict(info), indent=2) + "\n", encoding="utf-8")
    print(json.dumps(asdict(info), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
