"""The product on a page: ``extract_product`` and its helpers.

Field by field: structured data (JSON-LD, microdata, Open Graph via extruct) first, then the
page as shown (lxml over the snapshot's HTML, price-parser for amounts): the current price near
the main heading (not struck, "was", per unit or a related product's; the page script's
``priceTexts`` say which texts are struck through by CSS and how far they are from the h1 and the
buy button), SKU/MPN/GTIN from specification tables and definition lists, availability from the
buy button and stock wording in several languages. ``sources`` says where each field came from.
Measured by tests/browser/test_product_devset.py and benchmarks/bench_products.py.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("jawad.browser")

# -- product extraction ---------------------------------------------------------------------------

_CURRENCY_SYMBOLS = {"$": "USD", "US$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR", "₩": "KRW",
                     "₽": "RUB", "₺": "TRY", "CHF": "CHF", "C$": "CAD", "A$": "AUD", "R$": "BRL", "zł": "PLN",
                     "kr": "SEK", "د.إ": "AED", "ر.س": "SAR", "Dhs": "AED", "AED": "AED", "SAR": "SAR"}
PRODUCT_KEYS = ("name", "price", "currency", "brand", "rating", "availability", "sku", "mpn", "gtin")


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


def _walk_items(data: Any) -> Iterable[dict[str, Any]]:
    if isinstance(data, list):
        for entry in data:
            yield from _walk_items(entry)
    elif isinstance(data, dict):
        yield data
        for key in ("@graph", "mainEntity", "itemListElement"):
            if key in data:
                yield from _walk_items(data[key])


def _from_schema_product(item: dict[str, Any]) -> dict[str, str]:
    offers = item.get("offers") or {}
    if isinstance(offers, list):
        offers = offers[0] if offers else {}
    offer = offers if isinstance(offers, dict) else {}
    price = offer.get("price", offer.get("lowPrice", ""))
    if isinstance(offer.get("priceSpecification"), dict) and not price:
        price = offer["priceSpecification"].get("price", "")
    rating = item.get("aggregateRating") or {}
    product = {
        "name": _name_of(item.get("name")),
        "price": str(price or ""),
        "currency": str(offer.get("priceCurrency", "") or ""),
        "brand": _name_of(item.get("brand")),
        "rating": str(rating.get("ratingValue", "") if isinstance(rating, dict) else rating or ""),
        "availability": _short_availability(offer.get("availability", "")),
        "sku": str(item.get("sku", "") or ""),
        "mpn": str(item.get("mpn", "") or ""),
        "gtin": str(next((item[k] for k in ("gtin", "gtin13", "gtin12", "gtin14", "gtin8") if item.get(k)), "")),
    }
    return {k: v.strip() for k, v in product.items() if v and v.strip()}


def _currency_code(symbol: str | None) -> str:
    if not symbol:
        return ""
    symbol = symbol.strip()
    if re.fullmatch(r"[A-Z]{3}", symbol):
        return symbol
    return _CURRENCY_SYMBOLS.get(symbol, symbol)


# -- visible page: prices, identifiers, stock ------------------------------------------------------

# A price in text: a currency sign or code, then a number, or a number then a sign or code.
_CUR = r"(?:US\$|C\$|A\$|R\$|[$£€¥₹₩₽₺]|\b(?:USD|EUR|GBP|JPY|PLN|CHF|SEK|CAD|AUD)\b|zł|\bkr\b)"
_NUM = r"\d(?:[\d.,\u00a0\u202f ]*\d)?"
_PRICE_RE = re.compile(rf"{_CUR}\s?{_NUM}|{_NUM}\s?{_CUR}")
# Words before a price that make it an old price, and after it that make it a unit price.
_WAS_RE = re.compile(r"(?:\bwas|\bbefore|\brrp|\blist price|\bstatt|\bavant|\bantes|\bprima)\W{0,3}$", re.I)
_UNIT_RE = re.compile(r"^\s*(?:/|per\b|je\b|pro\b|par\b|por\b)", re.I)
_PRICE_CLASS = re.compile(r"price|preis|prix|precio|prezzo|cena|cost|amount", re.I)
_OLD_CLASS = re.compile(r"\b(?:was|old|strike|crossed|compare|original|regular|list)", re.I)
_UNIT_CLASS = re.compile(r"unit|per-|per_|perunit", re.I)
_RELATED_CLASS = re.compile(r"related|recommend|similar|carousel|upsell|cross-?sell|also|recently", re.I)
_STRUCK_TAGS = {"s", "del", "strike"}
_SKIP_TAGS = {"script", "style", "noscript", "template", "head", "title"}

_ID_LABELS = (
    ("sku", re.compile(r"^(?:sku|item (?:number|no\.?|#)|article (?:number|no\.?)|art\.?[- ]?nr\.?|artikelnummer|"
                       r"r[ée]f[ée]rence|ref\.?|product code|product id|code)$", re.I)),
    ("mpn", re.compile(r"^(?:mpn|manufacturer part (?:number|no\.?)|part (?:number|no\.?)|model (?:number|no\.?))$",
                       re.I)),
    ("gtin", re.compile(r"^(?:gtin(?:-?\d+)?|ean(?:-?13)?|upc|isbn(?:-?13)?|barcode|jan)$", re.I)),
)
_SKU_TEXT_RE = re.compile(r"\b(?:SKU|Item (?:number|no\.?)|Art\.?-?Nr\.?)\s*[:#]\s*([A-Z0-9][A-Z0-9._/-]{2,40})", re.I)

# Stock wording, in the order it is trusted: a pre-order or a few left says more than "in stock".
_STOCK_WORDS = (
    ("PreOrder", re.compile(r"\bpre-?order|\bprécommande|\bvorbestell|\breserva(?:r)? ahora|\bpreventa", re.I)),
    ("LimitedAvailability", re.compile(r"\bonly \d+ left|\bnur noch \d+|\bplus que \d+|\bquedan? \d+|\blow stock|"
                                       r"\bfew left|\bzostał[oa]? \d+", re.I)),
    ("OutOfStock", re.compile(r"\bsold out|\bout of stock|\bcurrently unavailable|\bausverkauft|\bnicht (?:auf lager|"
                              r"verfügbar|lieferbar)|épuisé|\brupture de stock|\bagotado|\bsin stock|\besgotado|"
                              r"\besaurito|\bniedostępny|\bwyprzedan", re.I)),
    ("InStock", re.compile(r"\bin stock\b|\bauf lager\b|\ben stock\b|\ben existencia\b|\bdisponibile\b|\bna stanie\b|"
                           r"\bsofort lieferbar\b|\bavailable now\b", re.I)),
)
_SCHEMA_AVAILABILITY = {"instock": "InStock", "outofstock": "OutOfStock", "preorder": "PreOrder",
                        "presale": "PreSale", "backorder": "BackOrder", "limitedavailability": "LimitedAvailability",
                        "soldout": "SoldOut", "discontinued": "Discontinued", "instoreonly": "InStoreOnly",
                        "onlineonly": "OnlineOnly"}
_BUY_RE = re.compile(r"add to (?:cart|bag|basket)|buy|in den warenkorb|ajouter au panier|añadir|comprar|"
                     r"pre-?order|kaufen|do koszyka", re.I)


def _availability(value: str) -> str:
    """A schema.org availability word for whatever a page's structured data says."""
    key = re.sub(r"[^a-z]", "", _short_availability(value).lower())
    return _SCHEMA_AVAILABILITY.get(key, _short_availability(value))


