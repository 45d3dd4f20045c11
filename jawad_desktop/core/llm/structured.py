"""Structured generation (spec 003): an answer that is a validated pydantic object.

``generate_structured(client, messages, PlanDraft)`` asks for JSON following the model's
JSON schema: through the provider's schema mode where it has one (OpenAI and OpenRouter
``response_format``, the Responses API's ``text.format``, Gemini's ``responseSchema``,
Ollama's ``format``; ``client.supports_schema``), and always with the schema in the
prompt, so clients without a schema mode (Anthropic, OpenAI-compatible servers, a scripted
test client with only ``chat``) get the same result. The answer is read tolerantly (code
fences and prose around the object are ignored), validated with pydantic, and on failure
the validation problems go back to the model for another try.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message

log = logging.getLogger("jawad.llm.structured")

__all__ = ["StructuredOutputError", "StructuredResult", "extract_json", "generate_structured", "schema_instruction"]

M = TypeVar("M", bound=BaseModel)


class _Stream(Protocol):
    async def response(self) -> ChatResponse: ...


class _ChatClient(Protocol):
    def chat(self, messages: list[Message], tools: list[dict[str, Any]] | None = None, *, stream: bool = True,
             temperature: float | None = None, max_tokens: int | None = 4096) -> Any: ...


class StructuredOutputError(JawadError):
    """The model did not produce a valid object in the attempts allowed; ``problems`` says why."""

    def __init__(self, message: str, *, problems: list[str], last_answer: str, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.problems = problems
        self.last_answer = last_answer


@dataclass
class StructuredResult(Generic[M]):
    """The validated object and spec 003's metadata (summed over the attempts)."""

    value: M
    attempts: int
    metadata: dict[str, Any] = field(default_factory=dict)


def schema_instruction(schema: dict[str, Any]) -> str:
    return ("Answer with ONLY one JSON object that follows this JSON schema: no prose, no code fence.\n"
            f"JSON schema: {json.dumps(schema, ensure_ascii=False)}")


def extract_json(text: str) -> Any:
    """The first JSON object in ``text`` (code fences and prose around it ignored).

    Raises ``ValueError`` when there is none.
    """
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(stripped, start)
            return value
        except ValueError:
            start = stripped.find("{", start + 1)
    raise ValueError("the answer contains no JSON object")


def _problems(exc: ValidationError) -> list[str]:
    out = []
    for error in exc.errors(include_url=False)[:8]:
        where = ".".join(str(p) for p in error.get("loc", ())) or "the object"
        out.append(f"{where}: {error.get('msg', 'invalid')}")
    return out


def _with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    if messages and messages[0].role == "system":
        first = messages[0]
        return [Message(role="system", content=f"{first.content}\n\n{instruction}"), *messages[1:]]
    return [Message(role="system", content=instruction), *messages]


async def generate_structured(
    client: _ChatClient,
    messages: list[Message],
    model_cls: type[M],
    *,
    max_attempts: int = 3,
    temperature: float | None = 0.2,
    max_tokens: int | None = 2048,
    prepare: Callable[[Any], Any] | None = None,
) -> StructuredResult[M]:
    """Ask ``client`` for a ``model_cls`` object; validated, with retries on invalid answers.

    ``prepare`` may repair the decoded JSON before validation (a tolerant reader: wrap a
    bare list, coerce "3" to 3); raising ``ValueError`` there counts as an invalid answer.

    ``LLMError`` from the provider passes through unchanged (it is already friendly);
    ``StructuredOutputError`` when every attempt gave an unusable answer.
    """
    schema = model_cls.model_json_schema()
    history = _with_instruction(list(messages), schema_instruction(schema))
    chat_structured = getattr(client, "chat_structured", None)
    problems: list[str] = []
    answer = ""
    totals: dict[str, Any] = {"api_calls": 0, "input_tokens": 0, "output_tokens": 0}
    last_meta: dict[str, Any] = {}
    for attempt in range(1, max(1, max_attempts) + 1):
        if chat_structured is not None:
            stream = chat_structured(history, schema, temperature=temperature, max_tokens=max_tokens)
        else:
            stream = client.chat(history, None, stream=False, temperature=temperature, max_tokens=max_tokens)
        response: ChatResponse = await stream.response()
        answer = response.content
        last_meta = dict(response.metadata)
        for key in totals:
            value = response.metadata.get(key)
            if isinstance(value, int):
                totals[key] += value
        try:
            decoded = extract_json(answer)
            value = model_cls.model_validate(prepare(decoded) if prepare is not None else decoded)
        except ValueError as exc:  # ValidationError is a ValueError too
            problems = _problems(exc) if isinstance(exc, ValidationError) else [str(exc)]
            log.info("structured answer %d of %d unusable: %s", attempt, max_attempts, "; ".join(problems))
            history = [*history, Message(role="assistant", content=answer), Message(role="user", content=(
                "That answer cannot be used: " + "; ".join(problems)
                + ". Answer again with only the corrected JSON object."))]
            continue
        metadata = {**last_meta, **totals, "structured_attempts": attempt}
        metadata["total_tokens"] = totals["input_tokens"] + totals["output_tokens"]
        return StructuredResult(value=value, attempts=attempt, metadata=metadata)
    raise StructuredOutputError(
        f"The model did not give a usable answer in {max_attempts} tries (last problem: {'; '.join(problems)}).",
        suggestions=["Try again.", "A more capable model follows formats better: choose another model."],
        # A scripted client has no provider: the remedy then names none.
        remedy=Remedy("provider-model", str(getattr(getattr(client, "provider", None), "name", "") or "")),
        problems=problems, last_answer=answer,
    )
