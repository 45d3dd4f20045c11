"""The product as the page shows it: the current price, SKU/MPN/GTIN and availability read from the
rendered page, for ``product.extract_product`` to weigh against the structured data.

Price: the page script's ``priceTexts`` (core/tools/js/page) give every price shown with what tells
the product's current price from the others (struck through, font size, distance to the heading
and the buy button, inside the product's block or in the site's chrome, a pinned bar, another
product's tile, and the words around it); here the words are read in several languages ("was",
"UVP", per unit, instalments, savings, shipping and thresholds, totals, other sellers' offers) and
the current price is the largest good one in the product's block, nearest the heading and the buy
button. Without those texts, the page's HTML is read the same way with lxml, with less to go on.

Identifiers: specification tables, definition lists and "Label: value" texts ("SKU: ...",
"Model # ...", "Art.-Nr. ...", "型番", "JANコード"), those in the product's block first.

Availability: the product's button (buy, pre-order, notify me; disabled or not), then stock wording
in the product's block in several languages ("Only 3 left", "Ausverkauft", "Últimas unidades",
"売り切れ").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jawad_desktop.core.lazy_pattern import LazyPattern

_CURRENCY_SYMBOLS = {"$": "USD", "US$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "￥": "JPY", "円": "JPY", "₹": "INR",
                     "₩": "KRW", "₽": "RUB", "₺": "TRY", "CHF": "CHF", "C$": "CAD", "A$": "AUD", "R$": "BRL",
                     "zł": "PLN", "Kč": "CZK", "kr": "SEK", "د.إ": "AED", "ر.س": "SAR", "Dhs": "AED", "AED": "AED",
                     "SAR": "SAR"}


def currency_code(symbol: str | None) -> str:
    """An ISO 4217 code for a currency sign or code as pages write it ("€" -> "EUR")."""
    if not symbol:
        return ""
    symbol = symbol.strip()
    if re.fullmatch(r"[A-Z]{3}", symbol):
        return symbol
    return _CURRENCY_SYMBOLS.get(symbol, symbol)


# A price in text: a sign or code then a number, or a number then a sign or code (and no digit after
# it: "Only 3 $5" is $5). Digits are grouped by threes ("1 299,99", "1.234,56", "1'299"), then cents
# or a dash for none ("149,-", "1'299.–").
_CUR = r"(?:US\$|C\$|A\$|R\$|[$£€¥￥₹₩₽₺円]|\b(?:USD|EUR|GBP|JPY|PLN|CHF|SEK|NOK|DKK|CZK|CAD|AUD)\b|zł|Kč|\bkr\b)"
_NUM = r"\d+(?:[.,'’\u00a0\u202f\u2009 ]\d{3})*(?:[.,]\d{1,2})?(?:[.,][-–]{1,2})?"
PRICE_RE = LazyPattern(rf"{_CUR}\s?{_NUM}|{_NUM}\s?{_CUR}(?!\s?\d)")


def parse_price(text: str) -> tuple[str, str] | None:
    """("1249.00", "USD") for a price text, or None when it holds no amount. An amount of nothing is
    none: "$0.00" is a placeholder (an empty cart, a price a script never filled in), never what the
    product costs."""
    from price_parser import Price

    cleaned = re.sub(r"([.,])[-–]{1,2}", r"\g<1>00", text).replace("’", "'")  # "1.299,–" is 1299.00
    price = Price.fromstring(cleaned)
    if price.amount is None or price.amount == 0:
        return None
    return f"{price.amount:.2f}", currency_code(price.currency)


# -- the words around a price ------------------------------------------------------------------------
# ``before`` ends where the price starts and ``after`` starts where it ends; "¤" stands for a
# neighbouring price in the same block (the page script cuts the context there).

_WORDS_BEFORE = {
    "old": r"(?:\bwas|\bbefore|\breg\.?|\bregular(?:\s+price)?|\boriginal(?:\s+price)?(?:\s+was)?|"
           r"\blist(?:\s+price)?|\brrp|\bmsrp|\btypical(?:\s+price)?|\bcompare\s+at|\buvp|\bstatt|\bbisher|"
           r"\boriginalpreis|\bursprünglich|\bavant|\bau lieu de|\bprix (?:barré|de référence|conseillé)|\bantes|"
           r"\bprecio anterior|\bprima|\binvece di|\bprezzo (?:consigliato|di listino)|\bvan\b|\bvoorheen|"
           r"\badviesprijs|\bprzed|\bcena regularna|通常価格|定価|参考価格|希望小売価格)\W{0,3}$",
    "lowest": r"(?:\blowest|\bniedrigster|\bnajniższa|\bmás bajo|\bplus bas|\bpiù basso|\blaagste|\bomnibus)"
              r"[^¤]{0,60}$",
    "unit": r"(?:\bunit price|\bgrundpreis|\bprix au (?:kg|litre)|\bprecio por (?:kg|litro)|\bprezzo al (?:kg|litro)|"
            r"\bcena za|\bper (?:kg|lb|oz|litre|liter)|単価)\W{0,3}$",
    "instalment": r"(?:\bpayments? of|\binstall?ments? of|\b\d+\s*[x×]\s*|\braten? (?:à|von|ab)|\brate da|\bplazos? de|"
                  r"\bcuotas? de|\bas low as|\bfrom\s+\S*\s*/\s*mo|\bfinanzierung ab|\bratenzahlung ab|"
                  r"\bmensualités? de|\btermijnen van|\bpay in \d+|\bpaga in \d+|\bpague en \d+)\W{0,3}$",
    "saving": r"(?:\bsave(?:\s+(?:an?\s+)?(?:extra|additional|up to))?|\bdiscount|\bsaving|\bsparen|\bersparnis|"
              r"\bsie sparen|\béconomi\w*|\bahorr\w*|\brisparmi\w*|"
              r"\bbespaar\w*|\boszczędz\w*|お得)\W{0,3}$",
    "total": r"(?:\btotal(?:\s+price)?|\bsubtotal|\bsub-total|\bsumme|\bgesamt\w*|\bzwischensumme|\bsous-total|"
             r"\btotale|\btotaal|\brazem|\bsuma|合計|小計|\bcart|\bbasket|\bbag|\bwarenkorb|\bpanier|\bcesta|"
             r"\bcarrello|\bwinkelwagen|\bkoszyk|買い物かご)\b[^¤]{0,12}$",
    "shipping": r"(?:\bshipping|\bdelivery|\bpostage|\bversand\w*|\blieferung|\blivraison|\benv[ií]o|\bspedizion\w*|"
                r"\bverzend\w*|\bbezorg\w*|\bdostaw\w*|\bwysyłk\w*|送料)[^¤]{0,45}$",
    "threshold": r"(?:\b(?:orders?|purchases?|spend|bestellungen|commandes?|pedidos?|ordini|bestellingen|zamówienia)\s+"
                 r"(?:\w+\s+)?(?:over|above|of|from|ab|dès|de más de|sopra|vanaf|od|a partir de)|"
                 r"\ba partir de|\bsopra i|\bab einem bestellwert von)\W{0,3}$",
    "deposit": r"(?:\bdeposit|\banzahlung|\bacompte|\bdep[óo]sito|\bacconto|\baanbetaling|\bzaliczk\w*|頭金|予約金)\b"
               r"[^¤]{0,20}$",
    "tier": r"(?:\bbuy \d+\s+(?:for|get)|\bany \d+\s+for|\b\d+\s+for|\bkaufe \d+|\bachetez \d+|\bcompra \d+)\W{0,3}$",
    "other offer": r"(?:\b(?:sellers?|offers|angebote|vendeurs|verkopers|vendedores|venditori|sprzedawc\w*)\b"
                   r"[^¤]{0,40}|\b(?:new|used|neuf|occasion|gebraucht|usato|nuevo|refurbished|open-box)\b[^¤]{0,12}"
                   r"\b(?:from|dès|ab|vanaf|desde|da|od))\W{0,3}$",
    "add-on": r"(?:\bprotection|\bwarranty|\bgarantie|\bgarant[íi]a|\bgaranzia|\bgwarancj\w*|\bgift wrap\w*|"
              r"\binstallation|\bassembly|保証)\b[^¤]{0,20}$",
    "pay later": r"(?:^|\W)(?<!you )pay\W{0,3}$",
    "range high": r"^¤\s*(?:[-–—~]|to|bis|à|a|tot|do|〜|～)\s*$",
}
_WORDS_AFTER = {
    "unit": r"^\s*(?:/|per\b|je\b|pro\b|par\b|por\b|al\b|each\b|ea\.|la pièce|cada\b|cad\.|/ea)",
    "monthly": r"^\s*(?:/\s*(?:mo|month|mes|mois|monat|mese|mnd|mies)|a month|per month|mtl|monatlich|"
               r"x \d+ (?:mois|meses|mesi))",
    "pay later": r"^\s*(?:with|con|mit|avec|met|z)\s+(?:klarna|afterpay|affirm|shop pay|paypal|sezzle|zip|clearpay|"
                 r"alma|scalapay)|^\s*after\b",
    "discount": r"^\s*(?:off\b|de (?:descuento|réduction)|rabatt|korting|di sconto)",
    "threshold": r"^\s*(?:or more|and up|or above|以上|away|more (?:to|for)|left (?:for|until)|until free)",
    "other offer": r"^\s*(?:used|new\b|refurbished|gebraucht|occasion|usato|reacondicionado)",
    "shipping": r"^\s*(?:shipping|delivery|versand|livraison|env[ií]o|spedizione|verzending|dostawa)\b",
    "deposit": r"^\s*(?:deposit|down payment|anzahlung|d'acompte|acompte|de depósito|di acconto|aanbetaling|zaliczk)",
}
_BEFORE_RES = {name: LazyPattern(rx, re.I) for name, rx in _WORDS_BEFORE.items()}
_AFTER_RES = {name: LazyPattern(rx, re.I) for name, rx in _WORDS_AFTER.items()}


def context_flag(before: str, after: str) -> str:
    """What the words next to a price make of it ("old", "unit", "instalment", "shipping", ...), or ""."""
    before = before[-70:]
    for name, rx in _BEFORE_RES.items():
        if rx.search(before):
            return name
    # "$5 shipping", "$1.25 / Count", "$9/mo", "$100 OFF": only a word right after the price counts.
    after = after[:40]
    for name, rx in _AFTER_RES.items():
        if rx.search(after):
            return name
    return ""


@dataclass
class PriceHint:
    """One price the page shows, as the page script measured it (see ``priceTexts``)."""

    amount: str
    currency: str
    struck: bool
    size: float
    main: bool
    zone: str
    flag: str  # what its words make of it; "" when nothing
    near: float  # pixels to the buy button or the heading, whichever is nearer

    @property
    def good(self) -> bool:
        return not (self.struck or self.zone or self.flag)


def price_hints(texts: Iterable[dict[str, Any] | str]) -> list[PriceHint]:
    """The script's price texts, parsed and judged, best first: good ones in the product's block,
    the largest, then the nearest the heading and the buy button."""
    hints = []
    for raw in texts:
        item = raw if isinstance(raw, dict) else {"text": str(raw)}
        parsed = parse_price(str(item.get("text", "")))
        if parsed is None:
            continue
        near = [float(d) for d in (item.get("buy"), item.get("h1")) if isinstance(d, int | float)]
        # A class naming it the old price counts beside another price in its block (a style sheet
        # would strike it); alone there, it is the price ("price-standard" without a sale).
        named_old = bool(item.get("old")) and "¤" in f"{item.get('before', '')}{item.get('after', '')}"
        hints.append(PriceHint(
            amount=parsed[0], currency=parsed[1],
            struck=bool(item.get("struck")) or named_old,
            size=float(item.get("size") or 0), main=bool(item.get("main")), zone=str(item.get("zone") or ""),
            flag=context_flag(str(item.get("before") or ""), str(item.get("after") or "")),
            near=min(near) if near else float("inf")))
    return sorted(hints, key=lambda h: (not h.good, not h.main, -round(h.size), h.near))


@dataclass
class VisiblePrice:
    """The current price as the page shows it, and how sure that is."""

    amount: str
    currency: str
    confident: bool  # in the product's block (or, on a page without one, right by the heading)
    shown: set[str] = field(default_factory=set)  # the good amounts shown in the product's block


def visible_price(texts: Iterable[dict[str, Any] | str]) -> VisiblePrice | None:
    hints = price_hints(texts)
    good = [h for h in hints if h.good]
    if not good:
        return None
    best = good[0]
    confident = best.main or (not any(h.main for h in hints) and best.near <= 400)
    shown = {h.amount for h in good if h.main or h.near <= 400}
    return VisiblePrice(best.amount, best.currency, confident, shown)


def struck_amounts(texts: Iterable[dict[str, Any] | str]) -> set[str]:
    """Amounts the page shows only struck through (or otherwise as not the price)."""
    bad: set[str] = set()
    good: set[str] = set()
    for hint in price_hints(texts):
        (good if hint.good else bad).add(hint.amount)
    return bad - good


# -- the page's HTML: the heading, the product's button and block ----------------------------------------

_SKIP_TAGS = {"script", "style", "noscript", "template", "head", "title"}
_CHROME_TAGS = {"header", "nav", "footer", "aside"}
_CHROME_ROLES = {"banner", "navigation", "contentinfo", "complementary"}

# The product's own buttons, by what they say.
_ACTION_WORDS = (
    ("notify", LazyPattern(r"notify me|email me when|back in stock|benachrichtig|m'alerter|me prévenir|avísame|"
                          r"avvisami|houd me op de hoogte|powiadom|再入荷|入荷お知らせ|入荷通知", re.I)),
    ("preorder", LazyPattern(r"pre-?order|vorbestellen|précommander|pré-commander|reservar|preordina|pre-?bestel|"
                            r"przedsprzedaż|予約", re.I)),
    ("soldout", LazyPattern(r"^\W*(?:sold out|out of stock|unavailable|ausverkauft|épuisé|agotado|esaurito|"
                           r"uitverkocht|wyprzedan\w*|売り切れ|在庫切れ)\W*$", re.I)),
    ("buy", LazyPattern(r"add to (?:cart|bag|basket|trolley)|buy (?:it |now)|^\W*(?:add|buy|kaufen|acheter|comprar|"
                       r"compra|kopen|kup)\W*$|in den (?:warenkorb|einkaufswagen)|ajouter au panier|"
                       r"añadir a la cesta|añadir al carrito|aggiungi al carrello|in (?:de )?winkelwagen|"
                       r"dodaj do koszyka|カートに入れる|かごに入れる|カートに追加|購入する", re.I)),
)

_STOCK_WORDS = (
    ("PreOrder", LazyPattern(r"\bpre-?order|\bpré-?commande|\bvorbestell|\breserva(?:r)? ahora|\bpreventa|"
                            r"\bpreordin|\bprzedsprzedaż|予約受付|予約商品", re.I)),
    ("OutOfStock", LazyPattern(r"\bsold out|\bout of stock|\bcurrently unavailable|\btemporarily unavailable|"
                              r"\bno longer available|\bback soon|\bausverkauft|\bnicht (?:auf lager|verfügbar|"
                              r"lieferbar)|\bderzeit nicht|\bvergriffen|épuisé|\brupture de stock|\bindisponible|"
                              r"\bplus disponible|\bagotado|\bsin stock|\bno disponible|\besgotado|\besaurito|"
                              r"\bnon disponibile|\buitverkocht|\bniet (?:leverbaar|op voorraad|beschikbaar)|"
                              r"\bniedostępny|\bwyprzedan|\bbrak w magazynie|売り切れ|在庫切れ|品切れ|在庫なし|完売",
                              re.I)),
    ("LimitedAvailability", LazyPattern(
        r"\bonly \d+ (?:left|in stock)|\bfew left|\blow stock|\balmost gone|\blimited stock|\bnur noch (?:\d+|wenige)|"
        r"\bplus que \d+|\bderniers? articles|\bstock limité|\búltimas unidades|\bquedan? \d+|\bsolo quedan|"
        r"\bultimi (?:pezzi|\d+)|\bne restano|\bdisponibilità limitata|\bnog (?:maar )?\d+|\blaatste \d+|"
        r"\bzostał[oa]? \d+|\bostatnie sztuki|残りわずか|残り\d+(?:点|個)|在庫僅少", re.I)),
    ("InStock", LazyPattern(r"\bin stock\b|\bavailable now\b|\bready to ship\b|\bships today\b|\bauf lager\b|"
                           r"\bsofort lieferbar\b|\blieferbar\b|\ben stock\b|\ben existencia\b|\bdisponible\b|"
                           r"\bdisponibile\b|\bop voorraad\b|\bleverbaar\b|\bdostępny\b|\bna stanie\b|"
                           r"\bw magazynie\b|在庫あり", re.I)),
)


def _is_tag(el: Any) -> bool:
    return isinstance(el.tag, str)


def _text(el: Any) -> str:
    """The element's text, words kept apart (``text_content`` glues table cells)."""
    return re.sub(r"\s+", " ", " ".join(t for t in el.itertext())).strip()


