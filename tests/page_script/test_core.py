"""The page library's core (00_core.js, 02_names.js): selectors through shadow roots and frames, the
errors a bad target gives, names and roles, and what never crosses (a password's value)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

FRAME = "<!doctype html><html><body><label>City <input id='city' value='Oslo'></label></body></html>"


def test_selectors_step_into_shadow_roots_and_frames(open_html: Callable[..., str], call: Call) -> None:
    open_html("<div id='host'></div><iframe id='fr' src='f.html'></iframe>"
              "<script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML="
              "'<button id=\"inner\">Deep button</button>';</script>", frames={"f.html": FRAME})
    deep = call("describe", {"selector": "#host >>> #inner"})
    assert (deep["ok"], deep["label"], deep["inFrame"]) == (True, "Deep button", False)
    framed = call("describe", {"selector": "#fr >>> #city"})
    assert (framed["label"], framed["value"], framed["inFrame"], framed["editable"]) == ("City", "Oslo", True, True)
    # The selector the library gives for an element finds that element again.
    listed = {item["label"]: item["selector"] for item in call("elements", 20)["items"]}
    assert listed["Deep button"] == "#host >>> #inner"
    assert call("describe", {"selector": listed["City"]})["value"] == "Oslo"


def test_a_bad_target_says_how_it_is_bad(open_html: Callable[..., str], call: Call) -> None:
    open_html("<button>One</button>")
    assert call("describe", {"selector": "##"}) == {"ok": False, "error": "invalid_selector"}
    assert call("describe", {"selector": "#none"}) == {"ok": False, "error": "not_found"}
    call("elements", 20)
    assert call("describe", {"index": 42}) == {"ok": False, "error": "unknown_index"}


def test_names_and_roles(open_html: Callable[..., str], call: Call) -> None:
    open_html("<span id='lbl'>Email address</span><input id='a' aria-labelledby='lbl'>"
              "<label for='b'>Phone</label><input id='b' type='tel'>"
              "<button id='c' aria-label='Close dialog'>×</button>"
              "<div id='d' role='checkbox' aria-checked='true' tabindex='0'>Remember me</div>"
              "<a id='e' href='/next'>Next page</a><input id='f' placeholder='Search the shop'>")
    seen = {s: call("describe", {"selector": s}) for s in ("#a", "#b", "#c", "#d", "#e", "#f")}
    assert {s: (d["role"], d["label"]) for s, d in seen.items()} == {
        "#a": ("INPUT[text]", "Email address"), "#b": ("INPUT[tel]", "Phone"), "#c": ("BUTTON", "Close dialog"),
        "#d": ("CHECKBOX", "Remember me"), "#e": ("LINK", "Next page"), "#f": ("INPUT[text]", "Search the shop"),
    }
    assert seen["#e"]["href"].endswith("/next")


def test_a_passwords_characters_never_leave_the_page(open_html: Callable[..., str], call: Call) -> None:
    open_html("<form><input type='password' id='pw' value='hunter22'></form>")
    assert call("describe", {"selector": "#pw"})["value"] == ""
    read = call("fieldValue", {"selector": "#pw"}, "hunter22")
    assert "value" not in read and read["secret"] and read["same"] and read["length"] == 8
    assert "hunter22" not in call("snapshot", {"article": False})["html"]


def test_a_button_nine_frames_deep_is_listed(open_html: Callable[..., str], call: Call, arun: Call) -> None:
    """Frames inside frames (a challenge nests nine, "Layer 8" to the button) are all scanned."""
    depth = 9
    frames = {f"f{n}.html": f"<p>Layer {n}</p><iframe src='f{n - 1}.html'></iframe>" for n in range(1, depth)}
    frames["f0.html"] = "<button>Deep button</button>"
    open_html(f"<iframe src='f{depth - 1}.html'></iframe>", frames=frames)
    labels: list[str] = []
    for _ in range(50):  # the frames load one after the other
        labels = [item["label"] for item in call("elements", 50)["items"]]
        if "Deep button" in labels:
            break
        arun(asyncio.sleep(0.1))
    assert "Deep button" in labels
