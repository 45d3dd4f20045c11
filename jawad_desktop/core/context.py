"""The services one run of the app shares: paths, settings, secrets and the event bus.

The window and every CLI command build one ``AppContext`` and pass it down; nothing in the
core reaches for globals.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from jawad_desktop.core.events import EventBus
from jawad_desktop.core.store.paths import AppPaths
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.store.settings import Settings, SettingsStore

log = logging.getLogger("jawad.context")


@dataclass
class AppContext:
    """Everything a command or the window needs from the core."""

    paths: AppPaths
    settings_store: SettingsStore
    settings: Settings
    secrets: SecretStore
    bus: EventBus = field(default_factory=EventBus)

    @classmethod
    def open(cls, profile: str | None = None, *, secrets: SecretStore | None = None) -> AppContext:
        """Create the folders, load settings (recovering a bad file) and find the keyring."""
        paths = AppPaths.for_profile(profile).ensure()
        store = SettingsStore(paths.settings_file)
        settings = store.load()
        return cls(
            paths=paths,
            settings_store=store,
            settings=settings,
            secrets=secrets if secrets is not None else SecretStore.detect(),
        )

    def save_settings(self) -> None:
        self.settings_store.save(self.settings)
