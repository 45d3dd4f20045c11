"""The product reading's rules on their own (no browser): the words around a price, the offer a
page shows among several, identifiers from labelled texts and tables, availability from the
product's button and stock wording (core/tools/browser/product.py and product_page.py)."""

from __future__ import annotations

import json

import pytest

from jawad_desktop.core.tools.browser.product import extract_product
from jawad_desktop.core.tools.browser.product_page import context_flag, parse_price, read_html


@pytest.mark.parametrize(("before", "after", "flag"), [
    ("¤Was ", "", "old"), ("UVP ", "", "old"), ("当店通常価格 ", " （税込）", "old"),
    ("Niedrigster Preis der letzten 30 Tage: ", "", "lowest"),
    ("Najniższa cena z 30 dni przed obniżką: ", "", "lowest"),
    ("or 4 interest-free payments of ", " with Klarna", "instalment"), ("Raty 0%: 10 x ", "", "instalment"),
    ("Paga in 3 rate da ", " senza interessi", "instalment"), ("Or ", "/mo. for 12 months", "unit"),
    ("", " / Count)", "unit"), ("Grundpreis: ", "", "unit"), ("(You save ", ")", "saving"),
    ("Free shipping on orders over ", "", "shipping"), ("Envío gratis a partir de ", "", "shipping"),
    ("", " or more", "threshold"), ("Cart (2) ", "", "total"), ("Total price: ", "", "total"),
    ("Other Sellers on shopmart New (7) from ", "", "other offer"), ("Neuf dès ", "", "other offer"),
    ("Andere verkopers (4) vanaf ", "", "other offer"), ("Buy 3 for ", " each", "tier"),
    ("Reserve with a ", " deposit", "deposit"), ("2-Year Protection ", "", "add-on"),
    ("Pay ", " after ¤", "pay later"), ("¤ – ", "", "range high"),
    ("Now: ", "", ""), ("Sale price ", "", ""), ("販売価格 ", " （税込） 送料無料", ""), ("From ", "", ""),
    # Real shops' words: what the shopper pays, a price plus shipping, a discount that is no price.
    ("Instant Savings: ¤ You Pay: ", "", ""), ("", "+ Shipping included to the U.S", ""),
    ("Pickup Discount ", "", "saving"), ("Free pickup - Save an extra ", " on this item at checkout", "saving"),
])
def test_words_around_a_price(before: str, after: str, flag: str) -> None:
    assert context_flag(before, after) == flag


@pytest.mark.parametrize(("text", "amount", "currency"), [
    ("1\u202f299,99\u00a0€", "1299.99", "EUR"), ("12,800円", "12800.00", "JPY"), ("￥3,280", "3280.00", "JPY"),
    ("CHF 1'299.–", "1299.00", "CHF"), ("€ 149,-", "149.00", "EUR"), ("1\u00a0299,00\u00a0zł", "1299.00", "PLN"),
])
def test_prices_as_locales_write_them(text: str, amount: str, currency: str) -> None:
    assert parse_price(text) == (amount, currency)


def _jsonld(data: dict[str, object]) -> str:
    return f'<html><head><script type="application/ld+json">{json.dumps(data)}</script></head><body></body></html>'


def test_the_offer_the_page_shows() -> None:
    offers = [{"@type": "Offer", "sku": "A-1", "price": "10.00", "priceCurrency": "USD",
               "availability": "https://schema.org/OutOfStock", "url": "https://shop.example/p?variant=1"},
              {"@type": "Offer", "sku": "A-2", "price": "12.00", "priceCurrency": "USD",
               "availability": "https://schema.org/InStock", "url": "https://shop.example/p?variant=2"}]
    html = _jsonld({"@type": "Product", "name": "P", "offers": offers})
    # The URL names the variant.
    p = extract_product(html, "https://shop.example/p?variant=2")
    assert p is not None and (p["price"], p["sku"], p["availability"]) == ("12.00", "A-2", "InStock")
    # The product's own SKU names it.
    html = _jsonld({"@type": "Product", "name": "P", "sku": "A-2", "offers": offers})
    p = extract_product(html, "https://shop.example/p")
    assert p is not None and p["sku"] == "A-2" and p["availability"] == "InStock"


def test_a_sale_price_among_price_specifications() -> None:
    offer = {"@type": "Offer", "availability": "http://schema.org/InStock", "priceSpecification": [
        {"@type": "UnitPriceSpecification", "price": "60.00", "priceCurrency": "USD",
         "priceType": "https://schema.org/ListPrice"},
        {"@type": "UnitPriceSpecification", "price": "45.00", "priceCurrency": "USD"}]}
    p = extract_product(_jsonld({"@type": "Product", "name": "Hoodie", "offers": [offer]}), "https://x.example/")
    assert p is not None and (p["price"], p["currency"], p["sources"]["price"]) == ("45.00", "USD", "json-ld")


