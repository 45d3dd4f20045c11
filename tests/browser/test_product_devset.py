"""Every page of the product dev set (tests/pages/products/) through the real read path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jawad_desktop.core.tools.browser import read_page
from jawad_desktop.ui.page_driver import QtWebEnginePage
from tests.browser.product_score import Score, devset

Load = Callable[[str], str]


def test_product_devset_accuracy(web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    pages = devset()
    assert len(pages) >= 25
    score = Score()
    for name, expected in pages:
        load(f"products/{name}")
        reading = arun(read_page(web_page), timeout=30)
        score.add(name, expected, reading.product)
    figures = score.figures()
    print("product dev set:", figures, *score.misses, sep="\n  ")
    # Floors under the measured figures (see the report): a regression fails here.
    assert figures["price_f1"] >= FLOORS["price_f1"], (figures, score.misses)
    assert figures["sku_accuracy"] >= FLOORS["sku_accuracy"], (figures, score.misses)
    assert figures["availability_accuracy"] >= FLOORS["availability_accuracy"], (figures, score.misses)


FLOORS = {"price_f1": 0.95, "sku_accuracy": 0.95, "availability_accuracy": 0.9}


def test_fields_say_where_they_came_from(web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    load("products/spec_table.html")
    p = arun(read_page(web_page), timeout=30).product
    assert p is not None
    assert (p["sku"], p["mpn"], p["gtin"], p["price"]) == ("AC4K-01", "ACT-4000", "5901234123457", "199.00")
    assert p["sources"] == {"name": "visible text", "price": "visible text", "currency": "visible text",
                            "sku": "table", "mpn": "table", "gtin": "table", "availability": "visible text"}
    assert p["source"] == "visible text"
    load("products/jsonld_sale_struck.html")
    reading = arun(read_page(web_page), timeout=30)
    p = reading.product
    assert p is not None and p["source"] == "json-ld"
    assert p["sources"]["price"] == "json-ld" and p["price"] == "349.99" and p["availability"] == "InStock"
    assert "- sku: RV-S2" in reading.for_model() or "RV-S2" in reading.for_model()


def test_struck_price_is_not_the_price(web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    # The case: ``<s>$1,499.00</s> Now only $1,249.00`` read as 1,499 before.
    load("products/struck_now_only.html")
    p = arun(read_page(web_page), timeout=30).product
    assert p is not None and (p["price"], p["currency"]) == ("1249.00", "USD")
    load("products/og_meta.html")
    p = arun(read_page(web_page), timeout=30).product
    assert p is not None and p["source"] == "opengraph" and p["availability"] == "InStock"  # "in stock" normalized


def test_price_struck_by_a_stylesheet(web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any]) -> None:
    # Only the page script sees a line-through that comes from CSS: its priceTexts carry it.
    load("products/css_struck.html")
    snapshot = arun(web_page.snapshot(), timeout=30)
    assert {"text": "$80.00", "struck": True, "h1": None, "buy": None} in snapshot.price_texts
    box = next(t for t in snapshot.price_texts if t["text"].startswith("$80.00 $64.00"))
    assert box["struck"] is False and box["h1"] > 0 and box["buy"] > 0
    p = arun(read_page(web_page), timeout=30).product
    assert p is not None and (p["price"], p["currency"]) == ("64.00", "USD")
