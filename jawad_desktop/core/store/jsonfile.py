"""Small files written whole or not at all, and unusable files kept aside instead of lost.

Owns the one way the app replaces a file on disk (settings, site grants, exports): a temp
file in the same folder, fsync, rename over the target, fsync the folder. A crash at any
moment leaves either the old file or the new one, never a torn mix. It also owns how a file
that cannot be used is moved out of the way (``<stem>.corrupt-<YYYYmmdd-HHMMSS>[-n]<suffix>``)
so the user's data is never overwritten by defaults.

Errors are ``OSError`` and reach the caller unchanged: each caller knows what to tell the user.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["PRIVATE", "move_aside", "write_atomic", "write_json"]

PRIVATE = 0o600  # settings, grants and exports may hold personal data: owner only


def write_atomic(path: Path, text: str, *, mode: int = PRIVATE) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so that a crash leaves the old or the new file.

    Creates missing parent folders. On failure the temp file is removed, the previous file is
    untouched and the ``OSError`` propagates.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Same folder as the target: a rename is only atomic within one filesystem.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            # Without this the rename can reach the disk before the data: after a power
            # cut the "new" file would be empty.
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def write_json(path: Path, data: Any, *, indent: int | None = 2, mode: int = PRIVATE) -> None:
    """``write_atomic`` of ``data`` as JSON; a value that is not JSON raises before the disk is touched."""
    write_atomic(path, json.dumps(data, indent=indent), mode=mode)


def move_aside(path: Path, *, now: float | None = None) -> Path:
    """Rename ``path`` to ``<stem>.corrupt-<YYYYmmdd-HHMMSS>[-n]<suffix>`` beside it; return the new path.

    An earlier file kept aside in the same second is never overwritten: ``-1``, ``-2``... are
    added. ``now`` (seconds since the epoch) is for tests. Raises ``OSError`` if the file
    cannot be moved; the caller must then leave it where it is rather than write over it.
    """
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target = path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix}")
    n = 1
    # Check-then-rename can race with another process doing the same in the same second;
    # only one app instance owns a profile, so that is not worth a platform-specific rename.
    while target.exists():
        target = path.with_name(f"{path.stem}.corrupt-{stamp}-{n}{path.suffix}")
        n += 1
    os.replace(path, target)
    return target


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable. Best effort: Windows cannot open a folder for fsync."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
