"""Fixtures of the agent tests: an agent on the scripted model through the real LLMClient."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor.gate import PermissionGate
from jawad_desktop.core.llm.client import LLMClient, forget_capabilities
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.registry import ToolRegistry
from tests.servers.scripted_model import ScriptedModel


@dataclass
class Recorder:
    """Every event the bus carried, in order."""

    seen: list[events.Event] = field(default_factory=list)

    def __call__(self, event: events.Event) -> None:
        self.seen.append(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.seen if isinstance(e, kind)]

    def streamed(self) -> str:
        return "".join(e.text for e in self.of(events.ChatDelta))

    def log(self) -> list[events.ActionLogEntry]:
        """The last state of each action-log entry, in order of first appearance."""
        latest: dict[str, events.ActionLogEntry] = {}
        for update in self.of(events.ActionLogUpdate):
            latest[update.entry.id] = update.entry
        return list(latest.values())


@dataclass
class Harness:
    session: AgentSession
    bus: EventBus
    recorder: Recorder
    client: LLMClient
    model: ScriptedModel


@pytest.fixture(autouse=True)
def _fresh_capabilities() -> Iterator[None]:
    forget_capabilities()
    yield
    forget_capabilities()


@pytest.fixture
def make_agent(scripted_model: ScriptedModel, arun: Callable[..., Any]) -> Iterator[Callable[..., Harness]]:
    """``make_agent(registry=None, gate=None, settings=None, **session_kwargs) -> Harness``."""
    clients: list[LLMClient] = []

    def make(
        registry: ToolRegistry | None = None,
        gate: PermissionGate | None = None,
        settings: Settings | None = None,
        **kwargs: Any,
    ) -> Harness:
        settings = settings or Settings()
        settings.network.max_retries = 0
        bus = EventBus()
        recorder = Recorder()
        bus.subscribe(recorder)
        client = LLMClient(scripted_model.provider(), network=settings.network, bus=bus)
        clients.append(client)
        session = AgentSession(
            client=client,
            registry=registry if registry is not None else basic_registry(),
            settings=settings,
            bus=bus,
            gate=gate,
            **kwargs,
        )
        return Harness(session=session, bus=bus, recorder=recorder, client=client, model=scripted_model)

    yield make
    for client in clients:
        arun(client.aclose())
    asyncio.get_event_loop()  # the session loop stays open (see tests/fixtures/qt_loop.py)
