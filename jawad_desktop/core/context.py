"""The services one run of the app shares: paths, settings, secrets and the event bus.

The window and every CLI command build one ``AppContext`` and pass it down; nothing in the
core reaches for globals.
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.paths import AppPaths
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.store.settings_file import SettingsStore

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

log = logging.getLogger("jawad.context")


class _FoundLater(SecretStore):
    """The keyring, found by a background thread: started at once (``start``) when the saved
    settings keep secrets (``keeps_secrets``), else by the first use; every use waits for it.

    Talking to the Secret Service takes tens of milliseconds over D-Bus: the window starts
    without waiting for it, and a start with nothing to unlock (a first start, a local model)
    loads no keyring at all (80 modules, the D-Bus and cryptography libraries, about 5 MB). It is
    a ``SecretStore`` whose state is the found store's, so whoever holds it (the agent's tools)
    finds the keyring only if they use it.
    """

    def __init__(self, *, start: bool) -> None:  # not the dataclass's: the fields are the found store's
        self._found: SecretStore | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        if start:
            self.start()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Look for the keyring in the background, once."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._detect, name="keyring-detect", daemon=True)
                self._thread.start()

    def _detect(self) -> None:
        self._found = SecretStore.detect()

    def found(self) -> SecretStore:
        """The store found (looked for now if nobody asked yet)."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        assert self._found is not None
        return self._found

    @property
    def backend(self) -> KeyringBackend | None:
        return self.found().backend

    @backend.setter
    def backend(self, value: KeyringBackend | None) -> None:
        self.found().backend = value

    @property
    def problem(self) -> str:
        return self.found().problem

    @problem.setter
    def problem(self, value: str) -> None:
        self.found().problem = value

    @property
    def session_only(self) -> bool:
        return self.found().session_only

    @session_only.setter
    def session_only(self, value: bool) -> None:
        self.found().session_only = value

    @property
    def _memory(self) -> dict[str, str]:
        return self.found()._memory

    @_memory.setter
    def _memory(self, value: dict[str, str]) -> None:
        self.found()._memory = value


def keeps_secrets(settings: Settings) -> bool:
    """Whether the saved settings name anything whose secrets the keyring keeps: a provider
    (its API key) or an MCP server (its headers, its sign-in)."""
    return bool(settings.providers or settings.mcp.servers)


@dataclass
class AppContext:
    """Everything a command or the window needs from the core."""

    paths: AppPaths
    settings_store: SettingsStore
    settings: Settings
    secrets: SecretStore
    bus: EventBus = field(default_factory=EventBus)

    @classmethod
    def open(
        cls, profile: str | None = None, *, secrets: SecretStore | None = None, defer_keyring: bool = False
    ) -> AppContext:
        """Create the folders, load settings (recovering a bad file) and find the keyring
        (when ``defer_keyring``: in the background, and only once used when the settings keep no
        secrets; ``secrets`` waits for it on first use)."""
        paths = AppPaths.for_profile(profile).ensure()
        from jawad_desktop.core.store import pins

        pins.remember_in(paths.cache)  # model and voice files verified once are not hashed at every start
        store = SettingsStore(paths.settings_file)
        settings = store.load()
        found: SecretStore
        if secrets is not None:
            found = secrets
        elif defer_keyring:
            found = _FoundLater(start=keeps_secrets(settings))
        else:
            found = SecretStore.detect()
        return cls(paths=paths, settings_store=store, settings=settings, secrets=found)

    @functools.cached_property
    def model_facts(self) -> ModelFactsStore:
        """What was learned about each model (refused parameters, tool format, context window)."""
        return ModelFactsStore.in_folder(self.paths.config)

    @property
    def keyring_sought(self) -> bool:
        """Whether the keyring has been looked for (or is being looked for in the background)."""
        return not isinstance(self.secrets, _FoundLater) or self.secrets.started

    def save_settings(self) -> None:
        self.settings_store.save(self.settings)
