"""What an MCP server is, as the user configures it (kept in the settings file).

A server is either a command started over stdio, or a streamable-HTTP URL. Header values
(tokens) are never in this model: only their names are, and the values live in the OS
keyring under ``mcp_header_key_name(server, header)``. An HTTP server without headers signs in
with OAuth (``McpOAuth``): what the sign-in got (tokens, the registered client) is kept in the
keyring under ``mcp_oauth_key_name(server)``, a pre-registered client's secret or private key
under ``mcp_oauth_secret_key_name(server)``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from jawad_desktop.core.config.providers import validate_base_url

__all__ = ["MCP_PERMISSIONS", "McpOAuth", "McpServerConfig", "McpSettings", "mcp_header_key_name",
           "mcp_oauth_id_token_key_name", "mcp_oauth_key_name", "mcp_oauth_secret_key_name"]

# "ask" asks before every call (unless allowed for the session); the others are the tool
# permission levels of spec 001 and follow the same policy as the built-in tools.
MCP_PERMISSIONS = ("ask", "read-only", "navigate", "interact", "submit")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,47}$")
_HEADER_RE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def mcp_header_key_name(server: str, header: str) -> str:
    """The keyring user name under which one header value of an MCP server is kept."""
    return f"mcp:{server}:{header.lower()}"


def mcp_oauth_key_name(server: str) -> str:
    """The keyring user name under which an MCP server's sign-in (tokens, client) is kept."""
    return f"mcp:{server}:oauth"


def mcp_oauth_id_token_key_name(server: str) -> str:
    """The keyring user name of the ID token an enterprise identity provider gave the user (SEP-990)."""
    return f"mcp:{server}:oauth-id-token"


def mcp_oauth_secret_key_name(server: str) -> str:
    """The keyring user name of a pre-registered OAuth client's secret (or PEM private key)."""
    return f"mcp:{server}:oauth-client-secret"


class McpOAuth(BaseModel):
    """How an HTTP server's OAuth sign-in is done. By default the user signs in in the browser
    (authorization code with PKCE) as a client the server registers on the fly or knows by
    ``McpSettings.client_metadata_url``. ``client_id``: a client registered beforehand (its secret,
    if any, in the keyring). ``grant`` "client_credentials" is for machine-to-machine servers: no
    person signs in; ``auth_method`` says how the client proves itself (a secret sent with HTTP
    basic or in the form, or a JWT signed with its private key). ``grant`` "enterprise" is the
    organisation's sign-in (SEP-990, enterprise-managed authorization): the user signs in at the
    identity provider ``idp_issuer`` (OpenID Connect; or hands over an ID token); the ID token (in the
    keyring) is exchanged at ``idp_token_endpoint`` for a grant the
    server's authorization server accepts (an ID-JAG, RFC 8693), which the client, registered there
    as ``client_id``, turns into a token (RFC 7523's JWT bearer grant)."""

    model_config = ConfigDict(extra="ignore")

    grant: Literal["authorization_code", "client_credentials", "enterprise"] = "authorization_code"
    client_id: str = ""
    auth_method: Literal["", "client_secret_basic", "client_secret_post", "private_key_jwt", "none"] = ""
    signing_algorithm: str = "RS256"  # for private_key_jwt
    scopes: str = ""  # space-separated; empty: what the server asks for
    issuer: str = ""  # the authorization server a pre-registered client belongs to
    idp_issuer: str = ""  # "enterprise": the identity provider the user signs in at (OpenID Connect)
    idp_token_endpoint: str = ""  # "enterprise": the identity provider's token endpoint (else discovered)
    idp_client_id: str = ""  # "enterprise": Jawad's client ID at the identity provider

    @model_validator(mode="after")
    def _check(self) -> McpOAuth:
        if self.grant in ("client_credentials", "enterprise") and not self.client_id.strip():
            raise ValueError("Client credentials need the client ID the server's owner gave you")
        if self.grant == "enterprise" and not (self.idp_token_endpoint.strip() or self.idp_issuer.strip()):
            raise ValueError("An enterprise sign-in needs your identity provider's address or token endpoint")
        return self


class McpServerConfig(BaseModel):
    """One MCP server. Validation errors are phrased for the Settings page and the CLI."""

    model_config = ConfigDict(extra="ignore")

    name: str
    transport: Literal["stdio", "http"]
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # plain values only: secrets go in headers
    cwd: str = ""
    url: str = ""
    headers: list[str] = Field(default_factory=list)  # names; the values are in the keyring
    allowed_tools: list[str] = Field(default_factory=list)  # empty: every tool the server has
    permission: Literal["ask", "read-only", "navigate", "interact", "submit"] = "ask"
    enabled: bool = True
    oauth: McpOAuth = Field(default_factory=McpOAuth)  # HTTP servers without headers

    @property
    def signs_in(self) -> bool:
        """Whether the server signs in with OAuth: an HTTP server whose credentials are not headers."""
        return self.transport == "http" and not self.headers

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = value.strip()
        if not _NAME_RE.match(value):
            raise ValueError("Use up to 48 letters, digits, spaces or . _ - in the name of an MCP server")
        return value

    @field_validator("headers")
    @classmethod
    def _check_headers(cls, value: list[str]) -> list[str]:
        for header in value:
            if not _HEADER_RE.match(header):
                raise ValueError(f"{header!r} is not a valid HTTP header name")
        return value

    @model_validator(mode="after")
    def _check_transport(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not self.command.strip():
                raise ValueError("A stdio MCP server needs the command that starts it")
        else:
            if not self.url.strip():
                raise ValueError("An HTTP MCP server needs its URL")
            self.url = validate_base_url(self.url)
        return self

    @property
    def where(self) -> str:
        """The server as the user knows it: its command line or its URL."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return self.url


class McpSettings(BaseModel):
    """The ``mcp`` section of the settings."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    servers: list[McpServerConfig] = Field(default_factory=list)
    connect_timeout_s: float = Field(30.0, gt=0, le=600)
    call_timeout_s: float = Field(120.0, gt=0, le=3600)
    # Jawad's OAuth client metadata document (an https URL serving its client metadata), used as its
    # client ID by authorization servers that accept one; empty: the server registers a client.
    client_metadata_url: str = ""
    # The folders the user lets MCP servers work in (their "roots", given to servers that ask);
    # empty: none is offered.
    roots: list[str] = Field(default_factory=list)
    # The saved provider whose model answers servers' sampling requests; empty: a provider whose model
    # matches the server's hints, else the one the assistant uses.
    sampling_provider: str = ""

    @model_validator(mode="after")
    def _unique(self) -> McpSettings:
        seen: set[str] = set()
        for server in self.servers:
            if server.name.casefold() in seen:
                raise ValueError(f"Two MCP servers are named {server.name!r}")
            seen.add(server.name.casefold())
        return self

    def server(self, name: str) -> McpServerConfig | None:
        key = name.casefold()
        return next((s for s in self.servers if s.name.casefold() == key), None)
