"""One async client for every provider: OpenAI, OpenRouter, Ollama, any OpenAI-compatible
server, and the built-in local model.

Owns the HTTP side of a chat: the httpx client (timeouts, connection reuse, proxy, CA
bundle), streaming through httpx-sse, retries with backoff (spec 002), recognising a tools
rejection (spec 000: raised as ``ToolsRejectedError``, so the caller asks again with the tools
described in its prompt rather than without them), cancellation, and per-call metadata
(spec 003).

``LLMClient.chat`` returns a ``ChatStream``: iterate it for ``StreamDelta``s, then
``await stream.response()`` for the final ``ChatResponse`` (or only await ``response()``).
The HTTP work runs in the task that consumes the stream, so the connection is opened and
closed by one task (httpcore needs that). ``stream.cancel()`` (from any task on the loop)
or cancelling the consuming task closes the HTTP stream at once and the response comes
back ``interrupted`` with the text received so far.

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
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar

import httpx
from httpx_sse import EventSource, ServerSentEvent

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.config.network import client_options, proxy_shown
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import EventBus, Notice, RetryNotice
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.context_window import forget_lookups
from jawad_desktop.core.llm.dialects import Dialect, dialect_for, find_param, has_path, shape_body
from jawad_desktop.core.llm.errors import (
    BadRequestError,
    LLMError,
    LLMTimeoutError,
    ModelNotFoundError,
    ParameterRefusal,
    ProtocolError,
    RateLimitedError,
    ToolsRejectedError,
    classify_status,
    classify_transport,
    parameter_refusal,
    web_page_instead,
)
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta
from jawad_desktop.core.llm.vision import has_images, images_refused, without_images
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

# What we learned about a provider+model in this process: later calls skip the failed try
# (a call with tools to a model that refused them is reported at once, without a request).
_TOOLS_UNSUPPORTED: set[tuple[str, str, str]] = set()
_STREAMED_TOOLS_BROKEN: set[tuple[str, str, str]] = set()  # 200 + empty body when streaming with tools


def forget_capabilities() -> None:
    """Forget which models reject tools, and what providers said of context windows, in this
    process (after the user changes a provider or forgets what was learned, and in tests)."""
    _TOOLS_UNSUPPORTED.clear()
    _STREAMED_TOOLS_BROKEN.clear()
    forget_lookups()


@dataclass(frozen=True)
class RetryPolicy:
    """Spec 002's retries: network and 5xx errors back off exponentially, malformed answers
    linearly, 429 waits as long as Retry-After says. Bounded in count and in total wait."""

    max_retries: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_total_wait_s: float = 60.0

    def delay(self, error: LLMError, retry: int) -> float | None:
        """Seconds to wait before retry number ``retry`` (0-based), or None: do not retry."""
        if not error.retryable:
            return None
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return error.retry_after
        linear = isinstance(error, ProtocolError)  # network, timeout, 5xx, bare 429: exponential
        wait = self.base_delay_s * ((1 + retry) if linear else 2**retry)
        return min(wait, self.max_delay_s)


class _ToolsRejected(Exception):
    """The provider refused ``tools``: reported to the caller as ``ToolsRejectedError``."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(error.message)
        self.error = error


class _ParameterRefused(BadRequestError):
    """The provider refused one request parameter (a 400 naming it): ``_recover`` drops or
    renames it, remembers that for the model and asks again, once per parameter. A
    ``BadRequestError`` itself, so where it cannot be repaired it is the error to show."""

    def __init__(self, error: LLMError, refusal: ParameterRefusal) -> None:
        super().__init__(error.message, suggestions=error.suggestions, remedy=error.remedy,
                         status=error.status, detail=error.detail)
        self.error = error
        self.refusal = refusal


class _EmptyStream(Exception):
    """HTTP 200 with no events at all (llama.cpp streaming with tool_choice "auto")."""