def _classes(el: Any) -> str:
    return f"{el.get('class', '')} {el.get('id', '')} {el.get('itemprop', '')}"


def _joined_text(el: Any) -> str:
    """The element's text with superscript cents joined as decimals (``$<span>12</span><sup>99</sup>``)."""
    parts: list[str] = []
    for node in el.iter():
        if not isinstance(node.tag, str) or node.tag in _SKIP_TAGS:
            continue
        if node is not el and any(_struck(n) for n in (node, *node.iterancestors()) if n is not el):
            continue  # an old price inside the price box is its own (struck) candidate
        if node.text:
            prefix = "." if node.tag == "sup" and parts and parts[-1][-1:].isdigit() else ""
            parts.append(prefix + node.text.strip())
        if node is not el and node.tail:
            parts.append(node.tail.strip())
    return re.sub(r"(?<=[^\d\s])(?=\d)|(?<=\d)(?=[^\d\s.,])", "", "".join(p for p in parts if p))


@dataclass
class _Candidate:
    amount: str
    currency: str
    position: int  # element index in document order
    bad: bool  # struck, "was", per unit, or in a related-products block


def _struck(el: Any) -> bool:
    return bool(el.tag in _STRUCK_TAGS or "line-through" in el.get("style", "") or _OLD_CLASS.search(_classes(el)))


def _flags(el: Any) -> tuple[bool, bool, bool]:
    """(struck, per unit, in another product's block) for an element and its ancestors."""
    struck = unit = related = False
    node = el
    while node is not None and isinstance(node.tag, str):
        cls = _classes(node)
        if _struck(node):
            struck = True
        if _UNIT_CLASS.search(cls):
            unit = True
        if _RELATED_CLASS.search(cls) or node.tag == "aside":
            related = True
        node = node.getparent()
    return struck, unit, related


