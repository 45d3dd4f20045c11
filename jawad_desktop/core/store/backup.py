"""A whole profile in one file, and back: ``jawad backup FILE`` / ``jawad restore FILE``.

The backup is a zip: ``manifest.json`` (what it is, when, which app, what it holds and what it
leaves out), the settings folder's files (settings, site grants, what was learned about models,
prices, the document library's list of folders and files) and a consistent copy of ``jawad.db``
(conversations with their attachments' text, memory, research plans, the action log, the page
cache), taken with SQLite's backup API so a running app can be backed up.

Left out, and said so in the manifest: API keys (they stay in the system keyring; a restored
profile asks for them again), the browser's cookies and logins, downloaded models and voices
(downloaded again on demand), the document library's index (rebuilt from its list) and logs.

A restore goes into a profile with no conversations and no settings yet, unless ``replace`` is
given; then what was there is moved aside into ``replaced-<time>/`` first, so nothing is lost.
Only the names a backup may hold are read from it.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from jawad_desktop import __version__
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.database import DB_FILENAME
from jawad_desktop.core.store.paths import AppPaths

__all__ = ["BACKUP_FORMAT", "CONFIG_FILES", "LEFT_OUT", "BackupReport", "restore_backup", "write_backup"]

log = logging.getLogger("jawad.store.backup")

BACKUP_FORMAT = "jawad-desktop-backup"
VERSION = 1
# The settings folder's files a backup holds (the names the settings, Harbor, model facts, prices
# and the document library use).
CONFIG_FILES = ("settings.json", "harbor_grants.json", "model_facts.json", "prices.json", "library.json")
LEFT_OUT = (
    "API keys: they stay in the system keyring; enter them again in Settings → Providers after a restore",
    "the browser's cookies and sign-ins",
    "downloaded models and voices: downloaded again when needed",
    "the document library's index: rebuilt from its list of folders and files",
    "logs",
)


@dataclass(frozen=True)
class BackupReport:
    """What a backup holds or a restore brought back."""

    path: Path
    files: tuple[str, ...]
    conversations: int

    def summary(self, verb: str) -> str:
        return (f"{verb} {self.conversations} conversation{'s' if self.conversations != 1 else ''} and "
                f"{len(self.files)} file{'s' if len(self.files) != 1 else ''} ({', '.join(self.files)}).")


def _count_conversations(db_file: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM conversations WHERE deleted_at IS NULL").fetchone()[0])
    except sqlite3.Error:
        return 0


def write_backup(paths: AppPaths, target: Path) -> BackupReport:
    """Write the profile at ``paths`` to ``target`` (a new zip; an existing file is replaced only
    once the new one is complete)."""
    target = target.expanduser()
    if target.is_dir():
        target = target / time.strftime("jawad-backup-%Y%m%d-%H%M%S.zip")
    files: list[str] = []
    with tempfile.TemporaryDirectory(prefix="jawad-backup-") as scratch:
        snapshot = Path(scratch) / DB_FILENAME
        source_db = paths.data / DB_FILENAME
        if source_db.is_file():
            try:
                with sqlite3.connect(source_db) as src, sqlite3.connect(snapshot) as dst:
                    src.backup(dst)  # consistent even while the app writes
            except sqlite3.Error as exc:
                raise JawadError(f"The conversation database could not be copied: {exc}.",
                                 suggestions=["Try again; if it keeps failing, close Jawad first."]) from None
        partial = target.with_name(target.name + ".partial")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in CONFIG_FILES:
                    if (paths.config / name).is_file():
                        archive.write(paths.config / name, f"config/{name}")
                        files.append(f"config/{name}")
                if snapshot.is_file():
                    archive.write(snapshot, f"data/{DB_FILENAME}")
                    files.append(f"data/{DB_FILENAME}")
                manifest = {"format": BACKUP_FORMAT, "version": VERSION, "app_version": __version__,
                            "created_at": int(time.time() * 1000), "files": files, "left_out": list(LEFT_OUT)}
                archive.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
            partial.replace(target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise JawadError(f"The backup could not be written to {target}: {exc.strerror or exc}.",
                             suggestions=["Choose a folder you may write to, with enough free space."]) from None
        conversations = _count_conversations(snapshot) if snapshot.is_file() else 0
    log.info("backup written to %s: %s", target, files)
    return BackupReport(target, tuple(files), conversations)


def _has_profile(paths: AppPaths) -> bool:
    if (paths.config / "settings.json").is_file():
        return True
    return (paths.data / DB_FILENAME).is_file() and _count_conversations(paths.data / DB_FILENAME) > 0


def restore_backup(source: Path, paths: AppPaths, *, replace: bool = False) -> BackupReport:
    """Bring the backup ``source`` back into the profile at ``paths``."""
    source = source.expanduser()
    if not source.is_file():
        raise JawadError(f"{source} does not exist.", suggestions=["Give the .zip that `jawad backup` wrote."])
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as exc:
        raise JawadError(f"{source.name} is not a Jawad backup: {exc}.",
                         suggestions=["Give the .zip that `jawad backup` wrote."]) from None
    with archive, tempfile.TemporaryDirectory(prefix="jawad-restore-") as scratch:
        try:
            manifest = json.loads(archive.read("manifest.json"))
        except (KeyError, ValueError) as exc:
            raise JawadError(f"{source.name} is not a Jawad backup (no readable manifest: {exc}).",
                             suggestions=["Give the .zip that `jawad backup` wrote."]) from None
        if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
            raise JawadError(f"{source.name} is not a Jawad backup.",
                             suggestions=["Give the .zip that `jawad backup` wrote."])
        if int(manifest.get("version", 0)) > VERSION:
            raise JawadError(f"{source.name} was made by a newer Jawad ({manifest.get('app_version')}).",
                             suggestions=["Update Jawad, then restore it."])
        allowed = {f"config/{name}" for name in CONFIG_FILES} | {f"data/{DB_FILENAME}"}
        names = [n for n in archive.namelist() if n in allowed]  # nothing else is read
        staged = Path(scratch)
        for name in names:
            (staged / name).parent.mkdir(parents=True, exist_ok=True)
            (staged / name).write_bytes(archive.read(name))
        db_file = staged / "data" / DB_FILENAME
        if db_file.is_file():
            try:
                with sqlite3.connect(db_file) as conn:
                    if conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                        raise sqlite3.DatabaseError("integrity check failed")
            except sqlite3.Error as exc:
                raise JawadError(f"The conversations in {source.name} are damaged: {exc}.",
                                 suggestions=["Use another backup."]) from None
        for name in names:
            if name.endswith(".json"):
                try:
                    json.loads((staged / name).read_text(encoding="utf-8"))
                except (ValueError, UnicodeDecodeError) as exc:
                    raise JawadError(f"{name} in {source.name} is damaged: {exc}.",
                                     suggestions=["Use another backup."]) from None
        if _has_profile(paths):
            if not replace:
                raise JawadError("This profile already has settings or conversations: a restore would replace them.",
                                 suggestions=["Restore into a new profile (--profile DIR), or add --replace: what "
                                              "is there now is moved aside into a 'replaced-…' folder first."])
            aside = paths.data.parent / time.strftime("replaced-%Y%m%d-%H%M%S")
            aside.mkdir(parents=True, exist_ok=True)
            for name in names:
                folder = paths.config if name.startswith("config/") else paths.data
                current = folder / name.split("/", 1)[1]
                if current.exists():
                    (aside / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(current), aside / name)
            for suffix in ("-wal", "-shm"):  # the old database's journal must not be applied to the new one
                (paths.data / (DB_FILENAME + suffix)).unlink(missing_ok=True)
        paths.ensure()
        for name in names:
            folder = paths.config if name.startswith("config/") else paths.data
            shutil.copyfile(staged / name, folder / name.split("/", 1)[1])
        conversations = _count_conversations(paths.data / DB_FILENAME) if db_file.is_file() else 0
    log.info("restored %s into %s", source, paths.data.parent)
    return BackupReport(source, tuple(names), conversations)
