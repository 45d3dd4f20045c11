"""The product on a page: ``extract_product``, field by field from the structured data and the page.

Structured data (JSON-LD, microdata, Open Graph via extruct) gives most fields; when it lists
several offers (variants, sellers), the offer the page shows is taken: the one the page's URL
names, else the one with the product's SKU, else one at the price shown. The page as shown
(``product_page``: the current price among those the page script measured, identifiers from
specification tables and labelled texts, availability from the product's button and stock wording)
fills the gaps, and wins where the two disagree on the price the page shows in the product's block
(a variant picked after the page loaded, a JSON-LD left on the default variant, a marketplace's
range of offers): then the page's identifiers and availability go with its price. ``sources`` says
where each field came from. Measured by tests/browser/test_product_devset.py and
benchmarks/bench_products.py on the simple and the real product sets (tests/pages/products/).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jawad_desktop.core.lazy_pattern import LazyPattern
from jawad_desktop.core.tools.browser.product_page import (
    PRICE_RE,
    VisiblePrice,
    action_kind,
    context_flag,
    currency_code,
    html_price,
    parse_price,
    price_hints,
    read_html,
    struck_amounts,
    visible_price,
)

log = logging.getLogger("jawad.browser")

PRODUCT_KEYS = ("name", "price", "currency", "brand", "rating", "availability", "sku", "mpn", "gtin")
_GTIN_KEYS = ("gtin", "gtin13", "gtin12", "gtin14", "gtin8", "isbn")
_SCHEMA_AVAILABILITY = {"instock": "InStock", "outofstock": "OutOfStock", "preorder": "PreOrder",
                        "presale": "PreSale", "backorder": "BackOrder", "limitedavailability": "LimitedAvailability",
                        "soldout": "SoldOut", "discontinued": "Discontinued", "instoreonly": "InStoreOnly",
                        "onlineonly": "OnlineOnly"}
# Price specifications that are not what the shopper pays now (WooCommerce lists the regular price
# beside the sale price).
_NOT_THE_PRICE = LazyPattern(r"listprice|strikethroughprice|srp|msrp|invoiceprice|minimumadvertisedprice", re.I)


# -- structured data ---------------------------------------------------------------------------------


def _types(item: dict[str, Any]) -> list[str]:
    kind = item.get("@type", "")
    kinds = kind if isinstance(kind, list) else [kind]
    return [str(k).rsplit("/", 1)[-1].lower() for k in kinds]


def _name_of(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name", "") or "")
    if isinstance(value, list):
        return _name_of(value[0]) if value else ""
    return str(value or "")


def _short_availability(value: Any) -> str:
    text = _name_of(value)
    return text.rsplit("/", 1)[-1] if "schema.org" in text else text


def _availability(value: str) -> str:
    """A schema.org availability word for whatever a page's structured data says."""
    key = re.sub(r"[^a-z]", "", _short_availability(value).lower())
    return _SCHEMA_AVAILABILITY.get(key, _short_availability(value))


def _walk_items(data: Any) -> Iterable[dict[str, Any]]:
    if isinstance(data, list):
        for entry in data:
            yield from _walk_items(entry)
    elif isinstance(data, dict):
        yield data
        for key in ("@graph", "mainEntity", "itemListElement"):
            if key in data:
                yield from _walk_items(data[key])


def _amount(value: Any) -> str:
    """"96.75" for 96.75, "96.75", "96,75"; "" when it is no amount, or nothing (``parse_price``)."""
    if isinstance(value, int | float):
        return f"{float(value):.2f}" if value else ""
    text = str(value or "").strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return f"{float(text):.2f}" if float(text) else ""
    parsed = parse_price(text) if text else None
    return parsed[0] if parsed else ""


def _offer_price(offer: dict[str, Any]) -> str:
    """What the shopper pays: ``price``, else the price specification that is not a list price,
    else the low end of a range."""
    if offer.get("price") not in (None, ""):
        return _amount(offer["price"])
    specs = offer.get("priceSpecification")
    specs = specs if isinstance(specs, list) else [specs] if isinstance(specs, dict) else []
    paid = [_amount(s.get("price")) for s in specs
            if isinstance(s, dict) and not _NOT_THE_PRICE.search(str(s.get("priceType", "")).replace(" ", ""))]
    paid = [p for p in paid if p]
    if paid:
        return min(paid, key=float)
    return _amount(offer.get("lowPrice"))


