"""Fixtures of the provider tests: one loopback server speaking every provider's format."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jawad_desktop.core.llm.client import forget_capabilities
from tests.servers.provider_servers import ProviderServer


@pytest.fixture(scope="session")
def provider_server() -> Iterator[ProviderServer]:
    server = ProviderServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fresh_capabilities() -> Iterator[None]:
    forget_capabilities()
    yield
    forget_capabilities()
