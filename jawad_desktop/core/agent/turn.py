"""What one turn of the agent carries between its phases (``core.agent.session``): the client
protocol the agent needs, the turn's state (``Turn``), the tools offered in it (``OfferedTools``),
one step's request and answer (``Step``), and the small readings the phases share (the page for the
prompt, the model's key, a remedy as metadata, whether an argument came from the page)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from jawad_desktop.core.agent.confirm import PageConfirmation
from jawad_desktop.core.agent.loop_guard import RepeatGuard
from jawad_desktop.core.agent.usage import RunUsage
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tools.files.extract import ExtractedFile
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession

log = logging.getLogger("jawad.agent")


class ChatStreamLike(Protocol):
    def __aiter__(self) -> AsyncIterator[StreamDelta]: ...

    async def response(self) -> ChatResponse: ...


class ChatClient(Protocol):
    """What the agent needs of ``core.llm.client.LLMClient``."""

    def chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        stream: bool = True,
        temperature: float | None = None,
        max_tokens: int | None = 4096,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Any: ...


ModelKey = tuple[str, str, str]  # provider kind, base URL, model: what a tool format is remembered for


async def page_state(browser: BrowserSession | None) -> tuple[PageContext | None, dict[str, Any] | None]:
    """The current page and the page cache's last product, for the system prompt. A page that
    cannot be read costs the context, not the turn."""
    if browser is None:
        return None, None
    try:
        page = await browser.page_context()
        product = await browser.last_product()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("the page could not be read for the prompt; continuing without it")
        return None, None
    return page, product


def resolve_client(source: ChatClient | Callable[[], ChatClient]) -> ChatClient:
    """A client, or a factory of one (called each time, so a provider change applies)."""
    if hasattr(source, "chat"):
        return source
    assert callable(source)
    return source()


def model_key(client: ChatClient | None) -> ModelKey:
    key = getattr(client, "model_key", None)
    return key if isinstance(key, tuple) and len(key) == 3 else ("", "", "")


def remedy_metadata(remedy: Remedy | None) -> dict[str, Any]:
    """A response's metadata for ``remedy``: plain JSON, as metadata is saved and printed."""
    return {"remedy": remedy.as_json()} if remedy is not None else {}


@dataclass
class Turn:
    """The state of one run: pending messages, what was shown, counters."""

    run_id: str
    user_text: str
    pending: list[Message] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    iterations: int = 0
    invalid_rounds: int = 0
    deny_all: bool = False
    tool_calls: int = 0
    started: float = field(default_factory=time.monotonic)
    usage_in: int = 0
    usage_out: int = 0
    spent: RunUsage = field(default_factory=RunUsage)  # tokens and cost, against the run's budget
    llm_metadata: dict[str, Any] = field(default_factory=dict)  # the last response's, api_calls summed
    force_tool: str | None = None  # the tool the first request must call (/summarize)
    committed: list[Message] = field(default_factory=list)
    confirmation: PageConfirmation = field(default_factory=PageConfirmation)  # check the page before answering
    repeats: RepeatGuard = field(default_factory=RepeatGuard)  # the same call, the same result: stop
    plan_first: bool = False  # propose a plan and wait for the user's approval before acting
    files: list[tuple[str, ExtractedFile]] = field(default_factory=list)  # attached to the message: (name, file)

    def shown_text(self) -> str:
        return "\n\n".join(part for part in self.shown if part.strip())


@dataclass(frozen=True)
class OfferedTools:
    """The tools offered in this turn: their names, the registry, and their schemas as sent."""

    names: frozenset[str]
    offered: ToolRegistry
    spec: list[dict[str, Any]]


@dataclass
class Step:
    """One step's request and what was read of its answer."""

    page: PageContext | None
    response: ChatResponse
    hold: bool  # the answer waits for the page's check before it is shown
    clean: str = ""  # the answer's text without the calls written in it
    text_format: bool = False  # the calls came written in text, not as native tool calls


def from_page(parameters: dict[str, Any], user_text: str, page: PageContext | None) -> bool:
    """Whether a text argument was taken from the page rather than from the user's words.

    A hint for the permission prompt (prompt injection, spec issue 5): a string of some
    length that appears in the page but not in what the user typed.
    """
    if page is None:
        return False
    haystack = f"{page.markdown}\n{page.interactive_elements}".lower()
    said = user_text.lower()
    for value in parameters.values():
        if isinstance(value, str) and len(value.strip()) >= 4:
            needle = value.strip().lower()
            if needle in haystack and needle not in said:
                return True
    return False
