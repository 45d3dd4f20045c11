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
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.tools.files.extract import ExtractedFile, Part, extract_file
from jawad_desktop.core.tools.untrusted import wrap_untrusted

__all__ = ["ATTACHMENT_SHARE", "AttachedFiles", "read_attachments", "render_parts", "user_message"]

ATTACHMENT_SHARE = 0.5  # of the room the history may hold (in characters), for the attached files' text
MIN_BUDGET_CHARS = 2_000


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
