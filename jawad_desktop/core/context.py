"""The services one run of the app shares: paths, settings, secrets and the event bus.

The window and every CLI command build one ``AppContext`` and pass it down; nothing in the
core reaches for globals.
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass, field

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.paths import AppPaths
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.store.settings_file import SettingsStore

log = logging.getLogger("jawad.context")


class _DeferredSecrets:
    """Finds the keyring in a background thread; the first use waits for it.

    Talking to the Secret Service takes tens of milliseconds over D-Bus: the window starts
    without waiting for it.
    """

    def __init__(self) -> None:
        self._store: SecretStore | None = None
        self._thread = threading.Thread(target=self._detect, name="keyring-detect", daemon=True)
        self._thread.start()

    def _detect(self) -> None:
        self._store = SecretStore.detect()

    def get(self) -> SecretStore:
        self._thread.join()
        assert self._store is not None
        return self._store


@dataclass
class AppContext:
    """Everything a command or the window needs from the core."""

    paths: AppPaths
    settings_store: SettingsStore
    settings: Settings
    _secrets: SecretStore | _DeferredSecrets
    bus: EventBus = field(default_factory=EventBus)

    @classmethod
    def open(
        cls, profile: str | None = None, *, secrets: SecretStore | None = None, defer_keyring: bool = False
    ) -> AppContext:
        """Create the folders, load settings (recovering a bad file) and find the keyring
        (in the background when ``defer_keyring``; ``secrets`` waits for it on first use)."""
        paths = AppPaths.for_profile(profile).ensure()
        from jawad_desktop.core.store import pins

        pins.remember_in(paths.cache)  # model and voice files verified once are not hashed at every start
        store = SettingsStore(paths.settings_file)
        settings = store.load()
        found: SecretStore | _DeferredSecrets
        if secrets is not None:
            found = secrets
        elif defer_keyring:
            found = _DeferredSecrets()
        else:
            found = SecretStore.detect()
        return cls(paths=paths, settings_store=store, settings=settings, _secrets=found)

    @functools.cached_property
    def model_facts(self) -> ModelFactsStore:
        """What was learned about each model (refused parameters, tool format, context window)."""
        return ModelFactsStore.in_folder(self.paths.config)

    @property
    def secrets(self) -> SecretStore:
        if isinstance(self._secrets, _DeferredSecrets):
            self._secrets = self._secrets.get()
        return self._secrets

    def save_settings(self) -> None:
        self.settings_store.save(self.settings)
