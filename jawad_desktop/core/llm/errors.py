"""The LLM layer's failures, each with a message for the user and what to do next.

One hierarchy under ``LLMError`` (itself a ``JawadError``). HTTP statuses and transport
exceptions are turned into these in exactly one place, ``classify_status`` and
``classify_transport`` below; the rest of the app only ever sees these classes.
The messages follow spec 000's friendly-error table; the suggestions follow spec 002's
``handleRequestError`` (what happened, then what to try). Suggestions are neutral; where the
fix is a setting (the key, the model, the base URL, the network) the error's ``remedy`` names
it, and the window or the terminal says how to get there.
"""

from __future__ import annotations

import json
import re
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.errors import JawadError, Remedy

if TYPE_CHECKING:
    from jawad_desktop.core.llm.types import ChatResponse

__all__ = [
    "AuthError",
    "BadRequestError",
    "CancelledRequest",
    "LLMError",
    "LLMTimeoutError",
    "ModelNotFoundError",
    "NetworkError",
    "ParameterRefusal",
    "ProtocolError",
    "RateLimitedError",
    "ServerError",
    "ToolsRejectedError",
    "classify_status",
    "classify_transport",
    "error_text_from_body",
    "parameter_refusal",
]


class LLMError(JawadError):
    """A request to a model failed. ``retryable`` says whether trying again may help.

    ``partial`` holds what had already streamed when the failure came mid-answer, so the
    text the user already saw is not lost.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        suggestions: list[str] | None = None,
        remedy: Remedy | None = None,
        status: int | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message, suggestions=suggestions, remedy=remedy)
        self.status = status
        self.detail = detail  # the provider's own words, for the log and "details"
        self.partial: ChatResponse | None = None


class AuthError(LLMError):
    """The key is missing, wrong, or has no credit (401, 403)."""


class RateLimitedError(LLMError):
    """The provider asks us to slow down (429). ``retry_after`` is in seconds, if given."""

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ModelNotFoundError(LLMError):
    """The model (or the address) does not exist on this provider (404)."""


class BadRequestError(LLMError):
    """The provider refused the request itself (400, 422, or a validation error)."""


class ToolsRejectedError(BadRequestError):
    """The model or its server refused the request's ``tools`` (it has no native function
    calling). Nothing was answered: ask again without ``tools``, with the tools described in
    the prompt (the agent switches to its text tool format and asks again at once)."""


class ServerError(LLMError):
    """The provider failed on its side (5xx)."""

    retryable = True


class NetworkError(LLMError):
    """The provider could not be reached, or the connection broke."""

    retryable = True


class LLMTimeoutError(NetworkError):
    """The provider did not answer in time (connect, between two chunks, or in total)."""


class ProtocolError(LLMError):
    """The provider answered with something that is not the protocol (bad JSON, empty body)."""

    retryable = True


class WebPageError(ProtocolError):
    """A web page came back where an API answer was expected (a wrong base URL, a login page, a
    captive portal): asking again gets the same page."""

    retryable = False


class CancelledRequest(LLMError):
    """The user stopped the request."""

    def __init__(self, message: str = "The request was stopped.", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)


def _where(provider: ProviderConfig, *, starts: bool = False) -> str:
    """The provider as a sentence names it (``starts``: at the sentence's start): its kind and address;
    the built-in model's server has no fixed address."""
    if provider.kind is ProviderKind.LOCAL:
        return "The built-in local model" if starts else "the built-in local model"
    url = provider.effective_base_url
    return f"{provider.kind.label} at {url}" if url else provider.kind.label


_WEB_PAGE = re.compile(r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)


def web_page_instead(provider: ProviderConfig, body: str) -> WebPageError | None:
    """The error for a web page where an API answer (JSON or a stream) was expected: a wrong base
    URL, a login page or a captive portal in the way. None when ``body`` is not a web page."""
    if not _WEB_PAGE.match(body[:2000]):
        return None
    title = re.search(r"<title[^>]*>(.*?)</title>", body[:20000], re.IGNORECASE | re.DOTALL)
    named = f' ("{" ".join(title.group(1).split())[:80]}")' if title and title.group(1).strip() else ""
    return WebPageError(
        f"Got a web page{named} instead of an API answer from {_where(provider)}: is the base URL right? "
        "Is a login page or a captive portal (a hotel's or an airport's Wi-Fi sign-in) in the way?",
        suggestions=["Check the provider's base URL: OpenAI-compatible APIs usually end in /v1.",
                     "Open the address in a browser: sign in to the network if it asks you to, then try again."],
        remedy=Remedy("provider", provider.name), detail=body[:300])


def error_text_from_body(body: str) -> str:
    """The provider's error message from an error body, in OpenAI's, OpenRouter's or
    Ollama's shape (``{"error": {"message": ...}}``, ``{"error": "..."}``, ``{"detail": ...}``),
    else the start of the raw text."""
    text = body.strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text[:500]
    return _message_from(data) or text[:500]


def _message_from(data: Any) -> str:
    if isinstance(data, str):
        return data
    if isinstance(data, list):
        return "; ".join(m for m in (_message_from(item) for item in data[:5]) if m)
    if not isinstance(data, dict):
        return ""
    error = data.get("error")
    if isinstance(error, dict):
        message = str(error.get("message") or error.get("msg") or "")
        # OpenRouter puts the upstream provider's words in metadata.raw.
        metadata = error.get("metadata")
        if isinstance(metadata, dict) and metadata.get("raw"):
            message = f"{message} ({str(metadata['raw'])[:300]})" if message else str(metadata["raw"])
        return message
    if isinstance(error, str):
        return error
    if "msg" in data and isinstance(data.get("loc"), list):
        # A pydantic/FastAPI validation item: say where, the field name may be "tools".
        return ".".join(str(part) for part in data["loc"]) + ": " + str(data["msg"])
    for key in ("detail", "message", "msg"):
        if key in data:
            return _message_from(data[key])
    return ""


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    import datetime as _dt

    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return max(0.0, (when - _dt.datetime.now(_dt.UTC)).total_seconds())


def classify_status(
    provider: ProviderConfig, model: str, status: int, body: str, headers: httpx.Headers | None = None
) -> LLMError:
    """The error for an HTTP error status from ``provider``."""
    detail = error_text_from_body(body)
    said = f" The provider said: {detail}" if detail else ""
    kind = provider.kind
    # Where each is fixed: the face words it (the window's Settings, the terminal's command).
    settings = Remedy("provider", provider.name)
    key = Remedy("provider-key", provider.name)
    if status == 401:
        return AuthError(
            f"Invalid API key — double-check your {kind.label} key.{said}",
            suggestions=["Paste the key again: it may be mistyped, revoked or expired."],
            remedy=key, status=status, detail=detail,
        )
    if status == 403:
        if kind is ProviderKind.OPENROUTER:
            message = "API key has no credits or is invalid — add credits at openrouter.ai."
            tips = ["Check your credits at https://openrouter.ai/settings/credits."]
        elif kind is ProviderKind.OPENAI:
            message = "API key invalid or no billing — check platform.openai.com."
            tips = ["Check billing at https://platform.openai.com/settings/organization/billing."]
        else:
            message = f"{_where(provider, starts=True)} refused access (403)."
            tips = ["Check the API key and that this server lets you use the model."]
        return AuthError(message + said, suggestions=tips, remedy=key, status=status, detail=detail)
    if status == 404 and "model" not in detail.lower():
        return ModelNotFoundError(
            f"Nothing answers at {provider.effective_base_url}/chat/completions (404): "
            f"check the base URL of {provider.name!r}.{said}",
            suggestions=["OpenAI-compatible servers usually have their API under /v1 "
                         "(e.g. http://localhost:1234/v1)."],
            remedy=settings, status=status, detail=detail,
        )
    if status == 404:
        tips = [f"Check the model name {model!r}: the provider's list of models shows the ones it has."]
        if kind in (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE):
            tips.insert(0, f"Download it with `ollama pull {model}`.")
        tips.append(f"Check the base URL {provider.effective_base_url}.")
        return ModelNotFoundError(
            f"Model not found — check the model name ({model!r} on {_where(provider)}).{said}",
            suggestions=tips, remedy=Remedy("provider-model", provider.name), status=status, detail=detail,
        )
    if status == 429:
        retry_after = parse_retry_after(headers.get("retry-after") if headers is not None else None)
        wait = f" The provider asks to wait {retry_after:.0f} s." if retry_after else ""
        return RateLimitedError(
            f"Rate limited — wait and try again.{wait}{said}",
            retry_after=retry_after,
            suggestions=["Wait a minute before sending again.",
                         "If it keeps happening, check your plan's limits or credits."],
            status=status, detail=detail,
        )
    if status >= 500:
        if _is_validation_error(detail):
            # llama.cpp and other pydantic servers report a bad request as a 500.
            return BadRequestError(
                f"{_where(provider, starts=True)} rejected the request as invalid.{said}",
                suggestions=["This model or server may not support this kind of request."],
                remedy=settings, status=status, detail=detail,
            )
        return ServerError(
            f"Server error — {kind.label} may be down ({status}).{said}",
            suggestions=["Try again in a moment.", "Check the provider's status page."],
            status=status, detail=detail,
        )
    if status == 413:
        return BadRequestError(
            f"The conversation is too long for this model.{said}",
            suggestions=["Start a new conversation or ask about a smaller part of the page."],
            status=status, detail=detail,
        )
    return BadRequestError(
        f"{_where(provider, starts=True)} rejected the request ({status}).{said}",
        suggestions=["Check the provider's base URL and model."], remedy=settings, status=status, detail=detail,
    )


def _is_validation_error(detail: str) -> bool:
    lowered = detail.lower()
    return "validation error" in lowered or "input should be" in lowered or "field required" in lowered


def classify_transport(
    provider: ProviderConfig, exc: BaseException, *, timeout_s: float = 0.0, proxy: str = ""
) -> LLMError:
    """The error for a transport failure (no HTTP status) talking to ``provider``; ``proxy``
    is the proxy the request went through (shown without credentials), if any."""
    url = provider.effective_base_url
    host = httpx.URL(url).host if url else ""
    detail = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout):
            what = f"Connecting to {_where(provider)} timed out."
        elif isinstance(exc, httpx.ReadTimeout):
            what = f"{_where(provider, starts=True)} stopped sending the answer (no data for {timeout_s:.0f} s)."
        else:
            what = f"{_where(provider, starts=True)} did not answer in time."
        return LLMTimeoutError(
            what,
            suggestions=["Try again; a local model may still be loading.",
                         "Raise the timeouts if the model is slow."],
            remedy=Remedy("network"), detail=detail,
        )
    if isinstance(exc, httpx.ConnectError):
        text = str(exc).lower()
        if _is_tls_failure(exc):
            return NetworkError(
                f"The secure connection to {host or url} failed: its certificate could not be verified.",
                suggestions=["If you use a company proxy, set its CA bundle.",
                             "Check the system date and time."],
                remedy=Remedy("network"), detail=detail,
            )
        if proxy:  # through a proxy it is the proxy we connect to: the provider's name is its business
            return _refused(NetworkError(
                f"Can't reach the proxy {proxy}: is it running and the address right?",
                suggestions=["Check the proxy's address and port, or clear it to connect directly."],
                remedy=Remedy("network"), detail=detail,
            ), proxy)
        if any(s in text for s in ("name or service not known", "nodename nor servname",
                                   "temporary failure in name resolution", "getaddrinfo", "no address")):
            return NetworkError(
                f"Can't find the server {host!r}: the name does not resolve.",
                suggestions=["Check the base URL.", "Check your internet connection."],
                remedy=Remedy("provider", provider.name), detail=detail,
            )
        if provider.kind is ProviderKind.LOCAL:
            return NetworkError(
                "Can't reach the built-in local model server.",
                suggestions=["Try again: the server is restarted on the next request."],
                detail=detail,
            )
        if provider.kind in (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE):
            message = f"Can't reach Ollama at {_ollama_root(url)}: is it running? Start it with `ollama serve`."
            tips = ["Start Ollama with `ollama serve` (or open the Ollama app).", "Check the base URL."]
        else:
            message = f"Can't reach {_where(provider)}: is the server running and the address right?"
            tips = ["Check your internet connection or that the local server is started.",
                    "Check the base URL, and the proxy if you use one."]
        remedy = Remedy("provider", provider.name)
        return _refused(NetworkError(message, suggestions=tips, remedy=remedy, detail=detail), url)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return NetworkError(
            f"The connection to {_where(provider)} broke before the answer was complete.",
            suggestions=["Try again.", "If it keeps happening, check the proxy."],
            remedy=Remedy("network"), detail=detail,
        )
    if isinstance(exc, httpx.ProxyError):
        return NetworkError(
            f"The proxy refused the connection to {_where(provider)}.",
            suggestions=["Check the proxy URL."],
            remedy=Remedy("network"), detail=detail,
        )
    return NetworkError(
        f"The request to {_where(provider)} failed ({type(exc).__name__}).",
        suggestions=["Try again.", "Check the proxy and the certificates, if you use them."],
        remedy=Remedy("network"), detail=detail,
    )


