"""One way to run a test's HTTP server: threaded, on a free loopback port, stopped on exit."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def serving(handler: Callable[..., BaseHTTPRequestHandler], name: str) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 in a thread called ``name``; yields ``http://127.0.0.1:PORT``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True  # a client that hangs up mid-answer does not hold the shutdown
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def send_html(handler: BaseHTTPRequestHandler, html: str, status: int = 200,
              headers: dict[str, str] | None = None) -> None:
    """Answer ``handler``'s request with ``html`` (UTF-8, its length said) and any extra ``headers``."""
    body = html.encode()
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
