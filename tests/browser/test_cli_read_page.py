"""`jawad read-page` as a user runs it: a real process, an offscreen browser, a local site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jawad_desktop.cli import build_parser


def _jawad(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile), *args],
                          capture_output=True, text=True, timeout=90, env=env, check=False)


def test_prints_what_the_model_gets(page_server: str, profile_dir: Path) -> None:
    out = _jawad("read-page", f"{page_server}/shop/jsonld.html", profile=profile_dir)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Title: Trail Runner 2 – Example Shop\nURL: ")
    assert '\n[3] button "Add to Cart"\n' in out.stdout  # the product's own controls come first
    assert '"price": "129.99"' in out.stdout and "grippy outsole" in out.stdout
    assert "Traceback" not in out.stderr


def test_json_output(page_server: str, profile_dir: Path) -> None:
    out = _jawad("read-page", "--json", f"{page_server}/injection.html", profile=profile_dir)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"title", "url", "markdown", "product", "interactiveElements", "injectionWarnings"}
    assert data["injectionWarnings"] and "Buy now" in data["interactiveElements"]


def test_a_long_page_part_by_part(page_server: str, profile_dir: Path) -> None:
    out = _jawad("read-page", "--part", "12", f"{page_server}/reading/long-parts.html", profile=profile_dir)
    assert out.returncode == 0, out.stderr
    assert "\nPart 12 of 12 of the content. read_page(part=K) reads another part" in out.stdout
    assert "Closing sentence: the ferrymen" in out.stdout and "In chapter 1, paragraph 1," not in out.stdout
    beyond = _jawad("read-page", "--part", "13", f"{page_server}/reading/long-parts.html", profile=profile_dir)
    assert beyond.returncode == 1 and "has 12 parts of content; there is no part 13" in beyond.stderr


def test_a_page_that_does_not_load_fails_friendly(page_server: str, profile_dir: Path) -> None:
    out = _jawad("read-page", f"{page_server}/no-such-page.html", profile=profile_dir)
    assert out.returncode == 1
    assert out.stderr.count("jawad: Could not read") == 1 and "Check the address" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_registered_in_the_cli() -> None:
    parser = build_parser(["jawad_desktop.cli.read_page_cmd"])
    args = parser.parse_args(["read-page", "example.com", "--json"])
    assert args.url == "example.com" and args.json


def test_a_local_file_is_refused_friendly(profile_dir: Path, tmp_path: Path) -> None:
    """Jawad reads web pages only: a file: address or a local path says what to do instead."""
    page = tmp_path / "secret.html"
    page.write_text("<p>the user's private notes</p>", encoding="utf-8")
    for given in (page.as_uri(), str(page), "javascript:alert(1)"):
        out = _jawad("read-page", given, profile=profile_dir)
        assert out.returncode == 1, out.stderr
        assert "Jawad" in out.stderr and "web" in out.stderr and "Traceback" not in out.stderr, out.stderr
        assert "private notes" not in out.stdout + out.stderr
    assert "python3 -m http.server" in _jawad("read-page", str(page), profile=profile_dir).stderr
