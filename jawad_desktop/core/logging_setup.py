"""Logging for the whole app: one named logger per subsystem under ``jawad``.

Records go to a rotating file in the logs folder and, at the chosen level, to stderr.
A filter masks anything that looks like an API key, so keys never reach a log.
"""

from __future__ import annotations

import logging
import logging.handlers
import re
from pathlib import Path

_SECRET_RE = re.compile(
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


def setup_logging(log_dir: Path | None, level: str = "WARNING") -> Path | None:
    """Configure the ``jawad`` logger; returns the log file's path when there is one."""
    root = logging.getLogger("jawad")
    root.setLevel(logging.DEBUG)
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    redactor = RedactingFilter()
    console = logging.StreamHandler()
    console.setLevel(getattr(logging, level.upper(), logging.WARNING))
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(redactor)
    root.addHandler(console)
    log_file: Path | None = None
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            log_file = log_dir / "jawad.log"
            handler = logging.handlers.RotatingFileHandler(
                log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
            )
        except OSError:
            log_file = None
        else:
            handler.setLevel(logging.DEBUG)
            handler.setFormatter(fmt)
            handler.addFilter(redactor)
            root.addHandler(handler)
    root.propagate = False
    return log_file
