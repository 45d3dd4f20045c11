"""The ``jawad`` command as a user runs it: a real process, real exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtGui import QImage

from jawad_desktop import __version__


def jawad(*args: str, env: dict[str, str] | None = None, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", *args],
        capture_output=True, text=True, timeout=timeout, env=env or dict(os.environ), stdin=subprocess.DEVNULL,
        check=False,
    )


def test_version_and_help() -> None:
    out = jawad("--version")
    assert out.returncode == 0 and __version__ in out.stdout
    out = jawad("--help")
    assert out.returncode == 0
    assert "--profile" in out.stdout and "--self-test" in out.stdout


def test_usage_error_is_friendly() -> None:
    out = jawad("--no-such-option")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "jawad --help" in out.stderr


def test_self_test_passes_with_a_real_keyring(secret_service: dict[str, str], profile_dir: Path) -> None:
    out = jawad("--self-test", "--profile", str(profile_dir))
    report = json.loads(out.stdout)
    assert out.returncode == 0, report
    assert report["ok"] is True
    assert set(report["checks"]) >= {"settings", "main_window", "web_view", "javascript", "keyring", "tokens"}
    assert all(check["ok"] for check in report["checks"].values())
    assert "SecretService" in report["checks"]["keyring"]["detail"]
    # The end-of-turn model, from pipecat-ai's installed files (the packaged app: tests/packaging/test_voice_parity.py).
    assert report["checks"]["turn_model"]["loaded"] is True and "pipecat" in report["checks"]["turn_model"]["path"]
    assert (profile_dir / "config" / "settings.json").exists()
    assert (profile_dir / "logs" / "jawad.log").exists()


def test_self_test_fails_without_keyring_and_says_why(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "GNOME_KEYRING"))}
    env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={tmp_path}/no-bus"
    out = jawad("--self-test", "--profile", str(tmp_path / "p"), env=env)
    report = json.loads(out.stdout)
    assert out.returncode == 1
    assert report["ok"] is False
    assert report["checks"]["keyring"]["ok"] is False
    assert "keyring" in report["checks"]["keyring"]["detail"].lower()
    assert report["checks"]["web_view"]["ok"] is True


def test_first_start_with_an_empty_home(tmp_path: Path, secret_service: dict[str, str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_CONFIG", "XDG_CACHE", "XDG_STATE"))}
    env["HOME"] = str(home)
    out = jawad("--self-test", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (home / ".config" / "jawad-desktop" / "settings.json").exists()


def test_run_command_opens_a_real_window_and_exits_promptly(tmp_path: Path, secret_service: dict[str, Any]) -> None:
    shot = tmp_path / "window.png"
    out = jawad("--profile", str(tmp_path / "p"), "--screenshot", str(shot))
    ended = time.time()
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    image = QImage(str(shot))
    assert not image.isNull() and image.width() > 400 and image.height() > 300
    colours = {image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)}
    assert len(colours) > 20, "the window looks blank"
    # The window closed right after the screenshot; the process must end within 2 s of it.
    assert ended - shot.stat().st_mtime < 2.0
    # The log file, opened once the frame was on screen, holds the records from before it.
    log_text = (tmp_path / "p" / "logs" / "jawad.log").read_text()
    assert log_text.index("window frame shown") < log_text.index("screenshot saved")


def test_the_window_is_one_native_window_from_start_to_idle_on_x11(tmp_path: Path) -> None:
    """On a real X server (Xvfb) the window keeps the native window it was shown with: Qt
    re-creates it (it vanishes and comes back) when the web view's GPU-composited part is
    made after the window is on screen."""
    assert shutil.which("xvfb-run"), "xvfb-run not installed: run scripts/test (it installs xvfb)"
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    out = subprocess.run(
        ["xvfb-run", "-a", "env", "QT_QPA_PLATFORM=xcb", sys.executable, "-m", "jawad_desktop",
         "--profile", str(tmp_path / "p"), "--startup-report", str(report)],
        capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL, check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    windows = json.loads(report.read_text())["native_windows"]
    assert len(windows) == 1, f"the native window was re-created: {windows}"
