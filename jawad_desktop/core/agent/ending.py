"""The agent session's state as its phases see it, and how a turn ends.

``TurnEnding`` is the base of the phase mixins (``core.agent.asking``: ask the model and repair its
calls; ``core.agent.running``: check, run and record them) and of ``core.agent.session.AgentSession``,
which sets every attribute declared here. It ends a turn: one ``ChatResponse`` with the run's
metadata, then ``TurnFinished`` with the messages committed to the history.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.budget import ContextBudget
from jawad_desktop.core.agent.history import ConversationHistory
from jawad_desktop.core.agent.prompts import ToolMode
from jawad_desktop.core.agent.textcalls import StreamSanitizer
from jawad_desktop.core.agent.turn import ChatClient, ModelKey, Turn
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.events import ActionLogEntry, ActionLogUpdate, EventBus, TurnFinished
from jawad_desktop.core.harbor.gate import PermissionGate
from jawad_desktop.core.llm.pricing import PriceTable
from jawad_desktop.core.messages import Audio, Image, Message
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession


class TurnEnding:
    """The session's state the phases share (set by ``AgentSession.__init__``) and the turn's end."""

    settings: Settings
    bus: EventBus
    registry: ToolRegistry
    gate: PermissionGate
    secrets: SecretStore | None
    browser: BrowserSession | None
    history: ConversationHistory
    extras: dict[str, Any]
    system_extra: str
    facts: ModelFactsStore
    prices: PriceTable
    mode: ToolMode  # the format of the current (or last) run
    budget: ContextBudget  # set per run
    _model: ModelKey
    _client_used: ChatClient | None
    _sanitizer: StreamSanitizer
    _images: dict[str, list[Image]]  # a call's images, until its result message is made
    _audio: dict[str, list[Audio]]  # a call's sounds, likewise (core.llm.audio_input decides who hears them)
    _plan_note: str  # the plan the user approved for the run in progress (plan-first mode)
    _memories: list[str]  # the facts the run in progress gives the model

    def _chars_for(self, text: str, chars: int) -> int:
        """A budget of ``chars`` (``ContextBudget``, sized in English) as characters of ``text``."""
        return self.history.counter.chars_for(text, chars)

    def _model_remedy(self) -> Remedy:
        """Where another model is chosen: this run's provider (a scripted client names none)."""
        provider = getattr(self._client_used, "provider", None)
        return Remedy("provider-model", str(getattr(provider, "name", "") or ""))

    def _log(self, entry: ActionLogEntry) -> None:
        self.bus.emit(ActionLogUpdate(entry=entry))

    def _with_shown(self, turn: Turn, message: str) -> str:
        shown = turn.shown_text()
        return f"{shown}\n\n{message}" if shown else message

    def _finish(
        self,
        turn: Turn,
        content: str,
        *,
        is_error: bool = False,
        interrupted: bool = False,
        commit: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> events.ChatResponse:
        if commit and turn.pending:
            self._commit(turn, turn.pending)
        meta: dict[str, Any] = {
            **turn.llm_metadata,
            "iterations": turn.iterations,
            "tool_calls": turn.tool_calls,
            "tool_format": self.mode,
            "input_tokens": turn.usage_in,
            "output_tokens": turn.usage_out,
            **turn.spent.metadata(),  # the run's tokens, cost_usd (None: unknown), cost_known, model
            "latency_ms": round((time.monotonic() - turn.started) * 1000, 1),
        }
        if self._memories:
            meta["memories"] = list(self._memories)  # what the model was reminded of
        meta.update(metadata or {})
        response = events.ChatResponse(
            run_id=turn.run_id, content=content, is_error=is_error, interrupted=interrupted, metadata=meta
        )
        self.bus.emit(response)
        added = turn.committed
        if added and added[0].role == "user":
            added = added[1:]
        self.bus.emit(TurnFinished(run_id=turn.run_id, user_text=turn.user_text, messages=tuple(added),
                                   response=response))
        return response

    def _commit(self, turn: Turn, messages: Sequence[Message]) -> None:
        self.history.commit(list(messages))
        turn.committed = list(messages)

    def _interrupted(self, turn: Turn) -> events.ChatResponse:
        """Stop: keep the user's message and what was shown; drop unfinished tool rounds."""
        kept = [Message(role="user", content=turn.user_text)]
        shown = turn.shown_text()
        partial = self._sanitizer.shown
        if partial.strip() and not shown.endswith(partial.strip()):
            shown = f"{shown}\n\n{partial}" if shown else partial
        if shown.strip():
            kept.append(Message(role="assistant", content=shown + "\n\n[stopped by the user]"))
        self._commit(turn, kept)
        return self._finish(turn, shown, interrupted=True, commit=False)
