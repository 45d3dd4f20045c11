"""Files the user attaches to a message: read before the message is sent, put in the model's context.

Owns what an attachment becomes in a request, for every face (the window's attach button, drop and
paste, ``jawad ask --attach``), through ``Assistant.send(text, attachments=...)``:

- ``read_attachments(paths, max_bytes=...)`` reads every file off the event loop (``extract``). Any
  file that cannot be read (encrypted, unsupported, too large, damaged) raises its ``FileReadError``
  before anything is sent: the user's message is not sent, and nothing they typed is lost.
- ``user_message(text, files, budget_chars=...)`` is the user's message with the files' text after
  it, each part labelled with where it is (``[file report.pdf, page 3]``) inside the untrusted-content
  fence (a file can carry instructions as a web page can). The files share ``budget_chars`` (a share
  of the model's window and the history's budget, ``ATTACHMENT_SHARE``); what does not fit is
  named, with the part to ask for next through the ``read_attachment`` tool. Pictures ride as the
  message's images.
- ``AttachedFiles`` keeps a conversation's files by name, for ``read_attachment``.
- ``file_record(name, file)`` / ``file_from_record(record)``: a file as plain JSON, saved with the
  user's message (``TurnStarted.files``), so a conversation opened again from the history gives the
  model the files' text again and ``read_attachment`` still reads them. A picture is kept up to
  ``MAX_SAVED_IMAGE_BYTES``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.tools.files.extract import ExtractedFile, Kind, Part, extract_file
from jawad_desktop.core.tools.untrusted import wrap_untrusted

__all__ = ["ATTACHMENT_SHARE", "AttachedFiles", "file_from_record", "file_record", "read_attachments",
           "render_parts", "user_message"]

ATTACHMENT_SHARE = 0.5  # of the room the history may hold (in characters), for the attached files' text
MIN_BUDGET_CHARS = 2_000
MAX_SAVED_IMAGE_BYTES = 5_000_000  # a bigger picture is not saved with the message (its name is)


async def read_attachments(paths: Iterable[str | Path | ExtractedFile], *, max_bytes: int) -> list[ExtractedFile]:
    """Every file read (in a worker thread, one after the other; a file already read is kept as it
    is: a question asked again); the first failure is raised."""
    files: list[ExtractedFile] = []
    for path in paths:
        if isinstance(path, ExtractedFile):
            files.append(path)
        else:
            files.append(await asyncio.to_thread(extract_file, Path(path), max_bytes=max_bytes))
    return files


def part_header(name: str, part: Part) -> str:
    return f"[file {name}, {part.label}]" if part.label else f"[file {name}]"


def render_parts(name: str, parts: Sequence[Part], budget_chars: int) -> tuple[str, int]:
    """The parts that fit in ``budget_chars``, each under its header, and how many of them fit.

    The first part is always given, cut to the budget if it must be, so a file is never sent empty.
    """
    chunks: list[str] = []
    used = 0
    count = 0
    for part in parts:
        block = f"{part_header(name, part)}\n{part.text}"
        if used + len(block) > budget_chars:
            if count == 0:
                chunks.append(block[:budget_chars] + "\n[... the rest of this part did not fit]")
                count = 1
            break
        chunks.append(block)
        used += len(block) + 2
        count += 1
    return "\n\n".join(chunks), count


@dataclass
class AttachedFiles:
    """The files attached in one conversation, by the name the model uses (``read_attachment``)."""

    files: dict[str, ExtractedFile] = field(default_factory=dict)

    def add(self, files: Iterable[ExtractedFile]) -> list[str]:
        """Keep ``files``; returns their names (a name already taken gets " (2)", " (3)"...)."""
        names: list[str] = []
        for file in files:
            name, n = file.name, 2
            while name in self.files and self.files[name].path != file.path:
                name = f"{file.path.stem} ({n}){file.path.suffix}"
                n += 1
            self.files[name] = file
            names.append(name)
        return names

    def clear(self) -> None:
        self.files.clear()

    def __bool__(self) -> bool:
        return any(file.parts for file in self.files.values())

    def get(self, name: str) -> ExtractedFile | None:
        found = self.files.get(name)
        if found is None:  # the model may drop the folder or change the case
            wanted = Path(name).name.lower()
            found = next((f for n, f in self.files.items() if n.lower() == wanted), None)
        return found


def user_message(text: str, files: Sequence[tuple[str, ExtractedFile]], *, budget_chars: int) -> Message:
    """The user's message ``text`` with ``files`` (their names in this conversation and what they say)."""
    budget = max(MIN_BUDGET_CHARS, budget_chars)
    texts = [(name, file) for name, file in files if file.parts]
    images: list[Image] = [file.image for _, file in files if file.image is not None]
    blocks: list[str] = []
    for index, (name, file) in enumerate(texts):
        share = budget // (len(texts) - index)  # what earlier files left, shared by the rest
        body, shown = render_parts(name, file.parts, share)
        budget -= len(body)
        blocks.append(wrap_untrusted(body, f"file {name}"))
        left = file.parts[shown:]
        if left:
            unit = "pages" if file.kind == "pdf" else "parts"
            blocks.append(
                f"[{name}: {shown} of {len(file.parts)} {unit} are above; {len(left)} did not fit. "
                f'To read more, call read_attachment with name "{name}" and part {left[0].number}.]'
            )
        blocks.extend(f"[{note}]" for note in file.notes)
    for name, file in files:
        if file.image is not None:
            blocks.append(f"[file {name}: the picture is attached]")
        elif not file.parts:
            blocks.extend(f"[{note}]" for note in file.notes or (f"{name} has no text.",))
    if not blocks:
        return Message(role="user", content=text)
    listed = ", ".join(name for name, _ in files)
    content = f"{text}\n\nAttached files: {listed}\n\n" + "\n\n".join(blocks)
    return Message(role="user", content=content, images=images)


def file_record(name: str, file: ExtractedFile) -> dict[str, Any]:
    """``file`` as plain JSON, under the ``name`` it has in its conversation (see ``file_from_record``)."""
    record: dict[str, Any] = {
        "name": name, "path": str(file.path), "kind": file.kind,
        "parts": [[part.number, part.label, part.text] for part in file.parts], "notes": list(file.notes),
    }
    if file.image is not None and len(file.image.data) <= MAX_SAVED_IMAGE_BYTES:
        record["image"] = {"media_type": file.image.media_type, "data": file.image.base64()}
    return record


def file_from_record(record: object) -> tuple[str, ExtractedFile] | None:
    """The (name, file) of a ``file_record``; None for anything else (a damaged record is skipped)."""
    if not isinstance(record, dict):
        return None
    try:
        name, path, kind = str(record["name"]), Path(str(record["path"])), str(record["kind"])
        parts = tuple(Part(int(n), str(label), str(text)) for n, label, text in record.get("parts") or [])
        notes = tuple(str(note) for note in record.get("notes") or [])
        image = None
        if isinstance(saved := record.get("image"), dict):
            data = base64.b64decode(str(saved["data"]), validate=True)
            image = Image(data, str(saved.get("media_type", "image/png")))
        elif kind == "image":
            notes += (f"{name} was a picture too large to keep with the conversation.",)
    except (KeyError, TypeError, ValueError, binascii.Error):
        return None
    return name, ExtractedFile(path, cast(Kind, kind), parts, image, notes)