def _in_chrome(el: Any, heading: Any) -> bool:
    """Whether the element is in the site's header, nav, footer or aside (one that does not hold
    the heading: some pages put the product's title in a <header> of its own)."""
    for node in (el, *el.iterancestors()):
        if node.tag in _CHROME_TAGS or node.get("role") in _CHROME_ROLES:
            return heading is None or node not in set(heading.iterancestors())
    return False


def _depth(el: Any) -> int:
    return sum(1 for _ in el.iterancestors())


def _common(a: Any, b: Any) -> Any:
    ancestors = {id(n): n for n in (a, *a.iterancestors())}
    for node in (b, *b.iterancestors()):
        if id(node) in ancestors:
            return node
    return None


def _button_label(el: Any) -> str:
    if el.tag == "input":
        return el.get("value", "") if el.get("type", "").lower() in ("submit", "button") else ""
    if el.tag == "a" and not (el.get("role") == "button" or re.search(r"\b(?:btn|button)", el.get("class", ""))):
        return ""
    return _text(el)


def action_kind(label: str) -> str:
    """What a button's label does to a product: "buy", "preorder", "soldout", "notify", or ""."""
    if not label or len(label) > 60:
        return ""
    return next((kind for kind, rx in _ACTION_WORDS if rx.search(label)), "")