def test_identifiers_and_stock_from_the_product_block() -> None:
    page = ("<html><body><header><a href='/cart'>Cart</a><p>SKU: HEADER-1</p></header><main><div class='pdp'>"
            "<h1>Lamp</h1><p>Item #: <span>LMP-200</span> · Model # LW-9</p><p>¡Últimas unidades!</p>"
            "<button>Añadir a la cesta</button></div><table><tr><th>JANコード</th><td>\u200e4901234567894</td></tr>"
            "</table></main></body></html>")
    _root, facts = read_html(page)
    assert facts.ids["sku"] == ("LMP-200", "visible text") and facts.ids["mpn"] == ("LW-9", "visible text")
    assert facts.ids["gtin"] == ("4901234567894", "table")
    assert facts.availability == "LimitedAvailability"


@pytest.mark.parametrize(("block", "availability"), [
    ("<button disabled>Aggiungi al carrello</button><button>Avvisami quando disponibile</button>", "OutOfStock"),
    ("<button>Notify me when available</button>", "OutOfStock"),
    ("<p>Tijdelijk uitverkocht</p>", "OutOfStock"),
    ("<p>売り切れ</p>", "OutOfStock"),
    ("<button>Pre-order now</button><p>Collector's Edition: Sold out</p>", "PreOrder"),
    # A sold-out size does not make the product sold out while its buy button works.
    ("<p>XS is sold out.</p><button>Add to Bag</button>", "InStock"),
    ("<p>Nur noch 2 Stück verfügbar</p><button>In den Warenkorb</button>", "LimitedAvailability"),
])
def test_availability_from_the_button_then_the_words(block: str, availability: str) -> None:
    _root, facts = read_html(f"<html><body><main><div><h1>Thing</h1>{block}</div></main></body></html>")
    assert facts.availability == availability


def test_a_price_in_an_article_makes_no_product_and_a_buy_button_does() -> None:
    # A news article quoting a car's price: no structured product, no product's button.
    article = ("<html><body><nav><a href='/'>Home</a></nav><article><h1>The electric estate car, driven</h1>"
               "<p>The new estate costs $44,000 before the tax credit, and its range is 300 miles.</p>"
               "<p>We drove it from Hartford to Boston in the rain.</p></article></body></html>")
    texts = [{"text": "$44,000", "size": 16, "h1": 40}]
    assert extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/a", h1="The electric "
                           "estate car, driven", price_texts=texts, text="The new estate costs $44,000",
                           page_html=article) is None
    # The same heading and price with the product's button: a product page without structured data.
    shop = article.replace("<p>We drove", "<button>Add to cart</button><p>We drove")
    product = extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/a", h1="The electric "
                              "estate car, driven", price_texts=texts, text="The new estate costs $44,000",
                              page_html=shop)
    assert product is not None and product["price"] == "44000.00" and product["source"] == "visible text"
    # A long page whose HTML the snapshot cut before the button: the element list has it.
    listed = extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/a", h1="The electric "
                             "estate car, driven", price_texts=texts, text="The new estate costs $44,000",
                             page_html=article, controls=["Add to Favorites", "Add to Bag"])
    assert listed is not None and listed["price"] == "44000.00"


def test_a_price_of_nothing_is_no_price() -> None:
    # A shop's microdata left at 0.00 (its script fills the price in later), and an empty cart's $0.00
    # beside the heading: the price is the one the page shows for the product.
    html = ("<html><head></head><body><div itemscope itemtype='https://schema.org/Product'>"
            "<h1 itemprop='name'>Rose gold ring</h1><div itemprop='offers' itemscope "
            "itemtype='https://schema.org/Offer'><meta itemprop='price' content='0.00'>"
            "<meta itemprop='priceCurrency' content='USD'></div></div></body></html>")
    texts = [{"text": "$0.00", "main": True, "h1": 20}, {"text": "$54.95", "main": True, "h1": 900}]
    product = extract_product(html, "http://127.0.0.1/ring", h1="Rose gold ring", price_texts=texts,
                              page_html=html.replace("</h1>", "</h1><button>Add to cart</button>"))
    assert product is not None and product["price"] == "54.95"
    assert parse_price("$0.00") is None and parse_price("$54.95") == ("54.95", "USD")


def _shop_page(body: str) -> str:
    return f"<html><body><main><div><h1>Cardigan</h1>{body}<button>Add to Bag</button></div></main></body></html>"


