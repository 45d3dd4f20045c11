"""What a user's file says, as text in parts (pages, sheets, parts of a long text) or as a picture.

Owns the one way the app reads a file the user gives it, for attachments (``attachments``) and for
the document library (``library``) alike:

- PDF with pypdf, page by page (a password-protected file is refused with a clear message: the
  empty user password some files carry is tried first);
- DOCX with python-docx: paragraphs (headings as Markdown headings) and tables, in order;
- Markdown, plain text and code, decoded with charset-normalizer's guess of the encoding;
- CSV (the csv module) and XLSX (openpyxl, one part per sheet) as Markdown tables of at most
  ``MAX_TABLE_ROWS`` rows, with a note saying how many were left out;
- HTML through the browser's reading path (``core.tools.browser.content``: trafilatura, else the
  whole body through markdownify);
- PNG, JPEG and WebP as an ``Image`` for models that see images (recognised by their bytes).

A text without pages is cut into parts of about ``PART_CHARS`` characters at line ends, so a long
file can be given to the model part by part. Every failure is a ``FileReadError`` (a ``JawadError``)
that names the file, what is wrong and what to do. Reading is synchronous and slow for big files:
callers run it off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.messages import Image

log = logging.getLogger("jawad.files")

__all__ = [
    "IMAGE_SUFFIXES",
    "MAX_TABLE_ROWS",
    "PART_CHARS",
    "TEXT_SUFFIXES",
    "ExtractedFile",
    "FileReadError",
    "Part",
    "extract_file",
    "file_kind",
    "split_text",
]

PART_CHARS = 6_000  # a part of a text without pages: about 1,500 tokens
MAX_TABLE_ROWS = 200  # rows of a CSV file or a sheet shown; the rest is counted in a note
MAX_CELL_CHARS = 200

Kind = Literal["pdf", "docx", "text", "csv", "xlsx", "html", "image"]

TEXT_SUFFIXES = frozenset({
    ".txt", ".md", ".markdown", ".rst", ".log", ".ini", ".cfg", ".conf", ".toml", ".yaml", ".yml", ".json",
    ".xml", ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".kt", ".c", ".h", ".cc", ".cpp",
    ".hpp", ".cs", ".go", ".rs", ".rb", ".php", ".swift", ".scala", ".sh", ".bash", ".zsh", ".ps1", ".sql",
    ".css", ".scss", ".lua", ".pl", ".r", ".m", ".tex", ".org", ".adoc", ".srt", ".vtt", ".env", ".gitignore",
    ".dockerfile", ".makefile", ".properties", ".gradle", ".tf", ".vue", ".svelte", ".dart", ".ex", ".exs",
    ".hs", ".clj", ".el", ".vim", ".bat",
})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp"})
_BY_SUFFIX: dict[str, Kind] = {
    ".pdf": "pdf", ".docx": "docx", ".csv": "csv", ".tsv": "csv", ".xlsx": "xlsx", ".xlsm": "xlsx",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    **{suffix: "image" for suffix in IMAGE_SUFFIXES},
    **{suffix: "text" for suffix in TEXT_SUFFIXES},
}
SUPPORTED_TEXT = "PDF, DOCX, Markdown, plain text and code, CSV, XLSX, HTML, PNG, JPEG and WebP"


class FileReadError(JawadError):
    """A file that cannot be read: encrypted, of a type the app does not read, too large, damaged."""


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a file's text: ``label`` says where it is ("page 3", "sheet Sales", "part 2 of 5")."""

    number: int  # 1, 2, 3... (a PDF's page number)
    label: str
    text: str


@dataclass(frozen=True, slots=True)
class ExtractedFile:
    """What a file says: its text in ``parts``, or its picture (``image``), and notes on what was left out."""

    path: Path
    kind: Kind
    parts: tuple[Part, ...] = ()
    image: Image | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def chars(self) -> int:
        return sum(len(part.text) for part in self.parts)


def file_kind(path: Path) -> Kind | None:
    """The kind of ``path`` from its name (None: not known from the name)."""
    name = path.name.lower()
    if name in ("makefile", "dockerfile", "readme", "license", "changelog"):
        return "text"
    return _BY_SUFFIX.get(path.suffix.lower())