@dataclass
class PageFacts:
    """What the page's HTML says of the product: its block, its button, identifiers, availability."""

    name: str = ""
    availability: str = ""
    ids: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (value, where it came from)
    action: str = ""  # the kind of the product's button ("buy", "preorder", "soldout", "notify"), "" for none


def _heading(root: Any) -> Any:
    headings = list(root.iter("h1"))
    return next((h for h in headings if not _in_chrome(h, None)), headings[0] if headings else None)


def _action(root: Any, heading: Any) -> tuple[Any, str, bool] | None:
    """The product's button: (element, kind, enabled), the one sharing the deepest block with the heading."""
    best: tuple[tuple[int, int], Any, str, bool] | None = None
    order = {el: i for i, el in enumerate(root.iter())} if heading is not None else {}
    h_at = order.get(heading, 0)
    for el in root.iter("button", "input", "a"):
        kind = action_kind(_button_label(el))
        if not kind or _in_chrome(el, heading):
            continue
        enabled = el.get("disabled") is None and el.get("aria-disabled") != "true" and not re.search(
            r"\bdisabled\b", el.get("class", ""))
        kin = _depth(_common(el, heading)) if heading is not None else 0
        key = (kin, -abs(order.get(el, 0) - h_at))
        if best is None or key > best[0]:
            best = (key, el, kind, enabled)
    return (best[1], best[2], best[3]) if best else None


