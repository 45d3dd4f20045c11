"""What a chat call does after a failed attempt: retries, parameter repair, tool rejection.

The layer between the client's requests (``core.llm.client``) and the errors it reports
(``core.llm.errors``). After a failed attempt ``CallRecovery._recover`` decides: try again at
once (an empty stream asked again whole; a refused parameter dropped or renamed and remembered
for the model, ``_repair``; images a model refused left out, ``_learn_no_images``), wait and
retry (``RetryPolicy``: network, 5xx, 429, malformed answers; announced as ``RetryNotice``), or
raise: a tools rejection (``ToolsRejectedError``, so the caller asks again with the tools in its
prompt), or the error, with what already reached the user kept in it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from jawad_desktop.core.config.network import NetworkSettings
from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.events import EventBus, Notice, RetryNotice
from jawad_desktop.core.llm.chat_api import ChatCall
from jawad_desktop.core.llm.context_window import forget_lookups
from jawad_desktop.core.llm.dialects import find_param, has_path
from jawad_desktop.core.llm.errors import (
    BadRequestError,
    LLMError,
    ParameterRefusal,
    ProtocolError,
    RateLimitedError,
    ToolsRejectedError,
)
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.llm.vision import has_images, images_refused, without_images
from jawad_desktop.core.store.model_facts import ModelFacts, ModelFactsStore

log = logging.getLogger("jawad.llm")

# What we learned about a provider+model in this process: later calls skip the failed try
# (a call with tools to a model that refused them is reported at once, without a request).
TOOLS_UNSUPPORTED: set[tuple[str, str, str]] = set()
STREAMED_TOOLS_BROKEN: set[tuple[str, str, str]] = set()  # 200 + empty body when streaming with tools


def forget_capabilities() -> None:
    """Forget which models reject tools, and what providers said of context windows, in this
    process (after the user changes a provider or forgets what was learned, and in tests)."""
    TOOLS_UNSUPPORTED.clear()
    STREAMED_TOOLS_BROKEN.clear()
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


class ToolsRejectedAttempt(Exception):
    """The provider refused ``tools``: reported to the caller as ``ToolsRejectedError``."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(error.message)
        self.error = error


class ParameterRefusedAttempt(BadRequestError):
    """The provider refused one request parameter (a 400 naming it): ``_recover`` drops or
    renames it, remembers that for the model and asks again, once per parameter. A
    ``BadRequestError`` itself, so where it cannot be repaired it is the error to show."""

    def __init__(self, error: LLMError, refusal: ParameterRefusal) -> None:
        super().__init__(error.message, suggestions=error.suggestions, remedy=error.remedy,
                         status=error.status, detail=error.detail)
        self.error = error
        self.refusal = refusal


class EmptyStream(Exception):
    """HTTP 200 with no events at all (llama.cpp streaming with tool_choice "auto")."""


class CallRecovery:
    """The recovery half of ``LLMClient``: what it does after a failed attempt of a call. It
    uses these of the client's (``core.llm.client``): the provider, the network settings, the
    facts learned about models, the bus, the retry policy, the model, ``response_for`` (what a
    call received, kept in an error after partial output) and ``_read_shape`` (the request's
    shape read again after a repair)."""

    provider: ProviderConfig
    network: NetworkSettings
    facts: ModelFactsStore
    bus: EventBus | None
    retry: RetryPolicy
    _model: str
    response_for: Callable[..., ChatResponse]
    _read_shape: Callable[[tuple[str, str, str], str], None]

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

    def _recover(self, call: ChatCall, failure: Exception) -> float:
        """After a failed attempt: 0 to try again at once, seconds to wait first, or raise."""
        if isinstance(failure, EmptyStream) and call.stream_now:
            # Ask again without streaming; with tools, remember it for later calls.
            log.info("%s sent an empty stream; asking again without streaming", self.provider.name)
            if call.send_tools:
                STREAMED_TOOLS_BROKEN.add(call.capability)
            call.stream_now = False
            return 0.0
        if isinstance(failure, ParameterRefusedAttempt):
            # A model that refuses max_tokens, then temperature, is repaired one parameter at a
            # time; nothing reached the user yet, so asking again repeats nothing.
            if not call.acc.has_output and self._repair(call, failure.refusal):
                return 0.0
            failure = failure.error
        if (isinstance(failure, LLMError) and not call.acc.has_output and has_images(call.messages)
                and images_refused(failure.status, f"{failure.detail} {failure.message}")):
            self._learn_no_images(call, failure.detail or failure.message)
            return 0.0
        if isinstance(failure, ToolsRejectedAttempt):
            # Not retried blind: without the tools described in its prompt the model could not
            # call any. The caller asks again in its text format (the agent does, at once).
            log.info("%s / %s rejects tools (%s)", self.provider.name, call.model, failure.error.detail)
            TOOLS_UNSUPPORTED.add(call.capability)
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
