"""Saving a conversation as it happens, from the events the core announces.

The window and every command that saves (``jawad ask``, ``jawad research``) use this one
recorder: the user's message is saved when a turn starts (``TurnStarted``), before the model
is asked, as typed, with the files attached to it in its metadata (``{"files": [...]}``, what the
model was given of each, so a conversation opened again still has them); the turn's other
messages (tool calls, tool results, the answer) when it ends
(``TurnFinished``, with exactly the messages the agent committed); every action-log entry as
it is decided (``ActionLogUpdate``). A kill at any moment therefore loses at most the answer
being streamed. The turn's last message carries what the turn used (``{"usage": {...}}``: its
tokens, cost and model, from the ``ChatResponse`` metadata), which the history sums. A new
conversation is announced as ``ConversationChanged``; a failure to save is told to the user as
a ``Notice`` and never stops the turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversation_records import USAGE_KEYS
from jawad_desktop.core.store.conversations import ConversationStore

log = logging.getLogger("jawad.store.recorder")


class ConversationRecorder:
    """Writes the events of one conversation at a time to a ``ConversationStore``.

    ``conversation_id`` is None until the first message creates the conversation; ``follow``
    switches to another one (opened from the history) and ``new_conversation`` starts afresh.
    """

    def __init__(self, store: ConversationStore, bus: ev.EventBus, conversation_id: str | None = None) -> None:
        self.store = store
        self.bus = bus
        self.conversation_id = conversation_id
        self.project_id: str | None = None  # the project a new conversation starts in
        self._unsubscribe: Callable[[], None] = bus.subscribe(self._on_event)

    def close(self) -> None:
        """Stop recording (the store is closed by its owner)."""
        self._unsubscribe()

    def follow(self, conversation_id: str | None) -> None:
        self.conversation_id = conversation_id

    def new_conversation(self) -> None:
        self.conversation_id = None

    # -- events -----------------------------------------------------------------------------

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            if event.local:  # /help, /tools, /clear: no conversation to keep
                return
            self._save("This message could not be saved: ", self.user_message, event.user_text, event.files)
        elif isinstance(event, ev.TurnFinished):
            self._save("The answer could not be saved: ", self.turn_messages, event.messages,
                       event.response.interrupted, usage_of(event.response.metadata))
        elif isinstance(event, ev.ActionLogUpdate) and self.conversation_id is not None:
            try:
                self.store.record_action(self.conversation_id, event.entry)
            except JawadError as exc:
                log.warning("action log entry not saved: %s", exc.message)

    def _save(self, what: str, save: Callable[..., object], *args: object) -> None:
        try:
            save(*args)
        except JawadError as exc:
            log.warning("%s%s", what, exc.message)
            self.bus.emit(ev.Notice(level="error", text=what + exc.user_text()))

    # -- saving -----------------------------------------------------------------------------

    def user_message(self, text: str, files: Sequence[dict[str, Any]] = ()) -> str:
        """Save the user's message (creating the conversation first), with what the model was
        given of its attached ``files`` in its metadata (``{"files": [...]}``); returns its id."""
        created = self.conversation_id is None
        if self.conversation_id is None:
            self.conversation_id = self.store.create(project_id=self.project_id).id
        self.store.append_message(self.conversation_id, Message(role="user", content=text),
                                  metadata={"files": list(files)} if files else None)
        if created:
            self.bus.emit(ev.ConversationChanged(conversation_id=self.conversation_id))
        return self.conversation_id

    def turn_messages(self, messages: tuple[Message, ...], interrupted: bool = False,
                      usage: dict[str, Any] | None = None) -> None:
        """Save what a turn added after the user's message (already saved); the last one
        carries the turn's ``usage`` (see ``usage_of``)."""
        if self.conversation_id is None:
            return
        for message in messages:
            metadata: dict[str, Any] = {}
            if message is messages[-1]:
                metadata = {**({"interrupted": True} if interrupted else {}), **({"usage": usage} if usage else {})}
            self.store.append_message(self.conversation_id, message, metadata=metadata or None)


def usage_of(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a turn used, from its ``ChatResponse`` metadata (``USAGE_KEYS``); None when it used no
    tokens (a slash command, a failure before the model answered)."""
    usage = {key: metadata[key] for key in USAGE_KEYS if key in metadata}
    tokens = sum(v for k in ("input_tokens", "output_tokens") if isinstance(v := usage.get(k), int))
    return usage if tokens > 0 else None
