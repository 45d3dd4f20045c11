"""Site grants on disk: ``harbor_grants.json`` in the config folder, written atomically.

Only "allow for this site" grants are stored; session grants live in memory. A file that
cannot be read is moved aside (never overwritten) and Harbor starts with no grants, which is
the safe direction: it asks again.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from jawad_desktop.core.harbor.policy import Grant

log = logging.getLogger("jawad.harbor")

GRANTS_FILENAME = "harbor_grants.json"
GRANTS_VERSION = 1


class GrantStore:
    """Loads and saves the persisted site grants at one path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem = ""  # why the last load found nothing usable, for the Settings page

    @classmethod
    def in_folder(cls, config_dir: Path) -> GrantStore:
        return cls(Path(config_dir) / GRANTS_FILENAME)

    def load(self) -> list[Grant]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            self.problem = f"the site permissions file could not be read ({exc})"
            log.warning("%s", self.problem)
            return []
        try:
            data = json.loads(raw)
            grants = [
                Grant(site=str(g["site"]), tool=str(g["tool"]), level=str(g.get("level", "")),
                      granted_at=int(g.get("granted_at", 0)), scope="site")
                for g in data["grants"]
            ]
        except (ValueError, KeyError, TypeError) as exc:
            moved = self.path.with_name(f"{self.path.stem}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}.json")
            try:
                os.replace(self.path, moved)
            except OSError:
                moved = self.path
            self.problem = f"the site permissions file was unusable ({exc}); it was kept as {moved}"
            log.warning("%s", self.problem)
            return []
        return grants

    def save(self, grants: list[Grant]) -> None:
        """Write atomically: temp file, fsync, rename (a crash leaves the old or the new file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "version": GRANTS_VERSION,
            "grants": [
                {"site": g.site, "tool": g.tool, "level": g.level, "granted_at": g.granted_at}
                for g in sorted(grants, key=lambda g: (g.site, g.tool))
            ],
        }
        fd, tmp = tempfile.mkstemp(prefix=".grants-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
