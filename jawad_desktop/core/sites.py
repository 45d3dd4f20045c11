"""The one answer to "which site is this?", for permissions, the action log and the page cache.

A site is a host without ``www.``: ``https://www.Amazon.com/dp/1`` and ``www.amazon.com`` are
both ``amazon.com``. Pages without a host (``about:blank``, ``data:``) and text that is not an
address have no site (``""``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["site_of"]


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
