"""Saving a conversation as it happens: the window and ``jawad ask`` share this.

The user's message is saved before the model is asked; the turn's other messages (tool calls,
tool results, the answer) when the turn ends; every action-log entry as it is decided. A kill
at any moment therefore loses at most the answer being streamed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.llm.types import Message
from jawad_desktop.core.store.conversations import ConversationStore

log = logging.getLogger("jawad.store.recorder")


class TurnRecorder:
    """Writes one conversation's messages to a ``ConversationStore``.

    ``conversation_id`` is None until the first message creates the conversation.
    Store failures raise ``JawadError`` (the caller tells the user); nothing is retried silently.
    """

    def __init__(self, store: ConversationStore, conversation_id: str | None = None) -> None:
        self.store = store
        self.conversation_id = conversation_id

    def user_message(self, text: str) -> str:
        """Save the user's message (creating the conversation first); returns the conversation id."""
        if self.conversation_id is None:
            self.conversation_id = self.store.create().id
        self.store.append_message(self.conversation_id, Message(role="user", content=text))
        return self.conversation_id

    def turn_messages(self, messages: Sequence[Message], user_text: str, *, interrupted: bool = False) -> None:
        """Save what the turn added after the user's message (already saved)."""
        if self.conversation_id is None:
            return
        rest = list(messages)
        if rest and rest[0].role == "user" and rest[0].content == user_text:
            rest = rest[1:]
        for message in rest:
            metadata = {"interrupted": True} if interrupted and message is rest[-1] else None
            self.store.append_message(self.conversation_id, message, metadata=metadata)

    def action(self, entry: ActionLogEntry) -> None:
        if self.conversation_id is not None:
            self.store.record_action(self.conversation_id, entry)


def new_messages(before: Sequence[Message], after: Sequence[Message]) -> list[Message]:
    """The messages of ``after`` that were not in ``before`` (by identity: history trims)."""
    seen = {id(m) for m in before}
    return [m for m in after if id(m) not in seen]
