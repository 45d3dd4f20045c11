"""A fault-injecting OpenAI-compatible server, a real HTTP/1.1 server on 127.0.0.1.

It answers ``/v1/chat/completions`` (plain JSON and SSE), ``/v1/models`` and Ollama's
``/api/tags``. What it does to a request is chosen by a *scenario*: the path prefix
``/s/<scenario>/...`` (so a whole base URL can be faulty, model list included), else the
request's ``model``. ``<scenario>@<key>`` keeps a separate counter for the
``flaky-*`` scenarios ("fail N times, then answer").

Scenarios: ok, status-<code>[-openai|-openrouter|-ollama], flaky-<code>-<n>,
flaky-malformed-<n>, flaky-reset-<n>, tools-400-openai, tools-400-openrouter,
tools-400-ollama, tools-404-openrouter, tools-422, validation-500, malformed-json, web-page, garbage-sse, split-sse,
no-done, partial-sse, reset, drip, stall, stall-before, large, empty-200, tool-repeat,
tool-noid, no-usage, stream-error, words-<n>, timed-<n>-<gap ms>.

It also answers as an HTTP proxy (absolute URLs), and over HTTPS when started with an
SSL context. Like llama.cpp it refuses a message whose ``content`` is null (HTTP 500, pydantic text).
Every request is recorded in ``requests`` for the tests to inspect.
"""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER_WORDS = ["Hello", " from", " the", " fault", " server", "."]
ANSWER = "".join(ANSWER_WORDS)
MODELS = ["ok", "fault-model", "tools-400-openai"]
OLLAMA_MODELS = ["llama3.2:3b", "qwen2.5:7b"]
TOOL_ARGS = '{"city": "Paris"}'


def _chunk(delta: dict[str, Any], finish: str | None = None, *, cid: str = "chatcmpl-fault") -> dict[str, Any]:
    return {"id": cid, "object": "chat.completion.chunk", "model": "fault",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _usage(n_out: int) -> dict[str, int]:
    return {"prompt_tokens": 7, "completion_tokens": n_out, "total_tokens": 7 + n_out}


def _completion(content: str | None, tool_calls: list[dict[str, Any]] | None = None,
                usage: bool = True) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-fault", "object": "chat.completion", "model": "fault",
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if tool_calls else "stop"}],
    }
    if usage:
        body["usage"] = _usage(len(ANSWER_WORDS))
    return body


LOGIN_PAGE = (b"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Guest Wi-Fi - Sign in"
              b"</title></head><body><form method=\"post\"><input name=\"room\"><button>Connect</button></form>"
              b"</body></html>")