def test_no_price_rather_than_another_one() -> None:
    # The only prices on the page are a free-shipping threshold: no price (and so no product), not $50.
    page = _shop_page("<p>Free shipping on orders over $50</p>")
    empty = "<html><head></head><body></body></html>"
    assert extract_product(empty, "http://127.0.0.1/c", h1="Cardigan", page_html=page,
                           text="Cardigan Free shipping on orders over $50 Add to Bag") is None
    # The script measured a threshold and a price in the visible text past it: the price.
    texts = [{"text": "$50", "h1": 30, "before": "free shipping on orders of ", "after": " or more."}]
    p = extract_product(empty, "http://127.0.0.1/c", h1="Cardigan", price_texts=texts, page_html=page,
                        text="Free shipping on orders of $50 or more. Cardigan $49.00 Add to Bag")
    assert p is not None and p["price"] == "49.00"


def test_a_price_by_the_heading_in_a_block_taken_for_chrome() -> None:
    # The product's price box sits in an <aside> of its own (every price is "chrome"): the one by the
    # heading with no words against it, not the first price in the text (a menu's "Price Under $10").
    texts = [{"text": "$10", "h1": 2348, "zone": "chrome", "before": "Price Under "},
             {"text": "$11.37", "h1": 298, "zone": "chrome"},
             {"text": "$18.95", "h1": 333, "zone": "chrome", "before": "¤ ", "old": True}]
    p = extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/b", h1="Astrophysics",
                        price_texts=texts, page_html=_shop_page("<aside>$11.37 $18.95</aside>"),
                        text="Get a $10 Reward Card. Astrophysics $11.37 $18.95")
    assert p is not None and p["price"] == "11.37"


def test_a_price_named_old_by_its_class_beside_another() -> None:
    # "price-standard" beside "price-sales" (no style sheet struck it): the sale price.
    texts = [{"text": "$39.90", "main": True, "h1": 40, "old": True, "after": " ¤"},
             {"text": "$1.90", "main": True, "h1": 40, "before": "¤ "}]
    p = extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/u", h1="Cardigan",
                        price_texts=texts, page_html=_shop_page(""))
    assert p is not None and p["price"] == "1.90"
    # Alone in its block, a price with such a class is the price.
    p = extract_product("<html><head></head><body></body></html>", "http://127.0.0.1/u", h1="Cardigan",
                        price_texts=[{"text": "$39.90", "main": True, "h1": 40, "old": True}], page_html=_shop_page(""))
    assert p is not None and p["price"] == "39.90"


def test_the_first_offer_when_the_page_shows_its_price() -> None:
    # The product's own offer and another seller's, both shown in the buy box; the other seller's
    # sits nearer the buy button: the structured data's first offer is the one the page sells.
    html = _jsonld({"@type": "Product", "name": "Booster seat", "offers": [
        {"@type": "Offer", "price": "37.30", "priceCurrency": "USD"},
        {"@type": "Offer", "price": "50.51", "priceCurrency": "USD"}]})
    texts = [{"text": "$37.30", "main": True, "h1": 831, "buy": 374},
             {"text": "$50.51", "main": True, "h1": 1458, "buy": 213}]
    p = extract_product(html, "http://127.0.0.1/w", h1="Booster seat", price_texts=texts)
    assert p is not None and (p["price"], p["sources"]["price"]) == ("37.30", "json-ld")


def test_a_page_whose_structured_data_says_article_gives_no_product_from_its_text() -> None:
    # A guide to where a graphics card can be bought: the shops' prices in its text, their "Sold out"
    # links among its controls, and a NewsArticle in its JSON-LD. No product; with a Product, one.
    ld = '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "%s", "name": "RTX"}</script>'
    page = ("<html><body><article><h1>Where to buy the RTX 3080</h1><p>Prices range from $699.99 to $849.99."
            "</p><p><a href='/shop'>Sold out</a></p></article></body></html>")
    texts = [{"text": "$699.99", "size": 16, "h1": 40}]

    def read(kind: str) -> dict[str, object] | None:
        return extract_product(f"<html><head>{ld % kind}</head><body></body></html>", "http://127.0.0.1/a",
                               h1="Where to buy the RTX 3080", price_texts=texts, page_html=page,
                               text="Prices range from $699.99 to $849.99.", controls=["Sold out"])

    assert read("WebPage") is not None  # the price and the shop's button make a product, as before
    assert read("NewsArticle") is None and read("BlogPosting") is None


def test_an_article_with_a_price_in_its_meta_tags_is_no_product() -> None:
    # og:type article, with product:price meta tags (a paywall's price of 1 EUR).
    head = ('<meta property="og:type" content="article"><meta property="og:title" content="Heulage">'
            '<meta property="product:price:amount" content="1"><meta property="product:price:currency" content="EUR">')
    html = f"<html><head>{head}</head><body><article><h1>Heulage</h1><p>Gutes Heu.</p></article></body></html>"
    assert extract_product(html, "http://127.0.0.1/a", h1="Heulage", page_html=html) is None
    shop = html.replace('content="article"', 'content="product"')
    p = extract_product(shop, "http://127.0.0.1/a", h1="Heulage", page_html=shop)
    assert p is not None and (p["price"], p["source"]) == ("1.00", "opengraph")
