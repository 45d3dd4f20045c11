"""The one typed event stream between the core and whoever watches it (window, CLI, tests).

Events mirror the predecessor's message protocol (spec 001): chat deltas and responses,
action-log updates, permission requests, workflow updates, voice states, test results,
plus retries and notices. Beyond it, the core says what happened rather than leaving it to be
reconstructed: a turn started and finished (with its messages), a permission request was
settled, the site grants changed, the conversation changed. The core emits; the UI bridge
turns events into Qt signals; the CLI prints them; the recorder saves them. Subscribers are
plain callables called in emission order on the loop's thread; one failing subscriber never
stops the others.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from jawad_desktop.core.messages import Message

log = logging.getLogger("jawad.events")

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """A process-unique id such as ``log_1732170000000_7``."""
    return f"{prefix}_{int(time.time() * 1000)}_{next(_ids)}"


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event."""


@dataclass(frozen=True, slots=True)
class ChatDelta(Event):
    """A piece of the answer as it streams (text already sanitised for display)."""

    run_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ChatResponse(Event):
    """The one final answer of a run (spec 001 CHAT_RESPONSE)."""

    run_id: str
    content: str
    is_error: bool = False
    interrupted: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ActionLogEntry:
    """One tool call as the action log shows it (spec 001 ACTION_LOG_UPDATE)."""

    id: str
    timestamp: int
    tool_name: str
    parameters: dict[str, Any]
    site: str
    permission_level: str
    decision: str  # auto-approved, allowed, denied, pending
    result: str  # pending, success, error, denied
    details: str = ""
    run_id: str = ""
    call_id: str = ""  # the model's id of the call (a running tool's ToolProgress names it)


@dataclass(frozen=True, slots=True)
class ActionLogUpdate(Event):
    entry: ActionLogEntry


@dataclass(frozen=True, slots=True)
class PermissionRequest(Event):
    """The agent asks the user before a tool runs (spec 001 PERMISSION_REQUEST)."""

    id: str
    tool_name: str
    parameters: dict[str, Any]
    site: str
    permission_level: str
    reason: str
    timestamp: int
    critical: bool = False
    from_page_content: bool = False  # the target or text came from the page, not the user
    element_hint: str = ""
    timeout_s: float = 120.0  # the gate denies it when nobody answers within this (its clock)
    # Values read on one site that the call would send to another ("It would send 'A-1' (read on a) to b"):
    # asked every time, a yes is for this one call (site and session grants do not apply).
    data_flow: str = ""


PermissionOutcome = Literal["allow-once", "allow-site", "allow-session", "deny", "deny-all", "timeout", "stopped"]


@dataclass(frozen=True, slots=True)
class PermissionSettled(Event):
    """A permission request was settled: answered, timed out, or ended by Stop."""

    id: str
    outcome: PermissionOutcome


PlanOutcome = Literal["approved", "rejected", "timeout", "stopped"]


@dataclass(frozen=True, slots=True)
class PlanProposed(Event):
    """Plan-first mode: before acting, the agent's plan waits for the user's approval
    (``core.harbor.plan_approval.PlanApproval.respond``). ``sites`` it will use; ``actions`` the kinds of
    actions, each "kind: what for" (read, navigate, interact, submit, download); ``steps`` in words.
    Once approved, what stays within it runs without questions; the rest asks."""

    id: str
    run_id: str
    request: str  # what the user asked
    sites: tuple[str, ...]
    actions: tuple[str, ...]
    steps: tuple[str, ...]
    timestamp: int
    timeout_s: float = 120.0  # the plan is rejected when nobody answers within this (the approval's clock)


@dataclass(frozen=True, slots=True)
class PlanSettled(Event):
    """A proposed plan was settled, once: approved, rejected, unanswered in time, or ended by Stop."""

    id: str
    outcome: PlanOutcome

    @property
    def approved(self) -> bool:
        return self.outcome == "approved"


HandOverOutcome = Literal["continued", "cancelled", "stopped"]


@dataclass(frozen=True, slots=True)
class HandOverRequested(Event):
    """The agent hands the page to the user (a login, a CAPTCHA, a code, payment details) and waits:
    the user acts in the browser, then continues or cancels (``HandOver.respond``)."""

    id: str
    reason: str
    url: str = ""
    run_id: str = ""


