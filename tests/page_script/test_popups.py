"""What is open over the page (10_popups.js, ``popups`` in the snapshot): an expanded combobox's
listbox with its entries and their [n], an open dialog; a list laid out in the page is no popup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def test_an_open_listbox_with_its_entries(open_html: Callable[..., str], call: Call) -> None:
    open_html("<input role='combobox' aria-label='City' aria-expanded='true' aria-controls='sugg'>"
              "<ul id='sugg' role='listbox' aria-label='Suggestions' style='position:absolute;top:30px'>"
              "<li role='option' aria-selected='true'>Oslo</li><li role='option'>Osaka</li>"
              "<li role='option' aria-disabled='true'>Ostrava</li></ul>"
              "<ul role='listbox' aria-label='In the page'><li role='option'>Laid out</li></ul>")
    snap = call("snapshot", {"article": False})
    assert len(snap["popups"]) == 1
    popup = snap["popups"][0]
    assert popup["kind"] == "listbox" and popup["label"] == "Suggestions"
    entries = {e["text"]: e for e in popup["entries"]}
    assert list(entries) == ["Oslo", "Osaka", "Ostrava"]
    assert entries["Oslo"].get("selected") and entries["Ostrava"].get("disabled")
    # Each entry names its [n] in the element list the same snapshot made.
    listed = {item["index"]: item["label"] for item in snap["elements"]["items"]}
    assert listed[entries["Osaka"]["index"]] == "Osaka"


def test_an_open_dialog_and_a_closed_one(open_html: Callable[..., str], call: Call) -> None:
    open_html("<dialog open aria-label='Cookies'><p>We use cookies.</p><button>Accept all</button>"
              "<button>Settings</button></dialog><div role='dialog' aria-label='Gone' style='display:none'>"
              "<button>Never</button></div>")
    popups = call("snapshot", {"article": False})["popups"]
    assert [(p["kind"], p["label"]) for p in popups] == [("dialog", "Cookies")]
    assert [e["text"] for e in popups[0]["entries"]] == ["Accept all", "Settings"]
