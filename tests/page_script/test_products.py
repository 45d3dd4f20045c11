"""Prices as the page shows them (05_products.js, ``priceTexts`` in the snapshot): measured where they
stand, the product's own price before a carousel's, a struck-out price marked, a price split over
elements joined."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PRODUCT = """<header><a href='/'>Shop</a> <span>Free shipping over $50</span></header>
<main><div class='product'><h1>Blue Kettle</h1>
<p><s class='was'>$39.99</s> <span class='now' style='font-size:28px'>$24.99</span></p>
<button>Add to cart</button></div>
<section class='related-carousel'><h2>You may also like</h2><div>Red Kettle <span>$19.00</span></div>
<div>Teapot <span>$12.50</span></div></section></main>"""


def test_the_products_price_comes_first_and_the_old_price_is_struck(open_html: Callable[..., str],
                                                                     call: Call) -> None:
    open_html(PRODUCT)
    prices = call("snapshot", {"article": False})["priceTexts"]
    texts = [p["text"] for p in prices]
    assert {"$24.99", "$39.99", "$19.00", "$12.50"} <= set(texts)
    by_text = {p["text"]: p for p in prices}
    assert by_text["$39.99"]["struck"] and not by_text["$24.99"]["struck"]
    assert by_text["$24.99"]["size"] == 28
    # Nearer the heading and the buy button than the carousel's prices.
    assert by_text["$24.99"]["h1"] < by_text["$19.00"]["h1"] and by_text["$24.99"]["buy"] < by_text["$12.50"]["buy"]
    assert texts.index("$24.99") < texts.index("$19.00")


def test_a_price_split_over_elements_is_joined(open_html: Callable[..., str], call: Call) -> None:
    open_html("<h1>Lamp</h1><div class='price'><span>€</span><span>149</span><sup>95</sup></div>"
              "<button>Buy now</button>")
    texts = [p["text"] for p in call("snapshot", {"article": False})["priceTexts"]]
    assert "€149.95" in texts


def test_a_page_without_prices_has_none(open_html: Callable[..., str], call: Call) -> None:
    open_html("<h1>About us</h1><p>We were founded in 1999 and have 40 shops.</p>")
    assert call("snapshot", {"article": False})["priceTexts"] == []