def _block(heading: Any, action: Any) -> Any:
    """The product's block: the smallest one holding the heading and its button, else the heading's
    nearest ancestor with some text."""
    if heading is None:
        return None
    if action is not None:
        block = _common(heading, action)
        if block is not None and block.tag not in ("body", "html"):
            return block
    for node in heading.iterancestors():
        if node.tag in ("body", "html"):
            break
        if len(_text(node)) >= 300:
            return node
    return None


def _stock_from_words(text: str) -> str:
    for value, rx in _STOCK_WORDS:
        if rx.search(text):
            return value
    return ""


def _availability(block_text: str, action: tuple[Any, str, bool] | None) -> str:
    """From the product's button, then from the words in the product's block."""
    if action is not None:
        _el, kind, enabled = action
        if kind == "preorder" and enabled:
            return "PreOrder"
        if kind == "buy" and enabled:
            few = _STOCK_WORDS[2][1].search(block_text)
            return "LimitedAvailability" if few else "InStock"
        if kind in ("notify", "soldout") or not enabled:
            return "OutOfStock"
    return _stock_from_words(block_text)


# -- identifiers ---------------------------------------------------------------------------------------

_ID_LABELS = {
    "gtin": r"gtin(?:-?\d+)?|ean(?:-?13)?|ean/upc|upc|isbn(?:-?1[03])?|barcode|(?:code )?ean|ean[- ]code|"
            r"jan(?:コード| code)?|kod ean",
    "mpn": r"mpn|model|model\s*(?:#|no\.?|number|name)|item model number|manufacturer part (?:number|no\.?|#)|"
           r"mfr\.? part\s*(?:#|no\.?|number)?|part\s*(?:number|no\.?|#)|herstellernummer|"
           r"hersteller-?(?:artikel)?nr\.?|"
           r"hersteller-?artikelnummer|modellnummer|r[ée]f[ée]rence fabricant|n[°º] de mod[èe]le|n[úu]mero de modelo|"
           r"codice produttore|modello|fabrikantcode|typenummer|kod producenta|model producenta|型番|品番|メーカー型番",
    "sku": r"sku|store sku\s*#?|item\s*(?:#|no\.?|number|code)|article\s*(?:#|no\.?|number)|art\.?\s*-?\s*nr\.?|"
           r"artikel-?(?:nummer|nr\.?)|bestell-?(?:nummer|nr\.?)|product\s*(?:code|no\.?|number|#|id)|"
           r"r[ée]f[ée]rence|r[ée]f\.?|referencia|riferimento|codice (?:prodotto|articolo)|cod\.?\s*art\.?|"
           r"c[óo]digo(?: de (?:producto|artículo))?|artikelcode|productcode|kod (?:produktu|towaru)|"
           r"商品番号|商品コード",
}
_LABEL_FULL = {key: LazyPattern(rf"(?:{rx})", re.I) for key, rx in _ID_LABELS.items()}
_LABELS = "|".join(f"(?:{rx})" for rx in _ID_LABELS.values())
_LABEL_START = LazyPattern(rf"(?:{_LABELS})(?![A-Za-z])", re.I)
_VALUE = r"[A-Za-z0-9][A-Za-z0-9._/\-]{1,40}"
# "SKU: 123", "Model # KH-1", "Store SKU #100", "Reference SRM-500", "型番：TB-1".
_INLINE_ID = LazyPattern(rf"^\s*(?P<label>(?:{_LABELS}))(?![A-Za-z])\s*(?:[:#：.]\s*)*(?P<value>{_VALUE})"
                        r"(?=\s|$|[,;·|)])", re.I)
