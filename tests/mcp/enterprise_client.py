"""A person whose organisation signs them in (SEP-990), as the conformance suite runs a client:
``python -m tests.mcp.enterprise_client PROFILE URL``, with the suite's ``MCP_CONFORMANCE_CONTEXT``
(the client registered with the server's authorization server, the identity provider's token endpoint,
and the ID token it gave the user).

It runs the real commands: ``jawad mcp add org --url URL --client-id ... --client-secret-env ...
--idp-token-endpoint ... --idp-client-id ... --id-token-env ...`` (the secret and the ID token come from
environment variables and go to the keyring), then ``jawad mcp list --tools --json``, which signs in
with them. Each command's output goes to stderr; the last one's JSON to stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def main(profile: str, url: str) -> int:
    context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
    env = {**os.environ, "ORG_CLIENT_SECRET": context["client_secret"], "ORG_ID_TOKEN": context["idp_id_token"]}
    steps = [["mcp", "add", "org", "--url", url, "--client-id", context["client_id"],
              "--client-secret-env", "ORG_CLIENT_SECRET", "--idp-token-endpoint", context["idp_token_endpoint"],
              "--idp-client-id", context["idp_client_id"], "--id-token-env", "ORG_ID_TOKEN"],
             ["mcp", "list", "--tools", "--json"]]
    for args in steps:
        done = subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", profile, *args], text=True,
                              capture_output=True, env=env, timeout=60, check=False)
        sys.stderr.write(f"$ jawad {' '.join(args[:3])} ...\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            return done.returncode
    sys.stdout.write(done.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