def _refused(error: NetworkError, url: str) -> NetworkError:
    """A server on this computer that refuses connections is not running: waiting and
    retrying will not start it, so say so at once instead of after the backoff."""
    host = httpx.URL(url).host if url else ""
    if host in ("localhost", "127.0.0.1", "::1") or host.startswith("127."):
        error.retryable = False
    return error


def _ollama_root(url: str) -> str:
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _is_tls_failure(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError) or "certificate verify failed" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# -- a request parameter the model refuses ---------------------------------------------------------

@dataclass(frozen=True)
class ParameterRefusal:
    """A 400 that names one request parameter the model does not take, or not with that value.

    ``param`` is the name as the provider wrote it (``max_tokens``, ``reasoning.effort``,
    ``thinking_level``; "" when only the value is known); ``rename_to`` the name it asks for
    instead (then rename, else drop); ``value`` the refused value when the value was refused
    (dropping the parameter leaves the model's default, the one value it takes)."""

    param: str
    rename_to: str = ""
    value: str = ""


# The provider's own words, as OpenAI, Azure, OpenRouter and LiteLLM-style gateways pass them
# on (the gateways often keep only the text), Anthropic, Bedrock and Gemini. First match wins.
_Q = r"['\"`]?"
_REFUSAL_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    # OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model. Use
    # 'max_completion_tokens' instead." / "Unsupported parameter: 'temperature' is not supported ..."
    r"unsupported parameter:?\s*'(?P<param>[\w.\[\]]+)'",
    # OpenAI: "Unsupported value: 'temperature' does not support 0.3 with this model. Only the
    # default (1) value is supported." / "'reasoning_effort' does not support 'minimal' with this model"
    r"unsupported value:?\s*'(?P<param>[\w.]+)' does not support (?P<value>'[^']*'|[^\s]+) with",
    # OpenAI (gpt-5.1): "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model."
    r"unsupported value:?\s*'(?P<value>[^']+)' is not supported with",
    r"'(?P<param>[\w.]+)' is not supported with this model\.?\s*use '(?P<to>[\w.]+)' instead",
    # LiteLLM itself: "openai does not support parameters: ['temperature'], for model=o1."
    r"does not support parameters?:?\s*\[\s*'(?P<param>[\w.]+)'",
    # Anthropic: "`temperature` is deprecated for this model."
    r"`(?P<param>\w+)` is deprecated for this model",
    # Bedrock: "This model doesn't support the temperature field. Remove temperature and try again."
    r"doesn't support the (?P<param>\w+) field",
    # Moonshot and others: "invalid temperature: only 1 is allowed for this model"
    r"invalid (?P<param>[a-z_]+): only \S+ (?:is|are) allowed",
    # Gemini: "Thinking level is not supported for this model." / "The thinking budget (52428) is
    # invalid." / "Budget 0 is invalid. This model only works in thinking mode." / "Thinking
    # can't be disabled for this model."
    r"(?P<param>thinking[ _]?level) is not supported",
    r"(?P<param>thinking[ _]?budget)\s*\(?-?\d+\)? is invalid",
    r"(?P<param>budget) -?\d+ is invalid",
    r"thinking can'?t be disabled(?P<param>)",
    # "'top_p' is not supported with this model." and the like
    rf"{_Q}(?P<param>[a-z][a-z_.]*){_Q} (?:is|are) not supported (?:with|for|by) (?:this|the) model",
))
_USE_INSTEAD = re.compile(r"use '(?P<to>[\w.]+)' instead", re.IGNORECASE)
_REFUSAL_CODES = frozenset({"unsupported_parameter", "unsupported_value"})
_REFUSED_WORDS = re.compile(r"unsupported|not supported|does not support|doesn't support", re.IGNORECASE)
# What a tools rejection is about (spec 000's fallback handles those, not the repair).
_TOOL_PARAMS = frozenset({"tools", "tool_choice", "functions", "function_call", "tool_config", "toolconfig",
                          "parallel_tool_calls"})
