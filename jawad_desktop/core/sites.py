"""The one answer to "which site is this?", for permissions, the action log and the page cache.

A site is a host without ``www.``: ``https://www.Amazon.com/dp/1`` and ``www.amazon.com`` are
both ``amazon.com``. Pages without a host (``about:blank``, ``data:``) and text that is not an
address have no site (``""``).

The agent goes to web addresses only (``is_web_address``): ``http``, ``https`` and ``about:blank``.
A ``file:`` address would hand the user's files to the model, a ``javascript:`` one runs a script
in the page, and ``data:``, ``blob:``, ``view-source:``, ``chrome:`` and the rest are pages no site
answers for; the agent's navigations to them are refused (``core/tools/browser``, ``browser/driver``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

__all__ = ["NO_OP_SCRIPT", "WEB_SCHEMES", "address_of", "is_script_link", "is_web_address", "mcp_site", "scheme_of",
           "site_of"]

WEB_SCHEMES = ("http", "https")
# "name:" at the start of an address: a scheme, unless digits follow the colon (a host's port).
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(?!\d)")


def site_of(url_or_site: str) -> str:
    """The site of a URL, or of a bare host such as ``www.amazon.com`` (lower case, no ``www.``)."""
    text = url_or_site.strip()
    if not text:
        return ""
    if "://" in text or text.startswith(("about:", "data:", "file:", "javascript:", "blob:")):
        try:
            host = urlsplit(text).hostname or ""
        except ValueError:
            return ""
        return host.removeprefix("www.")
    if any(ch.isspace() for ch in text):
        return ""
    host = text.split("/")[0].split("?")[0].split("#")[0]
    if host.startswith("[") and "]" in host:  # [::1]:8080
        return host[1 : host.index("]")].lower()
    return host.split(":")[0].lower().removeprefix("www.")


def scheme_of(address: str) -> str:
    """The scheme of an address, lower case (``"file"``, ``"javascript"``), "" when it has none."""
    found = _SCHEME.match(address.strip())
    return found.group(1).lower() if found else ""


def address_of(text: str) -> str:
    """What a person or the model typed as an address: one with a scheme as it is (``file:`` and
    ``javascript:`` included: whoever opens it decides), a bare host with ``https://`` in front
    (``http://`` for ``localhost`` and ``127.*``)."""
    text = text.strip()
    if not text or scheme_of(text) or "://" in text:
        return text
    return ("http://" if text.startswith(("localhost", "127.")) else "https://") + text


def is_web_address(url: str) -> bool:
    """Whether the agent may open ``url``: ``http``/``https`` with a host, or ``about:blank``."""
    text = url.strip()
    if text.lower() == "about:blank":
        return True
    try:
        parts = urlsplit(text)
        return parts.scheme.lower() in WEB_SCHEMES and bool(parts.hostname)
    except ValueError:
        return False


# A ``javascript:`` link that does nothing itself (the page's click handler acts): "void(0)", ";"...
# (the page's own script addresses are held to the same rule: browser/guarded_page.py)
NO_OP_SCRIPT = re.compile(r"^\s*(?:void\s*\(?\s*0\s*\)?|undefined|false|null|return\s+false|)\s*;?\s*$",
                           re.IGNORECASE)


def is_script_link(href: str) -> bool:
    """Whether clicking a link with ``href`` would run a script written into the address
    (``javascript:...`` other than a no-op such as ``javascript:void(0)``): the agent does not
    click those (issue 28: web addresses only)."""
    text = href.strip()
    if scheme_of(text).lower() != "javascript":
        return False
    body = unquote(text.split(":", 1)[1])
    return not NO_OP_SCRIPT.match(body)


def mcp_site(server: str) -> str:
    """The "site" an MCP server's calls act on, for permission grants: ``mcp.<server>``
    (a host-like name, so Harbor's site grants keep servers apart)."""
    return "mcp." + (re.sub(r"[^a-z0-9-]+", "-", server.lower()).strip("-") or "server")
