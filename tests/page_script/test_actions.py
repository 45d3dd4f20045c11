"""Acting on elements (07_actions.js, 08_sturdy.js): where to click, typing and reading the field back,
choosing an option, a file field, and an index whose element a re-render replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]
Js = Callable[[str], Any]


def test_prepare_gives_the_point_to_click_and_whether_it_is_on_top(open_html: Callable[..., str], call: Call) -> None:
    open_html("<button id='b' style='position:absolute;left:100px;top:50px;width:80px;height:30px'>Go</button>"
              "<button id='under' style='position:absolute;left:300px;top:50px;width:80px;height:30px'>Hidden</button>"
              "<div style='position:absolute;left:290px;top:40px;width:120px;height:60px;background:#fff'></div>")
    go = call("prepare", {"selector": "#b"})
    assert (go["ok"], go["x"], go["y"], go["onTop"]) == (True, 140, 65, True)
    assert call("prepare", {"selector": "#under"})["onTop"] is False


def test_fill_reads_the_field_back(open_html: Callable[..., str], call: Call, js: Js) -> None:
    open_html("<form><input id='name'><input id='zip' maxlength='5'><textarea id='note'></textarea></form>"
              "<div id='ed' contenteditable='true'></div>"
              "<script>document.getElementById('name').addEventListener('input', function (e) {"
              "document.title = 'typed ' + e.target.value; });</script>")
    name = call("fill", {"selector": "#name"}, "Ada Lovelace")
    assert (name["ok"], name["value"], name["same"], name["hasForm"]) == (True, "Ada Lovelace", True, True)
    assert js("document.title") == "typed Ada Lovelace"  # the page's own input handler saw it
    cut = call("fill", {"selector": "#zip"}, "1234567")
    assert (cut["value"], cut["same"], cut["maxLength"], cut["typedLength"]) == ("12345", False, 5, 7)
    note = call("fill", {"selector": "#note"}, "two\nlines")
    assert note["same"] and note["value"] == "two lines"  # shown on one line; the field keeps the break
    assert js("document.getElementById('note').value") == "two\nlines"
    assert call("fill", {"selector": "#ed"}, "Rich text")["ok"]
    assert js("document.getElementById('ed').textContent") == "Rich text"


def test_focus_and_what_has_it(open_html: Callable[..., str], call: Call) -> None:
    open_html("<input id='a' aria-label='First'><div id='host'></div>"
              "<script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML="
              "'<input id=\"deep\" aria-label=\"Deep field\">';</script>")
    assert call("focus", {"selector": "#host >>> #deep"}) == {"ok": True, "focused": True}
    now = call("focused")
    assert (now["label"], now["selector"], now["editable"]) == ("Deep field", "#host >>> #deep", True)


def test_a_file_field_and_a_drag_source(open_html: Callable[..., str], call: Call) -> None:
    open_html("<input type='file' id='up' accept='.pdf' multiple><input id='t'>"
              "<div id='card' draggable='true'>Card</div><div id='lane'>Lane</div>")
    up = call("fileInput", {"selector": "#up"})
    assert up["ok"] and up["accept"] == ".pdf" and up["multiple"] is True
    assert call("fileInput", {"selector": "#t"}) == {"ok": False, "error": "not_file_input"}
    assert call("isHtmlDraggable", {"selector": "#card"})["draggable"] is True
    assert call("isHtmlDraggable", {"selector": "#lane"})["draggable"] is False


def test_an_index_whose_element_was_re_rendered_is_found_again(open_html: Callable[..., str], call: Call,
                                                                  js: Js) -> None:
    open_html("<div id='list'><button>Save draft</button><button>Publish</button></div>")
    index = next(i["index"] for i in call("elements", 20)["items"] if i["label"] == "Publish")
    js("(function(){document.getElementById('list').innerHTML="
       "'<button>Save draft</button><button id=\"fresh\">Publish</button>';return 1;})()")
    again = call("describe", {"index": index})
    assert (again["ok"], again["label"], again["selector"], again["refound"]) == (True, "Publish", "#fresh", True)
    js("(function(){document.getElementById('list').innerHTML='';return 1;})()")
    assert call("describe", {"index": index}) == {"ok": False, "error": "detached"}
