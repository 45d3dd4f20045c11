"""Loopback servers speaking the wire formats of Anthropic's Messages API, Google's Gemini
API, OpenAI's Responses API and Ollama's native API, as their documentation gives them,
plus the embedding endpoints of OpenAI, Gemini and Ollama.

One real HTTP/1.1 server on 127.0.0.1 answers all of them under a path prefix per format:
``/anthropic/v1``, ``/gemini/v1beta``, ``/openai/v1``, ``/ollama`` (and ``/ollama-old``, an
Ollama without ``/api/embed``). What it answers is chosen by the request's model:

- ``ok``: a greeting, streamed word by word when streaming is asked for;
- ``tool``: a ``get_weather`` call for Paris when tools are offered and no result came back
  yet, else a sentence quoting the tool result;
- ``prefixed``: like ``tool`` but the call is named ``tool.get_weather`` (Ollama models do);
- ``think`` (Gemini): like ``tool``, the call carries a ``thoughtSignature`` that must come
  back on it in the next request (400 otherwise, as Gemini 3 answers);
- ``think`` (Anthropic): like ``tool``, with a signed thinking block before the call when
  thinking is on; as the API does, the next request must bring that block back verbatim,
  and thinking with a forced tool is refused;
- ``json``: the JSON of a small plan; ``json-flaky``: invalid JSON first, then the plan;
- ``status-<code>``: that HTTP status with an error body in the format's own shape;
- ``stream-error``: two words, then an error event inside the stream.

Bedrock (``/bedrock``) checks each request's SigV4 signature against ``BEDROCK_CREDENTIALS``
(403 with AWS's words when it does not match) and streams AWS's binary event stream; its
model ids may have the usual ``:`` (``anthropic.claude-x-v1:0``): only the part before a dot
chooses the behaviour.

The providers' documented request rules for reasoning, whatever the model's behaviour:
Gemini refuses ``thinkingLevel`` before Gemini 3 ("Thinking level is not supported for this
model.") and a ``thinkingBudget`` of 0 on Pro models ("Budget 0 is invalid. This model only
works in thinking mode."); the Responses API refuses a ``temperature`` and an unknown
``reasoning.effort`` for OpenAI's reasoning models and ``openai_rules.UNKNOWN_REASONER``
(``tests/servers/openai_rules.py``), with OpenAI's error bodies.

Every request is recorded in ``requests`` (path, headers, body) for the tests to check.
"""

from __future__ import annotations

import binascii
import datetime
import json
import re
import struct
import threading
from collections import defaultdict
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import pytest

from tests.servers import openai_rules

WORDS = ["Hello", " from", " the", " loopback", "."]
ANSWER = "".join(WORDS)
PLAN = {"title": "Compare phones", "steps": ["search prices", "read reviews"]}
EMBED_DIMS = 16
THOUGHT = {"type": "thinking", "thinking": "I should check the weather.", "signature": "EqQBCkYIARgCIkA-sig"}


GEMINI_SIGNATURE = "CiQBVKhc7g-signature"


def obj_type(value: Any) -> str:
    return str(value.get("type")) if isinstance(value, dict) else ""
BEDROCK_CREDENTIALS = ("AKIATESTBEDROCK", "test/secret/key", "session-token-1")
BEDROCK_REGION = "eu-central-1"