def _prices_in(text: str) -> list[tuple[str, bool]]:
    """(price text, is an old or unit price from its wording) for each price in ``text``."""
    out = []
    for match in _PRICE_RE.finditer(text):
        before, after = text[: match.start()], text[match.end():]
        out.append((match.group(0), bool(_WAS_RE.search(before[-16:]) or _UNIT_RE.match(after))))
    return out


def _visible_prices(root: Any, h1_position: int, struck_amounts: set[str]) -> list[_Candidate]:
    from price_parser import Price

    candidates: list[_Candidate] = []
    seen: set[Any] = set()  # elements, not id()s: lxml proxies are only stable while referenced
    for index, el in enumerate(root.iter()):
        if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS:
            continue
        struck, unit, related = _flags(el)
        texts: list[tuple[str, bool]] = []
        if el.get("data-price") and re.fullmatch(r"\d+(?:\.\d+)?", el.get("data-price", "").strip()):
            code = el.get("data-currency", "") or (Price.fromstring(_joined_text(el)).currency or "")
            texts.append((f"{code} {el.get('data-price')}", False))
        elif (_PRICE_CLASS.search(_classes(el)) and not any(a in seen for a in el.iterancestors())
              and not any(_PRICE_CLASS.search(_classes(d)) for d in el.iterdescendants() if isinstance(d.tag, str))):
            texts = _prices_in(_joined_text(el))
            if texts:
                seen.add(el)
        elif not any(a in seen for a in el.iterancestors()):
            texts = _prices_in((el.text or "").strip())
        for text, worded in texts:
            price = Price.fromstring(text)
            if price.amount is None or not price.currency:
                continue
            amount = f"{price.amount:.2f}"
            candidates.append(_Candidate(amount, _currency_code(price.currency), index,
                                         worded or struck or unit or related or amount in struck_amounts))
    # The current price: not struck, not per unit, not another product's; then the nearest after the h1.
    return sorted(candidates, key=lambda c: (c.bad, c.position < h1_position, abs(c.position - h1_position)))


def _identifiers(root: Any, text: str) -> dict[str, str]:
    """SKU, MPN and GTIN from specification tables, definition lists and "SKU: …" text."""
    found: dict[str, str] = {}
    pairs: list[tuple[str, str, str]] = []
    for row in root.iter("tr"):
        cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("th", "td")]
        if len(cells) == 2:
            pairs.append((cells[0].text_content(), cells[1].text_content(), "table"))
    for dt in root.iter("dt"):
        dd = dt.getnext()
        if dd is not None and dd.tag == "dd":
            pairs.append((dt.text_content(), dd.text_content(), "definition list"))
    for label, value, where in pairs:
        label, value = label.strip().rstrip(":").strip(), value.strip()
        for key, pattern in _ID_LABELS:
            if key not in found and value and len(value) <= 60 and pattern.match(label):
                found[key], found[f"{key}_source"] = value, where
    if "sku" not in found and (match := _SKU_TEXT_RE.search(text)):
        found["sku"], found["sku_source"] = match.group(1), "visible text"
    return found


def _visible_availability(root: Any, text: str) -> str:
    for value, pattern in _STOCK_WORDS[:3]:
        if pattern.search(text):
            return value
    for button in root.iter("button", "input"):
        label = (button.text_content() if button.tag == "button" else button.get("value", "")).strip()
        if _BUY_RE.search(label) and (button.get("disabled") is not None or button.get("aria-disabled") == "true"):
            return "OutOfStock"
    if _STOCK_WORDS[3][1].search(text):
        return "InStock"
    # A buy button that can be pressed, and no wording against it: the shop sells it now.
    enabled = [b for b in root.iter("button") if _BUY_RE.search(b.text_content()) and b.get("disabled") is None]
    return "InStock" if enabled else ""


def _visible(page_html: str, h1: str, text: str, struck_amounts: set[str]) -> dict[str, Any]:
    """Price, currency, identifiers and availability read from the page as shown."""
    import lxml.html

    try:
        root = lxml.html.fromstring(page_html) if page_html.strip() else None
    except (ValueError, lxml.etree.ParserError):
        root = None
    if root is None:
        return {}
    body_text = text or " ".join(root.itertext())  # itertext joined: text_content() glues words
    heading = next(iter(root.iter("h1")), None)
    h1_position = next((i for i, el in enumerate(root.iter()) if el is heading), 0)
    out: dict[str, Any] = {"name": h1 or (heading.text_content().strip() if heading is not None else "")}
    prices = _visible_prices(root, h1_position, struck_amounts)
    if prices:
        out["price"], out["currency"] = prices[0].amount, prices[0].currency
    out.update(_identifiers(root, body_text))
    out["availability"] = _visible_availability(root, body_text[:6000])
    return {k: v for k, v in out.items() if v}