def _offer_currency(offer: dict[str, Any]) -> str:
    specs = offer.get("priceSpecification")
    spec = specs[0] if isinstance(specs, list) and specs else specs
    fallback = spec.get("priceCurrency", "") if isinstance(spec, dict) else ""
    return str(offer.get("priceCurrency") or fallback or "")


def _offers(item: dict[str, Any]) -> list[dict[str, str]]:
    """The item's offers, flattened (an AggregateOffer's own offers too), each with price, currency,
    availability, sku, gtin, url, and the range for an AggregateOffer."""
    raw = item.get("offers") or []
    raw = raw if isinstance(raw, list) else [raw]
    out: list[dict[str, str]] = []
    for offer in raw:
        if not isinstance(offer, dict):
            continue
        entry = {
            "price": _offer_price(offer), "currency": _offer_currency(offer),
            "availability": _short_availability(offer.get("availability", "")),
            "sku": str(offer.get("sku", "") or ""), "url": str(offer.get("url", "") or ""),
            "gtin": str(next((offer[k] for k in _GTIN_KEYS if offer.get(k)), "")),
            "high": _amount(offer.get("highPrice")) if "aggregateoffer" in _types(offer) else "",
        }
        out.append(entry)
        inner = offer.get("offers")
        if isinstance(inner, list) and "aggregateoffer" in _types(offer):
            out.extend(_offers({"offers": inner}))
    # A ProductGroup's variants are products with offers of their own.
    for variant in item.get("hasVariant") or []:
        if isinstance(variant, dict):
            for entry in _offers(variant):
                entry["sku"] = entry["sku"] or str(variant.get("sku", "") or "")
                entry["gtin"] = entry["gtin"] or str(next((variant[k] for k in _GTIN_KEYS if variant.get(k)), ""))
                out.append(entry)
    return out


def _variant_of(url: str) -> str:
    query = parse_qs(urlsplit(url).query)
    return (query.get("variant") or query.get("sku") or [""])[0]


def _pick_offer(offers: list[dict[str, str]], sku: str, url: str, shown: VisiblePrice | None) -> dict[str, str]:
    """The offer the page shows: the one its URL names, else the product's SKU's, else the first
    when the page shows its price, else one at the price shown (in stock first), else the first."""
    if not offers:
        return {}
    variant = _variant_of(url)
    if variant:
        named = [o for o in offers if o["url"] and _variant_of(o["url"]) == variant]
        if named:
            return named[0]
    if sku:
        same = [o for o in offers if o["sku"] == sku]
        if same:
            return same[0]
    if shown is not None:
        # The structured data's own first offer, when the page shows its price (another seller's
        # offer may sit nearer the buy button); else one at the price the page shows.
        if offers[0]["price"] and offers[0]["price"] in shown.shown:
            return offers[0]
        at_price = [o for o in offers if o["price"] == shown.amount]
        at_price.sort(key=lambda o: _availability(o["availability"]) != "InStock")
        if at_price:
            return at_price[0]
    return offers[0]


def _from_schema_product(item: dict[str, Any], url: str, shown: VisiblePrice | None) -> dict[str, str]:
    offers = _offers(item)
    sku = str(item.get("sku", "") or "")
    offer = _pick_offer(offers, sku, url, shown)
    rating = item.get("aggregateRating") or {}
    product = {
        "name": _name_of(item.get("name")),
        "price": offer.get("price", ""),
        "high": offer.get("high", ""),
        "currency": offer.get("currency", ""),
        "brand": _name_of(item.get("brand")),
        "rating": str(rating.get("ratingValue", "") if isinstance(rating, dict) else rating or ""),
        "availability": offer.get("availability", ""),
        "sku": offer.get("sku") or sku,
        "mpn": str(item.get("mpn", "") or ""),
        "gtin": offer.get("gtin") or str(next((item[k] for k in _GTIN_KEYS if item.get(k)), "")),
    }
    return {k: v.strip() for k, v in product.items() if v and v.strip()}


