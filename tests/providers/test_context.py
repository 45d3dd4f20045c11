"""Prompt context providers: static and dynamic context reaches the provider with each
request (checked on the loopback Ollama server), a failing provider is skipped, and the
wrapper keeps the chat surface (streaming, cancel)."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.llm.prompt_context import ContextualClient, FunctionContext, PromptContext, PromptContexts
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from tests.providers.test_providers import HELLO, client
from tests.servers.provider_servers import ANSWER, ProviderServer


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    async def generate_context(self) -> list[PromptContext]:
        self.calls += 1
        return [PromptContext("user", f"(context round {self.calls})")]


class Broken:
    async def generate_context(self) -> list[PromptContext]:
        raise RuntimeError("clipboard unavailable")


def test_static_and_dynamic_context_reach_the_provider(provider_server: ProviderServer, arun: Any) -> None:
    contexts = PromptContexts()
    contexts.add("system", "The user's name is Sam.")
    counter = Counter()
    contexts.add_provider(counter)
    contexts.add_provider(Broken())
    contexts.add_provider(FunctionContext(lambda: "The open page is example.com.", role="system"))

    async def run() -> tuple[str, str]:
        async with ContextualClient(client(provider_server, ProviderKind.OLLAMA_NATIVE), contexts) as c:
            texts = []
            async with c.chat(HELLO) as stream:
                async for delta in stream:
                    texts.append(delta.text)
            second = await c.chat(HELLO, stream=False).response()
            return "".join(texts), second.content

    streamed, whole = arun(run())
    assert streamed == ANSWER and whole == ANSWER and counter.calls == 2
    assert provider_server.last("ollama")["body"]["messages"] == [
        {"role": "system", "content": "Be brief.\n\nThe user's name is Sam.\n\nThe open page is example.com."},
        {"role": "user", "content": "(context round 2)"},
        {"role": "user", "content": "Hello?"},
    ]


def test_apply_without_system_message_and_history() -> None:
    messages = [Message(role="user", content="first"), Message(role="assistant", content="answer"),
                Message(role="user", content="second")]
    merged = PromptContexts.apply(messages, [PromptContext("system", "S"), PromptContext("assistant", "A")])
    assert [(m.role, m.content) for m in merged] == [
        ("system", "S"), ("user", "first"), ("assistant", "answer"), ("assistant", "A"), ("user", "second")]
    assert [m.content for m in messages] == ["first", "answer", "second"]  # not changed in place
    with pytest.raises(ValueError, match="system, human"):
        PromptContexts().add("robot", "x")


def test_cancel_before_start(provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> ChatResponse:
        c = ContextualClient(client(provider_server, ProviderKind.OLLAMA_NATIVE), PromptContexts())
        stream = c.chat(HELLO)
        stream.cancel()
        response = await stream.response()
        await c.client.aclose()
        return response

    response = arun(run())
    assert response.interrupted and response.content == ""
