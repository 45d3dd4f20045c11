"""A scripted model: a real OpenAI-compatible HTTP server on 127.0.0.1 that answers each
chat request with the next prepared reply and records every request.

Tests drive the agent through the real ``LLMClient`` against it::

    def test_x(scripted_model, arun):
        scripted_model.script(call("calculate", {"expression": "2+2"}), text("It is 4."))
        ... run the agent with scripted_model.provider() ...
        assert scripted_model.requests[1]["messages"][-1]["role"] == "tool"

Replies stream as SSE when the request asks for ``stream``, else come back as one JSON
body. A reply can be a tool-call answer, a text answer, an HTTP error (``reject_tools()``
is the 400 a model without function calling gives), slow (``chunk_delay_s``) or hanging
(``hang``: the stream stays open until the client goes away, for cancellation tests).
When the script runs out the server answers 500 "no reply left", which fails the test.

A request for a model named as OpenAI names its reasoning models (``o4-mini``, ``gpt-5``...)
or for ``openai_rules.UNKNOWN_REASONER`` follows OpenAI's rules (``tests/servers/openai_rules.py``):
``max_tokens`` or a non-default ``temperature`` is refused with OpenAI's exact 400 body and
uses no reply of the script. Under ``gateway_url("litellm")`` or ``gateway_url("openrouter")``
the same refusals come as those gateways pass them on (only the words).
``require_key(key)`` makes it check the ``Authorization`` header as OpenAI does (401 with
OpenAI's error body for a missing or wrong key); the fixture forgets the key after each test.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from tests.servers import openai_rules

_ids = itertools.count(1)


@dataclass
class Reply:
    """One prepared answer."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"name", "arguments", "id"?}
    status: int = 200
    error: Any = None  # the JSON error body for status >= 400
    delay_s: float = 0.0  # before the first byte
    chunk_delay_s: float = 0.0
    chunk_size: int = 12
    hang: bool = False
    usage: dict[str, Any] | None = None  # the wire "usage" (OpenRouter adds "cost", details...)
    raw_tool_calls: list[dict[str, Any]] | None = None  # sent as they are (malformed shapes)


