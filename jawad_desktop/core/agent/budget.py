"""How the agent spends a model's context window: ``ContextBudget``.

One request holds the system prompt (rules, tools, the page), the history, this turn's
messages (tool results among them) and, after it, the answer. Given the model's window
(``core.llm.context_window``) and the answer's ``max_tokens``, the budget says:

- ``answer``: the ``max_tokens`` sent (the setting, but at most a quarter of the window, so a
  small model still has room to read);
- a margin of an eighth of the window for what counting cannot see (the chat template, the
  tools' schemas as the provider renders them, an estimate's error for a model whose tokenizer
  is not known: ``core.tokens``);
- ``input``: the tokens the prompt may take (the window less the answer and the margin);
- ``history``: the budget of the conversation history (trimmed for the system prompt and
  this turn at each request), at most the user's ``history_token_budget``;
- ``page_chars``: the page text put in the system prompt and returned by ``read_page``;
- ``elements_chars``: the page's interactive elements in the system prompt;
- ``tool_result_chars``: the most of one tool result the model gets.

Small windows get small shares and big windows bigger ones, within fixed bounds: a page never
takes more than ``PAGE_CHARS_MAX`` whatever the window, so a long page does not cost every
request of a big model a fortune. The ``*_chars`` shares are sized in English (``CHARS_PER_TOKEN``
characters a token); where they are spent, the model's counter turns them into characters of
the text at hand (``TokenCounter.chars_for``), fewer in a script that costs more tokens, so each
share holds in every language.
"""

from __future__ import annotations

from dataclasses import dataclass

from jawad_desktop.core.tokens import CHARS_PER_TOKEN

__all__ = ["CHARS_PER_TOKEN", "ContextBudget"]

PAGE_SHARE = 0.12  # of the input, for the page text (it is in the prompt and may come back from read_page)
ELEMENTS_SHARE = 0.05
TOOL_RESULT_SHARE = 0.2
PAGE_CHARS_MIN, PAGE_CHARS_MAX = 1_500, 40_000
ELEMENTS_CHARS_MIN, ELEMENTS_CHARS_MAX = 600, 8_000
TOOL_RESULT_CHARS_MIN, TOOL_RESULT_CHARS_MAX = 2_000, 60_000
ANSWER_MIN = 256


def _clamp(value: float, low: int, high: int) -> int:
    return max(low, min(high, int(value)))


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """The shares of one model's window (see the module docstring)."""

    window: int
    answer: int
    input: int
    history: int
    page_chars: int
    elements_chars: int
    tool_result_chars: int

    @classmethod
    def for_window(cls, window: int, max_tokens: int, history_cap: int) -> ContextBudget:
        """The budget for a ``window``-token model answering in up to ``max_tokens``, with the
        history at most ``history_cap`` tokens (the user's setting)."""
        window = max(window, 1024)
        answer = min(max_tokens, max(ANSWER_MIN, window // 4))
        margin = max(128, window // 8)
        room = window - answer - margin
        chars = room * CHARS_PER_TOKEN
        return cls(
            window=window,
            answer=answer,
            input=room,
            history=max(256, min(history_cap, room)),
            page_chars=_clamp(chars * PAGE_SHARE, PAGE_CHARS_MIN, PAGE_CHARS_MAX),
            elements_chars=_clamp(chars * ELEMENTS_SHARE, ELEMENTS_CHARS_MIN, ELEMENTS_CHARS_MAX),
            tool_result_chars=_clamp(chars * TOOL_RESULT_SHARE, TOOL_RESULT_CHARS_MIN, TOOL_RESULT_CHARS_MAX),
        )
