"""What an action changed (09_changes.js): ``changesMark`` then ``changesSince`` name the controls that
came and went, the dialogs opened and closed and the new words; submitting a form, choosing an
option, scrolling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]
Js = Callable[[str], Any]


def test_changes_since_the_mark(open_html: Callable[..., str], call: Call, js: Js) -> None:
    url = open_html("<main><button id='old'>Load more</button><p>Three results</p></main>")
    assert call("changesMark") == {"ok": True}
    js("(function(){document.getElementById('old').remove();"
       "var m=document.querySelector('main');m.insertAdjacentHTML('beforeend',"
       "'<button>Show details</button><p>Your order has been placed.</p>"
       "<div role=\"dialog\" aria-label=\"Order confirmation\" style=\"position:fixed;top:0\">"
       "<button>Close</button></div>');return 1;})()")
    changed = call("changesSince")
    assert changed["url"] == changed["urlBefore"] == url
    assert "Your order has been placed." in changed["newText"]
    assert [d["label"] for d in changed["dialogsOpened"]] == ["Order confirmation"]
    assert changed["dialogsClosed"] == []
    assert changed["removed"] == [{"role": "BUTTON", "label": "Load more"}] and changed["removedCount"] == 1
    assert {"role": "BUTTON", "label": "Show details"} in changed["added"]
    # Each mark is read once: asked again, there is no mark to compare with.
    assert call("changesSince")["fresh"] is True


def test_a_re_rendered_control_is_not_new(open_html: Callable[..., str], call: Call, js: Js) -> None:
    open_html("<div id='bar'><button>Still here</button></div>")
    call("changesMark")
    js("(function(){document.getElementById('bar').innerHTML='<button>Still here</button>';return 1;})()")
    quiet = call("changesSince")
    assert (quiet["addedCount"], quiet["removedCount"], quiet["rerendered"], quiet["newText"]) == (0, 0, 1, [])


def test_submit_select_and_scroll(open_html: Callable[..., str], call: Call, js: Js) -> None:
    open_html("<form action='/search' id='f' onsubmit='document.title=\"sent\";return false;'>"
              "<input id='q' name='q'><select id='size'><option>S</option><option value='m'>Medium</option>"
              "</select></form><button id='loose'>Alone</button><p id='end' style='margin-top:4000px'>End</p>")
    assert call("submit", {"selector": "#q"})["action"].endswith("/search")
    assert js("document.title") == "sent"  # the page's own submit handler ran
    assert call("submit", {"selector": "#loose"}) == {"ok": False, "error": "no_form"}
    assert call("selectOption", {"selector": "#size"}, "Medium") == {"ok": True, "value": "m", "text": "Medium"}
    assert call("selectOption", {"selector": "#size"}, "XXL")["error"] == "no_option"
    assert call("selectOption", {"selector": "#q"}, "S")["error"] == "not_select"
    down = call("scroll", "down")
    assert down["before"] == 0 and down["after"] > 0 and down["max"] > down["after"]
    assert call("scroll", "up")["after"] == 0
    assert call("scrollTo", {"selector": "#end"})["after"] > down["after"]
