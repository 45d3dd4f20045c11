"""Site grants on disk: ``harbor_grants.json`` in the config folder, written atomically.

Only "allow for this site" grants are stored; session grants live in memory. A file that
cannot be read is moved aside (never overwritten) and Harbor starts with no grants, which is
the safe direction: it asks again.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from jawad_desktop.core.harbor.policy import Grant
from jawad_desktop.core.store.jsonfile import move_aside, write_json

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
                if str(g["site"]).strip()  # a grant for no site (an older version's) covers nothing
            ]
        except (ValueError, KeyError, TypeError) as exc:
            try:
                moved = move_aside(self.path)
            except OSError:  # cannot move it: start empty, but never write over it
                moved = self.path
            self.problem = f"the site permissions file was unusable ({exc}); it was kept as {moved}"
            log.warning("%s", self.problem)
            return []
        return grants

    def save(self, grants: list[Grant]) -> None:
        """Write atomically (see ``jsonfile.write_atomic``): a crash leaves the old or the new file."""
        payload = {
            "version": GRANTS_VERSION,
            "grants": [
                {"site": g.site, "tool": g.tool, "level": g.level, "granted_at": g.granted_at}
                for g in sorted(grants, key=lambda g: (g.site, g.tool))
            ],
        }
        write_json(self.path, payload, indent=2)
