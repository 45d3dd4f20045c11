"""Logging for the whole app: one named logger per subsystem under ``jawad``.

Records go to a rotating file in the logs folder and, at the chosen level, to stderr.
A filter masks anything that looks like an API key, so keys never reach a log.

The window opens its log file once its first frame is on screen (``open_file=False``, then
``open_log_file``): the rotating handler's module costs 9 ms at start-up. The records of
those first moments are kept and written to the file first; an exit before it is opened
(``logging.shutdown``) still writes them.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from jawad_desktop.core.lazy_pattern import LazyPattern

_SECRET_RE = LazyPattern(
    # \b: "task-management" is a word, not a key.
    r"(\bsk-[A-Za-z0-9_\-]{8,}|\bsk-or-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,}"
    # Well-known token shapes: GitHub, Slack, Google, Hugging Face, Groq, AWS access keys, JWTs.
    r"|\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|AIza[0-9A-Za-z_\-]{20,}|hf_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"|Authorization[\"']?\s*[:=]\s*[\"']?Basic\s+[A-Za-z0-9+/=]{8,}"
    r"|(?:api[_-]?key|token|authorization|password|passwd|secret)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9._\-]{8,})",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """Mask API keys, bearer tokens and key=value secrets in ``text``."""
    return _SECRET_RE.sub(lambda m: m.group(0)[:4] + "…[redacted]", text)


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_REDACTOR = RedactingFilter()

LOG_FILE_NAME = "jawad.log"
EARLY_RECORDS_MAX = 2000


class _EarlyRecords(logging.Handler):
    """Keeps the records logged before the log file is open, for ``open_log_file``."""

    def __init__(self, log_dir: Path) -> None:
        super().__init__(logging.DEBUG)
        self.log_dir = log_dir
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) < EARLY_RECORDS_MAX:
            self.records.append(record)

    def close(self) -> None:
        # logging.shutdown (any exit) before the window opened the file: write them now.
        if self.records:
            open_log_file()
        super().close()


def setup_logging(log_dir: Path | None, level: str = "WARNING", *, open_file: bool = True) -> Path | None:
    """Configure the ``jawad`` logger; returns the log file's path when there is one.

    ``open_file=False``: the file is opened by ``open_log_file`` (the window, once its frame
    is shown); the path returned is where it will be."""
    root = logging.getLogger("jawad")
    root.setLevel(logging.DEBUG)
    for handler in list(root.handlers):
        root.removeHandler(handler)
        if not isinstance(handler, _EarlyRecords):  # a new set-up drops a pending one's records
            handler.close()
    console = logging.StreamHandler()
    console.setLevel(getattr(logging, level.upper(), logging.WARNING))
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(_REDACTOR)
    root.addHandler(console)
    root.propagate = False
    if log_dir is None:
        return None
    root.addHandler(_EarlyRecords(log_dir))
    if not open_file:
        return log_dir / LOG_FILE_NAME
    return open_log_file()


def open_log_file() -> Path | None:
    """Open the rotating log file ``setup_logging`` chose and write the records kept until
    now; returns its path, or None when it cannot be opened (or there is none to open)."""
    import logging.handlers

    root = logging.getLogger("jawad")
    early = next((h for h in root.handlers if isinstance(h, _EarlyRecords)), None)
    if early is None:
        return None
    root.removeHandler(early)
    records, early.records = early.records, []
    log_file = early.log_dir / LOG_FILE_NAME
    try:
        early.log_dir.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    except OSError:
        return None
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_REDACTOR)
    for record in records:
        handler.handle(record)
    root.addHandler(handler)
    return log_file
