"""Fixtures of the LLM tests: the fault-injecting server, and clients on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jawad_desktop.core.llm.client import forget_capabilities
from tests.servers.fault_server import FaultServer


@pytest.fixture(scope="session")
def fault_server() -> Iterator[FaultServer]:
    server = FaultServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fresh_capabilities() -> Iterator[None]:
    """Each test starts without remembered "this model takes no tools" facts."""
    forget_capabilities()
    yield
    forget_capabilities()
