"""Structured generation against each provider's loopback server: the schema mode each
provider has is used, invalid answers are retried with the problems, and the result is a
validated pydantic object."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.llm.structured import StructuredOutputError, extract_json, generate_structured
from jawad_desktop.core.messages import Message
from tests.providers.test_providers import ALL, KINDS, client
from tests.servers.provider_servers import PLAN, ProviderServer


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")  # its schema then says additionalProperties: false

    title: str
    steps: list[str] = Field(min_length=1)


ASK = [Message(role="system", content="You plan research."), Message(role="user", content="Compare phones")]


@pytest.mark.parametrize("kind", ALL)
def test_schema_mode_and_validation(kind: ProviderKind, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> Any:
        async with client(provider_server, kind, "json") as c:
            return await generate_structured(c, ASK, Plan)

    result = arun(run())
    assert result.value == Plan(**PLAN) and result.attempts == 1
    assert result.metadata["api_calls"] == 1 and result.metadata["provider_kind"] == kind.value
    body = provider_server.last(KINDS[kind])["body"]
    schema = Plan.model_json_schema()
    if kind is ProviderKind.GEMINI:
        assert body["generationConfig"]["responseMimeType"] == "application/json"
        assert body["generationConfig"]["responseSchema"]["required"] == ["title", "steps"]
        assert "additionalProperties" not in body["generationConfig"]["responseSchema"]  # Gemini refuses it
    elif kind is ProviderKind.OPENAI_RESPONSES:
        assert body["text"]["format"]["type"] == "json_schema" and body["text"]["format"]["schema"] == schema
        assert body["stream"] is False
    elif kind is ProviderKind.OLLAMA_NATIVE:
        assert body["format"] == schema
    else:  # Anthropic has no schema mode: the schema is in the system prompt
        assert "JSON schema" in body["system"] and '"steps"' in body["system"]


@pytest.mark.parametrize("kind", ALL)
def test_invalid_answer_is_retried_with_the_problem(kind: ProviderKind, provider_server: ProviderServer,
                                                    arun: Any) -> None:
    async def run() -> Any:
        async with client(provider_server, kind, "json-flaky") as c:
            return await generate_structured(c, ASK, Plan)

    result = arun(run())
    assert result.value.steps == PLAN["steps"] and result.attempts == 2 and result.metadata["api_calls"] == 2
    request = provider_server.last(KINDS[kind])["body"]
    assert "cannot be used" in str(request)  # the problem went back to the model


def test_gives_up_with_a_friendly_error(provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> StructuredOutputError:
        async with client(provider_server, ProviderKind.OLLAMA_NATIVE, "ok") as c:
            try:
                await generate_structured(c, ASK, Plan, max_attempts=2)
            except StructuredOutputError as exc:
                return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert "in 2 tries" in exc.message and exc.suggestions and exc.last_answer.startswith("Hello")


def test_extract_json() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Here it is: {"a": {"b": [1, 2]}} hope it helps') == {"a": {"b": [1, 2]}}
    assert extract_json('{bad} then {"ok": true}') == {"ok": True}
    with pytest.raises(ValueError):
        extract_json("no object here")


def test_prepare_repairs_before_validation(provider_server: ProviderServer, arun: Any) -> None:
    def prepare(value: Any) -> Any:
        return {**value, "steps": [s.upper() for s in value["steps"]]}

    async def run() -> Any:
        async with client(provider_server, ProviderKind.OLLAMA_NATIVE, "json") as c:
            return await generate_structured(c, ASK, Plan, prepare=prepare)

    assert arun(run()).value.steps == [s.upper() for s in PLAN["steps"]]
