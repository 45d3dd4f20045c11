"""A real MCP server that only answers with an access token from its authorization server, built with the
SDK's FastMCP as a resource server: it publishes its protected-resource metadata (naming ISSUER) and
answers 401 with ``WWW-Authenticate`` until a request carries ``Bearer TOKEN``.

Run ``python -m tests.servers.protected_mcp_server PORT ISSUER TOKEN`` (streamable HTTP at
``http://127.0.0.1:PORT/mcp``). Tool: ``whoami()`` (the subject the token was issued for).
"""

from __future__ import annotations

import sys

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecuritySettings


class _OneToken:
    """Accepts the one token the test's authorization server issues for this server."""

    def __init__(self, token: str, resource: str) -> None:
        self.token = token
        self.resource = resource

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="jawad-at-org", scopes=[], resource=self.resource,
                           subject="alice")


def main(argv: list[str]) -> None:
    import uvicorn

    port, issuer, token = int(argv[0]), argv[1], argv[2]
    resource = f"http://127.0.0.1:{port}/mcp"
    server = FastMCP("org-server", token_verifier=_OneToken(token, resource),
                     auth=AuthSettings(issuer_url=issuer, resource_server_url=resource,  # type: ignore[arg-type]
                                       validate_token_resource=True),
                     transport_security=TransportSecuritySettings(allowed_hosts=["127.0.0.1:*"], allowed_origins=[]))

    @server.tool()
    def whoami() -> str:
        """Who the server acts for."""
        return "alice at the organisation"

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main(sys.argv[1:])
