"""Two models side by side: one message to two providers at once, the answers compared, one kept (no Qt).

``Comparison(assistant, clients, labels)`` runs the user's message as a turn in two sessions of
their own (``AgentSession.sibling``: the assistant's tools, settings, browser and permission gate,
each with its own client and a copy of the conversation so far), at the same time. What each side
streams is announced as ``ComparisonDelta`` (``side`` 0 or 1), its tool calls as the action log's
entries, and its end as ``ComparisonFinished``. Nothing is saved and the conversation does not
move on until ``keep(side)``: then the message and that side's answer (with its tool calls and
results) join the conversation as an ordinary turn — ``TurnStarted``, the ``ChatResponse`` and
``TurnFinished`` on the assistant's bus, so the chat shows it and the recorder saves it — and
the other answer is dropped.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Message

if TYPE_CHECKING:
    from jawad_desktop.core.agent.session import ChatClient
    from jawad_desktop.core.assistant import Assistant

__all__ = ["Comparison", "Side"]

log = logging.getLogger("jawad.compare")


@dataclass
class Side:
    """One side: its ``label`` (provider and model), what it streamed, and how its turn ended."""

    label: str
    text: str = ""
    finished: ev.TurnFinished | None = None
    actions: list[ev.ActionLogEntry] = field(default_factory=list)


def _label(client: Any) -> str:
    provider = getattr(client, "provider", None)
    name = getattr(provider, "name", "") or "model"
    model = getattr(client, "model", "") or getattr(provider, "model", "")
    return f"{name} · {model}" if model else name


class Comparison:
    """One message, two models (see the module docstring)."""

    def __init__(self, assistant: Assistant, clients: tuple[ChatClient, ChatClient],
                 labels: tuple[str, str]) -> None:
        self.assistant = assistant
        self.clients = clients
        self.id = ev.new_id("compare")
        self.sides = [Side(labels[0]), Side(labels[1])]
        self.user_text = ""
        self._sessions: list[Any] = []
        self._kept: int | None = None

    @classmethod
    def against(cls, assistant: Assistant, provider_name: str) -> Comparison:
        """The model in use beside ``provider_name``'s (a saved provider); a ``JawadError`` says
        why it cannot be (no such provider, no key...)."""
        from jawad_desktop.core.llm.factory import client_for

        first = assistant.session.client()
        second = client_for(assistant.ctx, provider_name)
        return cls(assistant, (first, second), (_label(first), _label(second)))

    async def run(self, text: str) -> tuple[ev.ChatResponse, ev.ChatResponse]:
        """Ask both at once; each side's answer as it ended (an error is that side's answer)."""
        if not text.strip():
            raise JawadError("There is nothing to compare.", suggestions=["Write a message first."])
        self.user_text = text
        main = self.assistant.session
        so_far = main.history.messages
        runs = []
        for index, client in enumerate(self.clients):
            bus = ev.EventBus()
            bus.subscribe(functools.partial(self._forward, index))
            session = main.sibling(registry=main.registry, bus=bus, gate=self.assistant.gate,
                                   extras=main.extras, system_extra=main.system_extra, client=client)
            session.history.commit(so_far)
            session.memory = main.memory
            self._sessions.append(session)
            runs.append(session.run(text))
        first, second = await asyncio.gather(*runs)
        return first, second

    def _forward(self, side: int, event: ev.Event) -> None:
        bus = self.assistant.bus
        state = self.sides[side]
        if isinstance(event, ev.ChatDelta):
            state.text += event.text
            bus.emit(ev.ComparisonDelta(compare_id=self.id, side=side, text=event.text))
        elif isinstance(event, ev.ActionLogUpdate):
            state.actions.append(event.entry)
            bus.emit(event)  # the action log shows both sides' tool calls
        elif isinstance(event, ev.TurnFinished):
            state.finished = event
            bus.emit(ev.ComparisonFinished(compare_id=self.id, side=side, label=state.label, response=event.response))
        elif isinstance(event, ev.Notice | ev.RetryNotice | ev.ToolProgress):
            bus.emit(event)

    def stop(self) -> None:
        """Stop both sides."""
        for session in self._sessions:
            session.stop()

    def keep(self, side: int) -> ev.ChatResponse:
        """Make ``side``'s answer the conversation's (see the module docstring)."""
        if self._kept is not None:
            raise JawadError("An answer of this comparison was already kept.")
        state = self.sides[side]
        if state.finished is None:
            raise JawadError("That answer is not finished yet.", suggestions=["Wait for it, or stop it first."])
        self._kept = side
        bus = self.assistant.bus
        run_id = ev.new_id("run")
        messages = tuple(state.finished.messages)
        self.assistant.session.history.commit([Message(role="user", content=self.user_text), *messages])
        ended = state.finished.response
        response = ev.ChatResponse(run_id=run_id, content=ended.content, is_error=ended.is_error,
                                   interrupted=ended.interrupted,
                                   metadata={**ended.metadata, "kept": state.label,
                                             "compared_with": self.sides[1 - side].label})
        bus.emit(ev.TurnStarted(run_id=run_id, user_text=self.user_text))
        bus.emit(response)
        bus.emit(ev.TurnFinished(run_id=run_id, user_text=self.user_text, messages=messages, response=response))
        log.info("comparison %s: kept %s's answer", self.id, state.label)
        return response
