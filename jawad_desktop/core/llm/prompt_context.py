"""Prompt context (spec 003): static messages and providers that produce context at each
request, merged into the conversation the model sees.

``PromptContexts`` holds both kinds; ``ContextualClient`` wraps any chat client (an
``LLMClient`` or anything with the same ``chat``) so that every request carries the
context: system pieces are appended to the system message, user and assistant pieces are
placed just before the latest user message. A provider that fails costs its context, not
the request. The agent, research and ``jawad ask`` can use the wrapper unchanged.

Usage::

    contexts = PromptContexts()
    contexts.add("system", "The user's name is Sam.")
    contexts.add_provider(ClipboardContext())          # has async generate_context()
    client = ContextualClient(make_client(...), contexts)
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Protocol, runtime_checkable

from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.messages import Message

log = logging.getLogger("jawad.llm.context")

__all__ = ["ContextualClient", "FunctionContext", "PromptContext", "PromptContextProvider", "PromptContexts"]

ContextRole = Literal["system", "user", "assistant"]
_ROLES = {"system": "system", "human": "user", "user": "user", "assistant": "assistant"}


@dataclass(frozen=True, slots=True)
class PromptContext:
    """One piece of context: spec 003's message type (system, human/user, assistant) and text."""

    role: ContextRole
    content: str


@runtime_checkable
class PromptContextProvider(Protocol):
    """Produces context at each request (the page, the clipboard, the time, a memory...)."""

    async def generate_context(self) -> list[PromptContext]: ...


class FunctionContext:
    """A provider from a function (sync or async) returning text: one ``role`` piece, or
    nothing when it returns an empty string."""

    def __init__(self, fn: Callable[[], str | Awaitable[str]], role: str = "system") -> None:
        self.fn = fn
        self.role: ContextRole = _role(role)

    async def generate_context(self) -> list[PromptContext]:
        value = self.fn()
        text = await value if inspect.isawaitable(value) else value
        return [PromptContext(self.role, text)] if text else []


def _role(role: str) -> ContextRole:
    try:
        return _ROLES[role]  # type: ignore[return-value]
    except KeyError:
        raise ValueError(f"A prompt context is system, human (user) or assistant, not {role!r}") from None


class PromptContexts:
    """Static context and context providers, merged in the order they were added."""

    def __init__(self) -> None:
        self._items: list[PromptContext | PromptContextProvider] = []

    def add(self, role: str, content: str) -> None:
        """Static context, sent with every request."""
        if content.strip():
            self._items.append(PromptContext(_role(role), content))

    def add_provider(self, provider: PromptContextProvider) -> None:
        """Dynamic context, asked for at every request."""
        self._items.append(provider)

    def __len__(self) -> int:
        return len(self._items)

    async def collect(self) -> list[PromptContext]:
        """Every piece of context now; providers run concurrently, a failing one is skipped."""
        providers = [item for item in self._items if not isinstance(item, PromptContext)]
        results = await asyncio.gather(*(p.generate_context() for p in providers), return_exceptions=True)
        produced: dict[int, list[PromptContext]] = {}
        for provider, result in zip(providers, results, strict=True):
            if isinstance(result, asyncio.CancelledError):
                raise result
            if isinstance(result, BaseException):
                log.warning("the prompt context provider %r failed (%s); continuing without it",
                            provider, f"{type(result).__name__}: {result}")
                continue
            produced[id(provider)] = [c for c in result if isinstance(c, PromptContext) and c.content]
        out: list[PromptContext] = []
        for item in self._items:
            out.extend([item] if isinstance(item, PromptContext) else produced.get(id(item), []))
        return out

    @staticmethod
    def apply(messages: list[Message], contexts: list[PromptContext]) -> list[Message]:
        """``messages`` with ``contexts`` merged in (the input list is not changed)."""
        if not contexts:
            return list(messages)
        system = "\n\n".join(c.content for c in contexts if c.role == "system")
        turns = [Message(role=c.role, content=c.content) for c in contexts if c.role != "system"]
        out = list(messages)
        if system:
            if out and out[0].role == "system":
                out[0] = Message(role="system", content=f"{out[0].content}\n\n{system}" if out[0].content else system)
            else:
                out.insert(0, Message(role="system", content=system))
        if turns:
            last_user = max((i for i, m in enumerate(out) if m.role == "user"), default=len(out))
            out[last_user:last_user] = turns
        return out


class ContextualClient:
    """A chat client whose every request carries ``contexts``; everything else is the
    wrapped client's (``model``, ``provider``, ``list_models``, ``aclose``...)."""

    def __init__(self, client: Any, contexts: PromptContexts) -> None:
        self.client = client
        self.contexts = contexts

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def chat(self, messages: list[Message], tools: list[dict[str, Any]] | None = None, **kwargs: Any) -> _ContextStream:
        return _ContextStream(self, list(messages), tools, kwargs)

    async def __aenter__(self) -> ContextualClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        close = getattr(self.client, "aclose", None)
        if close is not None:
            await close()


class _ContextStream:
    """A ``ChatStream`` that gathers the context before the request starts."""

    def __init__(self, owner: ContextualClient, messages: list[Message], tools: list[dict[str, Any]] | None,
                 kwargs: dict[str, Any]) -> None:
        self._owner = owner
        self._messages = messages
        self._tools = tools
        self._kwargs = kwargs
        self._inner: Any = None
        self._cancelled = False

    async def _start(self) -> Any:
        if self._inner is None:
            contexts = await self._owner.contexts.collect()
            messages = PromptContexts.apply(self._messages, contexts)
            self._inner = self._owner.client.chat(messages, self._tools, **self._kwargs)
            if self._cancelled:
                self._inner.cancel()
        return self._inner

    def __aiter__(self) -> AsyncIterator[StreamDelta]:
        return self

    async def __anext__(self) -> StreamDelta:
        if self._cancelled and self._inner is None:
            raise StopAsyncIteration
        inner = await self._start()
        delta: StreamDelta = await inner.__anext__()
        return delta

    async def response(self) -> ChatResponse:
        if self._cancelled and self._inner is None:
            return ChatResponse(finish_reason="interrupted", interrupted=True)
        inner = await self._start()
        result: ChatResponse = await inner.response()
        return result

    def cancel(self) -> None:
        self._cancelled = True
        if self._inner is not None:
            self._inner.cancel()

    @property
    def interrupted(self) -> bool:
        return bool(getattr(self._inner, "interrupted", self._cancelled))

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
        else:
            self._cancelled = True

    async def __aenter__(self) -> _ContextStream:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
