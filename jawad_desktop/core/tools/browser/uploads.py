"""Which file the agent may give a page (``upload_file``): only one the user named.

A file goes to the site the moment the page has it (its scripts can read and send it before any
form is submitted), so the agent never chooses one: the path must appear in what the user said in
this conversation (``BrowserSession.user_texts``), as written or once ``~`` is expanded, and name a
file that exists. Harbor asks every time besides (the inspector marks the call critical).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


class UploadRefused(ValueError):
    """The path is not one the agent may upload; the message says why and what to do."""


def user_named_file(path: str, user_texts: Iterable[str]) -> Path:
    """The file at ``path`` when the user named it and it exists; ``UploadRefused`` otherwise."""
    wanted = path.strip().strip("'\"")
    if not wanted:
        raise UploadRefused("Say which file to upload: its full path, as the user gave it.")
    expanded = os.path.expanduser(wanted)
    said = [text for text in user_texts if text]
    named = any(wanted in text or expanded in os.path.expanduser(text) for text in said) or any(
        expanded == os.path.expanduser(word.strip("'\".,;:()[]<>")) for text in said for word in text.split())
    if not named:
        raise UploadRefused(f"The user did not name the file {wanted}: only a file the user named in their "
                            "messages can be uploaded. Ask the user which file to upload (its full path).")
    file = Path(expanded)
    if not file.is_absolute():
        raise UploadRefused(f"{wanted} is not a full path: ask the user where the file is (a path from / or ~).")
    if not file.is_file():
        raise UploadRefused(f"There is no file at {file}: ask the user to check the path.")
    return file