def text(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def call(name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None,
         content: str = "", **kw: Any) -> Reply:
    return Reply(content=content, tool_calls=[{"name": name, "arguments": arguments if arguments is not None else {},
                                               "id": id}], **kw)


def calls(*items: tuple[str, dict[str, Any] | str], content: str = "") -> Reply:
    return Reply(content=content, tool_calls=[{"name": n, "arguments": a, "id": None} for n, a in items])


def reject_tools() -> Reply:
    """The 400 an OpenAI-compatible model without function calling answers to ``tools``."""
    return Reply(status=400, error={"error": {"message": "tools is not supported in this model.",
                                              "type": "invalid_request_error", "param": "tools"}})


def error(status: int, message: str) -> Reply:
    return Reply(status=status, error={"error": {"message": message, "type": "server_error"}})


class ScriptedModel:
    """The server. ``script(*replies)`` sets what the next requests get; ``requests`` has
    every request body received (parsed JSON), in order."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.required_key: str | None = None  # set by require_key: chat requests must carry it
        self._replies: list[Reply] = []
        self._decide: Callable[[dict[str, Any]], Reply] | None = None  # answer_with: by the request itself
        self._lock = threading.Lock()
        self.closed_early = threading.Event()  # a hanging stream saw the client leave
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, outer.models_list())
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
                    # Not a chat (an Ollama /api/show lookup...): answered as an OpenAI-compatible
                    # server answers an unknown path, without using a reply of the script.
                    self._json(404, {"error": {"message": f"Unknown path {self.path}"}})
                    return
                if outer.required_key is not None and (refusal := _key_refusal(self.headers, outer.required_key)):
                    self._json(401, refusal)
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._json(400, {"error": {"message": "body is not JSON"}})
                    return
                refused = openai_rules.refusal(body) if isinstance(body, dict) else None
                with outer._lock:
                    outer.requests.append(body)
                    reply = outer.reply_for(body, self.path) if refused is None else None
                if refused is not None:  # as OpenAI answers, before any reply of the script
                    gateway = self.path.strip("/").split("/", 1)[0]
                    self._json(400, openai_rules.wrap(refused, gateway) if gateway in openai_rules.GATEWAYS
                               else refused)
                    return
                if reply is None:
                    self._json(500, {"error": {"message": "scripted model: no reply left for this request"}})
                    return
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status >= 400:
                    self._json(reply.status, reply.error or {"error": {"message": "scripted error"}})
                elif body.get("stream"):
                    self._stream(reply)
                else:
                    self._json(200, _completion(reply))

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for chunk in _chunks(reply):
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        if reply.chunk_delay_s:
                            time.sleep(reply.chunk_delay_s)
                    if reply.hang:
                        deadline = time.monotonic() + 30
                        while time.monotonic() < deadline:
                            self.wfile.write(b": keep-alive\n\n")
                            self.wfile.flush()
                            time.sleep(0.05)
                        return
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    outer.closed_early.set()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-model", daemon=True)

    def models_list(self) -> dict[str, Any]:
        """The body of ``GET /v1/models`` (a subclass names its own models)."""
        return {"object": "list", "data": [{"id": "scripted", "object": "model"}]}

    def reply_for(self, body: dict[str, Any], path: str) -> Reply | None:
        """The reply to a chat request (called under the lock): the script's next one, None when
        it has run out (``answer_with``: decided from the request). A subclass may override it."""
        if self._decide is not None:
            return self._decide(body)
        return self._replies.pop(0) if self._replies else None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def gateway_url(self, gateway: str) -> str:
        """The base URL where refusals come as ``gateway`` ("litellm", "openrouter") words them."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/{gateway}/v1"

    def provider(self, name: str = "scripted") -> ProviderConfig:
        return ProviderConfig(name=name, kind=ProviderKind.OPENAI_COMPATIBLE, base_url=self.base_url,
                              model="scripted")

    def require_key(self, key: str | None) -> None:
        """Refuse chat requests without ``Authorization: Bearer <key>`` (None: any request)."""
        self.required_key = key

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies = list(replies)
            self._decide = None
            self.requests.clear()
            self.closed_early.clear()

    def answer_with(self, decide: Callable[[dict[str, Any]], Reply]) -> None:
        """Answer every chat request by ``decide(body)``, as a model answers the same conversation the
        same way however often it is asked (an answer started and dropped, then asked again)."""
        with self._lock:
            self._replies = []
            self._decide = decide
            self.requests.clear()
            self.closed_early.clear()

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._replies)

    def start(self) -> ScriptedModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _key_refusal(headers: Any, key: str) -> dict[str, Any] | None:
    """OpenAI's 401 body for a missing or wrong key (its documented wording), None for the right key."""
    given = str(headers.get("Authorization") or "")
    if given == f"Bearer {key}":
        return None
    if not given.startswith("Bearer ") or not given[7:].strip():
        message = ("You didn't provide an API key. You need to provide your API key in an Authorization header "
                   "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the basic auth username and "
                   "password when using HTTPS, or as the password field (with blank username) if you're accessing "
                   "the API from your browser and are prompted for a username and password. You can obtain an API "
                   "key from https://platform.openai.com/account/api-keys.")
        return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
    shown = given[7:]
    shown = f"{shown[:3]}{'*' * max(0, len(shown) - 7)}{shown[-4:]}"
    return {"error": {"message": f"Incorrect API key provided: {shown}. You can find your API key at "
                                 "https://platform.openai.com/account/api-keys.",
                      "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}


def _tool_calls_wire(reply: Reply) -> list[dict[str, Any]]:
    if reply.raw_tool_calls is not None:
        return reply.raw_tool_calls
    wire = []
    for item in reply.tool_calls:
        arguments = item["arguments"]
        wire.append({
            "id": item.get("id") or f"call_s{next(_ids)}",
            "type": "function",
            "function": {"name": item["name"],
                         "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)},
        })
    return wire


def _usage(reply: Reply) -> dict[str, Any]:
    return reply.usage or {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}


def _completion(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    tool_calls = _tool_calls_wire(reply)
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-s{next(_ids)}", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": _usage(reply),
    }


def _chunks(reply: Reply) -> Iterator[dict[str, Any]]:
    cid = f"chatcmpl-s{next(_ids)}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": cid, "object": "chat.completion.chunk", "model": "scripted",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    content = reply.content
    for start in range(0, len(content), reply.chunk_size):
        yield chunk({"content": content[start:start + reply.chunk_size]})
    if reply.hang:
        return
    tool_calls = _tool_calls_wire(reply)
    for index, item in enumerate(tool_calls):
        function = item.get("function") or {}
        head = {"index": index, "id": item.get("id"), "type": "function",
                "function": {"name": function.get("name"), "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        arguments = function.get("arguments") or ""
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        for start in range(0, len(arguments), 16):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[start:start + 16]}}]})
    final = chunk({}, "tool_calls" if tool_calls else "stop")
    final["usage"] = _usage(reply)
    yield final


@pytest.fixture(scope="session")
def _scripted_model_server() -> Iterator[ScriptedModel]:
    server = ScriptedModel().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def scripted_model(_scripted_model_server: ScriptedModel) -> Iterator[ScriptedModel]:
    """The session's scripted model, with an empty script and no recorded requests."""
    _scripted_model_server.script()
    _scripted_model_server.required_key = None
    yield _scripted_model_server
    _scripted_model_server.script()
    _scripted_model_server.required_key = None