# schema.org types of a page that is a piece of writing (news, a blog post, a report): its own
# structured data says so, and without a Product there too, a price in its text is a quoted one.
ARTICLE_TYPES = {"article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
                 "opinionnewsarticle", "reviewnewsarticle", "report", "scholarlyarticle", "techarticle",
                 "liveblogposting", "socialmediaposting"}


def _structured_data(html: str, url: str) -> dict[str, Any]:
    """The page's JSON-LD, microdata and Open Graph as extruct reads them ({} when it cannot)."""
    import extruct  # imported here: it pulls in lxml and rdflib, only needed off the GUI thread

    try:
        data: dict[str, Any] = extruct.extract(html, base_url=url or None, uniform=True, errors="ignore",
                                               syntaxes=["json-ld", "microdata", "opengraph"])
    except Exception:
        log.debug("extruct failed on %s", url, exc_info=True)
        data = {}
    return data


def _declares_article(data: dict[str, Any]) -> bool:
    """Whether the page's JSON-LD or microdata says it is an article (``ARTICLE_TYPES``)."""
    return any(set(_types(item)) & ARTICLE_TYPES
               for syntax in ("json-ld", "microdata") for item in _walk_items(data.get(syntax, [])))


def _structured(data: dict[str, Any], url: str, h1: str, shown: VisiblePrice | None) -> tuple[dict[str, str], str]:
    """The first product in the structured data, and the syntax it came from."""
    for syntax in ("json-ld", "microdata"):
        for item in _walk_items(data.get(syntax, [])):
            if "product" in _types(item) or "productgroup" in _types(item):
                product = _from_schema_product(item, url, shown)
                if product.get("name") or product.get("price"):
                    return product, syntax
    for og in data.get("opengraph", []):
        if not isinstance(og, dict):
            continue
        amount = og.get("product:price:amount") or og.get("og:price:amount")
        kind = str(og.get("@type", "") or og.get("og:type", "")).lower()
        # A price in the meta tags of a page whose og:type says it is something else (an article
        # behind a paywall priced at 1 EUR) is not a product.
        if kind.startswith("product") or (amount and not kind):
            product = {
                "name": str(og.get("og:title", "") or h1),
                "price": _amount(amount) if amount else "",
                "currency": str(og.get("product:price:currency") or og.get("og:price:currency") or ""),
                "brand": str(og.get("product:brand", "") or ""),
                "availability": str(og.get("product:availability") or og.get("og:availability") or ""),
                "sku": str(og.get("product:retailer_item_id", "") or ""),
            }
            return {k: v for k, v in product.items() if v}, "opengraph"
    return {}, ""


# -- the two together ----------------------------------------------------------------------------------


def _page_overrides(structured: dict[str, str], shown: VisiblePrice | None) -> bool:
    """Whether the page's own price replaces the structured one: the page shows, in the product's
    block, a price the structured data does not have (and nowhere there the structured price)."""
    if shown is None or not shown.confident or not structured.get("price"):
        return False
    return shown.amount != structured["price"] and structured["price"] not in shown.shown


def _text_price(text: str, bad: set[str]) -> tuple[str, str] | None:
    """The first price in the top of the visible text that its words do not make another one ("free
    shipping on orders of $50") and the page does not show only as not the price (pages the other
    readings found nothing on)."""
    top = text[:5000]
    matches = list(PRICE_RE.finditer(top))
    for i, match in enumerate(matches):
        parsed = parse_price(match.group(0))
        if not parsed or not parsed[1] or parsed[0] in bad:
            continue
        # The words around it, cut at the neighbouring prices as the page script cuts them ("¤").
        start = matches[i - 1].end() if i else 0
        end = matches[i + 1].start() if i + 1 < len(matches) else len(top)
        before = ("¤" if i else "") + top[max(start, match.start() - 70):match.start()]
        after = top[match.end():min(end, match.end() + 40)] + ("¤" if i + 1 < len(matches) else "")
        if not context_flag(before, after):
            return parsed
    return None


