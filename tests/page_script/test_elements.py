"""The element list and finding words (04_elements.js, 01_scripted.js, 03_click_text.js): what is
listed and in which order, what the page's scripts made clickable, and ``findText``'s choice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def test_open_dialog_first_hidden_left_out_navigation_last(open_html: Callable[..., str], call: Call) -> None:
    open_html("<nav><a href='/a'>Home</a><a href='/b'>Shop</a></nav><main><button>Buy</button>"
              "<button style='display:none'>Secret</button><input aria-label='Amount'></main>"
              "<div role='dialog' aria-modal='true' style='position:fixed;top:0;left:0'><button>Accept</button></div>")
    listing = call("elements", 50)
    labels = [item["label"] for item in listing["items"]]
    assert labels[0] == "Accept" and "Secret" not in labels
    assert labels.index("Buy") < labels.index("Home") and labels.index("Amount") < labels.index("Shop")
    assert [item["index"] for item in listing["items"]] == list(range(1, len(labels) + 1))
    assert listing["hidden"] >= 1
    regions = {item["label"]: item["region"] for item in listing["items"]}
    assert (regions["Accept"], regions["Home"]) == ("dialog", "navigation")


def test_what_the_pages_scripts_made_clickable_is_listed(open_html: Callable[..., str], call: Call) -> None:
    open_html("<div id='card' style='cursor:pointer;padding:8px'>Open the blue kettle</div>"
              "<div id='plain'>Just words</div>"
              "<script>document.getElementById('card').addEventListener('click', function () {"
              "document.title = 'opened'; });</script>")
    labels = {item["label"]: item for item in call("elements", 50)["items"]}
    assert "Open the blue kettle" in labels and "Just words" not in labels


def test_the_limit_caps_the_list_and_counts_the_rest(open_html: Callable[..., str], call: Call) -> None:
    open_html("".join(f"<button>Button {i}</button>" for i in range(30)))
    listing = call("elements", 10)
    assert len(listing["items"]) == 10 and listing["omitted"] == 20


def test_find_text_prefers_the_whole_words_and_the_clickable(open_html: Callable[..., str], call: Call) -> None:
    open_html("<p>Read the terms before you continue</p><button id='go'>Continue</button>"
              "<a href='/x' id='more'>Continue reading</a>")
    first = call("findText", "continue", 1)
    assert (first["ok"], first["selector"], first["exact"], first["count"]) == (True, "#go", True, 3)
    assert call("findText", "continue", 2)["selector"] == "#more"
    assert call("findText", "nowhere on the page", 1) == {"ok": False, "error": "no_text", "count": 0}
    # Words split over elements are found in the element that holds them all.
    open_html("<div id='inv'>Invoice <b>1042</b></div>")
    assert call("findText", "Invoice 1042", 1)["selector"] == "#inv"
