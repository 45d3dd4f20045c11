"""Research runs on real parts: the scripted model over HTTP, the offscreen QtWebEngine page, Harbor
with its gate, the page cache and the conversation store in a temporary folder."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.harbor import Harbor, HarborGate
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.research import ResearchExecutor, ResearchPlan
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.page_cache import PageCache
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.browser import BrowserSession, browser_registry, inspector_for, make_navigation_guard
from tests.servers.scripted_model import ScriptedModel


@dataclass
class ResearchEnv:
    executor: ResearchExecutor
    client: LLMClient
    bus: events.EventBus
    harbor: Harbor
    gate: HarborGate
    store: ConversationStore
    conversation_id: str
    model: ScriptedModel
    updates: list[dict[str, Any]] = field(default_factory=list)
    responses: list[events.ChatResponse] = field(default_factory=list)
    actions: list[events.ActionLogEntry] = field(default_factory=list)
    asked: list[events.PermissionRequest] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    def run(self, arun: Callable[..., Any], plan: ResearchPlan, timeout: float = 90) -> ResearchPlan:
        return arun(self.executor.execute(plan), timeout=timeout)


@pytest.fixture
def research(web_page: QtWebEnginePage, scripted_model: ScriptedModel, tmp_path: Path,
             arun: Callable[..., Any]) -> Iterator[ResearchEnv]:
    settings = Settings()
    settings.network.max_retries = 0
    bus = events.EventBus()
    harbor = Harbor.in_folder(tmp_path / "config")
    cache = PageCache.open(tmp_path / "data")
    browser = BrowserSession(web_page, harbor=harbor, cache=cache, highlight_s=0.0)
    web_page.navigation_guard = make_navigation_guard(harbor)
    gate = HarborGate(harbor, bus, timeout_s=5, inspector=inspector_for(browser))
    client = LLMClient(scripted_model.provider(), network=settings.network, bus=bus)
    store = ConversationStore.open(tmp_path / "data")
    conversation_id = store.create().id
    session = AgentSession(client=client, registry=basic_registry().merged(browser_registry()), settings=settings,
                           bus=bus, gate=gate, browser=browser)
    executor = ResearchExecutor(session, store=store, conversation_id=conversation_id)
    env = ResearchEnv(executor=executor, client=client, bus=bus, harbor=harbor, gate=gate, store=store,
                      conversation_id=conversation_id, model=scripted_model)

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.WorkflowUpdate):
            env.updates.append(event.plan)
        elif isinstance(event, events.ChatResponse):
            env.responses.append(event)
        elif isinstance(event, events.ActionLogUpdate):
            env.actions.append(event.entry)
        elif isinstance(event, events.PermissionRequest):
            env.asked.append(event)
            if env.answers:
                asyncio.get_running_loop().call_soon(gate.respond, event.id, env.answers.pop(0))

    bus.subscribe(on_event)
    arun(web_page.navigate("about:blank"))
    yield env
    arun(client.aclose())
    store.close()
    cache.close()


def final_actions(entries: list[events.ActionLogEntry]) -> list[events.ActionLogEntry]:
    latest: dict[str, events.ActionLogEntry] = {}
    for entry in entries:
        latest[entry.id] = entry
    return list(latest.values())
