"""The interface a provider's chat API implements: ``ChatCall`` and ``LLMClient``'s hooks.

``LLMClient`` (``core.llm.client``) speaks OpenAI's chat completions and owns everything a chat
needs whatever the API: the HTTP client, retries, repairs after a refused parameter, tools
rejections, cancellation, timeouts and metadata. A provider with another API (Anthropic's
Messages, Gemini, OpenAI's Responses, Ollama's /api/chat, Bedrock's Converse) subclasses it and
overrides only these public hooks, each given the ``ChatCall`` being run:

- ``accumulator`` (class attribute): the ``StreamAccumulator`` that folds the API's answers,
  streamed or whole (``parse_whole``), into deltas and the final response;
- ``chat_path`` (class attribute), or ``chat_url(call)`` when the address depends on the call;
- ``request_headers()``: the headers of every request (authentication, API version);
- ``http_client()``: the HTTP client every request goes through (Bedrock signs its requests there);
- ``request_body(call)``: the JSON body of one attempt (``call.stream_now`` says whether to stream);
- ``stream_events(response)``: the events of a streamed answer, or None to read it whole;
- ``status_error(status, raw, headers)``: the ``LLMError`` for an HTTP error status;
- ``response_for(call, interrupted=...)``: the ``ChatResponse`` for what the call received;
- ``supports_schema`` (property): whether ``chat_structured`` may ask for a JSON schema;
- ``list_models()``: the models the provider offers, as its API lists them.

Nothing else of the client is meant to be overridden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.llm.wire import StreamAccumulator
from jawad_desktop.core.messages import Message

__all__ = ["ChatCall"]


@dataclass
class ChatCall:
    """One chat call as it runs: what the caller asked (the first six fields), then what the
    client fills in while it runs. A provider's client reads it in ``request_body`` (and may in
    ``chat_url`` and ``response_for``); ``send_tools``, ``stream_now`` and ``messages`` may have
    been changed by the client for this attempt (tools it learned the model refuses, an empty
    stream asked again whole, images a model refused left out)."""

    messages: list[Message]
    tools: list[dict[str, Any]] | None
    stream: bool
    temperature: float | None
    max_tokens: int | None
    tool_choice: str | dict[str, Any] | None
    response_schema: dict[str, Any] | None = None  # JSON schema the answer must follow (chat_structured)
    # Filled as the call runs:
    acc: StreamAccumulator = field(default_factory=StreamAccumulator)
    model: str = ""
    started: float = 0.0
    first_token: float | None = None
    api_calls: int = 0
    retries: int = 0
    waited: float = 0.0
    capability: tuple[str, str, str] = ("", "", "")
    send_tools: list[dict[str, Any]] | None = None  # the tools this call sends
    stream_now: bool = True  # False once the stream came back empty
    body: dict[str, Any] | None = None  # what the last attempt sent
    repaired: tuple[str, ...] = ()  # parameters changed after a refusal (rare: no set per call)
