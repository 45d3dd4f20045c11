"""The conversation history the agent sends with each request (spec 000 and 002).

The system message is not stored here: the agent rebuilds it each iteration (it carries
the current page). What is stored is trimmed to the last ``max_messages`` messages and to a
token budget. Tokens are counted by the model's counter (``core.tokens``: exact for OpenAI's
models, an estimate per script for the others) and the count is corrected by what the
provider reports it actually counted. Trimming drops whole units from the oldest end:
a user message, or an assistant message together with the tool results that answer it, so
a tool call is never separated from its results. The most recent unit is always kept.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from jawad_desktop.core.messages import Message
from jawad_desktop.core.tokens import TokenCounter, counter_for

log = logging.getLogger("jawad.agent.history")

_MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per message, as chat templates add them
_CALL_OVERHEAD_TOKENS = 8  # a tool call's id, type and braces around its name and arguments


def estimate_tokens(messages: Iterable[Message], counter: TokenCounter | None = None) -> int:
    """The tokens of ``messages`` as ``counter`` counts them (default: the estimate per script),
    plus a little per message and per tool call.

    Additive: the count of a list is the sum of its messages' counts, so trimming
    unit by unit and counting the whole agree exactly.
    """
    counter = counter or counter_for()
    total = 0
    for message in messages:
        total += counter.count(message.content) + _MESSAGE_OVERHEAD_TOKENS
        for call in message.tool_calls:
            total += counter.count(call.name) + counter.count(call.arguments_json()) + _CALL_OVERHEAD_TOKENS
    return total


def units(messages: Sequence[Message]) -> list[list[Message]]:
    """The messages grouped into units trimming may drop: an assistant message with tool
    calls and the tool messages that follow it are one unit; every other message is its own."""
    grouped: list[list[Message]] = []
    for message in messages:
        if message.role == "tool" and grouped and _answers(grouped[-1], message):
            grouped[-1].append(message)
        else:
            grouped.append([message])
    return grouped


def _answers(unit: list[Message], message: Message) -> bool:
    head = unit[0]
    return head.role == "assistant" and bool(head.tool_calls)


class ConversationHistory:
    """The messages of past turns, trimmed by count and by a token budget.

    ``counter`` counts as the model does (``core.tokens.counter_for``: the agent sets it for
    the model of each run); the default is the estimate per script."""

    def __init__(self, max_messages: int = 100, token_budget: int = 24_000,
                 counter: TokenCounter | None = None) -> None:
        self.max_messages = max_messages
        self.token_budget = token_budget
        self.counter = counter or counter_for()
        self.correction = 1.0  # provider-reported tokens / our count, smoothed
        self._messages: list[Message] = []

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def clear(self) -> None:
        self._messages.clear()

    def restore(self, messages: Sequence[Message]) -> None:
        """Go back to ``messages`` (taken from ``messages`` before): a speculative turn dropped in
        conversation mode leaves no trace, even one that trimmed old messages."""
        self._messages = list(messages)

    def tokens(self, messages: Iterable[Message] | None = None) -> int:
        """Tokens of ``messages`` (default: the history), with the correction applied."""
        return int(estimate_tokens(self._messages if messages is None else messages, self.counter)
                   * self.correction)

    def commit(self, messages: Sequence[Message]) -> None:
        """Add the messages of a finished turn, then trim. System messages are not kept."""
        self._messages.extend(m for m in messages if m.role != "system")
        self.trim()

    def record_usage(self, estimated_tokens: int, reported_input_tokens: int | None) -> None:
        """Correct the estimate with the provider's count for a prompt we estimated."""
        if not reported_input_tokens or estimated_tokens <= 0:
            return
        raw_estimate = estimated_tokens / self.correction
        ratio = max(0.25, min(4.0, reported_input_tokens / raw_estimate))
        self.correction = 0.5 * self.correction + 0.5 * ratio

    def trim(self, reserve_tokens: int = 0) -> int:
        """Drop the oldest units until the count and the budget (less ``reserve_tokens``) hold.

        Returns how many messages were dropped. The newest unit stays even if it alone is over.
        """
        grouped = units(self._messages)
        count = len(self._messages)
        budget = max(0, self.token_budget - reserve_tokens)
        unit_tokens = [estimate_tokens(u, self.counter) for u in grouped]
        total = sum(unit_tokens)
        first = 0
        while first < len(grouped) - 1 and (count > self.max_messages or total * self.correction > budget):
            count -= len(grouped[first])
            total -= unit_tokens[first]
            first += 1
        # A history should not open with tool results (their call was dropped): never the case
        # with units, but an assistant reply whose user turn was dropped is fine to keep.
        dropped = sum(len(u) for u in grouped[:first])
        if dropped:
            self._messages = [m for u in grouped[first:] for m in u]
            log.debug("history trimmed: %d messages dropped, %d kept", dropped, len(self._messages))
        return dropped

    def for_request(self, pending: Sequence[Message], reserve_tokens: int = 0) -> list[Message]:
        """The history (trimmed for ``reserve_tokens`` more: system prompt, this turn) + pending."""
        self.trim(reserve_tokens + self.tokens(pending))
        return [*self._messages, *pending]

    def last_answer(self) -> str:
        """The content of the last assistant message without tool calls (for follow-ups)."""
        for message in reversed(self._messages):
            if message.role == "assistant" and not message.tool_calls and message.content.strip():
                return message.content
        return ""
