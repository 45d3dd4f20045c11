"""Fixtures of the provider tests: one loopback server speaking every provider's format."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jawad_desktop.core.llm.client import forget_capabilities


@pytest.fixture(autouse=True)
def _fresh_capabilities() -> Iterator[None]:
    forget_capabilities()
    yield
    forget_capabilities()