@dataclass(frozen=True, slots=True)
class HandOverFinished(Event):
    """A hand-over ended, once: the user continued or cancelled, or the run was stopped."""

    id: str
    outcome: HandOverOutcome

    @property
    def continued(self) -> bool:
        return self.outcome == "continued"


ElicitationOutcome = Literal["accept", "decline", "cancel", "stopped"]


@dataclass(frozen=True, slots=True)
class ElicitationRequested(Event):
    """An MCP server asks the user for input mid-call (``core.mcp.elicitation``): a form built from
    ``schema`` (a flat JSON schema: strings, numbers, booleans, choices; ``default``s filled in), or
    in URL mode a page to open (``url``). Answered with ``Elicitations.respond``: accept (with the
    values), decline or cancel. Never filled in by the model."""

    id: str
    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    url: str = ""


@dataclass(frozen=True, slots=True)
class ElicitationSettled(Event):
    """A server's question was settled, once: accepted, declined, cancelled, or ended by Stop."""

    id: str
    outcome: ElicitationOutcome


@dataclass(frozen=True, slots=True)
class McpResourceUpdated(Event):
    """A resource the user subscribed to changed on its MCP server (``notifications/resources/updated``):
    read it again to see the change."""

    server: str
    uri: str


@dataclass(frozen=True, slots=True)
class ToolProgress(Event):
    """A running tool says how far it is (an MCP server's progress notifications): ``progress`` of
    ``total`` (0 when unknown), with its words. ``call_id`` is the tool call's."""

    run_id: str
    call_id: str
    tool_name: str
    progress: float
    total: float = 0.0
    message: str = ""


@dataclass(frozen=True, slots=True)
class GrantsChanged(Event):
    """Harbor's site or session grants changed (a decision, a revocation, the session ended)."""


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """The user's message was accepted and a turn begins (the recorder saves the message now).
    ``user_text`` is the message as the chat shows it (/summarize reads "Summarize this page").
    ``attachments``: the names of the files sent with it. ``files``: what the model is given of
    each (``core.tools.files.attachments.file_record``: name, kind, parts, notes), saved with the
    message so a conversation opened again still has them."""

    run_id: str
    user_text: str
    attachments: tuple[str, ...] = ()
    files: tuple[dict[str, Any], ...] = ()
    local: bool = False  # a slash command answered without the model (/help): not saved


@dataclass(frozen=True, slots=True)
class TurnFinished(Event):
    """A turn ended: ``messages`` are what it added after the user's message, in order (tool
    calls, results, the answer), as they were committed to the history."""

    run_id: str
    user_text: str
    messages: tuple[Message, ...]
    response: ChatResponse


@dataclass(frozen=True, slots=True)
class ConversationChanged(Event):
    """The conversation being shown and continued changed (``""``: a new chat not yet saved)."""

    conversation_id: str


ConversationsChangeKind = Literal["created", "updated", "renamed", "deleted", "restored", "purged"]


@dataclass(frozen=True, slots=True)
class MemoriesChanged(Event):
    """The user's memory changed (a fact added, edited or forgotten): Settings → Memory refreshes."""


@dataclass(frozen=True, slots=True)
class ConversationsChanged(Event):
    """The saved conversations changed: one was created, updated (messages added or removed),
    renamed, deleted (undoably), restored or purged. The history list refreshes on it.

    Not ``ConversationChanged``, which says which conversation the chat shows. The store emits
    it after the write is committed, on the thread that wrote (its ``*_async`` twins hand it
    back to the loop's thread); a second store on the same file does not announce to this bus.
    """

    kind: ConversationsChangeKind
    conversation_id: str


@dataclass(frozen=True, slots=True)
class WorkflowUpdate(Event):
    """The whole research plan as it stands (spec 001 WORKFLOW_UPDATE)."""

    plan: dict[str, Any]


VoiceStateName = Literal["started", "transcribing", "partial", "result", "end", "error", "level"]