class ChatStream:
    """An answer as it streams. ``async for delta in stream`` then ``await stream.response()``.

    The HTTP work runs in the task that consumes the stream (no extra task, no queue), so
    the connection is always opened and closed by one task. ``cancel()`` may be called
    from any task on the loop: a consumer waiting for the next piece is woken at once, the
    connection is closed, and the stream ends normally with an ``interrupted`` response.
    Cancelling the consuming task closes the connection too (and the task stays
    cancelled); ``response()`` afterwards returns the interrupted response.
    Also an async context manager that stops the request if the block is left early.
    """

    def __init__(self, client: LLMClient, call: ChatCall) -> None:
        self._client = client
        self._call = call
        self._steps: AsyncGenerator[StreamDelta, None] | None = None
        self._deadline = 0.0
        self._result: ChatResponse | None = None
        self._error: LLMError | None = None
        self._cancel_requested = False
        self._consumer: asyncio.Task[Any] | None = None
        self._timed = True  # __anext__ applies the total timeout itself

    @property
    def interrupted(self) -> bool:
        return self._result is not None and self._result.interrupted

    @property
    def done(self) -> bool:
        return self._result is not None or self._error is not None

    def cancel(self) -> None:
        """Stop the request now; ``response()`` then returns the partial answer, interrupted."""
        if self.done:
            return
        self._cancel_requested = True
        consumer = self._consumer
        if consumer is not None and not consumer.done() and consumer is not _current_task():
            consumer.cancel()  # wakes it inside __anext__, which turns this into a normal end

    # -- consuming -------------------------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[StreamDelta]:
        return self

    async def __anext__(self) -> StreamDelta:
        if self.done:
            if self._error is not None:
                raise self._error
            raise StopAsyncIteration
        if self._cancel_requested:
            await self._stop()
            raise StopAsyncIteration
        if self._steps is None:
            self._steps = self._client._generate(self._call)
            if self._timed:
                self._deadline = asyncio.get_running_loop().time() + self._client.network.total_timeout_s
        task = self._consumer = asyncio.current_task()
        try:
            if self._timed:  # response() times the whole call at once: one timer, not one per piece
                async with asyncio.timeout_at(self._deadline):
                    return await self._steps.__anext__()
            return await self._steps.__anext__()
        except StopAsyncIteration:
            self._result = self._client.response_for(self._call)
            raise
        except LLMError as exc:
            self._error = exc
            raise
        except TimeoutError:
            self._error = self._client._total_timeout(self._call)
            raise self._error from None
        except asyncio.CancelledError:
            # The HTTP stream was closed as the cancellation went through it.
            if self._interrupted_by_us(task):
                raise StopAsyncIteration from None  # our own cancel(): end the stream normally
            raise
        except Exception as exc:
            self._error = self._unexpected(exc)
            raise self._error from exc
        finally:
            self._consumer = None

    async def _stop(self) -> None:
        """End a stream that is paused between two pieces (cancel() came while the consumer
        was busy elsewhere), closing its HTTP stream in this task."""
        steps, task = self._steps, _current_task()
        if steps is not None and task is not None:
            # Closing the generator from the outside (aclose) would leave httpx's own inner
            # generators half-read, to be finalised by the garbage collector from another
            # task, which httpcore does not survive. Instead let the cancellation go in at
            # the innermost wait (the socket read) so every layer unwinds here, as it does
            # when cancel() wakes a waiting consumer; then take the cancellation back.
            task.cancel()
            try:
                while True:
                    await steps.__anext__()  # pieces already buffered still count as received
            except asyncio.CancelledError:
                pass
            except (StopAsyncIteration, Exception):
                # It ended without waiting again: consume our cancellation at the next step.
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(0)
            if task.uncancel() > 0:  # someone else cancelled this task too: honour it
                self._result = self._client.response_for(self._call, interrupted=True)
                raise asyncio.CancelledError
        if not self.done:
            self._result = self._client.response_for(self._call, interrupted=True)

    async def response(self) -> ChatResponse:
        """The final answer, after consuming whatever has not been read yet.

        Raises the ``LLMError`` the request ended with (its ``partial`` keeps streamed text).
        """
        if not self.done and self._steps is None and not self._call.stream and not self._cancel_requested:
            await self._complete()
        if not self.done:
            if self._steps is None:
                self._deadline = asyncio.get_running_loop().time() + self._client.network.total_timeout_s
            self._timed = False
            try:
                async with asyncio.timeout_at(self._deadline):
                    async for _ in self:
                        pass
            except TimeoutError:
                self._error = self._client._total_timeout(self._call)
            finally:
                self._timed = True
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    async def _complete(self) -> None:
        """An unstreamed answer nobody iterates: run it as one coroutine (cheapest path)."""
        task = self._consumer = asyncio.current_task()
        deadline = asyncio.get_running_loop().time() + self._client.network.total_timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                self._result = await self._client._complete(self._call)
        except LLMError as exc:
            self._error = exc
        except TimeoutError:
            self._error = self._client._total_timeout(self._call)
        except asyncio.CancelledError:
            if not self._interrupted_by_us(task):
                raise
        except Exception as exc:
            self._error = self._unexpected(exc)
        finally:
            self._consumer = None

    def _interrupted_by_us(self, task: asyncio.Task[Any] | None) -> bool:
        """Keep the partial answer of a request cancelled in ``task``, interrupted; True when
        the cancellation was our own ``cancel()`` (taken back: the request ends normally),
        False when someone else cancelled the task and it must stay cancelled."""
        self._result = self._client.response_for(self._call, interrupted=True)
        return self._cancel_requested and task is not None and task.uncancel() == 0

    def _unexpected(self, exc: Exception) -> LLMError:
        """The error for a failure that is a bug, logged: it must not take the window down with it."""
        log.exception("unexpected failure in a chat request")
        return LLMError(
            f"Something went wrong while talking to {self._client.provider.kind.label}: "
            f"{type(exc).__name__}: {exc}",
            suggestions=["Try again.", "The details are in the log file."],
        )

    async def aclose(self) -> None:
        """Stop the request if it still runs and close its connection."""
        if self.done:
            return
        if self._consumer is not None and self._consumer is not _current_task():
            self.cancel()  # the consumer closes it as it wakes
            return
        self._cancel_requested = True
        await self._stop()

    async def __aenter__(self) -> ChatStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (called from plain code)
        return None