def _structured(html: str, url: str, h1: str) -> tuple[dict[str, str], str]:
    """The first product in the structured data, and the syntax it came from."""
    import extruct  # imported here: it pulls in lxml and rdflib, only needed off the GUI thread

    try:
        data = extruct.extract(html, base_url=url or None, syntaxes=["json-ld", "microdata", "opengraph"],
                               uniform=True, errors="ignore")
    except Exception:
        log.debug("extruct failed on %s", url, exc_info=True)
        data = {}
    for syntax in ("json-ld", "microdata"):
        for item in _walk_items(data.get(syntax, [])):
            if "product" in _types(item) or "productgroup" in _types(item):
                product = _from_schema_product(item)
                if product.get("name") or product.get("price"):
                    return product, syntax
    for og in data.get("opengraph", []):
        if not isinstance(og, dict):
            continue
        amount = og.get("product:price:amount") or og.get("og:price:amount")
        if str(og.get("@type", "")).lower().startswith("product") or amount:
            product = {
                "name": str(og.get("og:title", "") or h1),
                "price": str(amount or ""),
                "currency": str(og.get("product:price:currency") or og.get("og:price:currency") or ""),
                "brand": str(og.get("product:brand", "") or ""),
                "availability": str(og.get("product:availability") or og.get("og:availability") or ""),
                "sku": str(og.get("product:retailer_item_id", "") or ""),
            }
            return {k: v for k, v in product.items() if v}, "opengraph"
    return {}, ""


def _hint_amounts(hints: list[dict[str, Any]], struck: bool) -> set[str]:
    from price_parser import Price

    out = set()
    for hint in hints:
        price = Price.fromstring(str(hint.get("text", "")))
        single = len(_PRICE_RE.findall(str(hint.get("text", "")))) <= 1  # "$80 $64" says nothing alone
        if price.amount is not None and bool(hint.get("struck")) == struck and (struck or single):
            out.add(f"{price.amount:.2f}")
    return out


def _nearness(hint: dict[str, Any]) -> tuple[bool, float]:
    """Sort key for the script's price texts: not struck first, then nearest the buy button or h1."""
    near = [float(d) for d in (hint.get("buy"), hint.get("h1")) if isinstance(d, int | float)]
    return bool(hint.get("struck")), min(near) if near else float("inf")


def extract_product(html: str, url: str, *, h1: str = "", price_texts: Iterable[dict[str, Any] | str] = (),
                    text: str = "", page_html: str = "") -> dict[str, Any] | None:
    """The product on a page: structured data (JSON-LD, microdata, Open Graph) field by field,
    completed from the visible page (``page_html``: the current price near the heading, not a struck,
    "was", per-unit or related product's price; identifiers from specification tables; stock from the
    buy button and wording in several languages). ``source`` names the structured syntax (or "visible
    text"); ``sources`` says where each field came from."""
    structured, syntax = _structured(html, url, h1)
    hints = [t if isinstance(t, dict) else {"text": str(t)} for t in price_texts]
    # Amounts the page shows only struck through (the page script sees CSS line-through too).
    struck_amounts = _hint_amounts(hints, True) - _hint_amounts(hints, False)
    visible = _visible(page_html, h1, text, struck_amounts) if page_html else {}
    if not visible.get("price") and not structured.get("price"):
        # No price in the page as parsed: the script's price-styled texts, then the text near the top.
        from price_parser import Price

        styled = [str(h.get("text", "")) for h in sorted(hints, key=_nearness) if not h.get("struck")]
        candidates = [*styled]
        if text:
            candidates += [m.group(0) for m in _PRICE_RE.finditer(text[:5000])][:5]
        for candidate in candidates:
            price = Price.fromstring(candidate)
            if price.amount is not None and (price.currency or candidate in styled):
                visible.update(price=f"{price.amount:.2f}", currency=_currency_code(price.currency))
                break
    if not structured and not visible.get("price"):
        return None
    product: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in PRODUCT_KEYS:
        if structured.get(key):
            product[key], sources[key] = structured[key], syntax
        elif visible.get(key) and (key != "currency" or "price" not in structured):
            product[key], sources[key] = visible[key], visible.get(f"{key}_source", "visible text")
    if product.get("availability"):
        product["availability"] = _availability(product["availability"])
    if product.get("currency"):
        product["currency"] = _currency_code(product["currency"])
    if re.fullmatch(r"\d+(?:\.\d+)?", str(product.get("price", ""))):
        product["price"] = f"{float(product['price']):.2f}"
    product["source"] = syntax or "visible text"
    product["sources"] = {k: v for k, v in sources.items() if v}
    return product
