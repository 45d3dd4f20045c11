"""``jawad ask --attach FILE`` as a user runs it (a real process) against the reader model: for each
format, the planted phrase of a real file reaches the model's request and comes back in the answer;
a file that cannot be sent ends the command with a friendly line and sends nothing."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.files.samples import FORMATS, make_pdf, make_sample, planted
from tests.servers.reader_model import ReaderModel, planted_in
from tests.servers.scripted_model import call

PICTURES = ("png", "jpg", "webp")


def _ask(profile: Path, model: ReaderModel, *args: str, name: str = "scripted") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jawad_desktop", "--profile", str(profile), "ask", *args,
         "--kind", "openai-compatible", "--base-url", model.base_url, "--model", name, "--no-save"],
        capture_output=True, text=True, timeout=90, env=dict(os.environ), stdin=subprocess.DEVNULL, check=False,
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_reaches_the_model(fmt: str, tmp_path: Path, profile_dir: Path,
                                       reader_model: ReaderModel) -> None:
    sample = make_sample(tmp_path, fmt)
    # Pictures go to a model that sees images (known from its name); text to any model.
    model = "gpt-4o" if fmt in PICTURES else "scripted"
    result = _ask(profile_dir, reader_model, "What code does the file give?", "--attach", str(sample), name=model)
    assert result.returncode == 0, result.stderr
    phrase = planted(fmt)
    assert phrase in result.stdout
    (request,) = reader_model.requests
    assert planted_in(request) == [phrase]
    user = request["messages"][-1]
    if fmt in PICTURES:
        parts = user["content"]
        assert parts[0]["type"] == "text" and parts[0]["text"].startswith("What code does the file give?")
        image = parts[1]["image_url"]["url"]
        media = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}[fmt]
        assert image.startswith(f"data:{media};base64,")
        assert base64.b64decode(image.split(",", 1)[1]) == sample.read_bytes()
    else:
        assert user["content"].startswith("What code does the file give?\n\nAttached files: sample.")
        header = "[file sample.pdf, page 2]" if fmt == "pdf" else "[file sample."
        assert header in user["content"]


def test_several_files_at_once(tmp_path: Path, profile_dir: Path, reader_model: ReaderModel) -> None:
    files = [make_sample(tmp_path, fmt) for fmt in ("pdf", "docx", "xlsx")]
    result = _ask(profile_dir, reader_model, "Compare them", *[a for f in files for a in ("--attach", str(f))])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"I read: {planted('pdf')}, {planted('docx')}, {planted('xlsx')}."


def test_a_long_pdf_is_given_in_parts_and_the_model_reads_more(tmp_path: Path, profile_dir: Path,
                                                                reader_model: ReaderModel) -> None:
    filler = "This page talks about nothing in particular. " * 60  # about 2,700 characters a page
    pages = [f"Page {n}. {filler}" for n in range(1, 121)]
    pages[99] = f"Page 100. The code is {planted('deep')}. {filler}"
    make_pdf(tmp_path / "long.pdf", pages)
    reader_model.script(call("read_attachment", {"name": "long.pdf", "part": 100}))
    result = _ask(profile_dir, reader_model, "Find the code", "--attach", str(tmp_path / "long.pdf"), "--verbose")
    assert result.returncode == 0, result.stderr
    first, second = reader_model.requests
    content = first["messages"][-1]["content"]
    assert "[file long.pdf, page 1]" in content and planted("deep") not in content  # page 100 did not fit
    assert "did not fit. To read more, call read_attachment" in content
    assert "read_attachment" in [t["function"]["name"] for t in first["tools"]]
    assert planted_in(second) == [planted("deep")]
    tool_result = second["messages"][-1]
    assert tool_result["role"] == "tool" and "[file long.pdf, page 100]" in tool_result["content"]
    assert result.stdout.strip() == f"I read: {planted('deep')}."


def test_files_that_cannot_be_sent_say_why_and_send_nothing(tmp_path: Path, profile_dir: Path,
                                                            reader_model: ReaderModel) -> None:
    locked = make_pdf(tmp_path / "locked.pdf", [f"Secret {planted('locked')}"], password="hunter2")
    binary = tmp_path / "tool.bin"
    binary.write_bytes(bytes(range(256)) * 8)
    picture = make_sample(tmp_path, "png")
    cases = [
        ([str(locked)], "scripted", "jawad: locked.pdf is protected by a password, so the app cannot read it."),
        ([str(binary)], "scripted", "jawad: tool.bin is of a type the app cannot read."),
        ([str(tmp_path / "missing.txt")], "scripted", "missing.txt does not exist."),
        ([str(picture)], "scripted", "jawad: The model cannot see images, so sample.png cannot be sent to it."),
    ]
    for attach, model, said in cases:
        result = _ask(profile_dir, reader_model, "Read it", *[a for f in attach for a in ("--attach", f)], name=model)
        assert result.returncode == 1, (attach, result.stderr)
        assert said in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""
        assert reader_model.requests == []  # nothing was sent


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path, profile_dir: Path, reader_model: ReaderModel) -> None:
    (profile_dir / "config").mkdir(parents=True, exist_ok=True)
    (profile_dir / "config" / "settings.json").write_text(json.dumps({"agent": {"max_attachment_mb": 1}}))
    big = tmp_path / "big.txt"
    big.write_text("word " * 300_000)  # 1.5 MB
    result = _ask(profile_dir, reader_model, "Read it", "--attach", str(big))
    assert result.returncode == 1
    assert "jawad: big.txt is too large (1.5 MB; the limit is 1.0 MB)." in result.stderr
    assert "Traceback" not in result.stderr and reader_model.requests == []
