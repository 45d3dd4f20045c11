"""Fixtures for the store tests: a real conversation store in a fresh data folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jawad_desktop.core.store.conversations import ConversationStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    s = ConversationStore.open(tmp_path / "data")
    try:
        yield s
    finally:
        s.close()