class LLMClient:
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
        try:
            response = await http.get(url)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        if response.status_code >= 400:
            raise classify_status(self.provider, self._model, response.status_code,
                                  response.text[:_MAX_ERROR_BODY], response.headers)
        try:
            return response.json()
        except ValueError:
            page = web_page_instead(self.provider, response.text)
            if page is not None:
                raise page from None
            raise ProtocolError(
                f"{self.provider.kind.label} at {self._base_url} answered the model list with "
                "something that is not JSON.",
                suggestions=["Check that the base URL points at an OpenAI-compatible API "
                             "(it often ends in /v1)."],
                remedy=Remedy("provider", self.provider.name),
            ) from None

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
        try:
            response = await http.post(url, json=body)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        if response.status_code >= 400:
            raise self.status_error(response.status_code, response.text[:_MAX_ERROR_BODY], response.headers)
        try:
            return response.json()
        except ValueError:
            page = web_page_instead(self.provider, response.text)
            if page is not None:
                raise page from None
            raise ProtocolError(
                f"{self.provider.kind.label} answered with something that is not JSON.",
                suggestions=["Check the base URL of the provider."],
                remedy=Remedy("provider", self.provider.name),
                detail=response.text[:300],
            ) from None

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

    def _tools_rejected(self, call: ChatCall, detail: str) -> ToolsRejectedError:
        """The error that tells the caller this model takes no ``tools`` (``detail``: the
        provider's words; empty when it said so earlier in this process)."""
        return ToolsRejectedError(
            f"{self.provider.kind.label} model {call.model or self._model!r} does not accept tools "
            "(native function calling).",
            suggestions=["Use the text tool format (XML or JSON) for this model, or choose a model "
                         "that supports tools."],
            remedy=Remedy("provider-model", self.provider.name),
            status=400,
            detail=detail or "it refused tools earlier in this session",
        )

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
        if call.send_tools and call.capability in _TOOLS_UNSUPPORTED:
            raise self._tools_rejected(call, "")
        call.stream_now = call.stream
        return http

    def _next_body(self, call: ChatCall) -> dict[str, Any]:
        if call.stream_now and call.send_tools and call.capability in _STREAMED_TOOLS_BROKEN:
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

    def _learn_no_images(self, call: ChatCall, said: str) -> None:
        """The provider refused an image: remember the model takes none, and ask again with each
        image replaced by a line saying it was left out (``core.llm.vision``)."""
        model = call.model or self._model
        log.info("%s / %s refuses images (%s); asking again without them", self.provider.name, model, said[:200])
        self.facts.learn(call.capability, lambda facts: setattr(facts, "vision", False),
                         note=f"Takes no images: {self.provider.kind.label} refused one ({said[:160]}).")
        call.messages = without_images(call.messages)
        if self.bus is not None:
            self.bus.emit(Notice(level="info", text=f"The model {model} cannot see images; Jawad sends it "
                                                    "the page as text only."))

    def _repair(self, call: ChatCall, refusal: ParameterRefusal) -> bool:
        """After the provider refused one parameter of ``call.body``: drop it (or rename it as
        the provider asks), remember that for this model, and say so. False when the body has
        no such parameter or it was changed once already in this call: nothing to repair."""
        body = call.body or {}
        path = find_param(body, refusal)
        if path is None or path in call.repaired:
            return False
        call.repaired += (path,)
        model = call.model or self._model
        new = refusal.rename_to
        if new and new != path and not has_path(body, new) and new not in call.repaired:
            note = f"{model} takes {new!r} instead of {path!r}: the provider refused {path!r} and asked for {new!r}."

            def change(facts: ModelFacts) -> None:
                facts.renamed[path] = new
                if path in facts.dropped:
                    facts.dropped.remove(path)
        else:
            new = ""
            value = f" the value {refusal.value}" if refusal.value else ""
            note = (f"{model} is sent no {path!r}: the provider refused{value or ' it'}"
                    + (" (the model's default is used)." if value else "."))

            def change(facts: ModelFacts) -> None:
                facts.renamed.pop(path, None)
                if path not in facts.dropped:
                    facts.dropped.append(path)
        self.facts.learn(call.capability, change, note)
        self._read_shape(call.capability, call.model)
        log.info("%s / %s refused %r: %s", self.provider.name, model, path,
                 f"sending {new!r} instead" if new else "leaving it out")
        if self.bus is not None:
            self.bus.emit(Notice(level="info", text=note))
        return True

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

    def _recover(self, call: ChatCall, failure: Exception) -> float:
        """After a failed attempt: 0 to try again at once, seconds to wait first, or raise."""
        if isinstance(failure, _EmptyStream) and call.stream_now:
            # Ask again without streaming; with tools, remember it for later calls.
            log.info("%s sent an empty stream; asking again without streaming", self.provider.name)
            if call.send_tools:
                _STREAMED_TOOLS_BROKEN.add(call.capability)
            call.stream_now = False
            return 0.0
        if isinstance(failure, _ParameterRefused):
            # A model that refuses max_tokens, then temperature, is repaired one parameter at a
            # time; nothing reached the user yet, so asking again repeats nothing.
            if not call.acc.has_output and self._repair(call, failure.refusal):
                return 0.0
            failure = failure.error
        if (isinstance(failure, LLMError) and not call.acc.has_output and has_images(call.messages)
                and images_refused(failure.status, f"{failure.detail} {failure.message}")):
            self._learn_no_images(call, failure.detail or failure.message)
            return 0.0
        if isinstance(failure, _ToolsRejected):
            # Not retried blind: without the tools described in its prompt the model could not
            # call any. The caller asks again in its text format (the agent does, at once).
            log.info("%s / %s rejects tools (%s)", self.provider.name, call.model, failure.error.detail)
            _TOOLS_UNSUPPORTED.add(call.capability)
            raise self._tools_rejected(call, failure.error.detail or failure.error.message)
        if isinstance(failure, LLMError):
            error = failure
        else:
            error = ProtocolError(
                f"{self.provider.kind.label} answered with an empty body.",
                suggestions=["Try again.", "Check that the model is loaded on the server."],
            )
        if call.acc.has_output:
            # Text already reached the user: a retry would repeat it. Keep it in the error.
            error.partial = self.response_for(call, interrupted=True)
            raise error
        delay = self.retry.delay(error, call.retries)
        if (
            delay is None
            or call.retries >= self.retry.max_retries
            or call.waited + delay > self.retry.max_total_wait_s
        ):
            raise error
        call.retries += 1
        call.waited += delay
        # Announced to the user as a RetryNotice (the window's status line, the terminal's one
        # "jawad:" line); the log keeps it below the terminal's warning level, so it is said once.
        log.info("%s: %s; retry %d of %d in %.1f s", self.provider.name, error.message,
                    call.retries, self.retry.max_retries, delay)
        if self.bus is not None:
            self.bus.emit(RetryNotice(attempt=call.retries, max_attempts=self.retry.max_retries,
                                      delay_s=delay, reason=error.message))
        return delay

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
            except (_EmptyStream, _ToolsRejected, LLMError) as failure:
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
            except (_EmptyStream, _ToolsRejected, LLMError) as failure:
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
            raise _EmptyStream()
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
            raise _EmptyStream()

    def _raise_status(self, status: int, raw: str, headers: httpx.Headers | None, with_tools: bool) -> None:
        error = self.status_error(status, raw, headers)
        refusal = parameter_refusal(status, raw)  # checked first: it is no tools rejection
        if refusal is not None:
            raise _ParameterRefused(error, refusal)
        if with_tools and is_tools_rejection(status, error.detail or raw):
            raise _ToolsRejected(error)
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

