"""A person at a terminal signing in to a remote MCP server, as the conformance suite runs a client:
``python -m tests.mcp.login_client PROFILE URL``.

It runs the real commands in order: ``jawad mcp add remote --url URL``, ``jawad mcp login remote``
(the system browser is ``$BROWSER``, here ``tests.mcp.follow_browser``, which follows the sign-in page's
redirects as a browser whose user clicks Allow would), then ``jawad mcp list --tools --json`` (a new
process: the sign-in comes from the keyring). Each command's output goes to stderr; the last one's
JSON to stdout. Exits with the first command's failure.
"""

from __future__ import annotations

import os
import subprocess
import sys


def main(profile: str, url: str) -> int:
    browser = f"{sys.executable} -m tests.mcp.follow_browser %s"
    steps = [(["mcp", "add", "remote", "--url", url], {}),
             (["mcp", "login", "remote"], {"BROWSER": browser}),
             (["mcp", "list", "--tools", "--json"], {})]
    for args, env in steps:
        done = subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", profile, *args], text=True,
                              capture_output=True, env={**os.environ, **env}, timeout=60, check=False)
        sys.stderr.write(f"$ jawad {' '.join(args)}\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            return done.returncode
    sys.stdout.write(done.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
