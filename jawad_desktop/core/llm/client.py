"""One async client for every provider: OpenAI, OpenRouter, Ollama, any OpenAI-compatible
server, and the built-in local model.

Owns the HTTP side of a chat: the httpx client (timeouts, connection reuse, proxy, CA
bundle), streaming through httpx-sse, the request's shape for the model (its dialect, what it
refused before), cancellation, and per-call metadata (spec 003). What happens after a failed
attempt (retries with backoff, spec 002; a refused parameter repaired; a tools rejection raised
as ``ToolsRejectedError``, spec 000) is its own layer, ``core.llm.recovery``; the answer as it
streams is ``core.llm.chat_stream``; the hooks a provider's API overrides are ``core.llm.chat_api``.

``LLMClient.chat`` returns a ``ChatStream``: iterate it for ``StreamDelta``s, then
``await stream.response()`` for the final ``ChatResponse`` (or only await ``response()``).
The HTTP work runs in the task that consumes the stream, so the connection is opened and closed by
one task (httpcore needs that). ``stream.cancel()`` (from any task on the loop) or cancelling the
consuming task closes the HTTP stream at once and the response comes back ``interrupted``.

Usage::

    async with client_for(ctx) as client:                # or LLMClient(provider, key, network, bus)
        async with client.chat(messages, tools) as stream:
            async for delta in stream:                    # StreamDelta: text, tool-call fragments
                show(delta.text)
            response = await stream.response()            # ChatResponse with metadata

A stream that is neither read to its end, nor cancelled, nor closed (``async with`` or
``aclose()``) leaves its connection to the garbage collector: always end it one of those ways.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from types import TracebackType
from typing import Any, ClassVar

import httpx
from httpx_sse import EventSource, ServerSentEvent

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.config.network import client_options, proxy_shown
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.audio_input import for_model as audio_for_model
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.chat_stream import ChatStream
from jawad_desktop.core.llm.dialects import Dialect, dialect_for, shape_body
from jawad_desktop.core.llm.errors import (
    LLMError,
    LLMTimeoutError,
    ModelNotFoundError,
    ProtocolError,
    classify_status,
    classify_transport,
    parameter_refusal,
    web_page_instead,
)
from jawad_desktop.core.llm.recovery import (
    STREAMED_TOOLS_BROKEN,
    TOOLS_UNSUPPORTED,
    CallRecovery,
    EmptyStream,
    ParameterRefusedAttempt,
    RetryPolicy,
    ToolsRejectedAttempt,
    forget_capabilities,
)
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.llm.vision import has_images, without_images
from jawad_desktop.core.llm.wire import (
    MalformedResponse,
    StreamAccumulator,
    StreamFailure,
    build_body,
    fold_events,
    is_tools_rejection,
)
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFacts, ModelFactsStore

log = logging.getLogger("jawad.llm")

__all__ = ["ChatStream", "LLMClient", "RetryPolicy", "forget_capabilities"]

OPENROUTER_HEADERS = {"HTTP-Referer": "https://github.com/jawad-desktop/jawad-desktop", "X-Title": APP_NAME}
_MAX_ERROR_BODY = 64 * 1024

class LLMClient(CallRecovery):
    """Talks to one provider. Build it with the provider, its key, the network settings and
    (optionally) the event bus retries are announced on; use it as ``async with``.

    ``facts`` is where what is learned about models is kept (``ctx.model_facts``, the
    profile's): the parameters a model refused, so the next request is right the first time.
    Without one the client keeps it in memory for its lifetime."""

    def __init__(
        self,
        provider: ProviderConfig,
        api_key: str | None = None,
        network: NetworkSettings | None = None,
        bus: EventBus | None = None,
        *,
        retry: RetryPolicy | None = None,
        facts: ModelFactsStore | None = None,
    ) -> None:
        self.provider = provider
        self.facts = facts if facts is not None else ModelFactsStore(None)
        # The request's shape for the current model (core.llm.dialects), re-read when the
        # model or the facts change: the key and the facts' version it was read for.
        self._shape_key: tuple[str, str, str] | None = None
        self._shape_version = -1
        self._dialect: Dialect = dialect_for(provider.kind, "")
        self._known: ModelFacts | None = None
        self._shaping = False  # whether the dialect or the facts change anything
        self.network = network or NetworkSettings.model_validate({})
        self.bus = bus
        self.retry = retry or RetryPolicy(max_retries=self.network.max_retries)
        self._api_key = api_key or None
        self._base_url = provider.effective_base_url
        if provider.kind is ProviderKind.OLLAMA and httpx.URL(self._base_url).path in ("", "/"):
            # "http://localhost:11434" is what Ollama prints; its OpenAI API lives under /v1.
            self._base_url = self._base_url.rstrip("/") + "/v1"
        self._model = provider.model or ("smollm2" if provider.kind is ProviderKind.LOCAL else "")
        self._http: httpx.AsyncClient | None = None
        self._proxy = ""  # the proxy in use, for the words of a failure (set with the connection)

    # -- set-up ----------------------------------------------------------------------------
    @property
    def model(self) -> str:
        return self._model

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def model_key(self) -> tuple[str, str, str]:
        """What is learned about a model is remembered under: (provider kind, base URL, model).

        The agent keeps each model's tool-call format under it; this client, which models
        reject tools or break streaming with them. Until the first request the built-in
        server's address and a model picked from the provider's list are not known yet, so
        the key can change once then. The built-in model's key names no address: its server
        gets a new port at each start, and what was learned about it must outlive that.
        """
        if self.provider.kind is ProviderKind.LOCAL and not self.provider.base_url:
            return (self.provider.kind.value, "", self._model)
        return (self.provider.kind.value, self._base_url, self._model)

    def request_headers(self) -> dict[str, str]:
        headers = {"User-Agent": f"JawadDesktop/{__version__}", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if self.provider.kind is ProviderKind.OPENROUTER:
            headers.update(OPENROUTER_HEADERS)
        return headers

    async def http_client(self) -> httpx.AsyncClient:
        """The HTTP client every request of this provider goes through, made at first use."""
        if self._http is None:
            if self.provider.kind is ProviderKind.LOCAL and not self.provider.base_url:
                from pathlib import Path

                from jawad_desktop.core.llm.local_server import configure_local_server

                chosen = self.provider.model_file
                server = configure_local_server(Path(chosen).expanduser() if chosen else None, self._model)
                try:
                    await server.ensure_started()
                except JawadError as exc:  # not installed, or it would not start
                    raise LLMError(exc.message, suggestions=exc.suggestions, remedy=exc.remedy) from None
                self._base_url = server.base_url
            self._proxy = proxy_shown(self.network.proxy_url, self._base_url)
            try:
                options = client_options(self.network, self._base_url)
            except JawadError as exc:  # a CA bundle that cannot be used
                raise LLMError(exc.message, suggestions=exc.suggestions, remedy=exc.remedy) from None
            self._http = httpx.AsyncClient(
                headers=self.request_headers(),
                limits=httpx.Limits(max_connections=16, max_keepalive_connections=8, keepalive_expiry=30),
                **options,
            )
        return self._http

    def _transport_error(self, exc: BaseException) -> LLMError:
        """The error for a failure without an HTTP status, naming the proxy it went through."""
        return classify_transport(self.provider, exc, timeout_s=self.network.read_timeout_s, proxy=self._proxy)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- models ----------------------------------------------------------------------------
    async def list_models(self) -> list[str]:
        """The provider's model names (Ollama's native ``/api/tags``, else ``/v1/models``)."""
        http = await self.http_client()
        if self.provider.kind is ProviderKind.OLLAMA:
            root = self._base_url[: -len("/v1")] if self._base_url.endswith("/v1") else self._base_url
            try:
                data = await self._get_json(http, f"{root}/api/tags")
            except ModelNotFoundError:
                data = await self._get_json(http, f"{self._base_url}/models")
        else:
            data = await self._get_json(http, f"{self._base_url}/models")
        return _model_names(data)

    async def get_json(self, url: str) -> Any:
        """GET ``url`` on this provider's connection (its key, proxy, CA bundle): the JSON
        answer, or the ``LLMError`` for the failure (model details: context windows...)."""
        return await self._get_json(await self.http_client(), url)

    async def _get_json(self, http: httpx.AsyncClient, url: str) -> Any:
        return await self._json_answer(
            http.get(url),
            lambda status, raw, headers: classify_status(self.provider, self._model, status, raw, headers),
            lambda _text: ProtocolError(
                f"{self.provider.kind.label} at {self._base_url} answered the model list with "
                "something that is not JSON.",
                suggestions=["Check that the base URL points at an OpenAI-compatible API (it often ends in /v1)."],
                remedy=Remedy("provider", self.provider.name),
            ),
        )

    async def _json_answer(self, request: Awaitable[httpx.Response],
                           status_error: Callable[[int, str, httpx.Headers | None], LLMError],
                           not_json: Callable[[str], LLMError]) -> Any:
        """``request``'s JSON answer, or its ``LLMError`` (transport, ``status_error``, web page, ``not_json``)."""
        try:
            response = await request
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        if response.status_code >= 400:
            raise status_error(response.status_code, response.text[:_MAX_ERROR_BODY], response.headers)
        try:
            return response.json()
        except ValueError:
            page = web_page_instead(self.provider, response.text)
            if page is not None:
                raise page from None
            raise not_json(response.text) from None

    async def _ensure_model(self) -> str:
        if not self._model:
            names = await self.list_models()
            if not names:
                raise ModelNotFoundError(
                    f"No model is set for {self.provider.name!r} and {self.provider.kind.label} lists none.",
                    suggestions=[f"Set a model for {self.provider.name!r}."],
                    remedy=Remedy("provider-model", self.provider.name),
                )
            self._model = names[0]
            log.info("no model set for %s: using %s", self.provider.name, self._model)
        return self._model

    # -- chat ------------------------------------------------------------------------------
    def chat(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None = None,
        *,
        stream: bool = True,
        temperature: float | None = None,
        max_tokens: int | None = 4096,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> ChatStream:
        """Start a chat request; nothing is sent until the stream is iterated or awaited."""
        call = ChatCall(list(messages), tools or None, stream, temperature, max_tokens, tool_choice)
        return ChatStream(self, call)

    def chat_structured(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        *,
        temperature: float | None = None,
        max_tokens: int | None = 4096,
    ) -> ChatStream:
        """An unstreamed request whose answer must be JSON following ``schema``. Providers
        with a schema mode are given it (``supports_schema``); callers validate the answer
        either way (``core.llm.structured.generate_structured`` does, with retries)."""
        call = ChatCall(list(messages), None, False, temperature, max_tokens, None, response_schema=schema)
        return ChatStream(self, call)

    @property
    def supports_schema(self) -> bool:
        """Whether this provider constrains answers to a JSON schema itself."""
        return self.provider.kind in (ProviderKind.OPENAI, ProviderKind.OPENROUTER)

    async def post_json(self, url: str, body: dict[str, Any]) -> Any:
        """POST ``body`` to ``url`` on this provider's connection; the JSON answer, or the
        ``LLMError`` for the failure (embeddings and other single requests use it)."""
        http = await self.http_client()
        return await self._json_answer(
            http.post(url, json=body),
            self.status_error,
            lambda text: ProtocolError(
                f"{self.provider.kind.label} answered with something that is not JSON.",
                suggestions=["Check the base URL of the provider."],
                remedy=Remedy("provider", self.provider.name),
                detail=text[:300],
            ),
        )

    def status_error(self, status: int, raw: str, headers: httpx.Headers | None) -> LLMError:
        """The error for an HTTP error status (providers override it for their own codes)."""
        return classify_status(self.provider, self._model, status, raw, headers)

    def response_for(self, call: ChatCall, *, interrupted: bool = False) -> ChatResponse:
        """The response for what ``call`` received, with spec 003's metadata."""
        result = call.acc.response()
        usage = result.usage
        started = call.started
        result.metadata.update(
            provider=self.provider.name,
            provider_kind=self.provider.kind.value,
            model=call.model or self._model,
            latency_ms=round((time.monotonic() - started) * 1000, 1) if started else None,
            time_to_first_token_ms=(
                round((call.first_token - started) * 1000, 1) if call.first_token is not None else None
            ),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.total_tokens,
            api_calls=call.api_calls,
            retries=call.retries,
            finish_reason="interrupted" if interrupted else result.finish_reason,
        )
        if interrupted:
            result.interrupted = True
            result.finish_reason = "interrupted"
        return result

    def _total_timeout(self, call: ChatCall) -> LLMTimeoutError:
        error = LLMTimeoutError(
            f"{self.provider.kind.label} did not finish the answer within "
            f"{self.network.total_timeout_s:g} s.",
            suggestions=["Ask for a shorter answer, or raise the total timeout."],
            remedy=Remedy("network"),
        )
        if call.acc.has_output:
            error.partial = self.response_for(call, interrupted=True)
        return error

    async def _begin(self, call: ChatCall) -> httpx.AsyncClient:
        call.started = time.monotonic()
        http = await self.http_client()
        call.model = await self._ensure_model()
        # ``chat`` takes no model of its own: the call's is the client's, and what this call
        # learns is remembered under the key the agent uses too.
        call.capability = self.model_key
        if call.capability != self._shape_key or self.facts.version != self._shape_version:
            self._read_shape(call.capability, call.model)
        call.send_tools = call.tools
        if has_images(call.messages) and self.facts.get(call.capability).vision is False:
            call.messages = without_images(call.messages)  # it refused one before: never sent again
        call.messages = audio_for_model(call.capability, call.messages)  # sound only to a model that hears it
        if call.send_tools and call.capability in TOOLS_UNSUPPORTED:
            raise self._tools_rejected(call, "")
        call.stream_now = call.stream
        return http

    def _next_body(self, call: ChatCall) -> dict[str, Any]:
        if call.stream_now and call.send_tools and call.capability in STREAMED_TOOLS_BROKEN:
            call.stream_now = False
        call.acc = self.accumulator()
        call.api_calls += 1
        body = self.request_body(call)
        if self._shaping:
            shape_body(body, self._dialect, self.provider.reasoning, self._known)
        call.body = body
        return body

    # -- the request's shape for the model: its dialect, and what it refused before ----------
    @property
    def dialect(self) -> Dialect:
        """The row of ``core.llm.dialects.DIALECTS`` this provider and model follow."""
        return dialect_for(self.provider.kind, self._model)

    def _read_shape(self, key: tuple[str, str, str], model: str) -> None:
        self._shape_key, self._shape_version = key, self.facts.version
        self._dialect = dialect_for(self.provider.kind, model)
        known = self.facts.get(key)
        self._known = known if (known.renamed or known.dropped) else None
        self._shaping = self._known is not None or not self._dialect.changes_nothing

    # -- the wire format: the hooks a provider with another API overrides (``core.llm.chat_api``)
    # Folds this provider's answers into deltas: streamed chunks, and whole answers read
    # with its ``parse_whole``.
    accumulator: ClassVar[type[StreamAccumulator]] = StreamAccumulator
    # Where a chat is posted, under the base URL (override ``chat_url`` when it depends on the call).
    chat_path: ClassVar[str] = "/chat/completions"

    def request_body(self, call: ChatCall) -> dict[str, Any]:
        """The JSON body of one attempt of ``call`` (streamed when ``call.stream_now``)."""
        return build_body(
            call.model, call.messages, tools=call.send_tools, tool_choice=call.tool_choice,
            stream=call.stream_now, temperature=call.temperature, max_tokens=call.max_tokens,
            include_usage=self.provider.kind in (ProviderKind.OPENAI, ProviderKind.OPENROUTER),
        ) | self._extra_body(call)

    def _extra_body(self, call: ChatCall) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if call.response_schema is not None and self.supports_schema:
            extra["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "answer", "schema": call.response_schema, "strict": False}}
        # reasoning_effort, max_completion_tokens, OpenRouter's reasoning object: the dialect's.
        return extra

    def chat_url(self, call: ChatCall) -> str:
        """Where one attempt of ``call`` is posted."""
        return f"{self._base_url}{self.chat_path}"

    def stream_events(self, response: httpx.Response) -> AsyncGenerator[ServerSentEvent, None] | None:
        """The events of a streamed answer, or None when the body is not a stream (read whole)."""
        if "text/event-stream" in response.headers.get("content-type", ""):
            return EventSource(response).aiter_sse()
        return None

    async def _generate(self, call: ChatCall) -> AsyncGenerator[StreamDelta, None]:
        """The deltas of one chat call, with its retries and fallbacks; fills ``call``."""
        http = await self._begin(call)
        while True:
            body = self._next_body(call)
            try:
                if not call.stream_now:
                    delta = await self._attempt_whole(http, body, call)
                    if delta is not None:
                        call.first_token = time.monotonic()
                        yield delta
                    return
                async with contextlib.aclosing(self._attempt_stream(http, body, call)) as deltas:
                    async for delta in deltas:
                        if call.first_token is None:
                            call.first_token = time.monotonic()
                        yield delta
                return
            except (EmptyStream, ToolsRejectedAttempt, LLMError) as failure:
                delay = self._recover(call, failure)
            if delay:
                await asyncio.sleep(delay)

    async def _complete(self, call: ChatCall) -> ChatResponse:
        """An unstreamed call as one coroutine (no generator layers): the same retries and
        fallbacks as ``_generate``, at the cost of a bare request."""
        http = await self._begin(call)
        while True:
            body = self._next_body(call)
            try:
                if await self._attempt_whole(http, body, call) is not None:
                    call.first_token = time.monotonic()
                return self.response_for(call)
            except (EmptyStream, ToolsRejectedAttempt, LLMError) as failure:
                delay = self._recover(call, failure)
            if delay:
                await asyncio.sleep(delay)

    async def _attempt_whole(self, http: httpx.AsyncClient, body: dict[str, Any], call: ChatCall) -> StreamDelta | None:
        """One unstreamed request: the whole answer as one delta, or the error it ended with.

        A plain coroutine, not a generator: this is the path whose cost the benchmark holds
        to 1.05x of a bare httpx request.
        """
        with_tools = "tools" in body
        try:
            whole = await http.post(self.chat_url(call), json=body)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        if whole.status_code >= 400:
            self._raise_status(whole.status_code, whole.text[:_MAX_ERROR_BODY], whole.headers, with_tools)
        if whole.content[:1] == b"{":  # the usual case: JSON, parsed from bytes (no text decoding)
            try:
                return call.acc.absorb(self.accumulator.parse_whole(json.loads(whole.content)))
            except (ValueError, RecursionError, MalformedResponse):
                pass  # explained below, from the text
        return await self._whole_from_text(whole.text, call, with_tools)

    async def _attempt_stream(
        self, http: httpx.AsyncClient, body: dict[str, Any], call: ChatCall
    ) -> AsyncGenerator[StreamDelta, None]:
        """One streamed request: its deltas as they come, or the error it ended with."""
        with_tools = "tools" in body
        try:
            async with http.stream("POST", self.chat_url(call), json=body) as response:
                if response.status_code >= 400:
                    raw = await _read_limited(response)
                    self._raise_status(response.status_code, raw, response.headers, with_tools)
                events = self.stream_events(response)
                if events is not None:
                    async with contextlib.aclosing(self._read_events(events, call, with_tools)) as deltas:
                        async for delta in deltas:
                            yield delta
                    return
                # Some servers answer a streamed request with one JSON body.
                raw = (await response.aread()).decode("utf-8", errors="replace")
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        whole = await self._whole_from_text(raw, call, with_tools)
        if whole is not None:
            yield whole

    async def _whole_from_text(self, raw: str, call: ChatCall, with_tools: bool) -> StreamDelta | None:
        """An answer read whole: JSON, or server-sent events without their content type."""
        if not raw.strip():
            raise EmptyStream()
        if raw.lstrip().startswith(("data:", "event:", ":")):
            async with contextlib.aclosing(self._read_events(_events_from_text(raw), call, with_tools)) as deltas:
                pieces = [delta async for delta in deltas]
            if not pieces:
                return None
            return StreamDelta(text="".join(d.text for d in pieces),
                               tool_calls=[f for d in pieces for f in d.tool_calls])
        data: Any = None
        try:
            data = json.loads(raw)
            parsed = self.accumulator.parse_whole(data)
        except (ValueError, RecursionError, MalformedResponse) as exc:
            failure = call.acc.error_in(data)
            if failure is not None:
                self._raise_status(failure[0], failure[1], None, with_tools)
            page = web_page_instead(self.provider, raw)
            if page is not None:
                raise page from None
            raise ProtocolError(
                f"{self.provider.kind.label} sent an answer that could not be read ({exc}).",
                suggestions=["Try again.", "Check that the base URL points at an OpenAI-compatible API."],
                detail=raw[:300],
            ) from None
        return call.acc.absorb(parsed)

    async def _read_events(
        self, events: AsyncGenerator[ServerSentEvent, None], call: ChatCall, with_tools: bool
    ) -> AsyncGenerator[StreamDelta, None]:
        try:
            async with contextlib.aclosing(events), contextlib.aclosing(fold_events(events, call.acc)) as deltas:
                async for delta in deltas:
                    yield delta
        except StreamFailure as failure:
            self._raise_status(failure.status, failure.body, None, with_tools and not call.acc.has_output)
        if call.acc.chunks == 0:
            if call.acc.skipped:
                raise ProtocolError(
                    f"{self.provider.kind.label} sent a stream that could not be read.",
                    suggestions=["Try again.", "Check that the base URL points at an OpenAI-compatible API."],
                )
            raise EmptyStream()

    def _raise_status(self, status: int, raw: str, headers: httpx.Headers | None, with_tools: bool) -> None:
        error = self.status_error(status, raw, headers)
        refusal = parameter_refusal(status, raw)  # checked first: it is no tools rejection
        if refusal is not None:
            raise ParameterRefusedAttempt(error, refusal)
        if with_tools and is_tools_rejection(status, error.detail or raw):
            raise ToolsRejectedAttempt(error)
        raise error


async def _read_limited(response: httpx.Response) -> str:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _MAX_ERROR_BODY:
            break
    return b"".join(chunks)[:_MAX_ERROR_BODY].decode("utf-8", errors="replace")


async def _events_from_text(text: str) -> AsyncGenerator[ServerSentEvent, None]:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())
    async for event in EventSource(response).aiter_sse():
        yield event


def _model_names(data: Any) -> list[str]:
    items: Any = []
    if isinstance(data, dict):
        items = data.get("data") if isinstance(data.get("data"), list) else data.get("models", [])
    elif isinstance(data, list):
        items = data
    names: list[str] = []
    for item in items if isinstance(items, list) else []:
        name = (item.get("id") or item.get("name") or item.get("model")) if isinstance(item, dict) else item
        if isinstance(name, str) and name and name not in names:
            names.append(name)
    return names

