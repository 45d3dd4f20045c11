"""Settings → Voice: the speech model's Download has a Cancel, through the downloader's cancel
(``core.store.hub_download``): what arrived is kept, and the next Download resumes it with a Range request.
The loopback hub serves base's real files (from the packages that carry them), checked against its pin."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.voice.models import model_folder
from jawad_desktop.core.voice.whisper_download import INCOMPLETE_SUFFIX
from jawad_desktop.ui.settings.voice_page import VoiceSettingsPage
from tests.voice.hub_server import HubServer, serve_hub
from tests.voice.whisper_base import write_base_model

REPO = "Systran/faster-whisper-base"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubServer]:
    yield from serve_hub({REPO: write_base_model(tmp_path / "base-repo")})


def test_cancel_keeps_what_arrived_and_download_resumes(
    voice_ctx: AppContext, hub: HubServer, qtbot: Any, aio_loop: Any
) -> None:
    page = VoiceSettingsPage(voice_ctx)
    qtbot.addWidget(page)
    page.model.setCurrentText("base")
    assert page.cancel_download.isHidden() and page.cancel_download.accessibleName()
    hub.throttle_s = 0.02
    page.download_model(endpoint=hub.base_url)
    assert not page.cancel_download.isHidden() and not page.download.isEnabled()
    qtbot.waitUntil(lambda: page.download_progress.value() > 50, timeout=20_000)
    page.cancel_download.click()
    qtbot.waitUntil(lambda: page.cancel_download.isHidden(), timeout=20_000)
    assert "cancelled" in page.model_status.text() and page.download.isEnabled()
    partial = model_folder("base", voice_ctx.paths.cache)
    partial = partial.with_name(partial.name + ".partial") / ("model.bin" + INCOMPLETE_SUFFIX)
    kept = partial.stat().st_size
    assert kept > 0

    hub.throttle_s = 0.0
    hub.gets.clear()
    page.download_model(endpoint=hub.base_url)
    qtbot.waitUntil(lambda: page.cancel_download.isHidden(), timeout=60_000)
    assert ("model.bin", kept) in hub.gets and ("model.bin", 0) not in hub.gets
    assert "Ready" in page.model_status.text(), page.model_status.text()
    assert isinstance(partial, Path) and not partial.exists()
