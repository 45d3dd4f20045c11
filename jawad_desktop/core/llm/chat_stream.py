"""``ChatStream``: one chat answer as it streams, ended one way or another.

``LLMClient.chat`` (``core.llm.client``) returns one: iterate it for ``StreamDelta``s, then
``await stream.response()`` for the final ``ChatResponse``. The HTTP work runs in the task that
consumes the stream, so the connection is opened and closed by one task (httpcore needs that);
``cancel()`` from any task on the loop, or cancelling the consuming task, closes it at once and
the response comes back ``interrupted`` with the text received so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from types import TracebackType
from typing import Any, Protocol

from jawad_desktop.core.config.network import NetworkSettings
from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.errors import LLMError, LLMTimeoutError
from jawad_desktop.core.llm.types import ChatResponse, StreamDelta

log = logging.getLogger("jawad.llm")


class StreamSource(Protocol):
    """What a stream asks of its client (``LLMClient``)."""

    provider: ProviderConfig
    network: NetworkSettings

    def response_for(self, call: ChatCall, *, interrupted: bool = False) -> ChatResponse: ...
    def _generate(self, call: ChatCall) -> AsyncGenerator[StreamDelta, None]: ...
    async def _complete(self, call: ChatCall) -> ChatResponse: ...
    def _total_timeout(self, call: ChatCall) -> LLMTimeoutError: ...


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

    def __init__(self, client: StreamSource, call: ChatCall) -> None:
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