def extract_file(path: Path, *, max_bytes: int) -> ExtractedFile:
    """Read ``path`` (at most ``max_bytes`` long) into parts or a picture; ``FileReadError`` otherwise."""
    path = Path(path).expanduser()
    name = path.name
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise FileReadError(f"{name} is not a file.", suggestions=["Attach a file, not a folder."])
    except FileNotFoundError:
        raise FileReadError(f"{path} does not exist.", suggestions=["Check the file's name and folder."]) from None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    if size > max_bytes:
        raise FileReadError(
            f"{name} is too large ({_megabytes(size)}; the limit is {_megabytes(max_bytes)}).",
            suggestions=["Attach a smaller file or a part of it, or raise the attachment size limit."],
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc) from None
    kind = file_kind(path)
    image_type = _image_type(data)
    if image_type is not None:
        return ExtractedFile(path, "image", image=Image(data, image_type))
    if kind == "image":
        raise FileReadError(f"{name} is not a PNG, JPEG or WebP picture the app can read.",
                            suggestions=["Save it again as PNG or JPEG and attach that."])
    if kind is None:
        kind = "pdf" if data.startswith(b"%PDF-") else ("text" if _looks_like_text(data) else None)
    if kind is None:
        raise FileReadError(
            f"{name} is of a type the app cannot read.",
            suggestions=[f"Attach one of these: {SUPPORTED_TEXT}.", "Or copy the text you need into the message."],
        )
    try:
        return _READERS[kind](path, data)
    except FileReadError:
        raise
    except Exception as exc:  # a damaged file: each library raises its own kinds
        log.info("could not read %s as %s", path, kind, exc_info=True)
        raise FileReadError(
            f"{name} could not be read as a {kind.upper()} file ({type(exc).__name__}: {exc}).",
            suggestions=["Check that the file opens in another program; it may be damaged.",
                         "Or save it again (as PDF or plain text) and attach that."],
        ) from None


