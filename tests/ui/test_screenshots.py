"""``scripts/screenshots``: its driver (``tests/fixtures/screenshots.py``) run as the script runs
it, on a private X server, photographs every scene of the real window at the requested size, and
no picture is blank (the browser pane's web content included: ``QWidget.grab`` would miss it).
Also the live transcript those pictures showed was missing: it repaints, and leaves no stale
draft when the turn ends without one."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QImage

from jawad_desktop.core.events import VoiceState
from jawad_desktop.ui.window.main_window import MainWindow
from tests.fixtures.gui_process import gui_env, virtual_display

ROOT = Path(__file__).resolve().parent.parent.parent
SIZE = (1280, 800)
WINDOW_SHOTS = ("01-first-start", "01-first-run-notice", "02-chat-tool-cards", "03-permission-request",
                "04-research-plan", "05-voice-listening", "07-dark-theme", "08-model-picker",
                "09-history-long-titles", "10-delete-undo", "11-roomy-chat")
# Pages the dialog has had from the start (the driver takes every page there is: at least 6 today).
SETTINGS_PAGES = ("providers", "appearance", "network", "agent", "voice")


class PaintSpy(QObject):
    """An event filter counting the paint events of what it watches."""

    paints = 0

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def spread(image: QImage, area: QRect | None = None) -> float:
    """The standard deviation of the grey levels of ``area`` (all of it by default), on a 64x40
    sample: 0 for a blank picture."""
    part = image.copy(area) if area is not None else image
    small = part.scaled(64, 40, Qt.AspectRatioMode.IgnoreAspectRatio,
                        Qt.TransformationMode.SmoothTransformation).convertToFormat(QImage.Format.Format_Grayscale8)
    return statistics.pstdev(small.pixelColor(x, y).value() for y in range(small.height())
                             for x in range(small.width()))


def mean_grey(image: QImage, area: QRect) -> float:
    small = image.copy(area).scaled(32, 20).convertToFormat(QImage.Format.Format_Grayscale8)
    return statistics.fmean(small.pixelColor(x, y).value() for y in range(small.height())
                            for x in range(small.width()))


@pytest.mark.slow  # 50 s: first, not at the end of a parallel run (tests/fixtures/workers.py)
def test_the_screenshot_script_photographs_every_scene(tmp_path: Path) -> None:
    out = tmp_path / "shots" / f"light-{SIZE[0]}x{SIZE[1]}"  # not the default size: its own folder
    env_extra = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    started = time.monotonic()
    with virtual_display() as display:
        done = subprocess.run(
            [sys.executable, "-m", "tests.fixtures.screenshots", str(tmp_path / "shots"), "--size",
             f"{SIZE[0]}x{SIZE[1]}", "--themes", "light"],
            env={**gui_env(display), **env_extra}, cwd=tmp_path, capture_output=True, text=True, timeout=240,
        )
    took = time.monotonic() - started
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert took < 150, f"the screenshots took {took:.0f} s"
    names = {path.stem for path in out.glob("*.png")}
    for name in WINDOW_SHOTS:
        assert name in names, f"{name}.png missing; made: {sorted(names)}"
    settings = sorted(name for name in names if name.startswith("06-settings-"))
    for page in SETTINGS_PAGES:
        assert any(name.endswith(f"-{page}") for name in settings), f"no picture of Settings -> {page}: {settings}"
    assert len(settings) >= 6, settings
    for name in sorted(names):
        image = QImage(str(out / f"{name}.png"))
        assert not image.isNull(), name
        if name in WINDOW_SHOTS:
            assert (image.width(), image.height()) == SIZE, f"{name}: {image.width()}x{image.height()}"
        else:
            assert image.width() >= 400 and image.height() >= 300, f"{name}: {image.width()}x{image.height()}"
        assert spread(image) > 4, f"{name} is blank"
    # The browser pane shows the product page (web content, grabbed from the X server).
    chat = QImage(str(out / "02-chat-tool-cards.png"))
    browser = QRect(int(SIZE[0] * 0.62), 80, int(SIZE[0] * 0.36), 360)
    assert spread(chat, browser) > 12, "the browser pane is blank in the chat picture"
    # The dark theme is dark, the light one is not (the chat's side: the web page is the site's own).
    chat_side = QRect(0, 0, SIZE[0] // 2, SIZE[1])
    assert mean_grey(QImage(str(out / "07-dark-theme.png")), chat_side) < 110 < mean_grey(chat, chat_side)
    # Total size stays small enough to keep in the repository.
    assert sum((out / f"{n}.png").stat().st_size for n in names) < 3_000_000


def test_the_live_transcript_shows_and_leaves_no_stale_draft(make_window: Any, profile_dir: Path,
                                                               qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    qtbot.waitUntil(lambda: window.voice_button is not None, timeout=30_000)
    button: Any = window.voice_button
    box = window.chat.input
    idle = box.placeholderText()
    bus = window.ctx.bus
    bus.emit(VoiceState(state="started"))
    qtbot.waitUntil(lambda: button.state == "listening", timeout=5000)
    spy = PaintSpy()
    box.viewport().installEventFilter(spy)
    qtbot.wait(300)  # what the state change repainted is painted
    spy.paints = 0
    bus.emit(VoiceState(state="partial", transcript="summarize th"))
    qtbot.waitUntil(lambda: box.placeholderText() == "Hearing: summarize th…", timeout=5000)
    qtbot.waitUntil(lambda: spy.paints > 0, timeout=2000)  # the draft is painted, not only stored
    bus.emit(VoiceState(state="end"))  # cancelled: no transcript
    qtbot.waitUntil(lambda: button.state == "idle", timeout=5000)
    assert box.placeholderText() == idle

