"""Reading a page (06_reading.js): ``snapshot`` keeps what a reader sees and no more, reads frames and
open shadow roots, scrubs passwords, and runs Readability on the main frame's copy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

STORY = "".join(f"<p>Paragraph {i} tells the long story of the river town and the people who lived beside "
                "the water through the cold winters and the short bright summers.</p>" for i in range(10))


def test_the_snapshot_holds_what_is_shown(open_html: Callable[..., str], call: Call) -> None:
    open_html(f"<html lang='en'><head><title>River town</title></head><body><h1>The river town</h1>"
              f"<article>{STORY}</article><div style='display:none'>Hidden coupon CODE123</div>"
              "<div aria-hidden='true' style='position:absolute;left:-9999px'>Offscreen trap</div>"
              "<form><input type='password' value='pa55word'></form><div id='host'></div>"
              "<script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML="
              "'<p>Words inside a shadow root</p>';</script></body></html>")
    snap = call("snapshot", {})
    assert (snap["title"], snap["lang"], snap["h1"], snap["readyState"]) == ("River town", "en", "The river town",
                                                                               "complete")
    assert "Paragraph 9" in snap["html"] and "CODE123" not in snap["html"] and "pa55word" not in snap["html"]
    assert snap["shadowText"] == ["Words inside a shadow root"]
    assert "Paragraph 9 tells" in snap["article"]["content"] and snap["article"]["readerable"]
    assert snap["textLength"] >= len(snap["text"]) > 0
    assert call("snapshot", {"article": False})["article"] is None


def test_a_big_page_is_read_from_its_content_root(open_html: Callable[..., str], call: Call) -> None:
    open_html(f"<nav>{'<a href=/x>menu entry</a>' * 50}</nav><main>{STORY}</main>")
    snap = call("snapshot", {"maxWholeHtml": 2000, "maxContentHtml": 500, "article": False})
    assert snap["htmlTruncated"] and "menu entry" not in snap["html"] and "Paragraph 0" in snap["html"]


def test_a_big_page_scrolled_is_read_from_where_the_view_is(open_html: Callable[..., str], call: Call,
                                                              js: Callable[[str], Any]) -> None:
    """A page too big to read whole, scrolled down and right (a grid of boxes to its far corner): what
    lies wholly above or left of the view is left out, so the corner's box is read."""
    box = "<div style='display:inline-block;width:300px;height:150px'>Keep going {n}</div>"
    rows = "".join(f"<div style='white-space:nowrap'>{''.join(box.format(n=f'{r}-{c}') for c in range(12))}</div>"
                   for r in range(12))
    open_html(f"<main>{rows.replace('Keep going 11-11', 'The corner box')}</main>")
    options = {"maxWholeHtml": 2000, "maxContentHtml": 6000, "article": False}
    assert "The corner box" not in call("snapshot", options)["html"]  # from the top
    js("(window.scrollTo(document.documentElement.scrollWidth, document.documentElement.scrollHeight), 1)")
    snap = call("snapshot", options)
    assert snap["htmlTruncated"] and "The corner box" in snap["html"] and "Keep going 0-0" not in snap["html"]


def test_frames_are_read_with_their_address(open_html: Callable[..., str], call: Call) -> None:
    url = open_html("<p>Outside</p><iframe id='shown' src='in.html'></iframe>"
                    "<iframe style='display:none' src='hidden.html'></iframe>",
                    frames={"in.html": "<html><body><p>Inside the frame</p><input type='password' value='zz9x'>"
                                       "</body></html>",
                            "hidden.html": "<html><body><p>Never read</p></body></html>"})
    frames = call("snapshot", {"article": False})["frames"]
    assert len(frames) == 1 and frames[0]["url"] == url + "in.html" and frames[0]["selector"] == "#shown"
    assert "Inside the frame" in frames[0]["html"] and "zz9x" not in frames[0]["html"]