def split_text(text: str, *, part_chars: int = PART_CHARS) -> list[str]:
    """``text`` in pieces of at most about ``part_chars`` characters, cut at line ends when it can."""
    text = text.strip()
    if len(text) <= part_chars:
        return [text] if text else []
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + part_chars)
        if end < len(text):
            cut = text.rfind("\n", start + part_chars // 2, end)
            if cut == -1:
                cut = text.rfind(" ", start + part_chars // 2, end)
            end = cut if cut > start else end
        piece = text[start:end].strip()
        if piece:
            pieces.append(piece)
        start = end
    return pieces


# -- readers ------------------------------------------------------------------------------------


def _read_pdf(path: Path, data: bytes) -> ExtractedFile:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise _encrypted(path)
        texts = [page.extract_text() or "" for page in reader.pages]
    except FileNotDecryptedError:
        raise _encrypted(path) from None
    except PdfReadError as exc:
        if "decrypt" in str(exc).lower() or "password" in str(exc).lower():
            raise _encrypted(path) from None
        raise
    parts = tuple(Part(number, f"page {number}", text.strip()) for number, text in enumerate(texts, 1))
    notes: list[str] = []
    if parts and not any(part.text for part in parts):
        notes.append(f"{path.name} has no text layer (a scanned document?): only its page count is known.")
    return ExtractedFile(path, "pdf", tuple(p for p in parts if p.text), notes=tuple(notes))


def _read_docx(path: Path, data: bytes) -> ExtractedFile:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(data))
    blocks: list[str] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = (item.style.name if item.style is not None else "") or ""
            if style.startswith("Heading") and style[7:].strip().isdigit():
                text = "#" * min(6, int(style[7:].strip())) + " " + text
            elif style == "Title":
                text = "# " + text
            elif style.startswith("List"):
                text = "- " + text
            blocks.append(text)
        elif isinstance(item, Table):
            rows = [[cell.text for cell in row.cells] for row in item.rows]
            blocks.append(_markdown_table(rows, total=len(rows)))
    return _text_file(path, "docx", "\n\n".join(blocks))


def _read_text(path: Path, data: bytes) -> ExtractedFile:
    return _text_file(path, "text", _decode(path, data))


def _read_html(path: Path, data: bytes) -> ExtractedFile:
    from jawad_desktop.core.tools.browser.content import body_markdown, trafilatura_markdown

    html = _decode(path, data)
    text = trafilatura_markdown(html) or body_markdown(html)
    return _text_file(path, "html", text)


def _read_csv(path: Path, data: bytes) -> ExtractedFile:
    text = _decode(path, data)
    sample = text[:20_000]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
    rows: list[list[str]] = []
    total = 0
    for row in csv.reader(io.StringIO(text), dialect):
        if not row:
            continue
        total += 1
        if len(rows) <= MAX_TABLE_ROWS:
            rows.append(row)
    table = _markdown_table(rows, total=total)
    return ExtractedFile(path, "csv", tuple(_numbered(split_text(table))), notes=_rows_note(path.name, total))


def _read_xlsx(path: Path, data: bytes) -> ExtractedFile:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    parts: list[Part] = []
    notes: list[str] = []
    try:
        for sheet in workbook.worksheets:
            rows: list[list[str]] = []
            total = 0
            for values in sheet.iter_rows(values_only=True):
                if all(value is None for value in values):
                    continue
                total += 1
                if len(rows) <= MAX_TABLE_ROWS:
                    rows.append(["" if value is None else str(value) for value in values])
            if not rows:
                continue
            table = _markdown_table(rows, total=total)
            pieces = split_text(table)
            for i, piece in enumerate(pieces, 1):
                label = f"sheet {sheet.title}" + (f" ({i} of {len(pieces)})" if len(pieces) > 1 else "")
                parts.append(Part(len(parts) + 1, label, piece))
            notes.extend(_rows_note(f"{path.name}, sheet {sheet.title}", total))
    finally:
        workbook.close()
    return ExtractedFile(path, "xlsx", tuple(parts), notes=tuple(notes))


_READERS = {
    "pdf": _read_pdf, "docx": _read_docx, "text": _read_text, "html": _read_html, "csv": _read_csv,
    "xlsx": _read_xlsx,
}


# -- helpers ------------------------------------------------------------------------------------


def _text_file(path: Path, kind: Kind, text: str) -> ExtractedFile:
    return ExtractedFile(path, kind, tuple(_numbered(split_text(text))))


def _numbered(pieces: Sequence[str]) -> Iterable[Part]:
    if len(pieces) == 1:
        yield Part(1, "", pieces[0])
        return
    for number, piece in enumerate(pieces, 1):
        yield Part(number, f"part {number} of {len(pieces)}", piece)


def _markdown_table(rows: list[list[str]], *, total: int) -> str:
    if not rows:
        return ""
    width = max(len(row) for row in rows)

    def cell(value: str) -> str:
        value = " ".join(str(value).split()).replace("|", "\\|")
        return value if len(value) <= MAX_CELL_CHARS else value[: MAX_CELL_CHARS - 1] + "…"

    lines = []
    for i, row in enumerate(rows[: MAX_TABLE_ROWS + 1]):
        lines.append("| " + " | ".join(cell(v) for v in [*row, *[""] * (width - len(row))]) + " |")
        if i == 0:
            lines.append("|" + " --- |" * width)
    if total > MAX_TABLE_ROWS + 1:
        lines.append(f"\n({total - MAX_TABLE_ROWS - 1:,} more rows are not shown.)")
    return "\n".join(lines)


def _rows_note(where: str, total: int) -> tuple[str, ...]:
    if total > MAX_TABLE_ROWS + 1:
        return (f"{where}: the header and the first {MAX_TABLE_ROWS} of {total - 1:,} rows are shown.",)
    return ()


def _decode(path: Path, data: bytes) -> str:
    if not data:
        return ""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise FileReadError(f"{path.name} is not text the app can read (its encoding is unknown).",
                            suggestions=["Save it again as UTF-8 text and attach that."])
    return str(best)


def _looks_like_text(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a character cut at the end of the sample
            return True
    from charset_normalizer import from_bytes

    return from_bytes(head).best() is not None


def _image_type(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _encrypted(path: Path) -> FileReadError:
    return FileReadError(
        f"{path.name} is protected by a password, so the app cannot read it.",
        suggestions=["Open it in a PDF reader, save a copy without the password, and attach that."],
    )


def _unreadable(path: Path, exc: OSError) -> FileReadError:
    return FileReadError(f"{path.name} could not be opened ({exc.strerror or exc}).",
                         suggestions=["Check that the file exists and that you may read it."])


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"
