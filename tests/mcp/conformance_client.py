"""Jawad's MCP client as the conformance suite runs it: ``python -m tests.mcp.conformance_client URL``.

The suite (``tests/mcp/conformance.py``) starts a server for one scenario and runs this with its URL
(``MCP_CONFORMANCE_SCENARIO`` names the scenario; ``MCP_CONFORMANCE_CONTEXT`` carries what a user
would have been given, e.g. a pre-registered client's ID and secret). It does what ``jawad mcp add
NAME --url URL`` and a model that calls the server's tools do: the server is configured as the
settings keep it, connected through ``McpConnections`` (secrets in a session-only ``SecretStore``),
and every tool the registry offers is called through the registry, with arguments made from its
schema as a model would fill them in.

Where a person would act, this stands in for them, through the same interfaces the faces use: a
sign-in is authorized by following the authorization URL with HTTP GETs (``core.mcp.auth.fetch_url``
through the ``LoopbackAuthorizer``: the suite's authorization server approves by itself and redirects
to the loopback listener), and a server's question (elicitation) is answered by accepting the form
as shown, its defaults filled in.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from jawad_desktop.core.config.mcp import (
    McpOAuth,
    McpServerConfig,
    McpSettings,
    mcp_oauth_id_token_key_name,
    mcp_oauth_secret_key_name,
)
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import ElicitationRequested, Event, EventBus
from jawad_desktop.core.mcp.adapter import McpConnections
from jawad_desktop.core.mcp.auth import LoopbackAuthorizer, fetch_url
from jawad_desktop.core.mcp.elicitation import Elicitations
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.tool_context import ToolContext

log = logging.getLogger("jawad.mcp.conformance")

# A client metadata document address (the suite's authorization server does not fetch it; it checks
# that a client that may use one does, instead of registering).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments a model would give for ``schema``: each required property, a value of its type."""
    properties = schema.get("properties") or {}
    values = {"integer": 3, "number": 5, "boolean": True, "string": "test", "array": [], "object": {}}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        spec = properties.get(name) or {}
        if "default" in spec:
            arguments[name] = spec["default"]
        elif spec.get("enum"):
            arguments[name] = spec["enum"][0]
        else:
            arguments[name] = values.get(str(spec.get("type", "string")), "test")
    return arguments


def server_config(url: str, context: dict[str, Any], secrets: SecretStore) -> McpServerConfig:
    """The server as `jawad mcp add conformance --url URL [--client-id ... --client-secret-env ...]` saves it."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    oauth = McpOAuth()
    if context.get("client_id"):
        if context.get("idp_id_token"):  # the organisation's sign-in (SEP-990)
            secrets.set(mcp_oauth_secret_key_name("conformance"), context["client_secret"])
            secrets.set(mcp_oauth_id_token_key_name("conformance"), context["idp_id_token"])
            oauth = McpOAuth(grant="enterprise", client_id=context["client_id"],
                             idp_token_endpoint=context["idp_token_endpoint"], idp_client_id=context["idp_client_id"])
        elif context.get("private_key_pem"):
            secrets.set(mcp_oauth_secret_key_name("conformance"), context["private_key_pem"])
            oauth = McpOAuth(grant="client_credentials", client_id=context["client_id"], auth_method="private_key_jwt",
                             signing_algorithm=context.get("signing_algorithm", "ES256"))
        else:
            if context.get("client_secret"):
                secrets.set(mcp_oauth_secret_key_name("conformance"), context["client_secret"])
            grant = "client_credentials" if "client-credentials" in scenario else "authorization_code"
            oauth = McpOAuth(grant=grant, client_id=context["client_id"])
    return McpServerConfig(name="conformance", transport="http", url=url, oauth=oauth)


def accept_as_shown(elicitations: Elicitations) -> Callable[[Event], None]:
    """The stand-in person: accepts each form as it is shown (its defaults filled in)."""
    def on_event(event: Event) -> None:
        if isinstance(event, ElicitationRequested):
            problems = elicitations.respond(event.id, "accept", {})
            if problems:
                elicitations.respond(event.id, "decline")
    return on_event


async def main(url: str) -> int:
    secrets = SecretStore()
    secrets.use_session_memory()
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    settings = McpSettings(servers=[server_config(url, context, secrets)], connect_timeout_s=25, call_timeout_s=25,
                           client_metadata_url=CLIENT_METADATA_URL)
    bus = EventBus()
    elicitations = Elicitations(bus)
    bus.subscribe(accept_as_shown(elicitations))
    elicitations.answered_here()
    async with LoopbackAuthorizer(fetch_url) as authorizer:
        return await _use(settings, secrets, bus, McpConnections(settings, secrets, authorizer=authorizer,
                                                                 elicitations=elicitations))


async def _use(settings: McpSettings, secrets: SecretStore, bus: EventBus, connections: McpConnections) -> int:
    try:
        await connections.connect()
        if connections.problems:
            print("\n".join(connections.problems.values()), file=sys.stderr)
            return 1
        registry = connections.registry()
        ctx = ToolContext(settings=Settings(mcp=settings), bus=bus, secrets=secrets)
        failed = False
        for tool in registry:
            arguments = example_arguments(tool.schema)
            result = await tool.run(ctx, tool.validate(arguments))
            print(f"{tool.name}({arguments}) -> {'ok' if result.ok else 'failed'}: {result.for_log}")
            failed = failed or not result.ok
        return 1 if failed else 0
    finally:
        await connections.aclose()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    sys.exit(asyncio.run(main(sys.argv[-1])))
