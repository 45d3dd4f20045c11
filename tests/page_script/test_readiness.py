"""Whether a page is usable and what needs the user (11_readiness.js): the document's id and its quiet
time, finding words, the highlight the user watches, and the fields only the user fills."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]
Js = Callable[[str], Any]


def test_readiness_names_the_document_and_its_quiet(open_html: Callable[..., str], call: Call, js: Js,
                                                    qtbot: Any) -> None:
    url = open_html("<p id='p'>Loaded</p>")
    first = call("readiness")
    assert (first["state"], first["url"]) == ("complete", url)
    qtbot.wait(300)
    later = call("readiness")
    assert later["id"] == first["id"] and later["quiet"] >= first["quiet"] + 200
    js("(function(){document.getElementById('p').textContent='Changed';return 1;})()")
    assert call("readiness")["quiet"] < 200  # a change to the page starts the quiet again
    open_html("<p>Another document</p>")
    assert call("readiness")["id"] != first["id"]


def test_find_and_highlight(open_html: Callable[..., str], call: Call, js: Js) -> None:
    open_html("<p>Alpha</p><button id='b'>Pay now</button><p style='margin-top:3000px'>Omega</p>")
    assert call("find", {"text": "omega"}) == {"ok": True, "found": True}
    assert call("find", {"text": "Not on this page"})["found"] is False
    assert call("find", {"selector": "#b"})["found"] is True
    assert call("find", {"selector": "##"}) == {"ok": False, "error": "invalid_selector"}
    lit = call("highlight", {"selector": "#b"}, "Jawad clicks here")
    assert lit["ok"] and lit["rect"]["width"] > 0
    assert call("highlighted") == {"ok": True, "present": True}
    assert call("clearHighlight") == {"ok": True}
    assert call("highlighted")["present"] is False
    # The highlight lives in the library's world: nothing of it is left in the page's DOM.
    assert js("document.querySelectorAll('[id^=__jawad]').length") == 0


def test_what_only_the_user_fills(open_html: Callable[..., str], call: Call) -> None:
    open_html("<input type='password' name='pw'><input autocomplete='one-time-code' name='code'>"
              "<input name='cardnumber' autocomplete='cc-number'><div class='g-recaptcha'>captcha box</div>"
              "<input type='password' style='display:none'>")
    assert call("needsUser") == {"ok": True, "password": 1, "captcha": 1, "otp": 1, "payment": 1}
    open_html("<input name='q' aria-label='Search'>")
    assert call("needsUser") == {"ok": True, "password": 0, "captcha": 0, "otp": 0, "payment": 0}