def event_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One frame of AWS's event stream (string headers), CRCs included."""
    raw_headers = b"".join(bytes([len(k)]) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
                           for k, v in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    body = prelude + raw_headers + payload
    return body + struct.pack(">I", binascii.crc32(body))


def bedrock_signature_ok(method: str, url: str, headers: dict[str, str], body: bytes) -> bool:
    import httpx

    from jawad_desktop.core.llm.sigv4 import AwsCredentials, signature_headers

    auth = headers.get("authorization", "")
    if "SignedHeaders=" not in auth or "x-amz-date" not in headers:
        return False
    names = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    source = {n: headers[n] for n in names if n in headers and not n.startswith("x-amz-") and n != "host"}
    when = datetime.datetime.strptime(headers["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.UTC)
    creds = AwsCredentials(*BEDROCK_CREDENTIALS)
    expected = signature_headers(method, httpx.URL(url), source, body, creds, BEDROCK_REGION, "bedrock", now=when)
    return expected["Authorization"] == auth and headers.get("x-amz-security-token") == creds.session_token


# Gemini's documented inline audio MIME types (audio understanding guide), with its image ones.
GEMINI_INLINE_TYPES = frozenset({"audio/wav", "audio/mp3", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac",
                                 "image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})


def gemini_thinking_refusal(model: str, body: dict[str, Any]) -> str:
    """What Gemini says of a thinking configuration the model refuses, or of an ``inlineData`` part
    with a MIME type it does not take or data that is not base64 ("" when it takes the request)."""
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            inline = part.get("inlineData") if isinstance(part, dict) else None
            if inline is not None and inline.get("mimeType") not in GEMINI_INLINE_TYPES:
                return f"Unsupported MIME type: {inline.get('mimeType')}"
            if inline is not None and not re.fullmatch(r"[A-Za-z0-9+/]+=*", str(inline.get("data") or "")):
                return "Invalid value at 'contents.parts.inline_data.data' (TYPE_BYTES), Base64 decoding failed"
    config = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
    if "thinkingLevel" in config and not model.startswith("gemini-3"):
        return "Thinking level is not supported for this model."
    if config.get("thinkingBudget") == 0 and "-pro" in model:
        return "Budget 0 is invalid. This model only works in thinking mode."
    return ""


def responses_refusal(model: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """OpenAI's 400 body for a Responses request a reasoning model refuses, else None."""
    levels = openai_rules.efforts(model)
    if levels is None:
        return None
    if "temperature" in body and body["temperature"] != 1:
        return {"error": {"message": "Unsupported parameter: 'temperature' is not supported with this model.",
                          "type": "invalid_request_error", "param": "temperature", "code": "unsupported_parameter"}}
    effort = (body.get("reasoning") or {}).get("effort")
    if effort is not None and effort not in levels:
        listed = ", ".join(f"'{v}'" for v in levels)
        return {"error": {"message": f"Unsupported value: '{effort}' is not supported with the '{model}' model. "
                                     f"Supported values are: {listed}.",
                          "type": "invalid_request_error", "param": "reasoning.effort", "code": "unsupported_value"}}
    return None


def weather_answer(result: str) -> str:
    return f"The tool said: {result}"


def vector(text: str) -> list[float]:
    """A deterministic small embedding: texts sharing words get close vectors."""
    values = [0.0] * EMBED_DIMS
    for word in text.lower().split():
        values[sum(map(ord, word)) % EMBED_DIMS] += 1.0
    return values


_ERRORS: dict[str, dict[int, Any]] = {
    "anthropic": {
        401: {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
        404: {"type": "error", "error": {"type": "not_found_error", "message": "model: no-such-model"}},
        429: {"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests exceeded"}},
        529: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    },
    "gemini": {
        400: {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                        "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}},
        404: {"error": {"code": 404, "message": "models/no-such-model is not found for API version v1beta",
                        "status": "NOT_FOUND"}},
        429: {"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}},
        503: {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}},
    },
    "openai": {
        401: {"error": {"message": "Incorrect API key provided: sk-bad.", "type": "invalid_request_error",
                        "code": "invalid_api_key"}},
        404: {"error": {"message": "The model `no-such-model` does not exist", "type": "invalid_request_error",
                        "code": "model_not_found"}},
        429: {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
        500: {"error": {"message": "The server had an error", "type": "server_error"}},
    },
    "ollama": {
        404: {"error": 'model "no-such-model" not found, try pulling it first'},
        500: {"error": "llama runner process has terminated"},
    },
}


class ProviderServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._counters: dict[str, int] = defaultdict(int)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, fmt: str) -> str:
        return {"anthropic": f"{self.root}/anthropic/v1", "gemini": f"{self.root}/gemini/v1beta",
                "openai": f"{self.root}/openai/v1", "ollama": f"{self.root}/ollama",
                "ollama-old": f"{self.root}/ollama-old", "bedrock": f"{self.root}/bedrock"}[fmt]

    def start(self) -> ProviderServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def last(self, fmt: str) -> dict[str, Any]:
        return [r for r in self.requests if r["path"].startswith(f"/{fmt}/")][-1]

    def count(self, key: str) -> int:
        self._counters[key] += 1
        return self._counters[key]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append({"path": self.path, "headers": self._headers(), "body": None})
                if self.path.startswith("/gemini/v1beta/models"):
                    self._json(200, {"models": [
                        {"name": "models/gemini-2.5-flash", "supportedGenerationMethods": ["generateContent"]},
                        {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]}]})
                elif self.path.startswith("/anthropic/v1/models"):
                    self._json(200, {"data": [{"id": "claude-sonnet-4-5", "type": "model"}], "has_more": False})
                elif self.path.startswith("/bedrock/foundation-models"):
                    self._json(200, {"modelSummaries": [{"modelId": "anthropic.claude-3-haiku-20240307-v1:0"},
                                                        {"modelId": "amazon.nova-lite-v1:0"}]})
                elif self.path.startswith("/ollama/api/tags"):
                    self._json(200, {"models": [{"name": "llama3.2:3b"}, {"name": "qwen2.5:7b"}]})
                else:
                    self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                server.requests.append({"path": self.path, "headers": self._headers(), "body": body})
                path = self.path
                if path.startswith("/bedrock/model/"):
                    url = f"http://{self.headers['host']}{path}"
                    if not bedrock_signature_ok("POST", url, self._headers(), raw):
                        self._json(403, {"message": "The request signature we calculated does not match the "
                                                    "signature you provided."})
                        return
                    model_id, _, action = unquote(path[len("/bedrock/model/"):]).rpartition("/")
                    self._bedrock(model_id.split(".")[0], action, body)
                elif path.startswith("/anthropic/v1/messages"):
                    self._anthropic(body)
                elif path.startswith("/gemini/v1beta/models/"):
                    self._gemini(path.split("/models/", 1)[1], body)
                elif path.startswith("/openai/v1/responses"):
                    self._responses(body)
                elif path.startswith("/openai/v1/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    self._json(200, {"object": "list", "model": body["model"],
                                     "data": [{"object": "embedding", "index": i, "embedding": vector(t)}
                                              for i, t in enumerate(inputs)],
                                     "usage": {"prompt_tokens": 3, "total_tokens": 3}})
                elif path == "/ollama/api/chat":
                    self._ollama(body)
                elif path == "/ollama/api/embed":
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    self._json(200, {"model": body["model"], "embeddings": [vector(t) for t in inputs]})
                elif path == "/ollama-old/api/embeddings":
                    self._json(200, {"embedding": vector(body["prompt"])})
                else:
                    self._json(404, {"error": f"404 page not found: {path}"})

            # -- helpers ---------------------------------------------------------------------
            def _headers(self) -> dict[str, str]:
                return {k.lower(): v for k, v in self.headers.items()}

            def _json(self, status: int, data: Any) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _start_stream(self, content_type: str = "text/event-stream") -> None:
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True

            def _sse(self, data: Any, event: str | None = None) -> None:
                head = f"event: {event}\n" if event else ""
                self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _status(self, fmt: str, model: str) -> bool:
                if not model.startswith("status-"):
                    return False
                code = int(model.split("-")[1])
                self._json(code, _ERRORS[fmt].get(code, {"error": {"message": f"status {code}"}}))
                return True

            def _plan(self, model: str) -> str | None:
                if model == "json":
                    return json.dumps(PLAN)
                if model == "json-flaky":
                    return "Sure! Here is the plan: steps..." if server.count("json-flaky") % 2 else json.dumps(PLAN)
                return None

            # -- Anthropic Messages API -------------------------------------------------------------
            def _anthropic(self, body: dict[str, Any]) -> None:
                model = body.get("model", "")
                if self._status("anthropic", model):
                    return
                messages = body["messages"]
                last = messages[-1]["content"]
                results = [b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"] \
                    if isinstance(last, list) else []
                thinking_on = bool(body.get("thinking"))
                if thinking_on and obj_type(body.get("tool_choice")) in ("any", "tool"):
                    self._json(400, {"type": "error", "error": {"type": "invalid_request_error", "message":
                                     "Thinking may not be enabled when tool_choice forces tool use."}})
                    return
                if thinking_on and results and messages[-2]["content"][0] != THOUGHT:
                    found = messages[-2]["content"][0].get("type")
                    self._json(400, {"type": "error", "error": {"type": "invalid_request_error", "message":
                                     f"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, "
                                     f"but found `{found}`. When `thinking` is enabled, a final `assistant` "
                                     "message must start with a thinking block."}})
                    return
                call = model in ("tool", "think") and body.get("tools") and not results
                think = model == "think" and thinking_on and call
                text = self._plan(model) or (weather_answer(results[0]["content"]) if results else ANSWER)
                usage_in = {"input_tokens": 12, "output_tokens": 1, "cache_read_input_tokens": 2}
                if not body.get("stream"):
                    content: list[dict[str, Any]] = (
                        [{"type": "text", "text": "Let me check."},
                         {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]
                        if call else [{"type": "text", "text": text}])
                    if think:
                        content.insert(0, dict(THOUGHT))
                    self._json(200, {"id": "msg_01", "type": "message", "role": "assistant", "model": model,
                                     "content": content, "stop_reason": "tool_use" if call else "end_turn",
                                     "usage": {**usage_in, "output_tokens": 9}})
                    return
                self._start_stream()
                self._sse({"type": "message_start", "message": {"id": "msg_01", "type": "message",
                           "role": "assistant", "content": [], "model": model, "usage": usage_in}},
                          "message_start")
                self._sse({"type": "ping"}, "ping")
                if call:
                    first = 0
                    if think:
                        first = 1
                        self._sse({"type": "content_block_start", "index": 0, "content_block": {
                            "type": "thinking", "thinking": "", "signature": ""}}, "content_block_start")
                        for piece in ("I should check ", "the weather."):
                            self._sse({"type": "content_block_delta", "index": 0, "delta": {
                                "type": "thinking_delta", "thinking": piece}}, "content_block_delta")
                        self._sse({"type": "content_block_delta", "index": 0, "delta": {
                            "type": "signature_delta", "signature": THOUGHT["signature"]}}, "content_block_delta")
                        self._sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
                    self._sse({"type": "content_block_start", "index": first,
                               "content_block": {"type": "text", "text": ""}}, "content_block_start")
                    self._sse({"type": "content_block_delta", "index": first,
                               "delta": {"type": "text_delta", "text": "Let me check."}}, "content_block_delta")
                    self._sse({"type": "content_block_stop", "index": first}, "content_block_stop")
                    self._sse({"type": "content_block_start", "index": first + 1, "content_block": {
                        "type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}},
                        "content_block_start")
                    for piece in ('{"city": ', '"Par', 'is"}'):
                        self._sse({"type": "content_block_delta", "index": first + 1,
                                   "delta": {"type": "input_json_delta", "partial_json": piece}},
                                  "content_block_delta")
                    self._sse({"type": "content_block_stop", "index": first + 1}, "content_block_stop")
                    stop = "tool_use"
                else:
                    self._sse({"type": "content_block_start", "index": 0,
                               "content_block": {"type": "text", "text": ""}}, "content_block_start")
                    pieces = WORDS[:2] if model == "stream-error" else ([text] if text != ANSWER else WORDS)
                    for word in pieces:
                        self._sse({"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": word}}, "content_block_delta")
                    if model == "stream-error":
                        self._sse({"type": "error", "error": {"type": "overloaded_error",
                                                              "message": "Overloaded"}}, "error")
                        return
                    self._sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
                    stop = "end_turn"
                self._sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 9}}, "message_delta")
                self._sse({"type": "message_stop"}, "message_stop")

            # -- Gemini ------------------------------------------------------------------------
            def _gemini(self, rest: str, body: dict[str, Any]) -> None:
                model, _, method = rest.partition(":")
                method = method.split("?")[0]
                if self._status("gemini", model):
                    return
                if method == "embedContent":
                    text = body["content"]["parts"][0]["text"]
                    self._json(200, {"embedding": {"values": vector(text)}})
                    return
                if method == "batchEmbedContents":
                    self._json(200, {"embeddings": [{"values": vector(r["content"]["parts"][0]["text"])}
                                                    for r in body["requests"]]})
                    return
                if refused := gemini_thinking_refusal(model, body):
                    self._json(400, {"error": {"code": 400, "message": refused, "status": "INVALID_ARGUMENT"}})
                    return
                parts = body["contents"][-1]["parts"]
                results = [p["functionResponse"] for p in parts if "functionResponse" in p]
                if model == "think" and results:
                    calls = [p for p in body["contents"][-2]["parts"] if "functionCall" in p]
                    if any(p.get("thoughtSignature") != GEMINI_SIGNATURE for p in calls):
                        self._json(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message":
                                         "Function call is missing a thought_signature in functionCall parts."}})
                        return
                call = model in ("tool", "think") and body.get("tools") and not results
                text = self._plan(model) or (weather_answer(results[0]["response"]["result"]) if results
                                             else ANSWER)
                usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 17,
                         "thoughtsTokenCount": 2, "cachedContentTokenCount": 4}

                def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
                    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
                    if finish:
                        candidate["finishReason"] = finish
                    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": "resp-g1"}
                    if finish:
                        out["usageMetadata"] = usage
                    return out

                parts_out: list[dict[str, Any]]
                if call:
                    parts_out = [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]
                    if model == "think":
                        parts_out[0]["thoughtSignature"] = GEMINI_SIGNATURE
                else:
                    parts_out = [{"text": text}]
                if method == "generateContent":
                    self._json(200, chunk(parts_out, "STOP"))
                    return
                self._start_stream()
                if call:
                    self._sse(chunk([{"text": "Let me check."}]))
                    self._sse(chunk(parts_out, "STOP"))
                    return
                pieces = WORDS[:2] if model == "stream-error" else ([text] if text != ANSWER else WORDS)
                for word in pieces[:-1]:
                    self._sse(chunk([{"text": word}]))
                if model == "stream-error":
                    self._sse({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})
                    return
                self._sse(chunk([{"text": pieces[-1]}], "STOP"))

            # -- OpenAI Responses --------------------------------------------------------------
            def _responses(self, body: dict[str, Any]) -> None:
                model = body.get("model", "")
                if self._status("openai", model):
                    return
                if (refused := responses_refusal(model, body)) is not None:
                    self._json(400, refused)
                    return
                items = body["input"]
                outputs = [i for i in items if i.get("type") == "function_call_output"]
                call = model == "tool" and body.get("tools") and not outputs
                text = self._plan(model) or (weather_answer(outputs[-1]["output"]) if outputs else ANSWER)
                usage = {"input_tokens": 20, "output_tokens": 6, "total_tokens": 26,
                         "input_tokens_details": {"cached_tokens": 3},
                         "output_tokens_details": {"reasoning_tokens": 1}}
                fc: dict[str, Any] = {"type": "function_call", "id": "fc_1", "call_id": "call_abc",
                                      "name": "get_weather", "arguments": '{"city": "Paris"}', "status": "completed"}
                msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]}
                whole = {"id": "resp_1", "object": "response", "status": "completed", "model": model,
                         "output": [fc] if call else [msg], "usage": usage}
                if not body.get("stream"):
                    self._json(200, whole)
                    return
                self._start_stream()
                self._sse({"type": "response.created", "sequence_number": 0,
                           "response": {**whole, "status": "in_progress", "output": [], "usage": None}},
                          "response.created")
                if call:
                    self._sse({"type": "response.output_item.added", "output_index": 0,
                               "item": {**fc, "arguments": "", "status": "in_progress"}},
                              "response.output_item.added")
                    for piece in ('{"city":', ' "Paris"}'):
                        self._sse({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
                                   "output_index": 0, "delta": piece}, "response.function_call_arguments.delta")
                    self._sse({"type": "response.function_call_arguments.done", "item_id": "fc_1",
                               "output_index": 0, "arguments": fc["arguments"]},
                              "response.function_call_arguments.done")
                    self._sse({"type": "response.output_item.done", "output_index": 0, "item": fc},
                              "response.output_item.done")
                else:
                    self._sse({"type": "response.output_item.added", "output_index": 0,
                               "item": {**msg, "content": [], "status": "in_progress"}}, "response.output_item.added")
                    pieces = WORDS[:2] if model == "stream-error" else ([text] if text != ANSWER else WORDS)
                    for word in pieces:
                        self._sse({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                                   "content_index": 0, "delta": word}, "response.output_text.delta")
                    if model == "stream-error":
                        self._sse({"type": "error", "code": "server_error", "message": "The server had an error",
                                   "param": None}, "error")
                        return
                self._sse({"type": "response.completed", "response": whole}, "response.completed")

            # -- Bedrock Converse --------------------------------------------------------------
            def _bedrock(self, model: str, action: str, body: dict[str, Any]) -> None:
                if model.startswith("status-"):
                    code = int(model.split("-")[1])
                    kind, message = {
                        403: ("AccessDeniedException",
                              "You don't have access to the model with the specified model ID."),
                        404: ("ResourceNotFoundException", "The model ID does not exist: check the model."),
                        429: ("ThrottlingException", "Too many requests, please wait before trying again."),
                        400: ("ValidationException", "Malformed input request"),
                    }.get(code, ("InternalServerException", "Internal server error"))
                    raw = json.dumps({"message": message}).encode()
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("x-amzn-errortype", f"{kind}:http://internal.amazon.com/coral/")
                    self.send_header("content-length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                    return
                messages = body["messages"]
                results = [b["toolResult"] for b in messages[-1]["content"] if "toolResult" in b]
                call = model == "tool" and body.get("toolConfig") and not results
                text = self._plan(model) or (weather_answer(results[0]["content"][0]["text"]) if results else ANSWER)
                usage = {"inputTokens": 15, "outputTokens": 5, "totalTokens": 20, "cacheReadInputTokens": 0}
                tool = {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}
                if action == "converse":
                    content: list[dict[str, Any]] = [{"toolUse": tool}] if call else [{"text": text}]
                    self._json(200, {"output": {"message": {"role": "assistant", "content": content}},
                                     "stopReason": "tool_use" if call else "end_turn", "usage": usage,
                                     "metrics": {"latencyMs": 12}})
                    return
                self._start_stream("application/vnd.amazon.eventstream")

                def event(kind: str, payload: dict[str, Any], message_type: str = "event") -> None:
                    key = ":exception-type" if message_type == "exception" else ":event-type"
                    self.wfile.write(event_frame({key: kind, ":content-type": "application/json",
                                                  ":message-type": message_type}, json.dumps(payload).encode()))
                    self.wfile.flush()

                event("messageStart", {"role": "assistant"})
                if call:
                    event("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {
                        "toolUseId": "tooluse_1", "name": "get_weather"}}})
                    for piece in ('{"city":', ' "Paris"}'):
                        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": piece}}})
                    event("contentBlockStop", {"contentBlockIndex": 0})
                    stop = "tool_use"
                else:
                    pieces = WORDS[:2] if model == "stream-error" else ([text] if text != ANSWER else WORDS)
                    for word in pieces:
                        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": word}})
                    if model == "stream-error":
                        event("throttlingException", {"message": "Too many tokens, slow down."}, "exception")
                        return
                    event("contentBlockStop", {"contentBlockIndex": 0})
                    stop = "end_turn"
                event("messageStop", {"stopReason": stop})
                event("metadata", {"usage": usage, "metrics": {"latencyMs": 12}})

            # -- Ollama native -----------------------------------------------------------------
            def _ollama(self, body: dict[str, Any]) -> None:
                model = body.get("model", "")
                if self._status("ollama", model):
                    return
                messages = body["messages"]
                results = [m for m in messages if m["role"] == "tool"]
                call = model in ("tool", "prefixed") and body.get("tools") and not results
                text = self._plan(model) or (weather_answer(results[-1]["content"]) if results else ANSWER)
                name = "tool.get_weather" if model == "prefixed" else "get_weather"
                message: dict[str, Any] = {"role": "assistant", "content": "" if call else text}
                if call:
                    message["tool_calls"] = [{"function": {"name": name, "arguments": {"city": "Paris"}}}]
                done = {"model": model, "created_at": "2025-01-01T00:00:00Z", "done": True, "done_reason": "stop",
                        "prompt_eval_count": 11, "eval_count": 5, "total_duration": 1000}
                if not body.get("stream", True):
                    self._json(200, {**done, "message": message})
                    return
                self._start_stream("application/x-ndjson")

                def line(data: Any) -> None:
                    self.wfile.write(json.dumps(data).encode() + b"\n")
                    self.wfile.flush()

                if call:
                    line({"model": model, "created_at": "x", "message": message, "done": False})
                else:
                    pieces = WORDS[:2] if model == "stream-error" else ([text] if text != ANSWER else WORDS)
                    for word in pieces:
                        line({"model": model, "created_at": "x",
                              "message": {"role": "assistant", "content": word}, "done": False})
                    if model == "stream-error":
                        line({"error": "an error was encountered while running the model"})
                        return
                line({**done, "message": {"role": "assistant", "content": ""}})

        return Handler


@pytest.fixture(scope="session")
def provider_server() -> Iterator[ProviderServer]:
    """One loopback server speaking every provider's format, for the whole run."""
    server = ProviderServer().start()
    try:
        yield server
    finally:
        server.stop()
