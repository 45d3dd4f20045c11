"""What a tool receives when it runs, and what the agent knows about the page.

``ToolContext`` is the typed context every tool gets as its first argument (page, settings,
event bus, secrets, the run it belongs to) so tools never reach for globals. ``PageContext``
is the snapshot of the current page the agent injects into its system prompt each iteration
(spec 000 context injection); the browser layer produces it, the agent only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from jawad_desktop.core.events import EventBus
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.store.settings import Settings


def site_of(url: str) -> str:
    """The site of a URL as the action log and permissions name it: ``amazon.com``.

    ``www.`` is dropped; a URL without a host (``about:blank``, a bare word) gives ``""``.
    """
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")


@dataclass(slots=True)
class PageContext:
    """The current page as the model is told about it (spec 001 READ_PAGE's shape)."""

    title: str = ""
    url: str = ""
    markdown: str = ""  # main content; untrusted, the prompt wraps and labels it
    product: dict[str, Any] | None = None
    interactive_elements: str = ""  # "[1] BUTTON \"Add to Cart\" -> button.add-to-cart" lines

    @property
    def site(self) -> str:
        return site_of(self.url)


@dataclass(slots=True)
class ToolContext:
    """The typed context passed as the first argument of every tool.

    ``page`` is the browser's ``Page`` interface (or ``None`` when no browser is attached,
    e.g. in ``jawad ask`` without ``--url``); browser tools check for it and fail with a
    message the model can act on. ``extras`` carries services a later layer adds (the page
    cache, a research plan) without this class knowing them.
    """

    settings: Settings
    bus: EventBus
    secrets: SecretStore | None = None
    page: Any = None
    run_id: str = ""
    call_id: str = ""
    site: str = ""  # the site of the current page when the call was made
    extras: dict[str, Any] = field(default_factory=dict)
