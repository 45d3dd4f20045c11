"""A web server on 127.0.0.1 that manages models the way Ollama's API documents it.

``GET /api/tags``: ``{"models": [{"name", "model", "modified_at", "size", "digest", "details":
{"format", "family", "parameter_size", "quantization_level"}}]}``.
``POST /api/pull`` ``{"model": NAME, "stream": true}``: 200 with ``application/x-ndjson`` lines:
``{"status": "pulling manifest"}``, for each layer ``{"status": "pulling <digest>", "digest",
"total", "completed"}`` (several lines as bytes arrive), ``{"status": "verifying sha256 digest"}``,
``{"status": "writing manifest"}``, ``{"status": "success"}``; the model then appears in the tags.
A name that is not a model name is a 400 with ``{"error": "invalid model name"}`` (before any
streaming, as Ollama's handler does); a model the registry lacks streams ``pulling manifest``
then ``{"error": "pull model manifest: file does not exist"}`` (Ollama streams its errors).

``line_pause_s`` slows the progress lines (to cancel midway); ``pulls`` records each pull's name
and how many lines it sent before the client went away.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.loopback import serving

NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*(/[a-zA-Z0-9._-]+)?(:[a-zA-Z0-9._-]+)?$")


@dataclass
class OllamaModels:
    registry: dict[str, list[int]]  # pullable model -> its layers' sizes
    installed: dict[str, int] = field(default_factory=dict)  # model -> size
    base_url: str = ""
    line_pause_s: float = 0.0
    pulls: list[tuple[str, int]] = field(default_factory=list)


def serve_ollama(registry: dict[str, list[int]], installed: dict[str, int] | None = None) -> Iterator[OllamaModels]:
    state = OllamaModels(dict(registry), dict(installed or {}))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _json(self, status: int, data: Any) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path != "/api/tags":
                self._json(404, {"error": "404 page not found"})
                return
            models = [{
                "name": name if ":" in name else f"{name}:latest", "model": name, "size": size,
                "modified_at": "2026-11-20T10:00:00.000000+00:00", "digest": f"{abs(hash(name)):064x}"[:64],
                "details": {"format": "gguf", "family": "qwen2", "parameter_size": "494.03M",
                            "quantization_level": "Q4_K_M"},
            } for name, size in state.installed.items()]
            self._json(200, {"models": models})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path != "/api/pull":
                self._json(404, {"error": "404 page not found"})
                return
            name = str(body.get("model") or body.get("name") or "")
            if not NAME.match(name):
                self._json(400, {"error": "invalid model name"})
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            sent = 0
            try:
                for line in self._lines(name):
                    data = json.dumps(line).encode() + b"\n"
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                    sent += 1
                    time.sleep(state.line_pause_s)
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            state.pulls.append((name, sent))

        def _lines(self, name: str) -> Iterator[dict[str, Any]]:
            yield {"status": "pulling manifest"}
            layers = state.registry.get(name.removesuffix(":latest"))
            if layers is None:
                yield {"error": "pull model manifest: file does not exist"}
                return
            for n, size in enumerate(layers):
                digest = f"sha256:{n:064x}"
                for part in range(5):
                    yield {"status": f"pulling {digest[7:19]}", "digest": digest, "total": size,
                           "completed": size * part // 4}
            yield {"status": "verifying sha256 digest"}
            yield {"status": "writing manifest"}
            state.installed[name] = sum(layers)
            yield {"status": "success"}

    with serving(Handler, "ollama-models") as root:
        state.base_url = root
        yield state
