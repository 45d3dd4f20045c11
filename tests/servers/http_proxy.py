"""A small HTTP proxy on 127.0.0.1, real enough for the client's proxy settings to go through.

It handles both ways a client uses an HTTP proxy:

- absolute-form requests for ``http://`` URLs (``POST http://provider.test:8080/v1/chat/completions
  HTTP/1.1``): the request is sent on to the server in origin form, one request per
  connection (``Connection: close`` both ways), and the answer streamed back as it comes;
- ``CONNECT host:port`` for ``https://`` URLs: a blind tunnel, the TLS stays end to end.

Names are resolved through ``hosts`` (``{"provider.test": "127.0.0.1"}``) and nothing else:
the tests give providers a name that is not loopback, because the client deliberately
reaches loopback servers without any proxy, and this proxy turns those names into loopback
addresses. A name it does not know gets a 502, as a proxy answers for an unknown host.

Every request is recorded in ``seen`` as ``(method, target)`` (``("CONNECT",
"provider.test:8443")``, ``("POST", "http://provider.test:8080/v1/chat/completions")``).
The proxy stops itself: ``with HttpProxy(...) as proxy:`` stops it on leaving, and it stops
on its own after ``lifetime_s`` at most, so a test that forgets it leaves no thread behind.
"""

from __future__ import annotations

import io
import select
import socket
import socketserver
import threading
from typing import Any

_HOP_BY_HOP = {"connection", "proxy-connection", "proxy-authorization", "keep-alive", "te", "trailer",
               "transfer-encoding", "upgrade"}


class HttpProxy:
    """``HttpProxy(hosts).start()``; ``url`` is what the proxy setting takes."""

    def __init__(self, hosts: dict[str, str], *, lifetime_s: float = 300.0) -> None:
        self.hosts = {name.lower(): address for name, address in hosts.items()}
        self.seen: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                proxy._handle(self.connection, self.rfile)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever, name="http-proxy", daemon=True)
        self._timer = threading.Timer(lifetime_s, self.stop)
        self._timer.daemon = True
        self._stopped = threading.Event()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HttpProxy:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> HttpProxy:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def targets(self, method: str) -> list[str]:
        with self._lock:
            return [target for m, target in self.seen if m == method]

    # -- one client connection --------------------------------------------------------------
    def _handle(self, client: socket.socket, rfile: io.BufferedIOBase) -> None:
        request_line = rfile.readline(65537).decode("latin-1").strip()
        if not request_line:
            return
        method, target, version = request_line.split(" ", 2)
        headers: list[tuple[str, str]] = []
        while (line := rfile.readline(65537).decode("latin-1").rstrip("\r\n")):
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        with self._lock:
            self.seen.append((method, target))
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = self._open(client, host, int(port))
            if upstream is not None:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _tunnel(client, upstream)
            return
        if not target.startswith("http://"):
            _reply(client, 400, "a proxy takes absolute URLs (http://host/path) or CONNECT")
            return
        host_port, _, path = target[len("http://"):].partition("/")
        host, _, port = host_port.partition(":")
        length = int(next((v for n, v in headers if n.lower() == "content-length"), "0"))
        body = rfile.read(length) if length else b""
        upstream = self._open(client, host, int(port or 80))
        if upstream is None:
            return
        with upstream:
            head = [f"{method} /{path} {version}"]
            head += [f"{n}: {v}" for n, v in headers if n.lower() not in _HOP_BY_HOP]
            head.append("Connection: close")
            upstream.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            _relay_answer(upstream, client)

    def _open(self, client: socket.socket, host: str, port: int) -> socket.socket | None:
        address = self.hosts.get(host.lower())
        if address is None:
            _reply(client, 502, f"the proxy cannot resolve {host}")
            return None
        try:
            return socket.create_connection((address, port), timeout=10)
        except OSError as exc:
            _reply(client, 502, f"the proxy cannot connect to {host}:{port}: {exc}")
            return None


def _reply(client: socket.socket, status: int, text: str) -> None:
    reason = {400: "Bad Request", 502: "Bad Gateway"}[status]
    body = text.encode()
    client.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                   f"Connection: close\r\n\r\n".encode() + body)


def _relay_answer(upstream: socket.socket, client: socket.socket) -> None:
    """The server's answer with ``Connection: close`` in its head (the client then never
    reuses the connection), and its body as it comes until the server closes."""
    upstream.settimeout(60)
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = upstream.recv(65536)
        if not chunk:
            client.sendall(buffer)
            return
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith((b"connection:", b"keep-alive:"))]
    client.sendall(b"\r\n".join([*lines, b"Connection: close"]) + b"\r\n\r\n" + rest)
    while chunk := upstream.recv(65536):
        client.sendall(chunk)


def _tunnel(client: socket.socket, upstream: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    with upstream:
        sockets = [client, upstream]
        while True:
            readable, _, _ = select.select(sockets, [], [], 60)
            if not readable:
                return
            for sock in readable:
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