_BIDI = LazyPattern("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _id_key(label: str) -> str:
    label = _BIDI.sub("", label).strip().rstrip(":：").strip()
    for text in (label, label.rstrip("#").strip()):  # "Item #" is a label, and so is "Store SKU" of "Store SKU #"
        key = next((key for key, rx in _LABEL_FULL.items() if rx.fullmatch(text)), "")
        if key:
            return key
    return ""


def _id_value(key: str, value: str) -> str:
    value = _BIDI.sub("", value).strip()
    if key == "gtin":
        digits = re.sub(r"[\s-]", "", value)
        return digits if re.fullmatch(r"\d{8}|\d{10}|\d{12,14}", digits) else ""
    if not value or len(value) > 60 or " " in value.strip():
        return ""
    # A code has a digit, or is upper case in parts ("FH-MZH-NVY"); "Yes", "N/A" are not codes.
    if re.search(r"\d", value) or re.fullmatch(r"[A-Z0-9]+(?:[-_.][A-Z0-9]+)+", value):
        return value
    return ""


def _pairs(root: Any) -> Iterator[tuple[Any, str, str, str]]:
    """(element, label, value, where) from specification tables and definition lists."""
    for row in root.iter("tr"):
        cells = [c for c in row if _is_tag(c) and c.tag in ("th", "td")]
        if len(cells) == 2:
            yield row, _text(cells[0]), _text(cells[1]), "table"
    for dt in root.iter("dt"):
        dd = dt.getnext()
        if dd is not None and dd.tag == "dd":
            yield dt, _text(dt), _text(dd), "definition list"


def _inline(root: Any) -> Iterator[tuple[Any, str, str, str]]:
    """(element, label, value, "visible text") from short "Label: value" texts: "SKU: 123",
    ``<p>Item #: <span>A-1</span> · Model # B-2</p>``, ``<label>Reference</label> <span>R-5</span>``."""
    for el in root.iter():
        if not _is_tag(el) or el.tag in _SKIP_TAGS or el.tag in ("tr", "dt", "dd", "th", "td", "table", "dl"):
            continue
        kids = [c for c in el if _is_tag(c)]
        # Each run of text in the element (its first text, and the text after each child) may
        # start with a label; its value follows in the run or in the next element.
        runs = [(el.text, kids[0] if kids else None), *((c.tail, c.getnext()) for c in kids if c.tail)]
        for i, (run, following) in enumerate(runs):
            start = _BIDI.sub("", run or "").strip().lstrip("·|,;/–- ")
            if not start or not _LABEL_START.match(start):
                continue
            text = start
            if not _INLINE_ID.match(text):
                if following is not None:
                    text = f"{start} {_text(following)[:80]}"
                elif i == 0 and not kids:  # the label alone in its element: the value is next to it
                    after = el.getnext()
                    text = f"{start} {el.tail or ''} {_text(after)[:80] if after is not None else ''}"
            match = _INLINE_ID.match(_BIDI.sub("", text))
            if match:
                yield el, match.group("label"), match.group("value"), "visible text"


def _identifiers(root: Any, block: Any) -> dict[str, tuple[str, str]]:
    """SKU, MPN and GTIN, each (value, where): from the product's block first, then the page."""
    inside = set(block.iter()) if block is not None else set()
    found: dict[str, tuple[int, str, str]] = {}
    for rank_base, source in ((0, _pairs(root)), (1, _inline(root))):
        for el, label, value, where in source:
            key = _id_key(label)
            if not key:
                continue
            value = _id_value(key, value)
            if not value:
                continue
            rank = (0 if el in inside else 2) + rank_base
            if key not in found or rank < found[key][0]:
                found[key] = (rank, value, where)
    return {key: (value, where) for key, (_rank, value, where) in found.items()}


def read_html(page_html: str) -> tuple[Any, PageFacts]:
    """The page's HTML parsed (lxml root or None) and what it says of the product."""
    import lxml.html

    try:
        root = lxml.html.fromstring(page_html) if page_html.strip() else None
    except (ValueError, lxml.etree.ParserError):
        root = None
    if root is None:
        return None, PageFacts()
    heading = _heading(root)
    action = _action(root, heading)
    block = _block(heading, action[0] if action else None)
    block_text = _text(block) if block is not None else _text(root)[:6000]
    facts = PageFacts(name=_text(heading) if heading is not None else "",
                      availability=_availability(block_text, action),
                      ids=_identifiers(root, block), action=action[1] if action else "")
    return root, facts


# -- prices from the HTML alone (no page script) ------------------------------------------------------

_PRICE_CLASS = LazyPattern(r"price|preis|prix|precio|prezzo|cena|cost|amount", re.I)
_OLD_CLASS = LazyPattern(r"(?:\b|_)(?:was|old|strike|crossed|compare|original|regular|list|rrp|uvp)", re.I)
_UNIT_CLASS = LazyPattern(r"unit|per-|per_|perunit", re.I)
_RELATED_CLASS = LazyPattern(r"related|recommend|similar|carousel|slider|swiper|upsell|cross-?sell|also|recently|"
                            r"sponsor|shelf", re.I)
_STRUCK_TAGS = {"s", "del", "strike"}


def _classes(el: Any) -> str:
    return f"{el.get('class', '')} {el.get('id', '')} {el.get('itemprop', '')}"


def _struck(el: Any) -> bool:
    return bool(el.tag in _STRUCK_TAGS or "line-through" in el.get("style", "") or _OLD_CLASS.search(_classes(el)))


def _joined_text(el: Any) -> str:
    """The element's text with superscript cents joined as decimals (``$<span>12</span><sup>99</sup>``)."""
    parts: list[str] = []
    for node in el.iter():
        if not _is_tag(node) or node.tag in _SKIP_TAGS:
            continue
        if node is not el and any(_struck(n) for n in (node, *node.iterancestors()) if n is not el):
            continue  # an old price inside the price box is its own (struck) candidate
        if node.text:
            prefix = "." if node.tag == "sup" and parts and parts[-1][-1:].isdigit() else ""
            parts.append(prefix + node.text.strip())
        if node is not el and node.tail:
            parts.append(node.tail.strip())
    return re.sub(r"(?<=[^\d\s])(?=\d)|(?<=\d)(?=[^\d\s.,])", "", "".join(p for p in parts if p))


def _flags(el: Any, heading: Any) -> bool:
    """Whether an element is struck, a unit price, or in the site's chrome or another product's block."""
    node = el
    while node is not None and _is_tag(node):
        cls = _classes(node)
        if _struck(node) or _UNIT_CLASS.search(cls):
            return True
        if (_RELATED_CLASS.search(cls) or node.tag in _CHROME_TAGS) and (
                heading is None or heading not in set(node.iter())):
            return True
        node = node.getparent()
    return False


def html_price(root: Any, struck: set[str]) -> tuple[str, str] | None:
    """The current price from the HTML alone: not struck, "was", per unit or another product's;
    the nearest after the main heading (before it, the nearest)."""
    heading = _heading(root)
    position = {el: i for i, el in enumerate(root.iter())}
    h_at = position.get(heading, 0)
    candidates: list[tuple[bool, bool, int, str, str]] = []
    seen: set[Any] = set()  # elements, not id()s: lxml proxies are only stable while referenced
    for el in root.iter():
        if not _is_tag(el) or el.tag in _SKIP_TAGS:
            continue
        texts: list[tuple[str, str, str]] = []  # (price, before, after)
        if el.get("data-price") and re.fullmatch(r"\d+(?:\.\d+)?", el.get("data-price", "").strip()):
            code = el.get("data-currency", "") or ((parse_price(_joined_text(el)) or ("", ""))[1])
            texts.append((f"{code} {el.get('data-price')}", "", ""))
        elif (_PRICE_CLASS.search(_classes(el)) and not any(a in seen for a in el.iterancestors())
              and not any(_PRICE_CLASS.search(_classes(d)) for d in el.iterdescendants() if _is_tag(d))):
            joined = _joined_text(el)
            texts = [(m.group(0), joined[:m.start()], joined[m.end():]) for m in PRICE_RE.finditer(joined)]
            if texts:
                seen.add(el)
        elif not any(a in seen for a in el.iterancestors()):
            own = (el.text or "").strip()
            texts = [(m.group(0), own[:m.start()], own[m.end():]) for m in PRICE_RE.finditer(own)]
        if not texts:
            continue
        flagged = _flags(el, heading)
        for text, before, after in texts:
            parsed = parse_price(text)
            if parsed is None or not parsed[1]:
                continue
            bad = flagged or bool(context_flag(before, after)) or parsed[0] in struck
            at = position[el]
            candidates.append((bad, at < h_at, abs(at - h_at), parsed[0], parsed[1]))
    best = min(candidates, default=None)
    if best is None or best[0]:  # only prices that are not the product's: better none than a wrong one
        return None
    return best[3], best[4]
