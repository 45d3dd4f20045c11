"""The user's settings file: loading and saving the schema of ``core.config.settings``.

Writes are atomic (temp file, fsync, rename). A file that cannot be read or does not
validate is never overwritten: it is moved aside with a timestamp, defaults are used, and
``SettingsStore.recovered_from`` tells the UI what happened so the user can be told.
API keys are never stored here (see ``secrets``).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import ValidationError

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.store.jsonfile import move_aside, write_atomic

log = logging.getLogger("jawad.store.settings")


class SettingsStore:
    """Loads and saves ``Settings`` at one path, atomically and without losing a bad file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.recovered_from: Path | None = None  # where a corrupt file was moved to
        self.recovery_reason: str = ""

    def load(self) -> Settings:
        """Read the file; on any problem move it aside, remember why, and return defaults."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Settings()
        except OSError as exc:
            log.warning("cannot read settings %s: %s", self.path, exc)
            return self._recover(f"it could not be read ({exc.strerror or exc})")
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            return self._recover(f"it is not valid JSON (line {exc.lineno}, column {exc.colno})")
        if not isinstance(data, dict):
            return self._recover("it does not hold a JSON object")
        try:
            return Settings.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
            return self._recover(f"{where}: {first.get('msg', 'invalid value')}")

    def _recover(self, reason: str) -> Settings:
        try:
            self.recovered_from = move_aside(self.path)
        except OSError as exc:  # cannot move it: keep defaults in memory, never overwrite it
            log.error("cannot move corrupt settings aside: %s", exc)
            self.recovered_from = self.path
        self.recovery_reason = reason
        log.warning(
            "settings file %s was unusable (%s); kept as %s", self.path, reason, self.recovered_from
        )
        return Settings()

    def save(self, settings: Settings) -> None:
        """Write atomically (see ``jsonfile.write_atomic``), readable by the owner only."""
        write_atomic(self.path, settings.model_dump_json(indent=2))

    def recovery_message(self) -> str:
        """A sentence for the user when the file had to be moved aside, else ''."""
        if self.recovered_from is None:
            return ""
        return (
            f"Your settings file could not be used because {self.recovery_reason}. "
            f"It was kept as {self.recovered_from} and default settings are in use."
        )