@dataclass(frozen=True, slots=True)
class VoiceState(Event):
    """Voice capture and transcription (spec 001 VOICE_* messages)."""

    state: VoiceStateName
    transcript: str = ""
    is_final: bool = False
    error: str = ""
    level: float = 0.0
    retryable: bool = False  # an error whose recording is kept: VoiceSession.retry() can transcribe it
    # Where the user fixes the error (``errors.Remedy.as_json()``); each face words it.
    remedy: dict[str, str] = field(default_factory=dict)
    language: str = ""  # of a result: the language spoken (detected by a multilingual model)


@dataclass(frozen=True, slots=True)
class ModelDownloadProgress(Event):
    """A speech model downloading (``core.voice.models.bus_progress``): ``done`` of ``total`` bytes;
    ``finished`` on the last one."""

    model: str
    done: int
    total: int
    finished: bool = False


ConversationStateName = Literal["listening", "thinking", "speaking", "idle"]


@dataclass(frozen=True, slots=True)
class ConversationState(Event):
    """Conversation mode (``core.voice.conversation``): what Jawad does now. ``idle`` ends it,
    with ``reason`` (``"stop-word"``, ``"stopped"``, ``"silence"``, ``"error"``, ``"once"``);
    ``barge_in`` marks a ``listening`` that began by the user speaking over the reply."""

    state: ConversationStateName
    reason: str = ""
    barge_in: bool = False
    error: str = ""


@dataclass(frozen=True, slots=True)
class TestResult(Event):
    """A provider's Test Connection result (spec 001 TEST_RESULT)."""

    __test__ = False  # not a pytest test class

    provider: str
    success: bool
    error: str = ""
    latency_ms: float = 0.0
    remedy: dict[str, str] = field(default_factory=dict)  # as on ``VoiceState``


@dataclass(frozen=True, slots=True)
class RetryNotice(Event):
    """The LLM client is about to retry a request."""

    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """A message for the user that is not an answer (status bar or inline banner)."""

    level: Literal["info", "warning", "error"]
    text: str


@dataclass(frozen=True, slots=True)
class AgentStep(Event):
    """Where a run is (spec 002's activity stream): asking the model, or running a tool.

    ``iteration`` counts model requests from 1 up to ``max_iterations``; ``tool_name`` is
    set while a tool runs, with ``doing``, what it does in words. The window shows it as
    'Step 3 of 10: clicking "Add to cart"'.
    """

    run_id: str
    state: Literal["thinking", "tool"]
    iteration: int
    max_iterations: int
    tool_name: str = ""
    doing: str = ""  # what the tool does, in words: 'clicking "Add to cart"' (``core.agent.step_words``)


@dataclass(frozen=True, slots=True)
class LibraryProgress(Event):
    """The document library's indexing (``core.tools.files.library``): ``done`` of ``total`` files
    looked at, the one being read; ``finished`` once (with ``cancelled`` when stopped), and
    ``summary`` in words then ("12 files indexed, 1 could not be read")."""

    done: int
    total: int
    current: str = ""
    finished: bool = False
    cancelled: bool = False
    summary: str = ""


@dataclass(frozen=True, slots=True)
class ComparisonDelta(Event):
    """Side ``side`` (0 or 1) of a side-by-side comparison streamed ``text`` (``core.compare``)."""

    compare_id: str
    side: int
    text: str


@dataclass(frozen=True, slots=True)
class ComparisonFinished(Event):
    """Side ``side`` of a comparison ended (``label``: its provider and model)."""

    compare_id: str
    side: int
    label: str
    response: ChatResponse


@dataclass(frozen=True, slots=True)
class ProjectsChanged(Event):
    """A project was added, changed or removed (``core.store.projects``)."""


@dataclass(frozen=True, slots=True)
class TasksChanged(Event):
    """A scheduled task was added, changed or removed (``core.tasks.task_store``)."""


@dataclass(frozen=True, slots=True)
class TaskRunFinished(Event):
    """A scheduled task's run ended (``core.tasks.runner``): ``outcome`` done, stopped (it needed
    something outside its approved scope: ``reason`` says what) or failed (``reason`` says why)."""

    task_id: int
    name: str
    outcome: Literal["done", "stopped", "failed"]
    answer: str = ""
    reason: str = ""


Subscriber = Callable[[Event], None]


class EventBus:
    """Fan-out of events to subscribers, synchronously, in order."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: Event) -> None:
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:
                log.exception("event subscriber %r failed on %s", callback, type(event).__name__)
