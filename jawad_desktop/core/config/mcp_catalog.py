"""The catalog of well-known MCP servers: what Settings → MCP servers and ``jawad mcp add --from``
fill in (the command or the URL, a name, a permission) and what each needs before it works.

Entries are the reference servers of the Model Context Protocol project (filesystem, git, fetch,
time, memory, sequential thinking, everything) and the remote servers people connect most (GitHub).
A ``{folder}`` in an entry's arguments is the folder the user chooses (their home folder when they
do not say).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jawad_desktop.core.config.mcp import McpServerConfig

__all__ = ["CATALOG", "CatalogEntry", "catalog_entry"]


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One well-known server: how it is reached, and what it needs (``needs``, said to the user)."""

    key: str
    title: str
    description: str
    needs: str
    transport: Literal["stdio", "http"] = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""
    permission: Literal["ask", "read-only", "navigate", "interact", "submit"] = "ask"

    def config(self, name: str = "", folder: str = "") -> McpServerConfig:
        """The server as saved: ``name`` (the key when empty), ``{folder}`` replaced by ``folder``."""
        where = folder or str(Path.home())
        return McpServerConfig(name=name or self.key, transport=self.transport, command=self.command,
                               args=[arg.replace("{folder}", where) for arg in self.args], url=self.url,
                               permission=self.permission)


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("filesystem", "Files", "Read, write, search and move files in the folders you give it.",
                 "Node.js (npx). The folder it may use: your home folder unless you change the command's last part.",
                 command="npx", args=("-y", "@modelcontextprotocol/server-filesystem", "{folder}")),
    CatalogEntry("git", "Git", "Read a Git repository's history, diffs and branches; stage and commit.",
                 "uv (uvx) and a Git repository: change the command's last part to its folder.",
                 command="uvx", args=("mcp-server-git", "--repository", "{folder}")),
    CatalogEntry("fetch", "Fetch", "Fetch a web page and give it as Markdown.", "uv (uvx).",
                 command="uvx", args=("mcp-server-fetch",)),
    CatalogEntry("time", "Time", "The time now in any time zone, and conversions between zones.", "uv (uvx).",
                 command="uvx", args=("mcp-server-time",), permission="read-only"),
    CatalogEntry("memory", "Memory", "A knowledge graph the assistant keeps across conversations.",
                 "Node.js (npx).", command="npx", args=("-y", "@modelcontextprotocol/server-memory")),
    CatalogEntry("sequential-thinking", "Sequential thinking", "Lets the model think a problem through in steps.",
                 "Node.js (npx).", command="npx", args=("-y", "@modelcontextprotocol/server-sequential-thinking"),
                 permission="read-only"),
    CatalogEntry("everything", "Everything (test server)",
                 "MCP's reference server of every feature: tools, resources, prompts, sampling, elicitation.",
                 "Node.js (npx).", command="npx", args=("-y", "@modelcontextprotocol/server-everything")),
    CatalogEntry("github", "GitHub", "Issues, pull requests, code and repositories on GitHub.",
                 "A GitHub account: Sign in after saving (OAuth in the browser), or add a personal access token "
                 "as the header 'Authorization: Bearer …'.", transport="http",
                 url="https://api.githubcopilot.com/mcp"),
)


def catalog_entry(key: str) -> CatalogEntry | None:
    """The entry named ``key`` (any case), or None."""
    return next((entry for entry in CATALOG if entry.key == key.strip().lower()), None)
