"""What a tool receives when it runs: ``ToolContext``.

``ToolContext`` is the typed context every tool gets as its first argument (settings, event
bus, secrets, the browser session and its page, the run it belongs to) so tools never reach
for globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tokens import TokenCounter, counter_for

if TYPE_CHECKING:
    from jawad_desktop.core.tools.browser.browser_session import BrowserSession
    from jawad_desktop.core.tools.page import Page


@dataclass(slots=True)
class ToolContext:
    """The typed context passed as the first argument of every tool.

    ``browser`` is the browser session the tools act on (its ``page``, what it last read, the
    page cache), or ``None`` when no browser is attached (``jawad ask`` without ``--url``):
    browser tools then fail with a message the model can act on. ``extras`` carries services a
    later layer adds (a research plan) without this class knowing them.
    """

    settings: Settings
    bus: EventBus
    secrets: SecretStore | None = None
    browser: BrowserSession | None = None
    run_id: str = ""
    call_id: str = ""
    site: str = ""  # the site of the current page when the call was made
    # The most characters of a result the model can take (its context window's share; 0: no
    # limit known). A tool with long output shortens it to fit, saying what it left out.
    result_chars: int = 0
    # Counts tokens as the model does (``core.tokens``): ``result_chars_for`` sizes a result by it.
    tokens: TokenCounter = field(default_factory=counter_for)
    extras: dict[str, Any] = field(default_factory=dict)

    def result_chars_for(self, text: str) -> int:
        """``result_chars`` as characters of ``text``: fewer where its script costs more tokens
        (Chinese, Japanese, Korean...), so a result holds the same share of the model's window in
        every language (0: no limit known)."""
        return self.tokens.chars_for(text, self.result_chars)

    @property
    def page(self) -> Page | None:
        return self.browser.page if self.browser is not None else None
