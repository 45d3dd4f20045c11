"""The first frame's peek at the settings file: tolerant, and never touching the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jawad_desktop.core.store.first_frame import FirstFrame, peek_first_frame


def test_saved_geometry_theme_and_browser_are_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "ui": {"theme": "dark", "window_geometry": "AdnQywAD", "font_size": 14},
        "browser": {"off_the_record": True, "home_url": "https://example.org/"},
    }))
    assert peek_first_frame(path) == FirstFrame(
        geometry="AdnQywAD", theme="dark", off_the_record=True, home_url="https://example.org/"
    )


def test_odd_browser_values_give_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"browser": {"off_the_record": "yes", "home_url": 7}}))
    assert peek_first_frame(path) == FirstFrame()


@pytest.mark.parametrize(
    "content",
    [
        None,  # no file: a first start
        "{not json",
        "[1, 2]",
        json.dumps({"ui": "dark"}),
        json.dumps({"ui": {"theme": "purple", "window_geometry": 42}}),
        "\udcff",  # not UTF-8 once written with surrogateescape
    ],
)
def test_anything_odd_gives_the_defaults_and_leaves_the_file_alone(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_bytes(content.encode("utf-8", "surrogateescape"))
    before = sorted(p.name for p in tmp_path.iterdir())
    data = path.read_bytes() if path.exists() else None
    assert peek_first_frame(path) == FirstFrame()
    # The full load that follows is the one that moves a bad file aside and tells the user.
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (path.read_bytes() if path.exists() else None) == data
