"""The agent's own overhead: one loop iteration without model or tool time, and parsing.

- loop iteration: an ``AgentSession`` with 100 messages of history and 20 tools runs turns
  against an in-process client that answers at once (a tool call, then the answer) and
  tools that return at once; the time per model request is the agent's own work:
  building the prompt and messages, history trimming, streaming sanitiser, parsing,
  repair and validation, permission check, action-log events. Goal: <= 2 ms.
- parsing a 100 kB reply: ``parse_text_reply`` + ``clean_response`` on a 100 kB answer of
  prose, code and braces with calls in it (the work done on every reply). Goal: <= 5 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from pydantic import Field

from benchmarks import Figure
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.agent.textcalls import clean_response, parse_text_reply
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta, Usage
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolRegistry


class _InstantStream:
    def __init__(self, response: ChatResponse) -> None:
        self._response = response

    async def _deltas(self) -> AsyncIterator[StreamDelta]:
        text = self._response.content
        for start in range(0, len(text), 16):
            yield StreamDelta(text=text[start : start + 16])

    def __aiter__(self) -> AsyncIterator[StreamDelta]:
        return self._deltas()

    async def response(self) -> ChatResponse:
        return self._response


class _InstantClient:
    """Answers each request at once: a tool call, then a short answer, alternately."""

    def __init__(self) -> None:
        self.requests = 0

    def chat(self, messages: list[Message], tools: list[dict[str, Any]] | None = None, **_: Any) -> _InstantStream:
        self.requests += 1
        if self.requests % 2:
            call = ToolCall(id=f"c{self.requests}", name="tool_7", arguments='{"query": "shoes", "limit": 3}')
            response = ChatResponse(content="Let me look.", tool_calls=[call], usage=Usage(input_tokens=3000))
        else:
            response = ChatResponse(content="Here is **the answer** with a [link](https://example.com).",
                                    usage=Usage(input_tokens=3100))
        return _InstantStream(response)


def _registry() -> ToolRegistry:
    registry = basic_registry()
    for n in range(18):

        async def tool(
            query: Annotated[str, Field(description="What to look for")],
            limit: int = 5,
            exact: bool = False,
        ) -> str:
            return f"found {limit} results for {query}"

        registry.tool(tool, name=f"tool_{n}", description=f"Tool number {n}: looks things up.")
    return registry


def _history_messages() -> list[Message]:
    messages: list[Message] = []
    for i in range(50):
        messages.append(Message(role="user", content=f"Question {i}: " + "what about this product? " * 8))
        messages.append(Message(role="assistant", content=f"Answer {i}: " + "it costs $50 and ships fast. " * 12))
    return messages


class _StaticPage:
    """The browser session as the agent's prompt sees it: one page, no previous product."""

    def __init__(self, context: PageContext) -> None:
        self.context, self.page = context, None

    async def page_context(self) -> PageContext:
        return self.context

    async def last_product(self) -> None:
        return None


async def _loop_overhead(turns: int) -> list[float]:
    settings = Settings()
    settings.agent.history_max_messages = 200
    settings.agent.history_token_budget = 200_000
    page = PageContext(title="Shop", url="https://shop.example/item", markdown="# Item\n" + "text " * 1500,
                       product={"name": "Shoe", "price": "50"}, interactive_elements="[1] BUTTON \"Buy\" -> b")
    client = _InstantClient()
    session = AgentSession(client=client, registry=_registry(), settings=settings, bus=EventBus(),
                           browser=_StaticPage(page))  # type: ignore[arg-type]
    per_iteration: list[float] = []
    for _ in range(turns):
        session.history.clear()
        session.history.commit(_history_messages())
        assert len(session.history) == 100
        start = time.perf_counter()
        response = await session.run("find cheaper shoes")
        elapsed = time.perf_counter() - start
        assert not response.is_error and response.metadata["iterations"] == 2, response.content
        per_iteration.append(elapsed / 2 * 1000)
    return per_iteration


def _big_reply(size: int = 100_000) -> str:
    block = (
        "## Options\n\nHere are the cheaper alternatives I found, with prices in {USD} and notes "
        "[see](https://example.com/a?b=1). Compare a < b and c > d.\n\n"
        "```python\nprices = {\"a\": 1, \"b\": [1, 2, 3]}\nprint(prices)\n```\n\n"
        '- Item {"name": "Shoe", "price": 50}\n- Another <b>bold</b> claim\n\n'
    )
    parts: list[str] = []
    total = 0
    while total < size:
        parts.append(block)
        total += len(block)
    text = "".join(parts)[:size]
    return text[: size // 2] + '\n<tool_3 query="cheap shoes" />\n' + text[size // 2 :] + (
        '\n{"type": "tool_call", "name": "calculate", "arguments": {"expression": "2*3"}}')


def _parse_times(repeats: int) -> tuple[list[float], int]:
    names = _registry().all_names()
    reply = _big_reply()
    times: list[float] = []
    found = 0
    for _ in range(repeats):
        start = time.perf_counter()
        parsed = parse_text_reply(reply, names)
        clean_response(reply, names, parsed)
        times.append((time.perf_counter() - start) * 1000)
        found = len(parsed.calls)
    return times, found


def run(quick: bool) -> list[Figure]:
    turns = 20 if quick else 200
    loop = asyncio.new_event_loop()
    try:
        overhead = loop.run_until_complete(_loop_overhead(turns))
    finally:
        loop.close()
    steady = overhead[2:] if len(overhead) > 4 else overhead
    median = statistics.median(steady)
    parse, found = _parse_times(10 if quick else 50)
    parse_median = statistics.median(parse)
    return [
        Figure(name="agent loop overhead per iteration (100 msgs, 20 tools)", value=round(median, 3), unit="ms",
               goal="<= 2 ms", ok=median <= 2.0, note=f"median of {len(steady)} turns, p90 "
               f"{statistics.quantiles(steady, n=10)[-1]:.3f} ms"),
        Figure(name="parse + clean a 100 kB reply", value=round(parse_median, 3), unit="ms", goal="<= 5 ms",
               ok=parse_median <= 5.0, note=f"median of {len(parse)}, {found} calls found"),
    ]
