"""What the browser injects into a page's frames: the page library into every frame, Readability
(the reader, half the library's bytes) into the main frame only, where articles are read; an
article and a frame's content are still read from the main frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.core.tools.page import READER, page_script

FRAME = "<!doctype html><html><body><h2>Inside the frame</h2><p>A paragraph the frame holds.</p>" \
        "<button>Frame button</button></body></html>"
ARTICLE = "".join(f"<p>Paragraph {i} of the article says something long enough to read, with words and "
                  "sentences that a reader would keep as the body of the story told here.</p>" for i in range(12))


def test_the_reader_goes_into_the_main_frame_only(open_html: Callable[..., str], js: Callable[[str], Any],
                                                  call: Callable[..., Any]) -> None:
    open_html(f"<h1>Story</h1><article>{ARTICLE}</article><iframe src='frame.html'></iframe>",
              frames={"frame.html": FRAME})
    seen = js("(function(){var f=document.querySelector('iframe').contentWindow;"
              "return {main: typeof __jawadReader, mainLib: typeof window.__jawad,"
              "frameLib: typeof f.__jawad, frameReader: typeof f.__jawadReader};})()")
    assert seen == {"main": "object", "mainLib": "object", "frameLib": "object", "frameReader": "undefined"}
    snap = call("snapshot", {})
    assert "Paragraph 11 of the article" in snap["article"]["content"]  # Readability ran in the main frame
    assert "A paragraph the frame holds." in snap["frames"][0]["html"]  # the frame read from the main frame


def test_a_sub_frame_gets_the_library_without_the_reader() -> None:
    library = len(page_script(with_reader=False).encode())
    whole = len(page_script().encode())
    assert whole == len(page_script(READER).encode()) + library
    assert whole - library > 80_000  # the reader (about 95 KB) no longer goes into every sub-frame
