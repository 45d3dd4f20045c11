"""Core events in, Qt signals out: the only place the UI listens to the core's EventBus.

Subscribing once here keeps widgets from holding references to core objects: a widget
connects to the signal it cares about. Events emitted from a worker thread arrive on the GUI
thread, because the bridge lives there and Qt queues cross-thread signals.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from jawad_desktop.core import events as ev


class EventBridge(QObject):
    turn_started = Signal(object)  # ev.TurnStarted
    chat_delta = Signal(object)  # ev.ChatDelta
    chat_response = Signal(object)  # ev.ChatResponse
    turn_finished = Signal(object)  # ev.TurnFinished
    agent_step = Signal(object)  # ev.AgentStep
    action_log = Signal(object)  # ev.ActionLogEntry
    permission_request = Signal(object)  # ev.PermissionRequest
    permission_settled = Signal(object)  # ev.PermissionSettled
    plan_proposed = Signal(object)  # ev.PlanProposed (plan-first mode)
    plan_settled = Signal(object)  # ev.PlanSettled
    hand_over_requested = Signal(object)  # ev.HandOverRequested
    hand_over_finished = Signal(object)  # ev.HandOverFinished
    grants_changed = Signal()
    conversation_changed = Signal(str)  # the conversation id, "" for a new chat
    conversations_changed = Signal(str, str)  # kind ("created", "renamed", ...), conversation id
    workflow_update = Signal(object)  # ev.WorkflowUpdate
    voice_state = Signal(object)  # ev.VoiceState
    conversation_state = Signal(object)  # ev.ConversationState (conversation mode)
    test_result = Signal(object)  # ev.TestResult
    retry = Signal(object)  # ev.RetryNotice
    notice = Signal(str, str)  # level, text
    other = Signal(object)  # any event this bridge has no dedicated signal for

    def __init__(self, bus: ev.EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: Callable[[], None] = bus.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.ChatDelta):
            self.chat_delta.emit(event)
        elif isinstance(event, ev.ChatResponse):
            self.chat_response.emit(event)
        elif isinstance(event, ev.TurnStarted):
            self.turn_started.emit(event)
        elif isinstance(event, ev.TurnFinished):
            self.turn_finished.emit(event)
        elif isinstance(event, ev.AgentStep):
            self.agent_step.emit(event)
        elif isinstance(event, ev.ActionLogUpdate):
            self.action_log.emit(event.entry)
        elif isinstance(event, ev.PermissionRequest):
            self.permission_request.emit(event)
        elif isinstance(event, ev.PermissionSettled):
            self.permission_settled.emit(event)
        elif isinstance(event, ev.PlanProposed):
            self.plan_proposed.emit(event)
        elif isinstance(event, ev.PlanSettled):
            self.plan_settled.emit(event)
        elif isinstance(event, ev.HandOverRequested):
            self.hand_over_requested.emit(event)
        elif isinstance(event, ev.HandOverFinished):
            self.hand_over_finished.emit(event)
        elif isinstance(event, ev.GrantsChanged):
            self.grants_changed.emit()
        elif isinstance(event, ev.ConversationChanged):
            self.conversation_changed.emit(event.conversation_id)
        elif isinstance(event, ev.ConversationsChanged):
            self.conversations_changed.emit(event.kind, event.conversation_id)
        elif isinstance(event, ev.WorkflowUpdate):
            self.workflow_update.emit(event)
        elif isinstance(event, ev.VoiceState):
            self.voice_state.emit(event)
        elif isinstance(event, ev.ConversationState):
            self.conversation_state.emit(event)
        elif isinstance(event, ev.TestResult):
            self.test_result.emit(event)
        elif isinstance(event, ev.RetryNotice):
            self.retry.emit(event)
        elif isinstance(event, ev.Notice):
            self.notice.emit(event.level, event.text)
        else:
            self.other.emit(event)

    def detach(self) -> None:
        self._unsubscribe()