_GEMINI_NAMES = {"thinking level": "thinking_level", "thinkinglevel": "thinking_level",
                 "thinking budget": "thinking_budget", "thinkingbudget": "thinking_budget",
                 "budget": "thinking_budget", "": "thinking_budget"}


def parameter_refusal(status: int, body: str) -> ParameterRefusal | None:
    """The parameter a 400/422 answer says the model refuses, or None when it is about
    something else (a tools rejection included: that is ``is_tools_rejection``'s).

    Reads OpenAI's ``param`` and ``code`` (``unsupported_parameter``, ``unsupported_value``)
    when the body has them, and the provider's words otherwise: gateways (LiteLLM, OpenRouter,
    Azure) often pass only the message, or the upstream body as text inside their own."""
    if status not in (400, 422) or not body:
        return None
    param = code = ""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        raw_param, raw_code = error.get("param"), error.get("code")
        # LiteLLM's proxy long sent the literal string "None" for a missing param.
        if isinstance(raw_param, str) and raw_param.strip() not in ("", "None", "null"):
            param = raw_param.strip()
        code = raw_code if isinstance(raw_code, str) else ""
    # The message first (OpenRouter's upstream words included), then the whole body, its
    # escaped quotes undone: a gateway may carry the provider's JSON as a string.
    text = (error_text_from_body(body) + "\n" + body).replace('\\"', '"').replace("\\n", " ")
    refusal = _refusal_in(text)
    if refusal is None and param and (code in _REFUSAL_CODES or _REFUSED_WORDS.search(text)):
        refusal = ParameterRefusal(param)
    if refusal is None:
        return None
    if param and param != refusal.param:
        refusal = ParameterRefusal(param, refusal.rename_to, refusal.value)  # the body's own field wins
    name = refusal.param.split("[", 1)[0].split(".", 1)[0].lower()
    if name in _TOOL_PARAMS:
        return None
    return refusal


def _refusal_in(text: str) -> ParameterRefusal | None:
    for pattern in _REFUSAL_PATTERNS:
        found = pattern.search(text)
        if found is None:
            continue
        groups = found.groupdict()
        param = groups.get("param")
        if param is not None:
            param = _GEMINI_NAMES.get(param.lower(), param)
        rename = groups.get("to") or ""
        if not rename and (after := _USE_INSTEAD.search(text, found.start())):
            rename = after.group("to")
        value = (groups.get("value") or "").strip("'")
        if not param and not value:
            continue
        return ParameterRefusal(param or "", rename, value)
    return None