def extract_product(html: str, url: str, *, h1: str = "", price_texts: Iterable[dict[str, Any] | str] = (),
                    text: str = "", page_html: str = "", controls: Iterable[str] = ()) -> dict[str, Any] | None:
    """The product on a page, or None when the page shows none.

    ``html``: what the structured-data parsers read (the head and the structured parts); ``page_html``:
    the page as rendered; ``price_texts``: the page script's measured prices (``priceTexts``);
    ``text``: the visible text; ``controls``: the labels of the page's interactive elements (the
    element list, which a long page's HTML may not reach). ``source`` names the structured syntax (or "visible text");
    ``sources`` says where each field came from.
    """
    hints = list(price_texts)
    shown = visible_price(hints)
    data = _structured_data(html, url)
    structured, syntax = _structured(data, url, h1, shown)
    root, facts = read_html(page_html) if page_html else (None, None)
    visible: dict[str, str] = {}
    sources: dict[str, str] = {}
    # The price the page shows: measured by the page script, else read from the HTML, else (with no
    # structured price either) the first one in the visible text that is not another price.
    found = (shown.amount, shown.currency) if shown is not None else None
    if found is None and root is not None:
        found = html_price(root, struck_amounts(hints))
    if found is None:
        # A price right by the heading that the script put in the site's chrome (a product block in
        # an <aside> or <header> of its own), its words saying nothing against it.
        by_heading = [h for h in price_hints(hints)
                      if h.zone == "chrome" and not (h.struck or h.flag) and h.near <= 400]
        if by_heading:
            found = (by_heading[0].amount, by_heading[0].currency)
    if found is None and not structured.get("price") and text:
        # Amounts the page shows struck or as another price (not those merely in its chrome: a
        # page whose product block is taken for chrome still shows its price in its text).
        judged = price_hints(hints)
        found = _text_price(text, {h.amount for h in judged if h.struck or h.flag}
                            - {h.amount for h in judged if not (h.struck or h.flag)})
    if found:
        visible.update(price=found[0], currency=found[1])
    if facts is not None:
        visible.update(name=h1 or facts.name, availability=facts.availability)
        for key, (value, origin) in facts.ids.items():
            visible[key], sources[key] = value, origin
    elif h1:
        visible["name"] = h1
    # Without structured data, a price alone does not make a product page (an article quoting a car's
    # price, a list of offers): the page must also have the product's button (buy, pre-order, sold out),
    # in its HTML or among its interactive elements.
    # Nor on a page whose own structured data says it is an article (a guide to where the graphics
    # card can be bought, with the shops' "sold out" links).
    if not structured and (_declares_article(data) or not (visible.get("price") and (
            (facts is not None and facts.action) or any(action_kind(label) for label in controls)))):
        return None
    page_first = _page_overrides(structured, shown)
    if page_first:
        log.debug("the page shows %s where its structured data says %s", shown and shown.amount,
                  structured.get("price"))
    product: dict[str, Any] = {}
    where: dict[str, str] = {}
    for key in PRODUCT_KEYS:
        ours = visible.get(key)
        theirs = structured.get(key)
        if key in ("price", "currency", "sku", "mpn", "gtin", "availability") and page_first and ours:
            product[key], where[key] = ours, sources.get(key, "visible text")
        elif theirs and not (key == "currency" and page_first):
            product[key], where[key] = theirs, syntax
        elif ours and (key != "currency" or page_first or not structured.get("price")):
            product[key], where[key] = ours, sources.get(key, "visible text")
    if product.get("price") and not product.get("currency") and structured.get("currency"):
        product["currency"], where["currency"] = structured["currency"], syntax
    if product.get("availability"):
        product["availability"] = _availability(product["availability"])
    if product.get("currency"):
        product["currency"] = currency_code(product["currency"])
    if re.fullmatch(r"\d+(?:\.\d+)?", str(product.get("price", ""))):
        product["price"] = f"{float(product['price']):.2f}"
    product["source"] = syntax or "visible text"
    product["sources"] = where
    return product
