"""A real MCP server built with the SDK's FastMCP, for the MCP tests.

Run ``python -m tests.servers.mcp_server stdio`` (stdin/stdout) or
``python -m tests.servers.mcp_server http PORT [TOKEN]`` (streamable HTTP at
``http://127.0.0.1:PORT/mcp``; with TOKEN, requests without ``Authorization: Bearer TOKEN``
get 401).

Tools: ``add(a, b)``, ``echo(text, shout=False)``, ``fail(reason)`` (an error result),
``whoami()`` (the transport, and the value of the X-Client header over HTTP).
"""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.transport_security import TransportSecuritySettings

# Reached by its address, or as provider.test through the network tests' proxy (a name only that
# proxy resolves): the host check of a real deployment lets both in.
server = FastMCP("jawad-test-server", transport_security=TransportSecuritySettings(
    allowed_hosts=["127.0.0.1:*", "localhost:*", "provider.test:*"], allowed_origins=[]))
TRANSPORT = "stdio"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def echo(text: str, shout: bool = False) -> str:
    """Repeat the text, in capitals when shout is true."""
    return text.upper() if shout else text


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(f"failed on purpose: {reason}")


@server.tool()
def whoami(ctx: Context) -> str:  # type: ignore[type-arg,unused-ignore]
    """Say which transport the call came over."""
    request: Any = getattr(ctx.request_context, "request", None)
    header = request.headers.get("x-client", "") if request is not None else ""
    return f"{TRANSPORT} {header}".strip()


def main(argv: list[str]) -> None:
    global TRANSPORT
    TRANSPORT = argv[0] if argv else "stdio"
    if TRANSPORT == "stdio":
        server.run("stdio")
        return
    import uvicorn

    port = int(argv[1])
    token = argv[2] if len(argv) > 2 else ""
    app = server.streamable_http_app()

    async def checked(scope: Any, receive: Any, send: Any) -> None:
        """The MCP app behind a bearer-token check, as a real deployment has."""
        if scope["type"] == "http" and token:
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if headers.get("authorization") != f"Bearer {token}":
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": b'{"error": "invalid token"}'})
                return
        await app(scope, receive, send)

    uvicorn.run(checked, host="127.0.0.1", port=port, log_level="warning", lifespan="on")

if __name__ == "__main__":
    main(sys.argv[1:])
