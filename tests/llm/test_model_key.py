"""``LLMClient.model_key``: the key the agent remembers a model's tool-call format under is
the key the client remembers what the model rejects under."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.llm import recovery
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.errors import ToolsRejectedError
from tests.llm.test_client_faults import HELLO, TOOLS, make_client
from tests.servers.fault_server import MODELS, FaultServer


def test_model_key_is_kind_base_url_and_model() -> None:
    provider = ProviderConfig(name="Home", kind=ProviderKind.OLLAMA, base_url="http://localhost:11434",
                              model="llama3.2")
    client = LLMClient(provider)
    # The base URL the client talks to (Ollama's OpenAI API under /v1), not the one typed.
    assert client.model_key == ("ollama", "http://localhost:11434/v1", "llama3.2")
    assert client.model_key == (provider.kind.value, client.base_url, client.model)


def test_what_a_call_learns_is_remembered_under_model_key(fault_server: FaultServer, arun: Any) -> None:
    client = make_client(fault_server.base_url, "tools-422")

    async def run() -> None:
        async with client:
            with pytest.raises(ToolsRejectedError):
                await client.chat(HELLO, TOOLS, tool_choice="auto").response()

    arun(run())
    assert {client.model_key} == recovery.TOOLS_UNSUPPORTED


def test_the_built_in_model_key_names_no_port() -> None:
    """What is learned about the built-in model outlives its server, which gets a new port at
    each start; a local provider with an address of its own keeps it in the key."""
    built_in = LLMClient(ProviderConfig(name="Built-in", kind=ProviderKind.LOCAL, model="smollm2"))
    built_in._base_url = "http://127.0.0.1:41234/v1"  # as set once its server has started
    assert built_in.model_key == ("local", "", "smollm2")
    elsewhere = LLMClient(ProviderConfig(name="Box", kind=ProviderKind.LOCAL, base_url="http://box:8080/v1",
                                         model="smollm2"))
    assert elsewhere.model_key == ("local", "http://box:8080/v1", "smollm2")


def test_model_key_names_the_model_picked_when_none_is_set(fault_server: FaultServer, arun: Any) -> None:
    client = make_client(fault_server.base_url, "")
    assert client.model_key[2] == ""  # not known before the first request

    async def run() -> None:
        async with client:
            await client.chat(HELLO).response()

    arun(run())
    assert client.model_key == ("openai-compatible", fault_server.base_url, MODELS[0])