class FaultServer:
    """Start with ``start()``, stop with ``stop()``; ``base_url`` ends in ``/v1``."""

    def __init__(self, *, record: bool = True) -> None:
        self.recording = record  # off for benchmarks: the list would grow with every request
        self.requests: list[dict[str, Any]] = []
        self._counters: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self.scheme = "http"
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def root(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def scenario_url(self, scenario: str) -> str:
        """A base URL on which every request plays ``scenario``."""
        return f"{self.root}/s/{scenario}/v1"

    def count(self, key: str) -> int:
        """How many times a flaky key was seen, then add one."""
        with self._lock:
            seen = self._counters[key]
            self._counters[key] += 1
            return seen

    def record(self, entry: dict[str, Any]) -> None:
        if not self.recording:
            return
        with self._lock:
            self.requests.append(entry)

    def start(self, tls: ssl.SSLContext | None = None) -> FaultServer:
        """Serve on a free port; with ``tls`` (a server context) over HTTPS."""
        server = self

        class Handler(_Handler):
            fault = server

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fault-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that goes away mid-answer (cancelled, timed out) is what the tests do on purpose.
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, as real servers send them
    fault: FaultServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing --------------------------------------------------------------------------
    def _split_path(self) -> tuple[str, str]:
        path = self.path.split("?", 1)[0]
        if "://" in path:  # a request sent through us as an HTTP proxy: absolute URL
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        if path.startswith("/s/"):
            _, _, rest = path.partition("/s/")
            scenario, _, remainder = rest.partition("/")
            return scenario, "/" + remainder
        return "", path

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(body).encode()
        self._send_raw(status, raw, "application/json", headers)

    def _send_raw(self, status: int, raw: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)
        self.wfile.flush()

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.flush()

    def _write(self, data: bytes) -> None:
        if data:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    def _event(self, data: Any) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        self._write(f"data: {text}\n\n".encode())

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _reset(self) -> None:
        """Close the connection with a TCP RST (SO_LINGER 0), as a crashed server does."""
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    # -- GET -------------------------------------------------------------------------------
    def do_GET(self) -> None:
        scenario, path = self._split_path()
        self.fault.record({"method": "GET", "path": self.path, "headers": dict(self.headers), "body": None})
        if scenario.startswith("status-"):
            self._status_error(scenario, "")
            return
        if scenario == "malformed-json":
            self._send_raw(200, b"<html>not an API</html>", "text/html")
            return
        if scenario == "web-page":
            self._send_raw(200, LOGIN_PAGE, "text/html; charset=utf-8")
            return
        if path == "/api/tags":
            self._send_json(200, {"models": [{"name": n, "model": n, "size": 1} for n in OLLAMA_MODELS]})
        elif path == "/v1/models":
            self._send_json(200, {"object": "list", "data": [{"id": n, "object": "model"} for n in MODELS]})
        else:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    # -- POST ------------------------------------------------------------------------------
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        scenario, path = self._split_path()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON"}})
            return
        self.fault.record({"method": "POST", "path": self.path, "headers": dict(self.headers), "body": body})
        if path != "/v1/chat/completions":
            self._send_json(404, {"error": {"message": f"no route {path}"}})
            return
        for index, message in enumerate(body.get("messages") or []):
            if isinstance(message, dict) and message.get("content") is None:
                # What llama.cpp does with content: null (PLATFORM.md).
                self._send_json(500, {"error": {"message": (
                    f"1 validation error:\n  {{'type': 'string_type', 'loc': ('body', 'messages', {index}, "
                    "'content'), 'msg': 'Input should be a valid string', 'input': None}")}})
                return
        model = str(body.get("model") or "")
        scenario = scenario or model
        self._play(scenario.partition("@")[0], scenario, body)

    def _status_error(self, name: str, model: str) -> None:
        parts = name.split("-")
        status = int(parts[1])
        flavour = parts[2] if len(parts) > 2 else "openai"
        headers: dict[str, str] = {}
        if status == 429:
            headers["Retry-After"] = "1"
        if status == 502:
            self._send_raw(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
            return
        messages = {
            401: "Incorrect API key provided: sk-test***. You can find your API key at platform.openai.com.",
            403: "You are not allowed to use this model.",
            404: f"The model `{model}` does not exist or you do not have access to it.",
            429: "Rate limit reached for requests.",
            500: "The server had an error while processing your request.",
            503: "The engine is currently overloaded, please try again later.",
        }
        message = messages.get(status, "error")
        if flavour == "openrouter":
            payload: Any = {"error": {"code": status, "message": message, "metadata": {"provider_name": "X"}}}
        elif flavour == "ollama":
            payload = {"error": f'model "{model}" not found, try pulling it first' if status == 404 else message}
        else:
            payload = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
        self._send_json(status, payload, headers)

    def _ok(self, body: dict[str, Any], *, words: list[str] | None = None, usage: bool = True,
            done: bool = True) -> None:
        words = words or ANSWER_WORDS
        if not body.get("stream"):
            self._send_json(200, _completion("".join(words), usage=usage))
            return
        self._start_stream()
        self._event(_chunk({"role": "assistant", "content": ""}))
        for word in words:
            self._event(_chunk({"content": word}))
        self._event(_chunk({}, "stop"))
        include_usage = (body.get("stream_options") or {}).get("include_usage")
        if usage and include_usage:
            self._event({"id": "chatcmpl-fault", "object": "chat.completion.chunk", "choices": [],
                         "usage": _usage(len(words))})
        if done:
            self._event("[DONE]")
        self._end_stream()

    def _play(self, name: str, key: str, body: dict[str, Any]) -> None:
        stream = bool(body.get("stream"))
        has_tools = bool(body.get("tools"))
        model = str(body.get("model") or "")
        if name.startswith("status-"):
            self._status_error(name, model)
        elif name.startswith("flaky-"):
            _, what, times = name.split("-")
            if self.fault.count(key) < int(times):
                if what == "malformed":
                    self._send_raw(200, b'{"choices": [{"message": {"content": "Hel', "application/json")
                elif what == "reset":
                    self._reset()
                else:
                    self._status_error(f"status-{what}", model)
            else:
                self._ok(body)
        elif name.startswith("tools-"):
            if not has_tools:
                self._ok(body)
                return
            if name == "tools-400-openai":
                self._send_json(400, {"error": {"message": "tools is not supported in this model.",
                                                "type": "invalid_request_error", "param": "tools"}})
            elif name == "tools-400-openrouter":
                self._send_json(400, {"error": {"code": 400, "message": "Provider returned error", "metadata": {
                    "raw": '{"error":"This model does not support function calling"}',
                    "provider_name": "Mistral"}}})
            elif name == "tools-404-openrouter":
                self._send_json(404, {"error": {"code": 404,
                                                "message": "No endpoints found that support tool use."}})
            elif name == "tools-400-ollama":
                self._send_json(400, {"error": f"registry.ollama.ai/library/{model} does not support tools"})
            else:
                self._send_json(422, {"detail": [{"loc": ["body", "tools"], "msg": "extra fields not permitted",
                                                  "type": "value_error.extra"}]})
        elif name == "validation-500":
            self._send_json(500, {"error": {"message": "2 validation errors:\n  {'type': 'literal_error', "
                                            "'loc': ('body', 'messages', 0, 'role'), 'msg': \"Input should be "
                                            "'system'\"}"}})
        elif name == "web-page":  # a captive portal or a login page answers every address with itself
            self._send_raw(200, LOGIN_PAGE, "text/html; charset=utf-8")
        elif name == "malformed-json":
            if stream:
                self._start_stream()
                self._event("{not json")
                self._event("[1, 2")
                self._end_stream()
            else:
                self._send_raw(200, b'{"choices": [{"message": {"content": "Hel', "application/json")
        elif name == "garbage-sse":
            self._start_stream()
            self._write(b": keep-alive comment\n\n")
            self._write(b"event: ping\ndata: {}\n\n")
            self._event(_chunk({"content": "Hello"}))
            self._write(b"data: this is not json\n\n")
            self._write(b"retry: 1000\nid: 7\n\n")
            self._write(b"nonsense line without a colon\n\n")
            self._event({"unexpected": "shape"})
            self._event(_chunk({"content": " world"}))
            self._write(b"data: {\"choices\": [{\"delta\": {\"content\": \"!\"}}]}\r\n\r\n")
            self._event("[DONE]")
            self._end_stream()
        elif name == "split-sse":
            self._start_stream()
            payload = b"".join(
                f"data: {json.dumps(_chunk({'content': w}))}\n\n".encode() for w in ANSWER_WORDS
            ) + b"data: [DONE]\n\n"
            for start in range(0, len(payload), 7):
                self._write(payload[start:start + 7])
            self._end_stream()
        elif name == "no-done":
            self._ok(body, done=False)
        elif name == "no-usage":
            self._ok(body, usage=False)
        elif name == "partial-sse":
            self._start_stream()
            for word in ANSWER_WORDS:
                self._event(_chunk({"content": word}))
            self._write(b'data: {"choices": [{"delta": {"content": " and mo')
            self._end_stream()
        elif name == "reset":
            self._start_stream()
            self._event(_chunk({"content": "Hello"}))
            self._event(_chunk({"content": " there"}))
            time.sleep(0.05)
            self._reset()
        elif name == "drip":
            self._start_stream()
            try:
                for word in ANSWER_WORDS * 3:
                    self._event(_chunk({"content": word}))
                    time.sleep(0.05)
                self._event("[DONE]")
                self._end_stream()
            except (BrokenPipeError, ConnectionResetError):
                # The client closed the stream: note when, for the cancellation tests.
                self.fault.record({"method": "GONE", "path": self.path, "key": key, "at": time.monotonic()})
                self.close_connection = True
        elif name in ("stall", "stall-before"):
            self._start_stream()
            if name == "stall":
                self._event(_chunk({"content": "Hello"}))
            # Hold the connection open, sending nothing, until the client goes away.
            self.fault.stopping.wait(30)
            self.close_connection = True
        elif name == "large" or name.startswith("words-"):
            count = 200_000 if name == "large" else int(name.split("-")[1])
            words = [f" w{i}" for i in range(count)]
            if stream:
                self._start_stream()
                batch = []
                for word in words:
                    batch.append(f"data: {json.dumps(_chunk({'content': word}))}\n\n")
                    if len(batch) >= 500:
                        self._write("".join(batch).encode())
                        batch = []
                self._write("".join(batch).encode())
                self._event("[DONE]")
                self._end_stream()
            else:
                self._send_json(200, _completion("".join(words)))
        elif name == "empty-200":
            if stream and has_tools:
                self._start_stream()
                self._end_stream()
            elif has_tools:
                self._send_json(200, _completion(None, [{"id": "call_1", "type": "function", "function": {
                    "name": "get_weather", "arguments": TOOL_ARGS}}]))
            else:
                self._ok(body)
        elif name == "tool-repeat":
            pieces = ['{"city"', ': "Par', 'is"}']
            if not stream:
                self._send_json(200, _completion(None, [{"id": "call_r", "type": "function", "function": {
                    "name": "get_weather", "arguments": "".join(pieces)}}]))
                return
            self._start_stream()
            self._event(_chunk({"role": "assistant", "content": None}))
            for piece in pieces:
                # llama.cpp: id and name again in every chunk, plus the legacy function_call.
                self._event(_chunk({"content": None,
                                    "function_call": {"name": "get_weather", "arguments": piece},
                                    "tool_calls": [{"index": 0, "id": "call_r", "type": "function",
                                                    "function": {"name": "get_weather", "arguments": piece}}]}))
            self._event(_chunk({}, "tool_calls"))
            self._event("[DONE]")
            self._end_stream()
        elif name == "tool-noid":
            if not stream:
                self._send_json(200, _completion("", [{"function": {"name": "get_weather",
                                                                    "arguments": {"city": "Paris"}}}]))
                return
            self._start_stream()
            self._event(_chunk({"tool_calls": [{"function": {"name": "get_weather", "arguments": '{"ci'}}]}))
            self._event(_chunk({"tool_calls": [{"function": {"arguments": 'ty": "Paris"}'}}]}))
            self._event(_chunk({}, "tool_calls"))
            self._end_stream()
        elif name.startswith("timed-"):
            # timed-<count>-<gap ms>: each chunk's text is the server's monotonic clock when sent.
            _, count, gap = name.split("-")
            self._start_stream()
            for _ in range(int(count)):
                self._event(_chunk({"content": f"{time.monotonic():.9f}|"}))
                time.sleep(int(gap) / 1000)
            self._event("[DONE]")
            self._end_stream()
        elif name == "stream-error":
            self._start_stream()
            self._write(b": OPENROUTER PROCESSING\n\n")
            self._event({"error": {"code": 502, "message": "Upstream provider error"}})
            self._end_stream()
        else:
            self._ok(body)
