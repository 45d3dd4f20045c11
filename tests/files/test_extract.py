"""Reading real files of each format (``core.tools.files.extract``) and fitting them into a message
within a budget (``core.tools.files.attachments``)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.tools.files.attachments import AttachedFiles, read_attachments, user_message
from jawad_desktop.core.tools.files.extract import (
    MAX_TABLE_ROWS,
    PART_CHARS,
    FileReadError,
    extract_file,
    split_text,
)
from jawad_desktop.core.tools.untrusted import FENCE_TAG
from tests.files.samples import FORMATS, make_pdf, make_sample, planted

MB = 1_000_000


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_is_read(fmt: str, tmp_path: Path) -> None:
    file = extract_file(make_sample(tmp_path, fmt), max_bytes=MB)
    if fmt in ("png", "jpg", "webp"):
        assert file.kind == "image" and file.parts == () and file.image is not None
        assert planted(fmt).encode() in file.image.data
        assert file.image.media_type == {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[fmt]
    else:
        text = "\n".join(part.text for part in file.parts)
        assert planted(fmt) in text and file.image is None
    if fmt == "pdf":
        assert [p.label for p in file.parts] == ["page 1", "page 2"]
    if fmt == "txt":  # Latin-1, read with the encoding's guess
        assert file.parts[0].text.startswith("Café menu")
    if fmt == "docx":
        assert file.parts[0].text.startswith("# Quarterly notes")
        assert "| Widget | PLANTED-DOCX-7Q4 |" in file.parts[0].text
    if fmt == "html":
        assert "var x" not in file.parts[0].text and file.parts[0].text.startswith("# Notes")


def test_tables_are_capped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, delimiter=";")
        writer.writerow(["n", "square"])
        writer.writerows([n, n * n] for n in range(1000))
    file = extract_file(path, max_bytes=MB)
    text = "\n".join(p.text for p in file.parts)
    assert text.startswith("| n | square |\n| --- | --- |\n| 0 | 0 |")
    assert f"| {MAX_TABLE_ROWS - 1} |" in text and f"| {MAX_TABLE_ROWS} |" not in text
    assert "(800 more rows are not shown.)" in text
    assert file.notes == (f"big.csv: the header and the first {MAX_TABLE_ROWS} of 1,000 rows are shown.",)


def test_long_text_is_cut_in_parts_at_line_ends() -> None:
    lines = [f"line {n} " + "x" * 70 for n in range(1000)]
    pieces = split_text("\n".join(lines))
    assert len(pieces) > 10 and all(len(p) <= PART_CHARS for p in pieces)
    assert all(p.startswith("line ") for p in pieces)
    assert "\n".join(pieces).split("\n") == lines


def test_unreadable_files_raise_a_clear_error(tmp_path: Path) -> None:
    locked = make_pdf(tmp_path / "locked.pdf", ["secret"], password="pw")
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    fake = tmp_path / "fake.png"
    fake.write_text("not a picture")
    binary = tmp_path / "data.bin"
    binary.write_bytes(bytes(range(256)))
    for path, said in [(locked, "is protected by a password"), (broken, "could not be read as a DOCX file"),
                       (fake, "is not a PNG, JPEG or WebP picture"), (binary, "is of a type the app cannot read"),
                       (tmp_path, "is not a file")]:
        with pytest.raises(FileReadError) as caught:
            extract_file(path, max_bytes=MB)
        assert said in caught.value.message and caught.value.suggestions
    with pytest.raises(FileReadError, match="too large"):
        extract_file(make_sample(tmp_path, "md"), max_bytes=10)
    # A PDF whose owner password locks only editing is read (its user password is empty).
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(make_sample(tmp_path, "pdf")))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-256")
    writer.write(tmp_path / "owner-only.pdf")
    assert planted("pdf") in extract_file(tmp_path / "owner-only.pdf", max_bytes=MB).parts[1].text


def test_files_share_the_budget_and_what_does_not_fit_is_named(tmp_path: Path, arun: Any) -> None:
    pages = [f"Page {n}: " + "words " * 300 for n in range(1, 41)]  # about 1,800 characters a page
    long_pdf = make_pdf(tmp_path / "long.pdf", pages)
    note = make_sample(tmp_path, "md")
    files = arun(read_attachments([long_pdf, note], max_bytes=10 * MB), timeout=120)
    attached = AttachedFiles()
    names = attached.add(files)
    message = user_message("Summarise", list(zip(names, files, strict=True)), budget_chars=20_000)
    assert message.role == "user" and message.images == []
    content = message.content
    assert content.startswith("Summarise\n\nAttached files: long.pdf, sample.md\n\n")
    assert content.count(f"<{FENCE_TAG} ") == 2 and planted("md") in content
    assert "[file long.pdf, page 1]" in content and "[file long.pdf, page 5]" in content
    assert "[file long.pdf, page 12]" not in content
    assert "[long.pdf: " in content and 'call read_attachment with name "long.pdf" and part ' in content
    assert len(content) < 21_000
    # The same name from another folder is told apart.
    other = tmp_path / "other"
    other.mkdir()
    assert attached.add([extract_file(make_sample(other, "md"), max_bytes=MB)]) == ["sample (2).md"]
    assert attached.get("SAMPLE.md") is not None
