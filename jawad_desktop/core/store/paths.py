"""Where the app keeps its files: the platform's directories, or one profile folder.

``--profile DIR`` puts settings, data, cache and logs all under DIR (portable use, tests).
Without it the platform's own directories are used (platformdirs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from jawad_desktop import APP_ID

LIBRARY_FILE = "library.json"  # the document library's sources (core.tools.files.library)


class AppPaths(NamedTuple):  # not a dataclass: read before the window's first frame (start-up time)
    """The four folders the app writes to."""

    config: Path
    data: Path
    cache: Path
    logs: Path

    @classmethod
    def for_profile(cls, profile: str | os.PathLike[str] | None = None) -> AppPaths:
        """Paths under ``profile`` when given, otherwise the platform's directories."""
        if profile is not None:
            root = Path(profile).expanduser().resolve()
            return cls(root / "config", root / "data", root / "cache", root / "logs")
        import platformdirs  # 6 ms: only when it is needed

        return cls(
            Path(platformdirs.user_config_dir(APP_ID, appauthor=False)),
            Path(platformdirs.user_data_dir(APP_ID, appauthor=False)),
            Path(platformdirs.user_cache_dir(APP_ID, appauthor=False)),
            Path(platformdirs.user_log_dir(APP_ID, appauthor=False)),
        )

    def ensure(self) -> AppPaths:
        """Create the folders (private to the user) and return self."""
        for path in (self.config, self.data, self.cache, self.logs):
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self

    @property
    def settings_file(self) -> Path:
        return self.config / "settings.json"

    @property
    def library_file(self) -> Path:
        """The document library's list of sources (there once the user has added one)."""
        return self.config / LIBRARY_FILE
