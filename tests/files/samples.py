"""Real files of every format an attachment can be, each made here with a planted phrase.

Made by the libraries people make such files with: fpdf2 (PDF, and a password-protected PDF),
python-docx, openpyxl, Pillow (PNG with the phrase in a ``tEXt`` chunk, JPEG in a comment, WebP
in its XMP packet: the picture's bytes carry it to the model), and plain writes for text, code,
CSV and HTML. The benchmark (``benchmarks/bench_files.py``) uses them too.
"""

from __future__ import annotations

import csv
from pathlib import Path

FORMATS = ("pdf", "docx", "md", "txt", "py", "csv", "xlsx", "html", "png", "jpg", "webp")


def planted(fmt: str) -> str:
    """The phrase planted in the sample of ``fmt``: one token, unlikely anywhere else."""
    return f"PLANTED-{fmt.upper()}-7Q4"


def make_pdf(path: Path, pages: list[str], *, password: str = "") -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    if password:
        pdf.set_encryption(owner_password=password + "-owner", user_password=password)
    pdf.output(str(path))
    return path


def make_sample(folder: Path, fmt: str) -> Path:
    """A file of format ``fmt`` in ``folder`` carrying ``planted(fmt)``."""
    phrase = planted(fmt)
    path = folder / f"sample.{fmt}"
    if fmt == "pdf":
        return make_pdf(path, ["The first page is an introduction.", f"The code on page two is {phrase}."])
    if fmt == "docx":
        import docx

        document = docx.Document()
        document.add_heading("Quarterly notes", level=1)
        document.add_paragraph("Sales went up.")
        table = document.add_table(rows=2, cols=2)
        table.cell(0, 0).text, table.cell(0, 1).text = "Item", "Code"
        table.cell(1, 0).text, table.cell(1, 1).text = "Widget", phrase
        document.save(str(path))
        return path
    if fmt == "md":
        path.write_text(f"# Notes\n\n- the code is **{phrase}**\n", encoding="utf-8")
        return path
    if fmt == "txt":
        path.write_bytes(f"Caf\xe9 menu: the code is {phrase}.\n".encode("latin-1"))  # not UTF-8 on purpose
        return path
    if fmt == "py":
        path.write_text(f'def code() -> str:\n    return "{phrase}"\n', encoding="utf-8")
        return path
    if fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["item", "code"])
            writer.writerow(["widget", phrase])
        return path
    if fmt == "xlsx":
        import openpyxl

        workbook = openpyxl.Workbook()
        sheet = workbook.active
        assert sheet is not None
        sheet.title = "Codes"
        sheet.append(["item", "code"])
        sheet.append(["widget", phrase])
        workbook.save(str(path))
        return path
    if fmt == "html":
        path.write_text(f"<html><head><title>Notes</title><script>var x = 1;</script></head><body>"
                        f"<article><h1>Notes</h1><p>The code of the day is {phrase}, as agreed.</p></article>"
                        "</body></html>", encoding="utf-8")
        return path
    if fmt in ("png", "jpg", "webp"):
        from PIL import Image, PngImagePlugin

        picture = Image.new("RGB", (32, 24), (200, 30, 30))
        if fmt == "png":
            info = PngImagePlugin.PngInfo()
            info.add_text("Comment", phrase)
            picture.save(path, "PNG", pnginfo=info)
        elif fmt == "jpg":
            picture.save(path, "JPEG", comment=phrase.encode())
        else:
            picture.save(path, "WEBP", xmp=f"<x:xmpmeta>{phrase}</x:xmpmeta>".encode())
        return path
    raise ValueError(f"no sample for {fmt}")
