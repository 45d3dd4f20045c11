# ruff: noqa: E501  (HTML is written in long literal lines; wrapping them would not make it clearer)
"""The harder product development set: full-size shop pages built the way real platforms render a
product page (Shopify's Dawn, WooCommerce's Storefront, Magento's Luma, BigCommerce's Cornerstone,
a big marketplace, European and Japanese shops), with what surrounds the product on a real page:
announcement bars, mega menus, mini-carts with subtotals, cookie banners, sticky bars, carousels
of other products with their own prices and buttons, instalment and shipping lines, reviews that
quote prices, specification tables and long footers.

``python tests/pages/products/real/generate.py`` rewrites every page (``*.html``) and its expected
fields (``*.json``: price, currency and, where the page shows them, sku, mpn, gtin, availability)
in this folder. Shops, brands, products, codes and texts are all invented.
Scored by tests/browser/product_score.py (``devset("real")``); read by
tests/browser/test_product_devset.py and benchmarks/bench_products.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGES: dict[str, Callable[[], tuple[str, dict[str, str]]]] = {}


def page(fn: Callable[[], tuple[str, dict[str, str]]]) -> Callable[[], tuple[str, dict[str, str]]]:
    PAGES[fn.__name__] = fn
    return fn


# -- money as each locale writes it -----------------------------------------------------------------

NBSP, NNBSP = "\u00a0", "\u202f"


def usd(x: float) -> str:
    return f"${x:,.2f}"


def gbp(x: float) -> str:
    return f"£{x:,.2f}"


def eur_de(x: float) -> str:
    return f"{x:,.2f}".replace(",", "#").replace(".", ",").replace("#", ".") + f"{NBSP}€"


def eur_fr(x: float) -> str:
    return f"{x:,.2f}".replace(",", NNBSP).replace(".", ",") + f"{NBSP}€"


def eur_it(x: float) -> str:
    return "€" + NBSP + f"{x:,.2f}".replace(",", "#").replace(".", ",").replace("#", ".")


def pln(x: float) -> str:
    return f"{x:,.2f}".replace(",", NBSP).replace(".", ",") + f"{NBSP}zł"


def yen(x: float) -> str:
    return f"{x:,.0f}円"


# -- what every shop page has around the product -----------------------------------------------------

CATEGORIES_EN = {
    "New In": ["This Week", "Bestsellers", "Back in Stock", "Coming Soon", "Gift Cards", "Collaborations",
               "Limited Editions", "Trending Now"],
    "Women": ["Dresses", "Tops & T-Shirts", "Knitwear", "Jeans", "Trousers", "Skirts", "Jackets & Coats",
              "Activewear", "Swimwear", "Lingerie", "Shoes", "Bags", "Accessories", "Jewellery"],
    "Men": ["T-Shirts", "Shirts", "Hoodies & Sweatshirts", "Jeans", "Chinos", "Shorts", "Suits", "Jackets",
            "Coats", "Shoes", "Bags", "Watches", "Underwear"],
    "Home": ["Bedding", "Towels", "Cushions", "Rugs", "Lighting", "Candles", "Kitchen", "Tableware",
             "Storage", "Furniture", "Garden", "Wall Art"],
    "Electronics": ["Headphones", "Speakers", "Chargers & Cables", "Phone Cases", "Smart Home", "Cameras",
                    "Gaming", "Wearables", "Computer Accessories"],
    "Outdoor": ["Tents", "Sleeping Bags", "Backpacks", "Hiking Boots", "Camping Kitchen", "Climbing",
                "Cycling", "Water Sports"],
    "Sale": ["Women's Sale", "Men's Sale", "Home Sale", "Last Chance", "Under $25", "Clearance"],
    "Brands": ["Northwind", "Harbor & Pine", "Kestrel", "Lumen Works", "Oakridge", "Tidewater", "Fernhill"],
}
CATEGORIES_DE = {
    "Neu": ["Neuheiten", "Bestseller", "Wieder da", "Bald erhältlich", "Geschenkgutscheine"],
    "Damen": ["Kleider", "Shirts & Tops", "Strick", "Jeans", "Hosen", "Röcke", "Jacken", "Mäntel", "Schuhe",
              "Taschen", "Accessoires", "Sportbekleidung"],
    "Herren": ["T-Shirts", "Hemden", "Pullover", "Jeans", "Hosen", "Jacken", "Mäntel", "Schuhe", "Uhren"],
    "Wohnen": ["Bettwäsche", "Handtücher", "Kissen", "Teppiche", "Lampen", "Küche", "Geschirr", "Möbel"],
    "Haushalt": ["Kaffeemaschinen", "Küchenmaschinen", "Staubsauger", "Waschmaschinen", "Kühlschränke"],
    "Sale": ["Damen Sale", "Herren Sale", "Wohnen Sale", "Letzte Chance"],
}
CATEGORIES_FR = {
    "Nouveautés": ["Cette semaine", "Meilleures ventes", "Bientôt disponible", "Cartes cadeaux"],
    "Informatique": ["Ordinateurs portables", "PC de bureau", "Écrans", "Claviers", "Souris", "Stockage",
                     "Imprimantes", "Réseau"],
    "Téléphonie": ["Smartphones", "Coques", "Chargeurs", "Montres connectées", "Écouteurs"],
    "TV & Son": ["Téléviseurs", "Barres de son", "Enceintes", "Casques", "Home cinéma"],
    "Électroménager": ["Cafetières", "Robots cuisine", "Aspirateurs", "Lave-linge", "Réfrigérateurs"],
    "Livres": ["Romans", "BD & Mangas", "Jeunesse", "Cuisine", "Voyage"],
    "Bons plans": ["Promotions", "Destockage", "Reconditionné", "Ventes flash"],
}
CATEGORIES_ES = {
    "Mujer": ["Vestidos", "Camisas", "Pantalones", "Abrigos", "Zapatos", "Bolsos", "Complementos"],
    "Hombre": ["Camisetas", "Camisas", "Pantalones", "Trajes", "Zapatos", "Relojes"],
    "Hogar": ["Ropa de cama", "Menaje", "Decoración", "Iluminación", "Muebles"],
    "Electrónica": ["Móviles", "Informática", "Televisores", "Audio", "Fotografía"],
    "Electrodomésticos": ["Cafeteras", "Robots de cocina", "Aspiradoras", "Lavadoras"],
    "Ofertas": ["Rebajas", "Outlet", "Últimas unidades"],
}
CATEGORIES_IT = {
    "Novità": ["Questa settimana", "Più venduti", "In arrivo", "Carte regalo"],
    "Casa": ["Macchine da caffè", "Robot da cucina", "Pentole", "Elettrodomestici", "Illuminazione"],
    "Caffè": ["Caffè in grani", "Caffè macinato", "Capsule", "Cialde", "Accessori"],
    "Regali": ["Per lui", "Per lei", "Confezioni regalo"],
    "Offerte": ["Saldi", "Outlet", "Ultimi pezzi"],
}
CATEGORIES_NL = {
    "Boeken": ["Romans", "Thrillers", "Kinderboeken", "Kookboeken", "Studieboeken", "Engelse boeken"],
    "Elektronica": ["Laptops", "Telefoons", "Koptelefoons", "Televisies", "Smart home", "Gaming"],
    "Wonen": ["Meubels", "Verlichting", "Woonaccessoires", "Tuin", "Keuken"],
    "Speelgoed": ["LEGO", "Bordspellen", "Puzzels", "Buitenspeelgoed", "Knutselen"],
    "Sport": ["Fitness", "Fietsen", "Kamperen", "Hardlopen"],
    "Aanbiedingen": ["Dagdeals", "Weekdeals", "Tweede kans"],
}
CATEGORIES_PL = {
    "Laptopy i komputery": ["Laptopy", "Komputery stacjonarne", "Monitory", "Dyski SSD", "Pamięć RAM",
                            "Karty graficzne", "Procesory"],
    "Smartfony i smartwatche": ["Smartfony", "Smartwatche", "Słuchawki", "Etui", "Ładowarki"],
    "Gaming i streaming": ["Konsole", "Gry", "Fotele gamingowe", "Mikrofony"],
    "Urządzenia peryferyjne": ["Klawiatury", "Myszki", "Drukarki", "Routery"],
    "TV i audio": ["Telewizory", "Soundbary", "Głośniki"],
    "Promocje": ["Hot shot", "Outlet", "Wyprzedaż"],
}
CATEGORIES_JA = {
    "キッチン用品": ["鍋・フライパン", "包丁", "食器", "保存容器", "調理家電"],
    "インテリア": ["照明", "収納", "ラグ", "カーテン", "寝具"],
    "ファッション": ["レディース", "メンズ", "バッグ", "靴", "腕時計"],
    "家電": ["炊飯器", "電子レンジ", "掃除機", "空気清浄機", "ドライヤー"],
    "食品": ["お米", "お茶", "調味料", "お菓子", "ギフト"],
    "セール": ["タイムセール", "訳あり", "アウトレット"],
}


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "x"


def mega_menu(cats: dict[str, list[str]], *, ul_class: str, li_class: str, sub_class: str) -> str:
    """A site navigation with every category and its sub-categories (real menus hold 100+ links)."""
    out = [f'<ul class="{ul_class}" role="list">']
    for top, subs in cats.items():
        links = "".join(f'<li><a href="/collections/{slug(top)}/{slug(s)}" class="{sub_class}__link">{s}</a></li>'
                        for s in subs)
        out.append(f'<li class="{li_class}"><a href="/collections/{slug(top)}" class="{li_class}__link">{top}</a>'
                   f'<div class="{sub_class}"><ul class="{sub_class}__list" role="list">{links}'
                   f'<li><a href="/collections/{slug(top)}" class="{sub_class}__all">{top} →</a></li></ul></div></li>')
    out.append("</ul>")
    return "".join(out)


FOOTER_TEXT = {
    "en": ({"Customer Service": ["Contact Us", "Help Centre", "Track My Order", "Delivery Information",
                                 "Returns & Refunds", "Size Guide", "Product Recalls", "Accessibility"],
            "About Us": ["Our Story", "Sustainability", "Careers", "Press", "Affiliates", "Store Locator",
                         "Corporate Sales"],
            "Shop": ["Gift Cards", "Student Discount", "Refer a Friend", "Rewards Club", "Catalogue"],
            "Legal": ["Terms & Conditions", "Privacy Policy", "Cookie Policy", "Modern Slavery Statement",
                      "Imprint"]},
           "Sign up for our newsletter", "Email address", "Subscribe", "All rights reserved."),
    "de": ({"Service": ["Kontakt", "Hilfe & FAQ", "Sendungsverfolgung", "Versand & Lieferung",
                        "Rücksendung", "Größentabelle", "Zahlungsarten"],
            "Über uns": ["Unternehmen", "Nachhaltigkeit", "Karriere", "Presse", "Filialen"],
            "Rechtliches": ["AGB", "Datenschutz", "Cookie-Einstellungen", "Impressum", "Widerrufsrecht"]},
           "Newsletter abonnieren und 10 % sparen", "E-Mail-Adresse", "Anmelden", "Alle Rechte vorbehalten."),
    "fr": ({"Service client": ["Nous contacter", "Aide", "Suivre ma commande", "Livraison", "Retours",
                               "Garanties", "Paiement sécurisé"],
            "À propos": ["Qui sommes-nous", "Recrutement", "Magasins", "Presse", "Développement durable"],
            "Informations légales": ["CGV", "Données personnelles", "Cookies", "Mentions légales"]},
           "Inscrivez-vous à la newsletter", "Adresse e-mail", "S'inscrire", "Tous droits réservés."),
    "es": ({"Atención al cliente": ["Contacto", "Ayuda", "Seguimiento del pedido", "Envíos", "Devoluciones",
                                    "Formas de pago"],
            "Sobre nosotros": ["Quiénes somos", "Trabaja con nosotros", "Tiendas", "Sostenibilidad"],
            "Legal": ["Condiciones de compra", "Privacidad", "Cookies", "Aviso legal"]},
           "Suscríbete a nuestra newsletter", "Correo electrónico", "Suscribirme", "Todos los derechos reservados."),
    "it": ({"Servizio clienti": ["Contattaci", "Domande frequenti", "Traccia l'ordine", "Spedizioni", "Resi",
                                 "Pagamenti"],
            "Chi siamo": ["La nostra storia", "Lavora con noi", "Negozi", "Sostenibilità"],
            "Note legali": ["Condizioni di vendita", "Privacy", "Cookie", "Note legali"]},
           "Iscriviti alla newsletter", "Indirizzo email", "Iscriviti", "Tutti i diritti riservati."),
    "nl": ({"Klantenservice": ["Contact", "Veelgestelde vragen", "Bestelling volgen", "Bezorging",
                               "Retourneren", "Betalen"],
            "Over ons": ["Ons verhaal", "Werken bij", "Pers", "Verkopen via ons"],
            "Juridisch": ["Algemene voorwaarden", "Privacy", "Cookies", "Disclaimer"]},
           "Schrijf je in voor de nieuwsbrief", "E-mailadres", "Inschrijven", "Alle rechten voorbehouden."),
    "pl": ({"Obsługa klienta": ["Kontakt", "Centrum pomocy", "Status zamówienia", "Dostawa", "Zwroty",
                                "Raty", "Gwarancja"],
            "O nas": ["O firmie", "Kariera", "Salony", "Blog"],
            "Informacje": ["Regulamin", "Polityka prywatności", "Cookies"]},
           "Zapisz się do newslettera", "Adres e-mail", "Zapisz się", "Wszelkie prawa zastrzeżone."),
    "ja": ({"ご利用ガイド": ["お問い合わせ", "よくある質問", "配送について", "返品・交換", "お支払い方法"],
            "会社情報": ["会社概要", "採用情報", "店舗一覧"],
            "規約": ["利用規約", "プライバシーポリシー", "特定商取引法に基づく表記"]},
           "メールマガジン登録", "メールアドレス", "登録する", "All rights reserved."),
}


def footer(lang: str, shop: str, *, cls: str = "site-footer") -> str:
    columns, signup, email, subscribe, rights = FOOTER_TEXT[lang]
    cols = "".join(
        f'<div class="{cls}__block"><h2 class="{cls}__heading">{title}</h2><ul class="{cls}__list">'
        + "".join(f'<li><a href="/pages/{slug(x)}">{x}</a></li>' for x in links) + "</ul></div>"
        for title, links in columns.items())
    payments = "".join(f'<li class="list-payment__item"><svg class="icon icon--full-color" viewBox="0 0 38 24" '
                       f'width="38" height="24" role="img" aria-labelledby="pi-{p}"><title id="pi-{p}">{p}</title>'
                       f'<rect width="38" height="24" rx="3" fill="#eee"/></svg></li>'
                       for p in ("Visa", "Mastercard", "American Express", "PayPal", "Apple Pay", "Klarna"))
    return (f'<footer class="{cls}" role="contentinfo"><div class="{cls}__content">{cols}'
            f'<div class="{cls}__newsletter"><h2>{signup}</h2><form method="post" action="/contact#newsletter">'
            f'<label for="NewsletterForm">{email}</label><input id="NewsletterForm" type="email" name="email">'
            f'<button type="submit" class="newsletter-form__button">{subscribe}</button></form></div></div>'
            f'<div class="{cls}__bottom"><ul class="list-payment" role="list">{payments}</ul>'
            f'<ul class="list-social"><li><a href="https://social.example/{slug(shop)}">Instagram</a></li>'
            f'<li><a href="https://video.example/{slug(shop)}">YouTube</a></li>'
            f'<li><a href="https://pins.example/{slug(shop)}">Pinterest</a></li></ul>'
            f'<p class="copyright">© 2024 {shop}. {rights}</p></div></footer>')


def cards(items: list[tuple[str, float, float | None]], money: Callable[[float], str], *, wrap: str,
          card: str, price: str, old: str = "", button: str = "", badge: str = "") -> str:
    """Product cards (a grid, a carousel, a shelf): name, price, maybe a struck price and a button."""
    out = []
    for i, (name, amount, was) in enumerate(items):
        was_html = f'<s class="{old}">{money(was)}</s> ' if was and old else (
            f"<del>{money(was)}</del> " if was else "")
        btn = f'<button type="button" class="{card}__quick-add" data-id="{9000 + i}">{button}</button>' if button else ""
        tag = f'<span class="{card}__badge">{badge}</span>' if badge and i == 1 else ""
        out.append(f'<li class="{card}"><a href="/products/{slug(name)}" class="{card}__link">'
                   f'<img src="/img/{slug(name)}.jpg" alt="{name}" width="300" height="300" loading="lazy">'
                   f'<span class="{card}__title">{name}</span></a>{tag}'
                   f'<div class="{price}">{was_html}<span>{money(amount)}</span></div>'
                   f'<div class="{card}__rating" aria-label="4.{i + 2} out of 5 stars">★★★★☆ ({37 + i * 11})</div>'
                   f"{btn}</li>")
    return f'<ul class="{wrap}" role="list">{"".join(out)}</ul>'


def reviews(items: list[tuple[str, int, str, str]], *, cls: str, helpful: str = "Was this helpful?") -> str:
    """Customer reviews: author, stars, title, text (real reviews quote prices too)."""
    out = []
    for i, (author, stars, title, text) in enumerate(items):
        out.append(f'<div class="{cls}__review" data-review-id="{4400 + i}"><div class="{cls}__stars" '
                   f'aria-label="{stars} star rating">{"★" * stars}{"☆" * (5 - stars)}</div>'
                   f'<b class="{cls}__title">{title}</b><span class="{cls}__author">{author}</span>'
                   f'<span class="{cls}__date">{3 + i}/{10 + i}/2024</span><p class="{cls}__body">{text}</p>'
                   f'<div class="{cls}__helpful">{helpful} <button type="button">👍 {i + 2}</button>'
                   f'<button type="button">👎 {i % 2}</button></div></div>')
    return "".join(out)


def tracking_script(data: dict[str, object]) -> str:
    """What shops put in inline scripts (the page script drops them; they hold prices too)."""
    return ("<script>window.dataLayer = window.dataLayer || []; dataLayer.push("
            + json.dumps({"event": "view_item", "ecommerce": data}) + ");</script>")


def css(extra: str = "") -> str:
    return ("<style>*{box-sizing:border-box}body{margin:0;font-family:system-ui,sans-serif;font-size:15px;"
            "color:#222}a{color:inherit}img{display:block;max-width:100%;height:auto;background:#eee}"
            ".visually-hidden,.sr-only,.screen-reader-text{position:absolute!important;overflow:hidden;"
            "width:1px;height:1px;margin:-1px;padding:0;border:0;clip:rect(0 0 0 0);white-space:nowrap}"
            ".hidden{display:none!important}ul{list-style:none;padding:0;margin:0}"
            "[class*=mega] ul ul,[class*=menu] ul ul,[class*=nav] ul ul{display:none}"
            "[class*=menu]>li,[class*=nav]>li{display:inline-block;margin-right:12px}"
            "footer ul li{display:inline-block;margin-right:10px}" + extra + "</style>")


def html_page(lang: str, title: str, head: str, style: str, body: str) -> str:
    return (f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><title>{title}</title>'
            f"{head}{style}</head>\n<body>{body}</body></html>\n")


def filler(sentences: list[str], n: int, seed: int) -> str:
    """``n`` paragraphs of product copy made from ``sentences`` (real descriptions are long)."""
    rnd = random.Random(seed)
    return "".join("<p>" + " ".join(rnd.sample(sentences, min(4, len(sentences)))) + "</p>" for _ in range(n))


COPY_EN = [
    "Designed for everyday use and built to last for years.",
    "Every seam is double-stitched and every edge is finished by hand.",
    "The materials are sourced from certified suppliers and tested for durability.",
    "It folds flat for storage and opens in seconds when you need it.",
    "Our design team spent two years refining the details you will notice every day.",
    "Wipe clean with a damp cloth; no special care is needed.",
    "It comes with a two-year warranty and free repairs for the first year.",
    "The colour may vary slightly from the photos because of natural dyes.",
    "Packed in recycled cardboard with no single-use plastic.",
    "Tested by our team on long trips, short commutes and everything in between.",
]
COPY_DE = [
    "Für den täglichen Gebrauch entwickelt und auf lange Haltbarkeit ausgelegt.",
    "Alle Materialien stammen von zertifizierten Lieferanten.",
    "Die Pflege ist einfach: mit einem feuchten Tuch abwischen.",
    "Mit zwei Jahren Garantie und kostenloser Reparatur im ersten Jahr.",
    "Die Farbe kann aufgrund natürlicher Farbstoffe leicht abweichen.",
    "Verpackt in recyceltem Karton ohne Einwegplastik.",
    "Unser Designteam hat jedes Detail sorgfältig geprüft.",
    "Ideal für Alltag, Reise und Freizeit.",
]


# -- Shopify (Dawn) ----------------------------------------------------------------------------------

DAWN_CSS = (
    ".announcement-bar{background:#121212;color:#fff;text-align:center;padding:8px}"
    ".header{display:flex;gap:16px;align-items:center;padding:12px 40px;border-bottom:1px solid #ddd}"
    ".cart-count-bubble{background:#121212;color:#fff;border-radius:50%;padding:0 6px;font-size:11px}"
    ".drawer{position:fixed;top:0;right:0;width:400px;height:100%;background:#fff;visibility:hidden;"
    "transform:translateX(100%)}"
    ".product{display:grid;grid-template-columns:55% 45%;gap:40px;padding:30px 40px}"
    ".product__title h1{font-size:40px;margin:0}.product__title>a{display:none}"
    ".price{font-size:16px}.price--large{font-size:24px}.price__sale,.price__badge-sale,.price__badge-sold-out"
    "{display:none}.price--on-sale .price__sale{display:flex;gap:10px}.price--on-sale .price__regular{display:none}"
    ".price--on-sale.price--show-badge .price__badge-sale{display:inline-block}"
    ".price--sold-out.price--show-badge .price__badge-sold-out{display:inline-block}"
    ".product-form__input input[type=radio]{position:absolute;opacity:0}"
    ".product-form__input label{display:inline-block;border:1px solid #121212;border-radius:40px;padding:6px 18px}"
    ".product-form__input input.disabled+label{text-decoration:line-through;color:#999}"
    ".button{background:#121212;color:#fff;border:0;padding:14px;width:100%;font-size:15px}"
    ".grid{display:grid;grid-template-columns:repeat(4,1fr);gap:16px}.card__price,.price-item{font-size:15px}"
    ".jdgm-rev{border-top:1px solid #eee;padding:12px 0}"
)


@page
def shopify_dawn_sale() -> tuple[str, dict[str, str]]:
    """Dawn: a sale (``<s>`` compare-at price), Shop Pay instalments, a sold-out first variant (its
    offer comes first in the JSON-LD, its label says "sold out" to screen readers), a closed cart
    drawer with a subtotal, "You may also like" cards."""
    name, brand = "Waxed Canvas Weekender Bag", "Northwind Supply"
    ld = {"@context": "http://schema.org/", "@type": "Product", "name": name,
          "url": "https://northwind-supply.example/products/waxed-canvas-weekender-bag",
          "image": ["https://cdn.example/files/weekender-1.jpg"], "description": "A roomy weekender in waxed canvas.",
          "sku": "NW-WKD-OLV", "brand": {"@type": "Brand", "name": brand},
          "offers": [
              {"@type": "Offer", "sku": "NW-WKD-BLK", "availability": "http://schema.org/OutOfStock",
               "price": 96.75, "priceCurrency": "USD",
               "url": "https://northwind-supply.example/products/waxed-canvas-weekender-bag?variant=40110"},
              {"@type": "Offer", "sku": "NW-WKD-OLV", "availability": "http://schema.org/InStock",
               "price": 96.75, "priceCurrency": "USD",
               "url": "https://northwind-supply.example/products/waxed-canvas-weekender-bag?variant=40111"}]}
    head = ('<link rel="canonical" href="https://northwind-supply.example/products/waxed-canvas-weekender-bag">'
            '<meta property="og:site_name" content="Northwind Supply"><meta property="og:type" content="product">'
            f'<meta property="og:title" content="{name}"><meta property="og:price:amount" content="96.75">'
            '<meta property="og:price:currency" content="USD">'
            '<script>var Shopify = Shopify || {}; Shopify.shop = "northwind-supply.myshopify.com"; '
            'Shopify.currency = {"active":"USD","rate":"1.0"};</script>')
    drawer_items = "".join(
        f'<tr class="cart-item"><td class="cart-item__media"><img src="/img/{slug(n)}.jpg" alt="{n}"></td>'
        f'<td class="cart-item__details"><a href="/products/{slug(n)}">{n}</a><div class="product-option">{usd(p)}'
        f'</div><dl><div class="product-option"><dt>Color: </dt><dd>{c}</dd></div></dl></td>'
        f'<td class="cart-item__quantity"><quantity-input class="quantity"><button class="quantity__button" '
        f'name="minus" type="button">−</button><input class="quantity__input" type="number" value="1">'
        f'<button class="quantity__button" name="plus" type="button">+</button></quantity-input>'
        f'<cart-remove-button><a class="button button--tertiary" href="/cart/change?line=1&quantity=0">Remove</a>'
        f'</cart-remove-button></td><td class="cart-item__totals"><span class="price price--end">{usd(p)}</span>'
        f"</td></tr>"
        for n, p, c in (("Leather Luggage Tag", 24.00, "Tan"), ("Canvas Dopp Kit", 60.00, "Olive")))
    drawer = ('<cart-drawer class="drawer"><div id="CartDrawer" class="cart-drawer"><div class="drawer__inner" '
              'role="dialog" aria-modal="true" aria-label="Your cart"><div class="drawer__header">'
              '<h2 class="drawer__heading">Your cart</h2><button class="drawer__close" type="button" '
              'aria-label="Close">×</button></div><cart-drawer-items><form action="/cart" id="CartDrawer-Form" '
              'method="post"><div id="CartDrawer-CartItems" class="drawer__contents js-contents">'
              f'<table class="cart-items" role="table"><thead role="rowgroup"><tr><th>Product</th><th>Total</th>'
              f"</tr></thead><tbody>{drawer_items}</tbody></table></div></form></cart-drawer-items>"
              '<div class="drawer__footer"><div class="cart-drawer__footer"><div class="totals" role="status">'
              '<h2 class="totals__total">Estimated total</h2><p class="totals__total-value">$84.00 USD</p></div>'
              '<small class="tax-note caption-large rte">Taxes, discounts and shipping calculated at checkout.'
              '</small></div><div class="cart__ctas"><button type="submit" id="CartDrawer-Checkout" '
              'class="cart__checkout-button button" name="checkout" form="CartDrawer-Form">Check out</button>'
              "</div></div></div></div></cart-drawer>")
    header = ('<div class="announcement-bar" role="region" aria-label="Announcement"><p class="announcement-bar__message">'
              "Free shipping on orders over $50 · Easy 30-day returns</p></div>"
              '<sticky-header class="header-wrapper"><header class="header header--middle-left">'
              '<a href="/" class="header__heading-link"><span class="h2">Northwind Supply</span></a>'
              '<nav class="header__inline-menu">'
              + mega_menu(CATEGORIES_EN, ul_class="list-menu list-menu--inline", li_class="header__menu-item",
                          sub_class="mega-menu")
              + '</nav><div class="header__icons"><details-modal class="header__search"><details><summary '
              'class="header__icon header__icon--search" aria-haspopup="dialog" aria-label="Search">Search'
              '</summary></details></details-modal><a href="/account/login" class="header__icon header__icon--account">'
              'Log in</a><a href="/cart" class="header__icon header__icon--cart" id="cart-icon-bubble">'
              '<svg class="icon icon-cart" aria-hidden="true" width="24" height="24"></svg>'
              '<span class="visually-hidden">Cart</span><div class="cart-count-bubble">'
              '<span aria-hidden="true">2</span><span class="visually-hidden">2 items</span></div></a></div>'
              "</header></sticky-header>")
    price = ('<div class="no-js-hidden" id="price-template--1624__main" role="status">'
             '<div class="price price--large price--on-sale price--show-badge"><div class="price__container">'
             '<div class="price__regular"><span class="visually-hidden visually-hidden--inline">Regular price</span>'
             '<span class="price-item price-item--regular">$96.75 USD</span></div>'
             '<div class="price__sale"><span class="visually-hidden visually-hidden--inline">Regular price</span>'
             '<span><s class="price-item price-item--regular">$129.00 USD</s></span>'
             '<span class="visually-hidden visually-hidden--inline">Sale price</span>'
             '<span class="price-item price-item--sale price-item--last">$96.75 USD</span></div>'
             '<small class="unit-price caption hidden"><span class="visually-hidden">Unit price</span>'
             '<span class="price-item price-item--last"><span></span><span aria-hidden="true">/</span>'
             '<span class="visually-hidden">&nbsp;per&nbsp;</span><span></span></span></small></div>'
             '<span class="badge price__badge-sale color-accent-2">Sale</span>'
             '<span class="badge price__badge-sold-out color-inverse">Sold out</span></div>'
             '<div class="product__tax caption rte">Taxes included. <a href="/policies/shipping-policy">Shipping</a> '
             "calculated at checkout.</div>"
             '<shopify-payment-terms variant-id="40111"><div class="shopify-installments">Pay in 4 interest-free '
             'installments of <b>$24.18</b> with <span class="shop-pay-logo">Shop Pay</span> '
             '<a href="#" class="shopify-installments__learn-more">Learn more</a></div></shopify-payment-terms></div>')
    variants = ('<variant-radios class="no-js-hidden" data-section="template--1624__main"><fieldset '
                'class="js product-form__input"><legend class="form__label">Color</legend>'
                '<input type="radio" id="template--1624__main-1-0" name="Color" value="Black" form="product-form" '
                'class="disabled"><label for="template--1624__main-1-0">Black<span class="visually-hidden '
                'label-unavailable">Variant sold out or unavailable</span></label>'
                '<input type="radio" id="template--1624__main-1-1" name="Color" value="Olive" form="product-form" '
                'checked><label for="template--1624__main-1-1">Olive<span class="visually-hidden '
                'label-unavailable">Variant sold out or unavailable</span></label></fieldset>'
                '<script type="application/json">[{"id":40110,"title":"Black","price":9675,"available":false,'
                '"sku":"NW-WKD-BLK"},{"id":40111,"title":"Olive","price":9675,"available":true,'
                '"sku":"NW-WKD-OLV"}]</script></variant-radios>')
    buy = ('<div class="product-form__input product-form__quantity"><label class="quantity__label form__label" '
           'for="Quantity-1624">Quantity</label><quantity-input class="quantity"><button class="quantity__button" '
           'name="minus" type="button">−</button><input class="quantity__input" type="number" name="quantity" '
           'id="Quantity-1624" min="1" value="1" form="product-form"><button class="quantity__button" name="plus" '
           'type="button">+</button></quantity-input></div>'
           '<product-form class="product-form"><form method="post" action="/cart/add" id="product-form" '
           'accept-charset="UTF-8" class="form" enctype="multipart/form-data" novalidate="novalidate" '
           'data-type="add-to-cart-form"><input type="hidden" name="id" value="40111">'
           '<div class="product-form__buttons"><button id="ProductSubmitButton-1624" type="submit" name="add" '
           'class="product-form__submit button button--full-width button--secondary"><span>Add to cart</span>'
           '</button><div data-shopify="payment-button" class="shopify-payment-button"><button type="button" '
           'class="shopify-payment-button__button shopify-payment-button__button--unbranded">Buy it now</button>'
           "</div></div></form></product-form>"
           '<pickup-availability class="product__pickup-availabilities" available><div class="pickup-availability-info">'
           '<p class="caption-large">Pickup available at <span class="color-foreground">Northwind Warehouse</span></p>'
           '<p class="caption">Usually ready in 24 hours</p><button class="pickup-availability-button link link--text '
           'underlined-link">View store information</button></div></pickup-availability>')
    collapsibles = "".join(
        f'<div class="product__accordion accordion"><details id="Details-{i}"><summary><h2 class="h4 '
        f'accordion__title">{t}</h2></summary><div class="accordion__content rte">{c}</div></details></div>'
        for i, (t, c) in enumerate((
            ("Materials", "<p>18 oz waxed cotton canvas, full-grain leather handles, solid brass hardware.</p>"),
            ("Shipping &amp; Returns", "<p>Free standard shipping on orders over $50. Orders under $50 ship for "
                                       "$6.95. Express shipping $14.95. Free returns within 30 days.</p>"),
            ("Dimensions", "<p>22 × 12 × 11 in, 45 litres, 3.1 lb.</p>"),
            ("Care", "<p>Brush off dirt; re-wax once a year with our Canvas Wax ($18.00).</p>"))))
    rec = cards([("Leather Luggage Tag", 24.00, None), ("Canvas Dopp Kit", 60.00, 75.00),
                 ("Waxed Canvas Tote", 88.00, None), ("Roll-Top Backpack", 145.00, 165.00)], usd,
                wrap="grid product-grid", card="grid__item card-wrapper product-card-wrapper",
                price="price card__price", old="price-item price-item--regular")
    revs = reviews([
        ("Dana R.", 5, "Worth every penny", "I bought it on sale for $89 last year and would pay the full $129 "
                                             "again. Fits a week of clothes."),
        ("Marcus T.", 4, "Great bag, runs big", "Roomy and tough. The strap pad could be thicker."),
        ("Priya S.", 5, "Gift for my husband", "Arrived in two days with free shipping. He loves it."),
        ("Leo W.", 3, "Smell", "Nice bag but the wax smell lasted about two weeks."),
    ], cls="jdgm-rev")
    body = (drawer + header
            + '<main id="MainContent" class="content-for-layout focus-none" role="main" tabindex="-1">'
            '<section id="shopify-section-template--1624__main" class="shopify-section section">'
            '<section id="MainProduct-template--1624__main" class="page-width section-template--1624__main-padding" '
            'data-section="template--1624__main"><div class="product product--large product--left product--stacked '
            'grid grid--1-col grid--2-col-tablet product--mobile-hide">'
            '<div class="grid__item product__media-wrapper"><media-gallery id="MediaGallery-1624" role="region" '
            'class="product__column-sticky" aria-label="Gallery Viewer"><ul class="product__media-list" role="list">'
            + "".join(f'<li class="product__media-item"><img src="/img/weekender-{i}.jpg" alt="{name} view {i}" '
                      f'width="600" height="600"></li>' for i in range(1, 5))
            + '</ul></media-gallery></div><div class="product__info-wrapper grid__item">'
            '<product-info id="ProductInfo-template--1624__main" class="product__info-container product__column-sticky">'
            f'<p class="product__text inline-richtext caption-with-letter-spacing">{brand}</p>'
            f'<div class="product__title"><h1>{name}</h1><a href="/products/waxed-canvas-weekender-bag" '
            f'class="product__title"><h2 class="h1">{name}</h2></a></div>'
            + price + variants + buy
            + '<div class="product__description rte quick-add-hidden">'
            + filler(COPY_EN, 3, 1) + "</div>" + collapsibles
            + '<share-button class="share-button"><button class="share-button__button">Share</button></share-button>'
            "</product-info></div></div></section>"
            f'<script type="application/ld+json">{json.dumps(ld)}</script></section>'
            '<section class="shopify-section section"><div class="jdgm-widget jdgm-review-widget">'
            '<h2 class="jdgm-rev-widg__title">Customer Reviews</h2><div class="jdgm-rev-widg__summary">'
            '<span class="jdgm-rev-widg__summary-stars" aria-label="4.25 stars">★★★★☆</span> '
            "Based on 4 reviews</div>" + revs + "</div></section>"
            '<section class="shopify-section section"><product-recommendations class="related-products page-width">'
            '<h2 class="related-products__heading">You may also like</h2>' + rec
            + "</product-recommendations></section></main>"
            + footer("en", "Northwind Supply", cls="footer")
            + tracking_script({"currency": "USD", "value": 96.75, "items": [{"item_id": "NW-WKD-OLV",
                                                                               "price": 96.75}]}))
    return (html_page("en", f"{name} – Northwind Supply", head, css(DAWN_CSS), body),
            {"price": "96.75", "currency": "USD", "sku": "NW-WKD-OLV", "availability": "InStock"})


# -- PrestaShop-like: the JSON-LD stays on the default combination after the shopper picks another ----

@page
def prestashop_variant_change() -> tuple[str, dict[str, str]]:
    """The JSON-LD (from an SEO module, in the head) describes the default combination (250 ml,
    €79.00, SRM-250); the shopper picked 500 ml, and the theme re-rendered the price block and the
    reference: what the page shows is €129.00, SRM-500."""
    name = "Sea Buckthorn Repair Serum"
    ld = {"@context": "https://schema.org", "@type": "Product", "name": name, "sku": "SRM-250",
          "mpn": "SRM-250", "brand": {"@type": "Brand", "name": "Kestrel Botanics"},
          "description": "A repairing face serum with sea buckthorn oil.",
          "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.6", "reviewCount": "212"},
          "offers": {"@type": "Offer", "priceCurrency": "EUR", "price": "79.00",
                     "availability": "https://schema.org/InStock", "url": "https://kestrel.example/serum/12-srm.html",
                     "priceValidUntil": "2025-12-31"}}
    head = (f'<script type="application/ld+json">{json.dumps(ld)}</script>'
            '<meta property="og:type" content="product"><meta property="product:price:amount" content="79">'
            '<meta property="product:price:currency" content="EUR">')
    style = css(
        "#header{border-bottom:1px solid #ddd}.header-nav{background:#f6f6f6;padding:6px 30px;font-size:13px}"
        ".header-top{padding:14px 30px}.blockcart{float:right}.breadcrumb{padding:10px 30px;font-size:13px}"
        "#main .row{display:flex;gap:30px;padding:0 30px}.col-md-6{width:50%}.h1{font-size:30px}"
        ".product-prices .regular-price{text-decoration:line-through;color:#7a7a7a;margin-right:8px}"
        ".current-price span[itemprop=price],.current-price-value{font-size:26px;font-weight:700}"
        ".discount{background:#f39d72;color:#fff;padding:3px 6px;margin-left:8px}"
        ".product-variants select{padding:6px}.btn-primary{background:#24b9d7;color:#fff;border:0;padding:10px 20px}"
        ".product-accessories ul{display:flex;gap:20px}")
    combos = {"250": ("79.00", "99.00", "SRM-250", "250 ml"), "500": ("129.00", "159.00", "SRM-500", "500 ml")}
    script = ("<script>var combinations = " + json.dumps(combos) + ";"
              "function showCombination(key){var c = combinations[key];"
              "document.querySelector('.product-prices').innerHTML = '<div class=\"product-discount\">"
              "<span class=\"regular-price\">€' + c[1] + '</span></div><div class=\"product-price h5 has-discount\">"
              "<div class=\"current-price\"><span class=\"current-price-value\" content=\"' + c[0] + '\">€' + c[0] +"
              " '</span><span class=\"discount discount-amount\">Save €' + (c[1] - c[0]).toFixed(2) + '</span></div>"
              "</div><div class=\"tax-shipping-delivery-label\">Tax included</div>';"
              "document.querySelector('.product-reference span').textContent = c[2];"
              "document.querySelector('#group_1').value = key; location.hash = '/12-size-' + key + '_ml';}"
              "document.addEventListener('DOMContentLoaded', function(){showCombination('500');});</script>")
    accessories = cards([("Rosehip Night Cream", 42.00, None), ("Hyaluronic Mist", 24.50, None),
                         ("Bamboo Cleansing Pads", 12.00, 15.00), ("Clay Mask", 28.00, None)],
                        lambda x: f"€{x:,.2f}", wrap="products", card="product-miniature js-product-miniature",
                        price="product-price-and-shipping", old="regular-price", button="Quick view")
    body = ('<header id="header"><nav class="header-nav"><div id="_desktop_contact_link">Call us: 01 555 0199</div>'
            '<div id="_desktop_language_selector">English ▾</div><div id="_desktop_currency_selector">EUR € ▾</div>'
            '<div id="_desktop_user_info"><a href="/login">Sign in</a></div>'
            '<div id="_desktop_cart"><div class="blockcart cart-preview active"><a rel="nofollow" href="/cart">'
            '<span class="hidden-sm-down">Cart</span> <span class="cart-products-count">(3)</span></a></div></div>'
            '</nav><div class="header-top"><a href="/"><img class="logo" src="/img/logo.png" alt="Kestrel Botanics">'
            '</a><div class="menu js-top-menu" id="_desktop_top_menu">'
            + mega_menu({"Skincare": ["Serums", "Moisturisers", "Cleansers", "Masks", "Eye care", "Sun care"],
                         "Body": ["Body oils", "Lotions", "Hand care", "Bath"],
                         "Hair": ["Shampoo", "Conditioner", "Treatments"],
                         "Gifts": ["Gift sets", "Gift cards", "Under €30"],
                         "Offers": ["Bundles", "Last chance"]},
                        ul_class="top-menu", li_class="category", sub_class="popover sub-menu")
            + '</div><div id="search_widget" class="search-widget"><form method="get" action="/search">'
            '<input type="text" name="s" placeholder="Search our catalog" aria-label="Search">'
            '<button type="submit">Search</button></form></div></div></header>'
            '<section id="wrapper"><nav data-depth="3" class="breadcrumb"><ol><li><a href="/"><span>Home</span></a></li>'
            '<li><a href="/3-skincare"><span>Skincare</span></a></li><li><a href="/12-serums"><span>Serums</span></a>'
            f"</li><li><span>{name}</span></li></ol></nav>"
            '<div id="content-wrapper"><section id="main"><meta content="https://kestrel.example/serum/12-srm.html">'
            '<div class="row product-container js-product-container"><div class="col-md-6"><section class="page-content" '
            'id="content"><div class="images-container js-images-container"><div class="product-cover">'
            '<img class="js-qv-product-cover" src="/img/serum-1.jpg" alt="Serum" width="452" height="452">'
            '</div></div></section></div><div class="col-md-6">'
            f'<h1 class="h1">{name}</h1>'
            '<div class="product-prices js-product-prices"><div class="product-discount"><span class="regular-price">'
            '€99.00</span></div><div class="product-price h5 has-discount"><div class="current-price">'
            '<span class="current-price-value" content="79">€79.00</span><span class="discount discount-amount">'
            'Save €20.00</span></div></div><div class="tax-shipping-delivery-label">Tax included</div></div>'
            '<div class="product-information"><div id="product-description-short-12" class="product-description">'
            "<p>A light, fast-absorbing serum that calms and repairs dry skin overnight.</p></div>"
            '<div class="product-actions js-product-actions"><form action="/cart" method="post" id="add-to-cart-or-refresh">'
            '<input type="hidden" name="id_product" value="12" id="product_page_product_id">'
            '<div class="product-variants js-product-variants"><div class="clearfix product-variants-item">'
            '<span class="control-label">Size: </span><select class="form-control form-control-select" id="group_1" '
            'aria-label="Size" data-product-attribute="1" name="group[1]"><option value="250" title="250 ml" '
            'selected="selected">250 ml</option><option value="500" title="500 ml">500 ml</option></select></div></div>'
            '<div class="product-add-to-cart js-product-add-to-cart"><span class="control-label">Quantity</span>'
            '<div class="product-quantity clearfix"><div class="qty"><input type="number" name="qty" id="quantity_wanted" '
            'value="1" class="input-group" min="1" aria-label="Quantity"></div><div class="add"><button '
            'class="btn btn-primary add-to-cart" data-button-action="add-to-cart" type="submit">Add to cart</button>'
            '</div></div><span id="product-availability" class="js-product-availability"><i class="material-icons '
            'rtl-no-flip product-available">&#xE5CA;</i> In stock</span></div></form></div>'
            '<div class="blockreassurance_product"><div><span class="item-product">Free delivery from €60</span></div>'
            '<div><span class="item-product">Returns within 30 days</span></div><div><span class="item-product">'
            "Secure payment</span></div></div>"
            '<div class="tabs"><ul class="nav nav-tabs" role="tablist"><li class="nav-item"><a class="nav-link active" '
            'href="#description" role="tab">Description</a></li><li class="nav-item"><a class="nav-link" '
            'href="#product-details" role="tab">Product Details</a></li></ul><div class="tab-content" id="tab-content">'
            '<div class="tab-pane fade in active" id="description" role="tabpanel"><div class="product-description">'
            + filler(COPY_EN, 3, 2)
            + '</div></div><div class="tab-pane fade in active" id="product-details" role="tabpanel">'
            '<div class="product-manufacturer"><label class="label">Brand</label> Kestrel Botanics</div>'
            '<div class="product-reference"><label class="label">Reference </label> <span>SRM-250</span></div>'
            '<div class="product-quantities"><label class="label">In stock</label> <span>48 Items</span></div>'
            "</div></div></div></div></div></div>"
            '<section class="product-accessories clearfix"><p class="h5 text-uppercase">You might also like</p>'
            + accessories + "</section>"
            '<div id="product-comments-list"><h3>Reviews (3)</h3>'
            + reviews([("Aoife", 5, "Skin saver", "The 500 ml is better value than two small ones at €79."),
                       ("Ciara", 4, "Lovely", "Smells of oranges, absorbs quickly."),
                       ("Tom", 5, "Works", "My dry patches are gone after a week.")], cls="product-comment")
            + "</div></section></div></section>"
            + footer("en", "Kestrel Botanics", cls="footer-container") + script)
    return (html_page("en", f"{name}", head, style, body),
            {"price": "129.00", "currency": "EUR", "sku": "SRM-500", "availability": "InStock"})


# -- WooCommerce (Storefront) ------------------------------------------------------------------------

def woo_amount(x: float, symbol: str = "&#36;") -> str:
    return (f'<span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">'
            f"{symbol}</span>{x:,.2f}</bdi></span>")


WOO_CSS = (
    ".site-header{padding:20px 40px;border-bottom:1px solid #eee}.site-header-cart{float:right;position:relative}"
    ".site-header-cart .widget_shopping_cart{position:absolute;top:100%;left:-999em;width:300px;background:#fff}"
    ".storefront-breadcrumb{padding:10px 40px;font-size:13px}.site-main{padding:0 40px}"
    ".woocommerce-product-gallery{float:left;width:48%}.summary{float:right;width:48%}"
    ".product_title{font-size:34px}.price{font-size:22px;color:#96588a}.price del{opacity:.6}"
    ".stock{color:#0f834d}.woocommerce-tabs{clear:both;padding-top:30px}"
    ".related ul.products{display:flex;gap:20px}.onsale{background:#e2401c;color:#fff;padding:2px 8px}"
    ".single_add_to_cart_button{background:#333;color:#fff;border:0;padding:12px 20px}"
)


@page
def woocommerce_sale() -> tuple[str, dict[str, str]]:
    """Storefront: the sale price in del/ins (aria-hidden) with screen-reader texts, a mini-cart
    with a subtotal moved off-screen, "7 in stock", the SKU in product_meta, an attributes table,
    related products with prices, and WooCommerce's JSON-LD whose offer has no ``price`` of its
    own, only a list of price specifications (the sale price and the list price)."""
    name = "Merino Zip Hoodie"
    ld = {"@context": "https://schema.org/", "@graph": [
        {"@context": "https://schema.org/", "@type": "BreadcrumbList", "itemListElement": [
            {"@type": "ListItem", "position": 1, "item": {"name": "Home", "@id": "https://fernhill.example"}},
            {"@type": "ListItem", "position": 2, "item": {"name": "Hoodies", "@id": "https://fernhill.example/c/hoodies/"}},
            {"@type": "ListItem", "position": 3, "item": {"name": name, "@id": "https://fernhill.example/p/merino-zip/"}}]},
        {"@context": "https://schema.org/", "@type": "Product", "@id": "https://fernhill.example/p/merino-zip/#product",
         "name": name, "url": "https://fernhill.example/p/merino-zip/", "description": "A zip hoodie in merino.",
         "image": "https://fernhill.example/wp-content/uploads/merino-zip.jpg", "sku": "FH-MZH-NVY",
         "offers": [{"@type": "Offer", "priceSpecification": [
             {"@type": "UnitPriceSpecification", "price": "60.00", "priceCurrency": "USD",
              "valueAddedTaxIncluded": False, "priceType": "https://schema.org/ListPrice",
              "validThrough": "2025-12-31"},
             {"@type": "UnitPriceSpecification", "price": "45.00", "priceCurrency": "USD",
              "valueAddedTaxIncluded": False, "validThrough": "2025-12-31"}],
             "priceValidUntil": "2025-12-31", "availability": "http://schema.org/InStock",
             "url": "https://fernhill.example/p/merino-zip/",
             "seller": {"@type": "Organization", "name": "Fernhill Outfitters", "url": "https://fernhill.example"}}],
         "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.67", "reviewCount": 3}}]}
    mini = "".join(
        f'<li class="woocommerce-mini-cart-item mini_cart_item"><a href="#" class="remove remove_from_cart_button" '
        f'aria-label="Remove {n} from cart">×</a><a href="/p/{slug(n)}/"><img src="/img/{slug(n)}.jpg" alt="">{n}</a>'
        f'<span class="quantity">1 × {woo_amount(p)}</span></li>'
        for n, p in (("Wool Beanie", 28.00), ("Trail Socks 3-Pack", 32.00), ("Canvas Belt", 60.00)))
    header = ('<header id="masthead" class="site-header" role="banner"><div class="col-full">'
              '<a class="skip-link screen-reader-text" href="#site-navigation">Skip to navigation</a>'
              '<div class="site-branding"><p class="site-title"><a href="/">Fernhill Outfitters</a></p></div>'
              '<div class="site-search"><div class="widget woocommerce widget_product_search"><form role="search" '
              'method="get" class="woocommerce-product-search" action="/"><label class="screen-reader-text" '
              'for="wcps-1">Search for:</label><input type="search" id="wcps-1" class="search-field" '
              'placeholder="Search products&hellip;" name="s"><button type="submit" value="Search">Search</button>'
              '</form></div></div></div><div class="storefront-primary-navigation"><div class="col-full">'
              '<nav id="site-navigation" class="main-navigation" role="navigation" aria-label="Primary Navigation">'
              '<button class="menu-toggle" aria-controls="site-navigation" aria-expanded="false"><span>Menu</span>'
              '</button><div class="primary-navigation">'
              + mega_menu(CATEGORIES_EN, ul_class="menu nav-menu", li_class="menu-item menu-item-has-children",
                          sub_class="sub-menu")
              + '</div></nav><ul id="site-header-cart" class="site-header-cart menu"><li class="">'
              f'<a class="cart-contents" href="/cart/" title="View your shopping cart">{woo_amount(120.00)} '
              '<span class="count">3 items</span></a></li><li><div class="widget woocommerce widget_shopping_cart">'
              '<div class="widget_shopping_cart_content"><ul class="woocommerce-mini-cart cart_list product_list_widget">'
              + mini + '</ul><p class="woocommerce-mini-cart__total total"><strong>Subtotal:</strong> '
              + woo_amount(120.00) + '</p><p class="woocommerce-mini-cart__buttons buttons"><a href="/cart/" '
              'class="button wc-forward">View cart</a><a href="/checkout/" class="button checkout wc-forward">Checkout</a>'
              "</p></div></div></li></ul></div></div></header>")
    price = ('<p class="price"><del aria-hidden="true">' + woo_amount(60.00) + '</del> <span class="screen-reader-text">'
             'Original price was: &#036;60.00.</span><ins aria-hidden="true">' + woo_amount(45.00) + "</ins>"
             '<span class="screen-reader-text">Current price is: &#036;45.00.</span></p>')
    attrs = "".join(f'<tr class="woocommerce-product-attributes-item woocommerce-product-attributes-item--{slug(k)}">'
                    f'<th class="woocommerce-product-attributes-item__label">{k}</th>'
                    f'<td class="woocommerce-product-attributes-item__value"><p>{v}</p></td></tr>'
                    for k, v in (("Weight", "0.45 kg"), ("Dimensions", "30 × 25 × 5 cm"), ("Color", "Navy"),
                                 ("Size", "S, M, L, XL"), ("Material", "100% merino wool")))
    related = cards([("Merino Crew Tee", 38.00, None), ("Fleece Gilet", 55.00, 70.00), ("Wool Beanie", 28.00, None),
                     ("Trail Socks 3-Pack", 32.00, None)], usd, wrap="products columns-4",
                    card="product type-product", price="price", button="Add to cart")
    body = (header + '<div class="storefront-breadcrumb"><div class="col-full"><nav class="woocommerce-breadcrumb" '
            'aria-label="Breadcrumb"><a href="/">Home</a><span class="breadcrumb-separator"> / </span>'
            '<a href="/c/hoodies/">Hoodies</a><span class="breadcrumb-separator"> / </span>' + name + "</nav></div></div>"
            '<div id="content" class="site-content"><div class="col-full"><div class="woocommerce"></div>'
            '<div id="primary" class="content-area"><main id="main" class="site-main" role="main">'
            '<div id="product-118" class="product type-product post-118 status-publish first instock product_cat-hoodies '
            'has-post-thumbnail sale shipping-taxable purchasable product-type-simple">'
            '<span class="onsale">Sale!</span><div class="woocommerce-product-gallery woocommerce-product-gallery--with-images '
            'images"><figure class="woocommerce-product-gallery__wrapper"><div class="woocommerce-product-gallery__image">'
            '<img src="/img/merino-zip.jpg" alt="" width="600" height="600"></div></figure></div>'
            f'<div class="summary entry-summary"><h1 class="product_title entry-title">{name}</h1>'
            + price + '<div class="woocommerce-product-details__short-description"><p>Warm, breathable and odour-resistant: '
            "the layer you will reach for on every trip.</p></div>"
            '<p class="stock in-stock">7 in stock</p><form class="cart" action="/p/merino-zip/" method="post" '
            'enctype="multipart/form-data"><div class="quantity"><label class="screen-reader-text" for="quantity_66">'
            f'{name} quantity</label><input type="number" id="quantity_66" class="input-text qty text" name="quantity" '
            'value="1" aria-label="Product quantity" min="1" max="7" step="1"></div><button type="submit" '
            'name="add-to-cart" value="118" class="single_add_to_cart_button button alt">Add to cart</button></form>'
            '<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">FH-MZH-NVY</span></span>'
            '<span class="posted_in">Category: <a href="/c/hoodies/" rel="tag">Hoodies</a></span>'
            '<span class="tagged_as">Tags: <a href="/t/merino/" rel="tag">merino</a>, <a href="/t/travel/" rel="tag">'
            "travel</a></span></div></div>"
            '<div class="woocommerce-tabs wc-tabs-wrapper"><ul class="tabs wc-tabs" role="tablist">'
            '<li class="description_tab active" role="presentation"><a href="#tab-description" role="tab">Description</a></li>'
            '<li class="additional_information_tab" role="presentation"><a href="#tab-additional_information" role="tab">'
            'Additional information</a></li><li class="reviews_tab" role="presentation"><a href="#tab-reviews" role="tab">'
            'Reviews (3)</a></li></ul><div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--description panel '
            'entry-content wc-tab" id="tab-description" role="tabpanel"><h2>Description</h2>' + filler(COPY_EN, 3, 3)
            + '</div><div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--additional_information panel entry-content '
            'wc-tab" id="tab-additional_information" role="tabpanel"><h2>Additional information</h2>'
            f'<table class="woocommerce-product-attributes shop_attributes">{attrs}</table></div>'
            '<div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--reviews panel entry-content wc-tab" id="tab-reviews" '
            'role="tabpanel"><div id="reviews" class="woocommerce-Reviews"><div id="comments"><h2 '
            f'class="woocommerce-Reviews-title">3 reviews for <span>{name}</span></h2><ol class="commentlist">'
            + reviews([("Hannah", 5, "Perfect travel layer", "Grabbed it at $45, full price $60 would still be fair."),
                       ("Owen", 4, "Runs small", "Size up. Otherwise great."),
                       ("Maya", 5, "Warm", "Wore it for five days hiking without washing.")], cls="comment_container")
            + "</ol></div></div></div></div>"
            '<section class="related products"><h2>Related products</h2>' + related + "</section></div>"
            "</main></div></div></div>" + footer("en", "Fernhill Outfitters")
            + f'<script type="application/ld+json">{json.dumps(ld)}</script>')
    return (html_page("en", f"{name} – Fernhill Outfitters", "", css(WOO_CSS), body),
            {"price": "45.00", "currency": "USD", "sku": "FH-MZH-NVY", "availability": "InStock"})


# -- Magento 2 (Luma) --------------------------------------------------------------------------------

@page
def magento_luma_special() -> tuple[str, dict[str, str]]:
    """Luma: a special price above an old price (labels "Special Price" / "Regular Price",
    ``data-price-amount``), a tier price ("Buy 3 for $30.00 each"), microdata with ``content=``,
    the SKU block, an EAN row in "More Information", related products and upsells."""
    name = "Orion Two-Layer Softshell Jacket"

    def box(amount: float, kind: str, label: str, pid: str) -> str:
        return (f'<span class="price-container price-final_price tax weee"><span class="price-label">{label}</span>'
                f'<span id="{pid}" data-price-amount="{amount:g}" data-price-type="{kind}" class="price-wrapper ">'
                f'<span class="price">{usd(amount)}</span></span></span>')

    more = "".join(f'<tr><th class="col label" scope="row">{k}</th><td class="col data" data-th="{k}">{v}</td></tr>'
                   for k, v in (("Style", "Softshell"), ("Material", "Polyester, Elastane"), ("Pattern", "Solid"),
                                ("Climate", "Cool, Windy, Rainy"), ("EAN", "4006381333948"),
                                ("Manufacturer", "Oakridge Apparel")))
    related = cards([("Typhon Rain Shell", 68.00, None), ("Lando Gym Jacket", 99.00, None),
                     ("Kenobi Trail Vest", 47.00, 59.00)], usd, wrap="product-items widget-product-grid",
                    card="item product product-item", price="price-box price-final_price", old="old-price",
                    button="Add to Cart")
    upsell = cards([("Helios Windbreaker", 54.00, None), ("Nimbus Insulated Parka", 189.00, 220.00),
                    ("Zephyr Fleece", 42.00, None), ("Cirrus Hooded Shell", 79.00, None)], usd,
                   wrap="product-items widget-product-grid", card="item product product-item",
                   price="price-box price-final_price", old="old-price", button="Add to Cart")
    style = css(
        ".panel.header{background:#f0f0f0;padding:6px 30px;font-size:13px}.header.content{padding:18px 30px}"
        ".minicart-wrapper{float:right}.counter.qty{background:#ff5501;color:#fff;border-radius:2px;padding:0 5px}"
        ".navigation{background:#f0f0f0;padding:10px 30px}.breadcrumbs{padding:10px 30px;font-size:12px}"
        ".columns{display:flex;gap:30px;padding:0 30px}.product.media{width:57%}.product-info-main{width:40%}"
        ".page-title{font-size:40px;font-weight:300}.product-info-price{display:flex;justify-content:space-between}"
        ".price-box .price{font-size:36px;font-weight:600}.old-price .price{font-size:14px;font-weight:400}"
        ".price-label{font-size:12px;color:#666;display:block}.prices-tier{background:#f5f5f5;padding:10px}"
        ".action.tocart.primary{background:#1979c3;color:#fff;border:0;padding:14px 18px;font-size:18px}"
        ".product-items{display:flex;gap:20px}.product-item .price-box .price{font-size:14px}"
        ".block.related,.block.upsell{padding:20px 30px}")
    body = ('<div class="page-wrapper"><header class="page-header"><div class="panel wrapper"><div class="panel header">'
            '<a class="action skip contentarea" href="#contentarea"><span>Skip to Content</span></a>'
            '<ul class="header links"><li class="greet welcome" data-bind="scope: \'customer\'">'
            '<span class="not-logged-in">Default welcome msg!</span></li><li class="authorization-link">'
            '<a href="/customer/account/login/">Sign In</a></li><li><a href="/customer/account/create/">'
            "Create an Account</a></li></ul></div></div>"
            '<div class="header content"><a class="logo" href="/" title="Oakridge Outfitters" aria-label="store logo">'
            '<img src="/img/logo.svg" title="Oakridge Outfitters" alt="Oakridge Outfitters" width="170" height="32"></a>'
            '<div data-block="minicart" class="minicart-wrapper"><a class="action showcart" href="/checkout/cart/" '
            'data-bind="scope: \'minicart_content\'"><span class="text">My Cart</span><span class="counter qty">'
            '<span class="counter-number">2</span><span class="counter-label">2<span>items</span></span></span></a>'
            '<div class="block block-minicart" data-role="dropdownDialog" style="display: none;"><div id="minicart-content-wrapper">'
            '<div class="block-content"><div class="items-total"><span class="count">2</span><span>Items in Cart</span></div>'
            '<div class="subtotal"><span class="label"><span>Cart Subtotal</span></span><div class="amount price-container">'
            '<span class="price-wrapper"><span class="price">$121.00</span></span></div></div></div></div></div></div>'
            '<div class="block block-search"><div class="block block-title"><strong>Search</strong></div><div class="block '
            'block-content"><form class="form minisearch" id="search_mini_form" action="/catalogsearch/result/" method="get">'
            '<input id="search" type="text" name="q" placeholder="Search entire store here..." class="input-text" '
            'role="combobox" aria-expanded="false"><button type="submit" title="Search" class="action search">Search'
            "</button></form></div></div></div></header>"
            '<div class="sections nav-sections"><div class="section-items nav-sections-items"><nav class="navigation" '
            'data-action="navigation">'
            + mega_menu(CATEGORIES_EN, ul_class="ui-menu", li_class="level0 category-item level-top parent",
                        sub_class="level0 submenu")
            + "</nav></div></div>"
            '<div class="breadcrumbs"><ul class="items"><li class="item home"><a href="/" title="Go to Home Page">Home</a>'
            '</li><li class="item category"><a href="/men.html">Men</a></li><li class="item category">'
            '<a href="/men/tops-men/jackets-men.html">Jackets</a></li>'
            f'<li class="item product"><strong>{name}</strong></li></ul></div>'
            '<main id="maincontent" class="page-main"><a id="contentarea" tabindex="-1"></a>'
            '<div class="columns"><div class="column main" itemscope itemtype="http://schema.org/Product">'
            '<div class="product-info-main"><div class="page-title-wrapper product"><h1 class="page-title">'
            f'<span class="base" data-ui-id="page-title-wrapper" itemprop="name">{name}</span></h1></div>'
            '<div class="product-reviews-summary" itemprop="aggregateRating" itemscope '
            'itemtype="http://schema.org/AggregateRating"><div class="rating-summary"><span class="label"><span>Rating:'
            '</span></span><div class="rating-result" title="87%"><span style="width:87%"><span>'
            '<span itemprop="ratingValue">87</span>% of <span itemprop="bestRating">100</span></span></span></div></div>'
            '<div class="reviews-actions"><a class="action view" href="#reviews"><span itemprop="reviewCount">3</span>'
            '&nbsp;<span>Reviews</span></a><a class="action add" href="#review-form">Add Your Review</a></div></div>'
            '<div class="product-info-price"><div class="price-box price-final_price" data-role="priceBox" '
            'data-product-id="1412" data-price-box="product-id-1412" itemprop="offers" itemscope '
            'itemtype="http://schema.org/Offer"><span class="special-price">'
            + box(34.0, "finalPrice", "Special Price", "product-price-1412")
            + '</span><span class="old-price">' + box(45.0, "oldPrice", "Regular Price", "old-price-1412")
            + '</span><meta itemprop="price" content="34"><meta itemprop="priceCurrency" content="USD"></div>'
            '<div class="product-info-stock-sku"><div class="stock available" title="Availability"><span>In stock</span>'
            '</div><div class="product attribute sku"><strong class="type">SKU</strong><div class="value" '
            'itemprop="sku">OK-ORION-M</div></div></div></div>'
            '<ul class="prices-tier items"><li class="item">Buy 3 for <span class="price-container price-tier_price tax '
            'weee"><span data-price-amount="30" data-price-type="" class="price-wrapper "><span class="price">$30.00'
            '</span></span></span> each and <strong class="benefit">save<span class="percent tier-0">&nbsp;12</span>%'
            "</strong></li></ul>"
            '<div class="product-add-form"><form data-product-sku="OK-ORION-M" action="/checkout/cart/add/product/1412/" '
            'method="post" id="product_addtocart_form"><input type="hidden" name="product" value="1412">'
            '<div class="box-tocart"><div class="fieldset"><div class="field qty"><label class="label" for="qty">'
            '<span>Qty</span></label><div class="control"><input type="number" name="qty" id="qty" min="0" value="1" '
            'title="Qty" class="input-text qty"></div></div><div class="actions"><button type="submit" title="Add to Cart" '
            'class="action primary tocart" id="product-addtocart-button"><span>Add to Cart</span></button></div></div>'
            '</div></form></div><div class="product-social-links"><div class="product-addto-links" data-role="add-to-links">'
            '<a href="#" class="action towishlist" data-action="add-to-wishlist" role="button"><span>Add to Wish List'
            '</span></a><a href="#" class="action tocompare" role="button"><span>Add to Compare</span></a></div>'
            '<a href="/sendfriend/" class="action mailto friend"><span>Email</span></a></div>'
            '<div class="product attribute overview"><div class="value" itemprop="description">A two-layer softshell that '
            "blocks wind and sheds light rain.</div></div></div>"
            '<div class="product media"><div class="gallery-placeholder _block-content-loading"><img alt="main product photo" '
            'class="gallery-placeholder__image" src="/img/orion.jpg" width="700" height="700"></div></div>'
            '<div class="product info detailed"><div class="product data items" data-mage-init=\'{"tabs":{"openedState":'
            '"active"}}\'><div class="data item title active" data-role="collapsible" id="tab-label-description">'
            '<a class="data switch" tabindex="-1" data-toggle="trigger" href="#description">Details</a></div>'
            '<div class="data item content" id="description" data-role="content"><div class="product attribute '
            'description"><div class="value">' + filler(COPY_EN, 3, 4) + "</div></div></div>"
            '<div class="data item title" data-role="collapsible" id="tab-label-additional"><a class="data switch" '
            'href="#additional">More Information</a></div><div class="data item content" id="additional" '
            'data-role="content"><div class="additional-attributes-wrapper table-wrapper"><table class="data table '
            'additional-attributes" id="product-attribute-specs-table"><caption class="table-caption">More Information'
            f"</caption><tbody>{more}</tbody></table></div></div>"
            '<div class="data item title" data-role="collapsible" id="tab-label-reviews"><a class="data switch" '
            'href="#reviews">Reviews <span class="counter">3</span></a></div><div class="data item content" id="reviews" '
            'data-role="content"><div class="block review-list" id="customer-reviews"><ol class="items review-items">'
            + reviews([("Rhys", 5, "Great shell", "Paid $34 on special; the $45 price is also fair."),
                       ("Anil", 4, "Windproof", "Good on the bike, a little warm in summer."),
                       ("Jo", 4, "Fit", "Slim fit, size up if you layer.")], cls="item review-item")
            + "</ol></div></div></div></div>"
            '<div class="block related" data-mage-init=\'{"relatedProducts":{}}\' data-limit="0" data-shuffle="0">'
            '<div class="block-title title"><strong id="block-related-heading" role="heading" aria-level="2">'
            'Related Products</strong></div><div class="block-content content"><div class="block-actions">'
            '<span class="note">Check items to add to the cart or</span><button type="button" class="action select" '
            'role="button"><span>select all</span></button></div><div class="products wrapper grid products-grid '
            'products-related">' + related + "</div></div></div>"
            '<div class="block upsell" data-limit="0" data-shuffle="0"><div class="block-title title"><strong '
            'id="block-upsell-heading" role="heading" aria-level="2">We found other products you might like!</strong>'
            '</div><div class="block-content content"><div class="products wrapper grid products-grid products-upsell">'
            + upsell + "</div></div></div></div></div></main>"
            + footer("en", "Oakridge Outfitters", cls="page-footer") + "</div>"
            + tracking_script({"currency": "USD", "value": 34, "items": [{"item_id": "OK-ORION-M", "price": 34}]}))
    return (html_page("en", name, '<meta name="title" content="' + name + '">', style, body),
            {"price": "34.00", "currency": "USD", "sku": "OK-ORION-M", "gtin": "4006381333948",
             "availability": "InStock"})


# -- BigCommerce (Cornerstone) -----------------------------------------------------------------------

@page
def bigcommerce_was_now() -> tuple[str, dict[str, str]]:
    """Cornerstone: "Was:" (struck by a stylesheet rule on its class) / "Now:", a hidden MSRP, a
    "You save" amount, the SKU/UPC definition list, an ``<input type=submit>`` buy button, a free
    shipping banner, and no structured data at all."""
    name = "Pre-Seasoned Cast Iron Skillet 12\""
    style = css(
        ".banners{background:#c00;color:#fff;text-align:center;padding:8px;font-weight:700}"
        ".header{padding:16px 40px;border-bottom:1px solid #ddd}.navUser{float:right}"
        ".countPill{background:#00abc9;color:#fff;border-radius:50%;padding:1px 7px;font-size:12px}"
        ".navPages{padding:8px 40px}.breadcrumbs{padding:10px 40px;font-size:12px}"
        ".productView{display:flex;gap:40px;padding:10px 40px}.productView-images{width:50%}"
        ".productView-details{width:50%}.productView-title{font-size:28px}.productView-brand{font-size:14px}"
        ".price{font-size:24px}.price--non-sale{text-decoration:line-through;font-size:15px;color:#757575}"
        ".price-section--saving{font-size:13px;color:#757575}.productView-info dt{font-weight:700;float:left;"
        "clear:left;width:120px}.productView-info dd{margin-left:130px}"
        ".button--primary{background:#444;color:#fff;border:0;padding:12px 28px}"
        ".productGrid{display:flex;gap:20px}.card-body .price{font-size:15px}")
    info = "".join(f'<dt class="productView-info-name {slug(k)}-label">{k}:</dt>'
                   f'<dd class="productView-info-value" data-product-{slug(k)}>{v}</dd>'
                   for k, v in (("SKU", "LH-CAST-12"), ("UPC", "012345678905"), ("Condition", "New"),
                                ("Weight", "7.40 LBS"), ("Shipping", "Calculated at Checkout")))
    related = cards([("Cast Iron Grill Press", 24.95, None), ("Silicone Handle Holder", 8.95, None),
                     ("Chainmail Scrubber", 14.95, 19.95), ("10\" Skillet Lid", 29.95, None)], usd,
                    wrap="productGrid", card="product card", price="card-body price-section",
                    old="price price--rrp", button="Add to Cart")
    body = ('<div class="banners" data-banner-location="top"><div class="banner" data-event-type="promotion">'
            "<p>FREE SHIPPING ON ORDERS OVER $99 — SHOP NOW</p></div></div>"
            '<header class="header" role="banner"><nav class="navUser"><ul class="navUser-section '
            'navUser-section--alt"><li class="navUser-item"><a class="navUser-action navUser-item--compare" '
            'href="/compare">Compare <span class="countPill countPill--positive countPill--alt"></span></a></li>'
            '<li class="navUser-item"><a class="navUser-action navUser-action--quickSearch" href="#">Search</a></li>'
            '<li class="navUser-item navUser-item--account"><a class="navUser-action" href="/login.php">Sign in</a> '
            '<span class="navUser-or">or</span> <a class="navUser-action" href="/login.php?action=create_account">'
            'Register</a></li><li class="navUser-item navUser-item--cart"><a class="navUser-action" data-cart-preview '
            'href="/cart.php"><span class="navUser-item-cartLabel">Cart</span> <span class="countPill cart-quantity '
            'countPill--positive">4</span></a></li></ul></nav><div class="header-logo"><a href="/" class="header-logo__link">'
            '<span class="header-logo-text">Lakehouse Kitchen Co.</span></a></div>'
            '<div class="navPages-container" id="menu" data-menu><nav class="navPages">'
            + mega_menu({"Cookware": ["Skillets", "Dutch Ovens", "Griddles", "Saucepans", "Woks", "Bakeware"],
                         "Cutlery": ["Chef Knives", "Knife Sets", "Sharpeners", "Cutting Boards"],
                         "Tools": ["Spatulas", "Tongs", "Thermometers", "Scales"],
                         "Outdoor": ["Camp Cookware", "Grill Tools", "Smokers"],
                         "Sale": ["Clearance", "Bundles"]},
                        ul_class="navPages-list", li_class="navPages-item", sub_class="navPage-subMenu")
            + "</nav></div></header>"
            '<main class="body" id="main-content" role="main" data-currency-code="USD"><div class="container">'
            '<nav aria-label="Breadcrumb"><ol class="breadcrumbs"><li class="breadcrumb"><a href="/" '
            'class="breadcrumb-label"><span>Home</span></a></li><li class="breadcrumb"><a href="/cookware/" '
            'class="breadcrumb-label"><span>Cookware</span></a></li><li class="breadcrumb is-active">'
            f'<span class="breadcrumb-label">{name}</span></li></ol></nav>'
            '<div class="productView"><section class="productView-images" data-image-gallery><figure '
            'class="productView-image"><img src="/img/skillet.jpg" alt="Skillet" width="500" height="500"></figure>'
            '</section><section class="productView-details product-data"><div class="productView-product">'
            f'<h1 class="productView-title">{name}</h1><h2 class="productView-brand"><a href="/brands/lakehouse/">'
            '<span>Lakehouse</span></a></h2><div class="productView-price">'
            '<div class="price-section price-section--withTax rrp-price--withTax" style="display: none;">MSRP: '
            '<span data-product-rrp-with-tax class="price price--rrp">$59.95</span></div>'
            '<div class="price-section price-section--withoutTax non-sale-price--withoutTax">Was: '
            '<span data-product-non-sale-price-without-tax class="price price--non-sale">$49.95</span></div>'
            '<div class="price-section price-section--withoutTax"><span class="price-label">Now: </span>'
            '<span data-product-price-without-tax class="price price--withoutTax">$39.95</span></div>'
            '<div class="price-section price-section--saving price"><span class="price">(You save </span>'
            '<span data-product-price-saved class="price price--saving">$10.00</span><span class="price">)</span></div>'
            '</div><div data-content-region="product_below_price"></div><div class="productView-rating">'
            '<span class="icon icon--ratingFull">★★★★★</span><span class="productView-reviewLink">'
            '<a href="#product-reviews">18 reviews</a></span></div>'
            f'<dl class="productView-info">{info}</dl></div>'
            '<div class="productView-options"><form class="form" method="post" action="/cart.php" '
            'enctype="multipart/form-data" data-cart-item-add><input type="hidden" name="action" value="add">'
            '<input type="hidden" name="product_id" value="112"><div class="form-field form-field--increments">'
            '<label class="form-label form-label--alternate" for="qty[]">Quantity:</label><div class="form-increment">'
            '<button class="button button--icon" data-action="dec">−</button><input class="form-input '
            'form-input--incrementTotal" id="qty[]" name="qty[]" type="tel" value="1" data-quantity-min="0">'
            '<button class="button button--icon" data-action="inc">+</button></div></div>'
            '<div class="form-action"><input id="form-action-addToCart" data-wait-message="Adding to cart…" '
            'class="button button--primary" type="submit" value="Add to Cart"></div></form>'
            '<div class="paypal-buttons-container"><button type="button" class="paypal-button">PayPal Checkout</button>'
            "</div></div></section></div>"
            '<article class="productView-description"><ul class="tabs" data-tab><li class="tab is-active">'
            '<a class="tab-title" href="#tab-description">Description</a></li><li class="tab"><a class="tab-title" '
            'href="#tab-warranty">Warranty</a></li></ul><div class="tabs-contents"><div class="tab-content is-active" '
            'id="tab-description">' + filler(COPY_EN, 4, 5) + '</div><div class="tab-content" id="tab-warranty">'
            "<p>Lifetime warranty against cracking.</p></div></div></article>"
            '<section class="product-reviews" id="product-reviews"><h2 class="page-heading">18 Reviews</h2>'
            + reviews([("Gail", 5, "Heavy duty", "Better than the $49.95 one I had from the big box store."),
                       ("Ken", 5, "Sears beautifully", "Pre-seasoning is decent, I added two coats."),
                       ("Bea", 4, "Heavy", "Really heavy, as expected.")], cls="productReview")
            + "</section>"
            '<div class="tabs-contents"><div class="tab-content is-active" id="tab-related"><h2>Related Products</h2>'
            + related + "</div></div></div></main>" + footer("en", "Lakehouse Kitchen Co.", cls="footer"))
    return (html_page("en", f"{name} - Lakehouse Kitchen Co.", "", style, body),
            {"price": "39.95", "currency": "USD", "sku": "LH-CAST-12", "gtin": "012345678905",
             "availability": "InStock"})


# -- a large marketplace (Amazon-like) ----------------------------------------------------------------

@page
def marketplace_buybox() -> tuple[str, dict[str, str]]:
    """A marketplace item page: the price as an off-screen accessible text plus split visual parts
    (aria-hidden), "List Price" struck with a data attribute, a price per count, a buy box with
    delivery over a threshold, other sellers "from" a lower price, product details tables whose
    values carry invisible direction marks, and a sponsored carousel."""
    name = "Northwind AA Rechargeable Batteries, 2800mAh, 24-Pack"

    def a_price(x: float, cls: str = "", strike: bool = False) -> str:
        whole, frac = f"{x:,.2f}".split(".")
        extra = ' data-a-strike="true"' if strike else ""
        return (f'<span class="a-price {cls}" data-a-size="xl" data-a-color="base"{extra}><span class="a-offscreen">'
                f'${x:,.2f}</span><span aria-hidden="true"><span class="a-price-symbol">$</span><span '
                f'class="a-price-whole">{whole}<span class="a-price-decimal">.</span></span><span '
                f'class="a-price-fraction">{frac}</span></span></span>')

    tech = "".join(f'<tr><th class="a-color-secondary a-size-base prodDetSectionEntry">{k}</th>'
                   f'<td class="a-size-base prodDetAttrValue">\u200e{v}</td></tr>'
                   for k, v in (("Brand", "Northwind"), ("Item model number", "NW-AA28-24"),
                                ("Battery Cell Composition", "NiMH"), ("Voltage", "1.2 Volts"),
                                ("Unit Count", "24.0 Count"), ("UPC", "850012345673"),
                                ("Manufacturer", "Northwind Power Ltd.")))
    extra = "".join(f'<tr><th class="a-color-secondary a-size-base prodDetSectionEntry">{k}</th>'
                    f'<td class="a-size-base prodDetAttrValue">{v}</td></tr>'
                    for k, v in (("ASIN", "B0NW28AA24"), ("Customer Reviews", "4.5 out of 5 stars 12,408 ratings"),
                                 ("Best Sellers Rank", "#3 in AA Batteries"),
                                 ("Date First Available", "March 2, 2022")))
    sponsored = cards([("Smart Battery Charger 8-Bay", 32.99, None), ("AAA Rechargeable 16-Pack", 21.49, 25.99),
                       ("Battery Organizer Case", 12.99, None), ("9V Rechargeable 4-Pack", 26.95, None),
                       ("C Cell Rechargeable 4-Pack", 19.99, None)], usd, wrap="a-carousel",
                      card="a-carousel-card", price="a-row a-size-base a-color-price", old="a-text-strike",
                      button="Add to Cart")
    style = css(
        "#navbar{background:#131921;color:#fff;padding:10px 20px}#nav-cart-count{color:#f08804;font-weight:700}"
        "#nav-main{background:#232f3e;color:#fff;padding:6px 20px}#dp-container{display:flex;gap:20px;padding:20px}"
        "#leftCol{width:40%}#centerCol{width:38%}#rightCol{width:22%;border:1px solid #ddd;border-radius:8px;padding:14px}"
        "#productTitle{font-size:24px;font-weight:400}.a-offscreen{position:absolute;left:-10000px;top:auto;width:1px;"
        "height:1px;overflow:hidden}.a-price{font-size:28px}.a-text-price{font-size:14px;color:#565959}"
        ".a-text-price[data-a-strike=true]{text-decoration:line-through}.savingsPercentage{color:#cc0c39;font-size:28px}"
        "#availability .a-color-success{color:#007600;font-size:18px}.a-button-primary{background:#ffd814;"
        "border-radius:20px;border:0;padding:8px;width:100%}.a-carousel{display:flex;gap:14px;overflow:hidden}"
        ".a-carousel-card{min-width:180px}")
    body = ('<header id="navbar-main"><div id="navbar" class="nav-sprite-v1"><a href="/" id="nav-logo-sprites" '
            'class="nav-logo-link">shopmart</a><div id="nav-global-location-slot">Deliver to Ana, Seattle 98101</div>'
            '<form id="nav-search-bar-form" action="/s" method="get" role="search"><select id="searchDropdownBox" '
            'aria-label="Search in"><option>All Departments</option><option>Electronics</option></select>'
            '<input type="text" id="twotabsearchtextbox" name="field-keywords" placeholder="Search shopmart" '
            'aria-label="Search shopmart"><input type="submit" id="nav-search-submit-button" value="Go"></form>'
            '<a href="/account" id="nav-link-accountList">Hello, Ana<br>Account &amp; Lists</a>'
            '<a href="/orders" id="nav-orders">Returns &amp; Orders</a><a href="/cart" id="nav-cart" '
            'aria-label="3 items in cart"><span id="nav-cart-count" aria-hidden="true">3</span>'
            '<span class="nav-line-2">Cart</span></a></div><div id="nav-main">'
            + mega_menu(CATEGORIES_EN, ul_class="nav-menu", li_class="nav-a", sub_class="nav-flyout")
            + '</div></header><div id="wayfinding-breadcrumbs_feature_div"><ul class="a-unordered-list a-horizontal">'
            '<li><a href="/electronics">Electronics</a></li><li>›</li><li><a href="/batteries">Household Batteries</a>'
            '</li><li>›</li><li><a href="/aa">AA</a></li></ul></div>'
            '<div id="dp" class="electronics"><div id="dp-container" role="main"><div id="leftCol">'
            '<div id="imgTagWrapperId"><img src="/img/batteries.jpg" alt="' + name + '" width="400" height="400"></div>'
            '</div><div id="centerCol"><div id="title_feature_div"><h1 id="title" class="a-size-large a-spacing-none">'
            f'<span id="productTitle" class="a-size-large product-title-word-break">{name}</span></h1></div>'
            '<div id="bylineInfo_feature_div"><a id="bylineInfo" href="/stores/northwind">Visit the Northwind Store</a>'
            '</div><div id="averageCustomerReviews"><span class="a-icon-alt">4.5 out of 5 stars</span> '
            '<a href="#customerReviews">12,408 ratings</a></div><div id="acBadge_feature_div"><span class="ac-badge-text">'
            "Overall Pick</span></div><hr>"
            '<div id="corePriceDisplay_desktop_feature_div"><div class="a-section a-spacing-none aok-align-center">'
            '<span class="a-size-large a-color-price savingsPercentage">-25%</span>'
            + a_price(29.99, "aok-align-center reinventPricePriceToPayMargin priceToPay")
            + '<span class="a-size-mini aok-offscreen"> $1.25 per Count </span><span aria-hidden="true" '
            'class="a-size-mini a-color-base aok-align-center pricePerUnit">($<span>1.25</span>$1.25 / Count)</span>'
            '</div><div class="a-section a-spacing-small aok-align-center"><span class="a-size-small a-color-secondary '
            'aok-align-center basisPrice">List Price: ' + a_price(39.99, "a-text-price", strike=True) + "</span></div></div>"
            '<div id="installmentCalculator_feature_div"><span>Or $7.50/mo (4 mo). <a href="#">Select from 1 plan'
            "</a></span></div>"
            '<div id="feature-bullets" class="a-section a-spacing-medium a-spacing-top-small"><h2>About this item</h2>'
            '<ul class="a-unordered-list a-vertical a-spacing-mini"><li><span class="a-list-item">2800mAh high capacity, '
            'pre-charged and ready to use.</span></li><li><span class="a-list-item">Recharge up to 1,200 times.</span>'
            '</li><li><span class="a-list-item">Keeps 80% of its charge after a year in storage.</span></li></ul></div>'
            '</div><div id="rightCol"><div id="buybox"><div id="apex_offerDisplay_desktop">'
            + a_price(29.99, "aok-align-center")
            + '</div><div id="mir-layout-DELIVERY_BLOCK"><span data-csa-c-delivery-price="FREE">FREE delivery '
            '<span class="a-text-bold">Tuesday, June 4</span> on orders shipped by shopmart over $35</span></div>'
            '<div id="availability" class="a-section a-spacing-base"><span class="a-size-medium a-color-success">'
            "In Stock</span></div>"
            '<div id="quantityRelocate_feature_div"><label for="quantity">Quantity:</label><select name="quantity" '
            'id="quantity"><option value="1" selected>1</option><option value="2">2</option><option value="3">3'
            "</option></select></div>"
            '<form id="addToCart" method="post" action="/cart/add-to-cart"><span class="a-button a-button-primary">'
            '<input id="add-to-cart-button" name="submit.add-to-cart" title="Add to Shopping Cart" '
            'class="a-button-input" type="submit" value="Add to Cart" aria-labelledby="submit.add-to-cart-announce">'
            '<span id="submit.add-to-cart-announce" class="a-button-text">Add to Cart</span></span>'
            '<span class="a-button a-button-oneclick"><input id="buy-now-button" class="a-button-input" type="submit" '
            'value="Buy Now"><span class="a-button-text">Buy Now</span></span></form>'
            '<div class="tabular-buybox-container"><div>Ships from</div><div>shopmart</div><div>Sold by</div>'
            "<div>Northwind Power</div><div>Returns</div><div>Returnable until Jan 31, 2025</div></div></div>"
            '<div id="olp_feature_div"><div class="a-section a-spacing-none"><a href="/offer-listing/B0NW28AA24">'
            '<span>Other Sellers on shopmart</span></a><br><a href="/offer-listing/B0NW28AA24"><span>New (7) from</span> '
            + a_price(27.50, "a-size-base") + ' <span>&amp; FREE Shipping on orders over $35.00</span></a></div></div>'
            "</div></div>"
            '<div id="sims-consolidated-1_feature_div"><div class="a-carousel-container"><h2 class="a-carousel-heading">'
            "Products related to this item</h2><span class=\"sp_desktop_sponsored_label\">Sponsored</span>"
            + sponsored + "</div></div>"
            '<div id="prodDetails"><h2>Product information</h2><table id="productDetails_techSpec_section_1" '
            f'class="a-keyvalue prodDetTable" role="presentation"><tbody>{tech}</tbody></table>'
            '<table id="productDetails_detailBullets_sections1" class="a-keyvalue prodDetTable" role="presentation">'
            f"<tbody>{extra}</tbody></table></div>"
            '<div id="customerReviews"><h2>Customer reviews</h2>'
            + reviews([("Sam K.", 5, "Hold a charge for months", "Cheaper than the $39.99 list price suggests."),
                       ("J. Ortiz", 4, "Good value", "At $29.99 for 24 that is $1.25 a battery."),
                       ("Dee", 2, "Two were dead", "Two of the 24 never charged.")], cls="a-section review",
                      helpful="Helpful")
            + "</div></div>" + footer("en", "shopmart", cls="navFooter"))
    return (html_page("en", f"shopmart.example: {name} : Electronics", "", style, body),
            {"price": "29.99", "currency": "USD", "mpn": "NW-AA28-24", "gtin": "850012345673",
             "availability": "InStock"})


# -- "Customers also bought" above the product --------------------------------------------------------

@page
def also_bought_above() -> tuple[str, dict[str, str]]:
    """A shelf of other products, each with a price and its own "Add to cart" button, comes before
    the product in the page; the old price's class ends in ``__was`` (no word boundary); SKU and
    model are inline "Label: value" pairs."""
    name = "Northwind HP-700 Wireless Noise Cancelling Headphones"
    shelf = cards([("USB-C Fast Charger 30W", 19.99, None), ("Hard Shell Headphone Case", 24.99, 29.99),
                   ("Bluetooth Transmitter", 39.99, None), ("Ear Cushion Replacement", 14.99, None),
                   ("3.5mm Audio Cable 6ft", 9.99, None)], usd, wrap="shelf__track", card="product-tile",
                  price="product-tile__price", old="product-tile__price-was", button="Add to cart")
    style = css(
        ".utility-bar{background:#0046be;color:#fff;padding:6px 30px;font-size:13px}"
        ".global-header{background:#0046be;color:#fff;padding:14px 30px}.cart-link{float:right}"
        ".cart-link .count{background:#ffe000;color:#000;border-radius:50%;padding:0 6px}"
        ".shelf{padding:16px 30px;border-bottom:1px solid #ddd}.shelf__track{display:flex;gap:16px;overflow-x:auto}"
        ".product-tile{min-width:200px}.product-tile__price{font-size:18px;font-weight:700}"
        ".product-tile__price-was{text-decoration:line-through;font-weight:400;font-size:13px}"
        ".pdp{display:grid;grid-template-columns:1fr 1fr;gap:30px;padding:20px 30px}.pdp h1{font-size:26px}"
        ".pdp-price__current{font-size:34px;font-weight:700}.pdp-price__was{font-size:14px;color:#555;"
        "text-decoration:line-through;margin-left:8px}.pdp-price__save{background:#bb0628;color:#fff;padding:2px 6px}"
        ".btn-primary{background:#ffe000;border:0;padding:14px;width:100%;font-weight:700}"
        ".sku-values{font-size:13px;color:#555}.sku-values span{margin-right:14px}")
    body = ('<div class="utility-bar"><a href="/stores">Find a store</a> · <a href="/deals">Top Deals</a> · '
            '<a href="/membership">Membership</a> · <a href="/credit">Credit Cards</a></div>'
            '<header class="global-header"><a class="logo" href="/">VoltMart</a><form class="search" action="/search">'
            '<input type="search" aria-label="Search" placeholder="What can we help you find today?" name="st">'
            '<button type="submit">Search</button></form><a class="cart-link" href="/cart">Cart '
            '<span class="count">1</span></a><nav class="main-nav" aria-label="Main menu">'
            + mega_menu(CATEGORIES_EN, ul_class="nav-list", li_class="nav-list__item", sub_class="flyout")
            + '</nav></header><nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/">VoltMart</a></li>'
            '<li><a href="/audio">Audio</a></li><li><a href="/headphones">Headphones</a></li><li>'
            "Wireless Headphones</li></ol></nav>"
            '<section class="shelf" aria-labelledby="shelf-heading"><h2 id="shelf-heading">Customers also bought</h2>'
            + shelf + '<button class="shelf__next" aria-label="Next slide">›</button></section>'
            '<div class="pdp" data-product-id="6501234"><div class="pdp-media"><img src="/img/hp700.jpg" '
            'alt="Headphones" width="500" height="500"></div><div class="pdp-info">'
            f'<h1 class="heading-5 v-fw-regular">{name}</h1>'
            '<div class="sku-values"><span class="model">Model: <b>NW-HP700</b></span><span class="sku">SKU: '
            '<b>6501234</b></span></div><div class="ratings"><span aria-label="Rating 4.7 out of 5 stars">★★★★★</span> '
            '<a href="#reviews">(2,311 Reviews)</a></div>'
            '<div class="pdp-price" data-testid="customer-price"><span class="pdp-price__current" aria-hidden="true">'
            '$249.99</span><span class="pdp-price__was">Was $299.99</span><span class="pdp-price__save">Save $50</span>'
            '<span class="sr-only">Your price for this item is $249.99. The previous price was $299.99.</span></div>'
            '<div class="financing"><span>Or $20.83/mo. for 12 months*</span> <a href="/credit">Learn more</a></div>'
            '<div class="fulfillment"><div class="fulfillment__pickup"><b>Pickup</b> Ready today at Downtown</div>'
            '<div class="fulfillment__shipping"><b>Shipping</b> Get it by Fri, Jun 7 — FREE</div></div>'
            '<button type="button" class="btn btn-primary add-to-cart-button" data-sku-id="6501234">Add to Cart</button>'
            '<div class="protection"><h3>Add a Protection Plan</h3><label><input type="radio" name="plan"> 2-Year '
            'Protection $39.99</label><label><input type="radio" name="plan"> 3-Year Protection $54.99</label></div>'
            "</div></div>"
            '<section class="overview"><h2>Overview</h2>' + filler(COPY_EN, 3, 6) + "</section>"
            '<section id="reviews" class="reviews"><h2>Reviews</h2>'
            + reviews([("AudioFan", 5, "Best ANC under $300", "Returned a $349 pair for these."),
                       ("Lia", 4, "Comfortable", "Wore them on a 10-hour flight."),
                       ("Vic", 3, "App is meh", "Sound is good, the app needs work.")], cls="ugc-review")
            + "</section>" + footer("en", "VoltMart"))
    return (html_page("en", f"{name} - VoltMart", "", style, body),
            {"price": "249.99", "currency": "USD", "sku": "6501234", "mpn": "NW-HP700", "availability": "InStock"})


# -- generic custom storefronts -----------------------------------------------------------------------

GENERIC_CSS = (
    ".topbar{background:#222;color:#fff;text-align:center;padding:6px;font-size:13px}"
    ".site-header{display:flex;gap:20px;align-items:center;padding:14px 30px;border-bottom:1px solid #e5e5e5}"
    ".breadcrumbs{padding:10px 30px;font-size:13px}.breadcrumbs li{display:inline;margin-right:6px}"
    ".pdp{display:grid;grid-template-columns:1fr 1fr;gap:36px;padding:20px 30px}.pdp h1{font-size:30px;margin:0 0 8px}"
    ".btn{border:0;padding:13px 22px;font-size:15px;cursor:pointer}.btn--primary{background:#111;color:#fff;width:100%}"
    ".btn--secondary{background:#fff;border:1px solid #111}.product-grid,.carousel__track{display:flex;gap:16px}"
)


def generic_header(shop: str, cart: str, *, cats: dict[str, list[str]] = CATEGORIES_EN) -> str:
    return (f'<header class="site-header"><a class="site-header__logo" href="/">{shop}</a>'
            '<nav class="site-nav" aria-label="Main">'
            + mega_menu(cats, ul_class="site-nav__menu", li_class="site-nav__item", sub_class="site-nav__dropdown")
            + '</nav><form class="site-header__search" action="/search"><input type="search" name="q" '
            'aria-label="Search" placeholder="Search"><button type="submit">Search</button></form>'
            '<a class="site-header__account" href="/account">Account</a>'
            f'<a class="site-header__cart" href="/cart">{cart}</a></header>')


@page
def bundle_frequently_bought() -> tuple[str, dict[str, str]]:
    """A "Frequently bought together" box right under the buy button, with its own total and an
    "Add all three to cart" button; a quantity-break table; the SKU after an "Item #" label."""
    name = "Qi2 Wireless Charging Stand 15W"
    fbt = ('<section class="fbt" aria-labelledby="fbt-h"><h2 id="fbt-h">Frequently bought together</h2>'
           '<ul class="fbt__items"><li><label><input type="checkbox" checked disabled> <b>This item:</b> '
           f'{name} <span class="fbt__price">$29.99</span></label></li><li><label><input type="checkbox" checked> '
           'MagSafe Silicone Case <span class="fbt__price">$12.99</span></label></li><li><label><input type="checkbox" '
           'checked> 20W USB-C Wall Adapter <span class="fbt__price">$19.99</span></label></li></ul>'
           '<div class="fbt__total">Total price: <span class="fbt__total-price">$62.97</span></div>'
           '<button type="button" class="btn btn--secondary fbt__add">Add all three to Cart</button></section>')
    tiers = ('<table class="qty-breaks"><caption>Buy more, save more</caption><thead><tr><th>Quantity</th><th>Price each'
             '</th></tr></thead><tbody><tr><td>1</td><td>$29.99</td></tr><tr><td>2–4</td><td>$26.99</td></tr>'
             "<tr><td>5+</td><td>$23.99</td></tr></tbody></table>")
    body = ('<div class="topbar">Free 2-day shipping on orders over $35</div>'
            + generic_header("ChargeHub", 'Cart <span class="cart-count">0</span>')
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/chargers">Chargers</a></li>'
            f"<li>{name}</li></ul>"
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/stand.jpg" alt="Charging stand" width="520" '
            f'height="520"></div><div class="pdp__info"><h1 class="pdp__title">{name}</h1>'
            '<p class="pdp__meta">Item #: <span>CH-Q2S-WHT</span> · <a href="#reviews">4.6 ★ (389)</a></p>'
            '<div class="pdp__price"><span class="price-now">$29.99</span></div>'
            '<p class="pdp__stock">In stock — ships today</p>'
            '<div class="pdp__qty"><label for="qty">Qty</label><input id="qty" type="number" value="1" min="1"></div>'
            '<button type="submit" class="btn btn--primary" form="buy">Add to Cart</button>'
            '<form id="buy" method="post" action="/cart/add"><input type="hidden" name="sku" value="CH-Q2S-WHT"></form>'
            + fbt + tiers + '<div class="pdp__desc"><h2>Details</h2>' + filler(COPY_EN, 3, 7) + "</div></div></main>"
            '<section id="reviews" class="reviews"><h2>Customer reviews</h2>'
            + reviews([("Kat", 5, "Fast", "Bought the bundle for $62.97, the adapter is a must."),
                       ("Ruben", 4, "Works through a case", "Slight warmth while charging.")], cls="review")
            + "</section>" + footer("en", "ChargeHub"))
    return (html_page("en", f"{name} | ChargeHub", "", css(GENERIC_CSS + ".price-now{font-size:30px;font-weight:700}"
                                                            ".fbt{border:1px solid #ddd;padding:14px;margin-top:18px}"),
                      body),
            {"price": "29.99", "currency": "USD", "sku": "CH-Q2S-WHT", "availability": "InStock"})


@page
def cookie_banner_sticky_cart() -> tuple[str, dict[str, str]]:
    """A cookie consent dialog over the page, a sticky header whose cart shows a subtotal, a free
    shipping progress line, a sticky add-to-cart bar repeating the price at the bottom."""
    name = "Speckled Stoneware Mug, 12 oz"
    consent = ('<div id="consent" class="consent-banner" role="dialog" aria-modal="false" aria-labelledby="consent-h">'
               '<h2 id="consent-h">We value your privacy</h2><p>We use cookies to improve your experience, analyse '
               'traffic and show personalised ads. You can accept all cookies, reject them, or choose which ones '
               'to allow. Read our <a href="/cookies">Cookie Policy</a>.</p><div class="consent-banner__buttons">'
               '<button type="button" class="btn btn--secondary">Cookie settings</button><button type="button" '
               'class="btn btn--secondary">Reject all</button><button type="button" class="btn btn--primary">'
               "Accept all</button></div></div>")
    sticky = ('<div class="sticky-atc" aria-hidden="false"><img src="/img/mug.jpg" alt="" width="40" height="40">'
              f'<span class="sticky-atc__title">{name}</span><span class="sticky-atc__price">$36.00</span>'
              '<button type="button" class="btn btn--primary sticky-atc__button">Add to cart</button></div>')
    style = css(GENERIC_CSS + ".site-header{position:sticky;top:0;background:#fff;z-index:5}"
                ".header-cart__subtotal{font-weight:700;margin-left:6px}"
                ".consent-banner{position:fixed;left:0;right:0;bottom:0;background:#fff;box-shadow:0 -2px 12px #0003;"
                "padding:20px 30px;z-index:20}.consent-banner .btn--primary{width:auto}"
                ".sticky-atc{position:fixed;left:0;right:0;bottom:0;display:flex;gap:12px;align-items:center;"
                "background:#fafafa;padding:8px 30px;z-index:10}.sticky-atc .btn--primary{width:auto}"
                ".product-price{font-size:26px}.progress{background:#eef;padding:8px;font-size:13px}")
    body = (consent + generic_header("Claybird Studio", 'Cart (2) <span class="header-cart__subtotal">$84.00</span>')
            + '<div class="progress" role="status">You\'re $14.00 away from free shipping (orders over $50)!</div>'
            '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/mugs">Mugs</a></li>'
            f"<li>{name}</li></ul>"
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/mug.jpg" alt="Mug" width="520" height="520">'
            f'</div><div class="pdp__info"><h1>{name}</h1><div class="product-price">$36.00</div>'
            '<p class="pdp__stock">In stock</p><p class="pdp__sku">SKU: CB-MUG-12-SPK</p>'
            '<fieldset class="swatches"><legend>Glaze</legend><label><input type="radio" name="glaze" checked> Speckled'
            '</label><label><input type="radio" name="glaze"> Sage</label></fieldset>'
            '<button type="submit" class="btn btn--primary">Add to cart</button>'
            '<div class="pdp__desc">' + filler(COPY_EN, 3, 8) + "</div></div></main>"
            '<section class="reviews"><h2>Reviews</h2>'
            + reviews([("Nell", 5, "My daily mug", "Worth the $36, heavy and warm in the hand."),
                       ("Ari", 5, "Gift", "Bought four as gifts.")], cls="review")
            + "</section>" + footer("en", "Claybird Studio") + sticky)
    return (html_page("en", f"{name} — Claybird Studio", "", style, body),
            {"price": "36.00", "currency": "USD", "sku": "CB-MUG-12-SPK", "availability": "InStock"})


@page
def instalments_before_price() -> tuple[str, dict[str, str]]:
    """An instalment message placed between the heading and the price ("or 4 interest-free payments
    of $12.50"), a monthly "as low as", a shipping cost and a free shipping threshold, and sizes
    where one is struck as sold out."""
    name = "Relaxed Linen Button-Down Shirt"
    style = css(GENERIC_CSS + ".klarna{font-size:13px;color:#555}.price{font-size:24px;font-weight:600}"
                ".size-list label{display:inline-block;border:1px solid #aaa;padding:6px 12px;margin:2px}"
                ".size-list .size--unavailable{text-decoration:line-through;color:#aaa}")
    body = ('<div class="topbar">Free shipping on orders over $75 · Free returns</div>'
            + generic_header("Harbor & Pine", 'Bag (0)')
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/men">Men</a></li><li>'
            '<a href="/men/shirts">Shirts</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/linen.jpg" alt="Shirt" width="520" '
            f'height="520"></div><div class="pdp__info"><h1 class="product-title">{name}</h1>'
            '<klarna-placement data-key="top-strip-promotion-auto-size" data-purchase-amount="5000">'
            '<div class="klarna">or 4 interest-free payments of <b>$12.50</b> with <b>Klarna</b>. '
            '<a href="#">Learn more</a></div></klarna-placement>'
            '<div class="price" data-product-price>$50.00</div><div class="affirm">As low as $9/mo with Affirm. '
            '<a href="#">Prequalify now</a></div>'
            '<fieldset class="size-list"><legend>Size</legend>'
            + "".join(f'<input type="radio" name="size" id="s{s}" class="hidden"{" checked" if s == "M" else ""}>'
                      f'<label for="s{s}" class="{"size--unavailable" if s == "XS" else ""}">{s}</label>'
                      for s in ("XS", "S", "M", "L", "XL"))
            + '</fieldset><p class="size-note">XS is sold out.</p>'
            '<button type="submit" class="btn btn--primary">Add to Bag</button>'
            '<ul class="shipping-info"><li>Standard shipping $5.99 · Free on orders over $75</li>'
            "<li>Express shipping $14.99</li><li>Free returns within 60 days</li></ul>"
            '<details class="accordion" open><summary>Details</summary>' + filler(COPY_EN, 2, 9)
            + '<p>Style no. HP-LN-221</p></details></div></main>'
            '<section class="recs"><h2>Complete the look</h2>'
            + cards([("Linen Drawstring Trousers", 68.00, None), ("Canvas Espadrilles", 45.00, 59.00),
                     ("Woven Belt", 29.00, None)], usd, wrap="product-grid", card="product-card",
                    price="product-card__price", button="Quick add")
            + "</section>" + footer("en", "Harbor & Pine"))
    return (html_page("en", f"{name} | Harbor & Pine", "", style, body),
            {"price": "50.00", "currency": "USD", "availability": "InStock"})


@page
def split_price_superscript() -> tuple[str, dict[str, str]]:
    """A home-improvement store: the price split over a currency span, dollars and ``<sup>`` cents,
    a struck "Was" price, a "Save" amount, a credit card offer with a lower "pay" amount, and
    "Model # / Internet # / Store SKU #" labels."""
    name = "36 in. 5-Burner Gas Range Cooktop in Stainless Steel"
    style = css(GENERIC_CSS + ".price-format__main-price{font-size:14px}.price-format__large{font-size:48px;"
                "font-weight:700}.price-format__large sup{font-size:24px}.u__strike{text-decoration:line-through}"
                ".savings{color:#00853e}.product-identifier{font-size:12px;margin-right:12px}")
    body = ('<div class="topbar">Free delivery on appliance purchases $396 or more</div>'
            + generic_header("BuildRight", 'Cart <span class="cart-count">2</span>',
                             cats={"Appliances": ["Refrigerators", "Ranges", "Dishwashers", "Washers", "Dryers",
                                                  "Microwaves", "Cooktops"],
                                   "Bath": ["Vanities", "Toilets", "Showers", "Faucets"],
                                   "Building Materials": ["Lumber", "Drywall", "Insulation", "Roofing"],
                                   "Tools": ["Power Tools", "Hand Tools", "Tool Storage"],
                                   "Outdoors": ["Grills", "Patio Furniture", "Lawn Mowers"]})
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/appliances">Appliances</a></li>'
            '<li><a href="/cooktops">Cooktops</a></li><li><a href="/gas-cooktops">Gas Cooktops</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/cooktop.jpg" alt="Cooktop" width="520" '
            'height="520"></div><div class="pdp__info"><div class="product-details__brand">Kestrel Home</div>'
            f'<h1 class="product-details__title">{name}</h1>'
            '<div class="product-identifiers"><span class="product-identifier">Internet #318456123</span>'
            '<span class="product-identifier">Model # KH-GC36-SS</span>'
            '<span class="product-identifier">Store SKU #1004567890</span></div>'
            '<div class="price-detailed__wrapper"><div class="price-format__main-price" aria-label="Price $1,249.00">'
            '<span class="price-format__large price-format__main-price"><span class="price-format__large-currency-symbols">'
            '$</span><span>1,249</span><sup class="price-format__large-cents">00</sup></span></div>'
            '<div class="price-detailed__was">Was <span class="u__strike">$1,499.00</span></div>'
            '<div class="savings">Save $250.00 (17%)</div></div>'
            '<div class="card-offer">Pay <b>$1,149.00</b> after <b>$100</b> OFF your total qualifying purchase upon '
            'opening a new card. <a href="#">Apply for a BuildRight Consumer Card</a></div>'
            '<div class="fulfillment"><div class="fulfillment__delivery"><b>Delivery</b> Free · Get it by Jun 10</div>'
            '<div class="fulfillment__pickup"><b>Store Pickup</b> Not available for this item</div></div>'
            '<button type="button" class="btn btn--primary">Add to Cart</button>'
            '<div class="specifications"><h2>Specifications</h2><table class="specs-table"><tbody>'
            "<tr><td>Burner Count</td><td>5</td></tr><tr><td>Fuel Type</td><td>Natural Gas</td></tr>"
            "<tr><td>Product Width (in.)</td><td>36</td></tr><tr><td>Warranty</td><td>1 Year Limited</td></tr>"
            '</tbody></table></div><div class="pdp__desc">' + filler(COPY_EN, 3, 10) + "</div></div></main>"
            '<section class="reviews"><h2>Customer Reviews</h2>'
            + reviews([("DIYdad", 5, "Worth it", "Got it on sale for $1,249 instead of $1,499."),
                       ("Mira", 4, "Hot burners", "The center burner is very powerful.")], cls="review")
            + "</section>" + footer("en", "BuildRight"))
    return (html_page("en", f"{name} - BuildRight", "", style, body),
            {"price": "1249.00", "currency": "USD", "sku": "1004567890", "mpn": "KH-GC36-SS",
             "availability": "InStock"})


# -- European shops -----------------------------------------------------------------------------------

@page
def fashion_de_hashed_classes() -> tuple[str, dict[str, str]]:
    """A German fashion platform with generated class names (nothing says "price"): the sale price,
    the original price struck only by a generated class, the lowest price of the last 30 days
    (EU rule), "Nur noch 2 Stück verfügbar", a closed size list where some sizes are sold out,
    the article number in a details list, "Das könnte dir auch gefallen" cards."""
    name = "Steppjacke mit Kapuze"
    style = css(
        "._hdr{display:flex;gap:18px;padding:14px 32px;border-bottom:1px solid #ddd}._bc1{padding:8px 32px;"
        "font-size:12px}._pd{display:grid;grid-template-columns:60% 40%;gap:32px;padding:12px 32px}"
        "._t1{font-size:22px;font-weight:400}._br{font-weight:700;font-size:18px}._p0{font-size:22px;color:#d0011b;"
        "font-weight:700}._p1{text-decoration:line-through;color:#666;margin-left:6px}._p2{font-size:12px;color:#666}"
        "._sz{display:none}._cta{background:#ff6900;color:#fff;border:0;padding:14px;width:100%;font-size:16px}"
        "._st{color:#d0011b;font-weight:700}._crd{display:flex;gap:14px}._dl dt{float:left;clear:left;width:160px;"
        "color:#666}._dl dd{margin-left:170px}")
    sizes = "".join(f'<li role="option" aria-disabled="{str(s in ("34", "44")).lower()}"><span>{s}</span>'
                    f'{"<span> – ausverkauft</span>" if s in ("34", "44") else ""}</li>'
                    for s in ("34", "36", "38", "40", "42", "44"))
    details = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in (
        ("Kragen", "Kapuze"), ("Verschluss", "Reißverschluss"), ("Taschen", "Seitentaschen"),
        ("Muster", "Unifarben"), ("Artikelnummer", "KS121G0B2-Q11")))
    crd = cards([("Strickmütze", 19.99, None), ("Wollschal", 29.95, 39.95), ("Lederhandschuhe", 49.95, None),
                 ("Winterstiefel", 89.95, 119.95)], eur_de, wrap="_crd", card="_c9", price="_c9p", old="_p1")
    body = ('<header class="_hdr"><a href="/" class="_lg">Kleiderwerk</a><nav class="_nv">'
            + mega_menu(CATEGORIES_DE, ul_class="_mn", li_class="_mi", sub_class="_ms")
            + '</nav><form action="/suche"><input type="search" aria-label="Suche" placeholder="Suche"></form>'
            '<a href="/wunschzettel">Wunschzettel</a><a href="/warenkorb" aria-label="Warenkorb, 1 Artikel">'
            'Warenkorb <span class="_bd">1</span></a></header>'
            '<nav class="_bc1" aria-label="Brotkrumen"><a href="/">Damen</a> › <a href="/damen-jacken">Jacken</a> › '
            '<a href="/damen-steppjacken">Steppjacken</a></nav>'
            '<main class="_pd" id="main-content"><div class="_gl"><img src="/img/steppjacke.jpg" alt="Steppjacke" '
            'width="600" height="800"></div><div class="_in"><x-wrapper-re-1-6><h1 class="_t1"><span class="_br">'
            f'Oakridge</span> <span>{name}</span></h1></x-wrapper-re-1-6>'
            '<div class="_pb"><p><span class="_p0">49,95\u00a0€</span><span class="_p1">69,95\u00a0€</span>'
            '<span class="_p9">-29\u00a0%</span></p><p class="_p2">inkl. MwSt.</p>'
            '<p class="_p2">Niedrigster Preis der letzten 30 Tage: 52,95\u00a0€</p></div>'
            '<div class="_cl"><span>Farbe: </span><b>dunkelblau</b></div>'
            '<div class="_sw"><button type="button" aria-haspopup="listbox" aria-expanded="false" class="_sb">'
            f'Größe wählen</button><ul class="_sz" role="listbox">{sizes}</ul></div>'
            '<p class="_st">Nur noch 2 Stück verfügbar</p>'
            '<button type="button" class="_cta">In den Warenkorb</button>'
            '<div class="_dv"><p>Gratis Versand &amp; Rückversand</p><p>Lieferung: Mi. 12.06. – Fr. 14.06.</p>'
            "<p>100 Tage Rückgaberecht</p></div>"
            '<details open><summary>Material &amp; Pflegehinweise</summary><p>Obermaterial: 100 % Polyamid; Futter: '
            "100 % Polyester; Maschinenwäsche bei 30 °C.</p></details>"
            f'<details open><summary>Details</summary><dl class="_dl">{details}</dl></details>'
            '<div class="_ds">' + filler(COPY_DE, 2, 11) + "</div></div></main>"
            '<section class="_rc"><h2>Das könnte dir auch gefallen</h2>' + crd + "</section>"
            '<section class="_rv"><h2>Bewertungen</h2>'
            + reviews([("Julia", 5, "Super warm", "Für 49,95 € ein Schnäppchen, statt 69,95 €."),
                       ("Sabine", 4, "Fällt klein aus", "Eine Nummer größer bestellen.")], cls="_r",
                      helpful="Hilfreich?")
            + "</section>" + footer("de", "Kleiderwerk"))
    return (html_page("de", f"Oakridge {name} dunkelblau | Kleiderwerk", "", style, body),
            {"price": "49.95", "currency": "EUR", "sku": "KS121G0B2-Q11", "availability": "LimitedAvailability"})


@page
def appliance_de_uvp_financing() -> tuple[str, dict[str, str]]:
    """A German department store: "UVP" struck by a stylesheet, cents in ``<sup>``, financing in
    twelve instalments, a shipping line, "lieferbar" with a delivery window, "Art.-Nr." inline,
    a "Kunden kauften auch" carousel and a sticky mini-basket with its total."""
    name = "Kaffeevollautomat Barista Pro 8"
    style = css(
        ".hdr{display:flex;gap:20px;padding:12px 32px;border-bottom:2px solid #f00020}"
        ".minibasket{position:sticky;top:0;float:right}.pdp{display:grid;grid-template-columns:1fr 1fr;gap:30px;"
        "padding:16px 32px}.pdp h1{font-size:24px}.pdp_price__retail-price{color:#666}"
        ".pdp_price__retail-price .value{text-decoration:line-through}.pdp_price__price{font-size:34px;"
        "font-weight:700;color:#f00020}.pdp_price__price sup{font-size:18px}.pdp_financing{font-size:13px}"
        ".pdp_availability__text--green{color:#00892b;font-weight:700}.btn-basket{background:#00892b;color:#fff;"
        "border:0;padding:14px;width:100%}.slider{display:flex;gap:14px;overflow:hidden}")
    slider = cards([("Milchbehälter 0,6 l", 34.99, None), ("Entkalker 3er-Pack", 19.99, 24.99),
                    ("Wasserfilter 2er-Pack", 27.99, None), ("Reinigungstabletten", 12.49, None)], eur_de,
                   wrap="slider", card="slider__tile", price="tile__price", old="tile__retail", button="In den Warenkorb")
    body = ('<header class="hdr"><a href="/" class="logo">kaufhaus24</a><nav class="nav">'
            + mega_menu(CATEGORIES_DE, ul_class="nav__menu", li_class="nav__item", sub_class="nav__flyout")
            + '</nav><form action="/suche"><input type="search" aria-label="Suchbegriff" name="q"></form>'
            '<div class="minibasket"><a href="/warenkorb">Warenkorb <span class="minibasket__count">2</span> '
            '<span class="minibasket__sum">Summe: 1.117,98\u00a0€</span></a></div></header>'
            '<nav class="breadcrumb"><a href="/">Startseite</a> › <a href="/haushalt">Haushalt</a> › '
            '<a href="/kaffeemaschinen">Kaffeemaschinen</a> › <span>Kaffeevollautomaten</span></nav>'
            '<main class="pdp"><div class="pdp_gallery"><img src="/img/barista.jpg" alt="Kaffeevollautomat" '
            'width="560" height="560"></div><div class="pdp_details"><div class="pdp_brand">Lumen Works</div>'
            f'<h1 class="pdp_short-info__main-name">{name}</h1>'
            '<div class="pdp_short-info__articlenr">Art.-Nr.: 58214507</div>'
            '<div class="pdp_rating">★★★★☆ <a href="#bewertungen">(1.204)</a></div>'
            '<div class="pdp_price"><div class="pdp_price__retail-price">UVP <span class="value">899,00\u00a0€</span> '
            '<span class="pdp_price__discount">-22\u00a0%</span></div>'
            '<div class="pdp_price__price"><span class="pdp_price__inner">699,<sup>00</sup>\u00a0€</span></div>'
            '<div class="pdp_price__vat">inkl. MwSt. zzgl. <a href="/versand">Versandkosten</a> 5,95\u00a0€</div></div>'
            '<div class="pdp_financing">Finanzierung ab 58,25\u00a0€ mtl. (12 Raten à 58,25\u00a0€, eff. Jahreszins '
            "0,00\u00a0%)</div>"
            '<div class="pdp_availability"><span class="pdp_availability__text--green">lieferbar</span> – in 2-3 '
            "Werktagen bei dir</div>"
            '<button type="submit" class="btn-basket">In den Warenkorb</button>'
            '<div class="pdp_service"><p>Kostenlose Altgeräte-Mitnahme</p><p>30 Tage Rückgaberecht</p></div>'
            '<h2>Produktdetails</h2><table class="dv_characteristicsTable"><tbody>'
            "<tr><td>Wassertankvolumen</td><td>1,8 l</td></tr><tr><td>Pumpendruck</td><td>15 bar</td></tr>"
            "<tr><td>Farbe</td><td>Schwarz</td></tr><tr><td>Herstellernummer</td><td>LW-BP8-BLK</td></tr>"
            "<tr><td>EAN</td><td>4006381512345</td></tr></tbody></table>"
            '<div class="pdp_description">' + filler(COPY_DE, 3, 12) + "</div></div></main>"
            '<section class="reco"><h2>Kunden kauften auch</h2>' + slider + "</section>"
            '<section id="bewertungen"><h2>Kundenbewertungen</h2>'
            + reviews([("Michael", 5, "Top", "Im Angebot für 699 € statt 899 € gekauft."),
                       ("Petra", 4, "Laut", "Mahlwerk ist recht laut.")], cls="rv", helpful="Hilfreich?")
            + "</section>" + footer("de", "kaufhaus24"))
    return (html_page("de", f"{name} | kaufhaus24", "", style, body),
            {"price": "699.00", "currency": "EUR", "sku": "58214507", "mpn": "LW-BP8-BLK", "gtin": "4006381512345",
             "availability": "InStock"})


@page
def electronics_fr_unavailable() -> tuple[str, dict[str, str]]:
    """A French retailer: the price with a narrow no-break space ("1 299,99 €"), "Actuellement
    indisponible" with an "M'alerter" button and no add-to-cart, marketplace offers "dès" lower
    prices, payment in four instalments, the reference and EAN in a characteristics table."""
    name = "Ordinateur portable Lumen Works Air 14\" 16 Go 512 Go"
    style = css(
        ".header{display:flex;gap:20px;padding:12px 30px;background:#e1a925}.f-breadcrumb{padding:8px 30px;"
        "font-size:12px}.f-productPage{display:grid;grid-template-columns:1fr 1fr;gap:30px;padding:16px 30px}"
        ".f-productHeader-Title{font-size:24px}.f-faPriceBox__price{font-size:34px;font-weight:700}"
        ".f-productAvailability--unavailable{color:#c00;font-weight:700}.f-buyBox-button{padding:12px;width:100%;"
        "border:1px solid #333;background:#fff}.f-mpOffers{border-top:1px solid #ddd;padding-top:10px}"
        ".f-caracs td{padding:4px 10px}")
    body = ('<header class="header"><a href="/" class="header__logo">Boutique Électro</a><nav class="header__nav">'
            + mega_menu(CATEGORIES_FR, ul_class="header__menu", li_class="header__menu-item", sub_class="header__submenu")
            + '</nav><form action="/recherche"><input type="search" aria-label="Rechercher" name="q"></form>'
            '<a href="/compte">Mon compte</a><a href="/panier" class="header__basket">Panier <span>(0)</span></a>'
            "</header>"
            '<nav class="f-breadcrumb"><a href="/">Accueil</a> › <a href="/informatique">Informatique</a> › '
            '<a href="/portables">Ordinateurs portables</a></nav>'
            '<main class="f-productPage"><div class="f-productVisuals"><img src="/img/air14.jpg" alt="Portable" '
            f'width="540" height="540"></div><div class="f-productInfo"><h1 class="f-productHeader-Title">{name}</h1>'
            '<div class="f-productHeader-review">★★★★☆ 4,3/5 (87 avis)</div>'
            '<div class="f-buyBox"><div class="f-faPriceBox"><span class="f-faPriceBox__price userPrice checked">'
            f"1{NNBSP}299,99{NBSP}€</span></div>"
            '<p class="f-productAvailability f-productAvailability--unavailable">Actuellement indisponible</p>'
            '<p class="f-productAvailability__text">Soyez averti par e-mail dès que ce produit est de nouveau '
            'disponible.</p><button type="button" class="f-buyBox-button js-alert">M\'alerter</button>'
            '<p class="f-buyBox-payment">Payez en 4x : 4 x 325,00\u00a0€ avec la carte Boutique</p>'
            '<div class="f-mpOffers"><a href="/offres/air14">Neuf dès 1\u202f249,00\u00a0€ et occasion dès '
            "999,00\u00a0€</a> <span>(6 offres de vendeurs partenaires)</span></div></div>"
            '<div class="f-productDescription">' + filler(
                ["Un portable léger et endurant pour le travail et les études.",
                 "L'écran de 14 pouces offre des couleurs fidèles.", "Jusqu'à 15 heures d'autonomie.",
                 "Livré avec un chargeur USB-C de 65 W.", "Clavier rétroéclairé et lecteur d'empreintes."], 2, 13)
            + '</div><h2>Caractéristiques techniques</h2><table class="f-caracs"><tbody>'
            "<tr><td>Processeur</td><td>Octa-core 3,2 GHz</td></tr><tr><td>Mémoire vive</td><td>16 Go</td></tr>"
            "<tr><td>Stockage</td><td>SSD 512 Go</td></tr><tr><td>Référence</td><td>LW-AIR14-16-512</td></tr>"
            "<tr><td>Code EAN</td><td>3700123456789</td></tr></tbody></table></div></main>"
            '<section class="f-reco"><h2>Les clients ont aussi consulté</h2>'
            + cards([("Souris sans fil", 29.99, None), ("Housse 14 pouces", 24.99, 34.99),
                     ("Hub USB-C 7 en 1", 49.99, None)], eur_fr, wrap="f-reco__list", card="f-reco__item",
                    price="f-reco__price", button="Ajouter au panier")
            + '</section><section class="f-reviews"><h2>Avis clients</h2>'
            + reviews([("Claire", 5, "Parfait", "Acheté 1 249 € chez un vendeur partenaire, très satisfaite."),
                       ("Hugo", 4, "Bien", "Un peu cher à 1 299,99 € mais de qualité.")], cls="f-review",
                      helpful="Cet avis vous a-t-il été utile ?")
            + "</section>" + footer("fr", "Boutique Électro"))
    return (html_page("fr", f"{name} - Boutique Électro", "", style, body),
            {"price": "1299.99", "currency": "EUR", "sku": "LW-AIR14-16-512", "gtin": "3700123456789",
             "availability": "OutOfStock"})


@page
def department_es_last_units() -> tuple[str, dict[str, str]]:
    """A Spanish department store: "Últimas unidades", a struck price before the sale price, free
    shipping from a threshold, three interest-free instalments, "Referencia" inline."""
    name = "Cafetera superautomática Crema 300"
    style = css(
        ".header{display:flex;gap:18px;padding:12px 30px;border-bottom:1px solid #ccc}.product-detail{display:grid;"
        "grid-template-columns:1fr 1fr;gap:30px;padding:16px 30px}.product-detail h1{font-size:24px}"
        ".price-sale{font-size:30px;color:#c00;font-weight:700}.price-former{color:#666}"
        ".price-former .price-unit--original{text-decoration:line-through}.stock-status--low{color:#e67e00;"
        "font-weight:700}.add-to-cart{background:#006b3f;color:#fff;border:0;padding:14px;width:100%}")
    body = ('<header class="header"><a href="/" class="logo">Almacenes Sol</a><nav>'
            + mega_menu(CATEGORIES_ES, ul_class="menu", li_class="menu__item", sub_class="menu__sub")
            + '</nav><form action="/buscar"><input type="search" aria-label="Buscar" name="s"></form>'
            '<a href="/cesta" class="header__cart">Cesta (1)</a></header>'
            '<nav class="breadcrumb"><a href="/">Inicio</a> / <a href="/electrodomesticos">Electrodomésticos</a> / '
            '<a href="/cafeteras">Cafeteras</a></nav>'
            '<main class="product-detail"><div class="gallery"><img src="/img/crema300.jpg" alt="Cafetera" width="520" '
            f'height="520"></div><div class="info"><p class="brand">Tidewater</p><h1 class="product_detail-title">{name}'
            '</h1><p class="reference">Referencia: 001234567890123</p>'
            '<div class="prices"><span class="price-former"><span class="price-unit--original">162,44\u00a0€</span> '
            '<span class="price-discount">-20%</span></span><span class="price-sale">129,95\u00a0€</span></div>'
            '<p class="omnibus">Precio más bajo en los últimos 30 días: 139,00\u00a0€</p>'
            '<p class="financing">Paga en 3 plazos sin intereses de 43,32\u00a0€/mes</p>'
            '<p class="stock-status stock-status--low">¡Últimas unidades!</p>'
            '<button type="button" class="add-to-cart">Añadir a la cesta</button>'
            '<ul class="delivery"><li>Envío gratis a partir de 49\u00a0€</li><li>Recogida gratuita en tienda</li>'
            "<li>Devolución gratuita en 30 días</li></ul>"
            '<div class="description">' + filler(
                ["Prepara espresso, cappuccino y latte con un solo botón.", "Depósito de agua de 1,7 litros.",
                 "Molinillo cerámico con 13 niveles de molienda.", "Limpieza automática al encender y apagar.",
                 "Garantía de tres años."], 2, 14)
            + "</div></div></main>"
            '<section class="related"><h2>Productos relacionados</h2>'
            + cards([("Jarra para leche", 19.95, None), ("Descalcificador", 14.50, None),
                     ("Café en grano 1 kg", 17.99, 21.99)], eur_de, wrap="carousel__track", card="product-preview",
                    price="product-preview__price", button="Añadir")
            + '</section><section class="reviews"><h2>Opiniones</h2>'
            + reviews([("Lucía", 5, "Genial", "La compré por 129,95 € en rebajas."),
                       ("Jorge", 4, "Buena", "Algo ruidosa.")], cls="review", helpful="¿Te ha resultado útil?")
            + "</section>" + footer("es", "Almacenes Sol"))
    return (html_page("es", f"{name} · Almacenes Sol", "", style, body),
            {"price": "129.95", "currency": "EUR", "sku": "001234567890123", "availability": "LimitedAvailability"})


@page
def coffee_it_sold_out() -> tuple[str, dict[str, str]]:
    """An Italian shop: the euro sign before the amount, "Esaurito", a disabled "Aggiungi al carrello"
    and an enabled "Avvisami quando disponibile", three Klarna instalments, free shipping over a
    threshold, "Codice prodotto", and "Potrebbe piacerti anche" cards with enabled buttons."""
    name = "Macchina per caffè espresso Leva Classica"
    style = css(
        ".header{display:flex;gap:18px;padding:12px 30px;background:#3b2314;color:#fff}.scheda{display:grid;"
        "grid-template-columns:1fr 1fr;gap:30px;padding:16px 30px}.scheda h1{font-size:26px}"
        ".prezzo{font-size:30px;font-weight:700}.disponibilita--esaurito{color:#b00;font-weight:700}"
        ".btn-carrello{background:#aaa;color:#fff;border:0;padding:14px;width:100%}"
        ".btn-avvisami{background:#3b2314;color:#fff;border:0;padding:12px;width:100%;margin-top:8px}")
    body = ('<header class="header"><a href="/" class="logo">Bottega del Caffè</a><nav>'
            + mega_menu(CATEGORIES_IT, ul_class="menu", li_class="menu__voce", sub_class="menu__tendina")
            + '</nav><a href="/carrello">Carrello (2) · € 37,80</a></header>'
            '<nav class="briciole"><a href="/">Home</a> › <a href="/casa">Casa</a> › <a href="/macchine">Macchine da '
            "caffè</a></nav>"
            '<main class="scheda"><div class="galleria"><img src="/img/leva.jpg" alt="Macchina" width="500" '
            f'height="500"></div><div class="dettagli"><h1>{name}</h1>'
            '<p class="codice">Codice prodotto: BC-LEVA-02</p>'
            f'<div class="prezzo">{eur_it(389.00)}</div><p class="iva">IVA inclusa</p>'
            '<p class="klarna">Paga in 3 rate da € 129,67 senza interessi con Klarna</p>'
            '<p class="disponibilita disponibilita--esaurito">Esaurito</p>'
            '<button type="button" class="btn-carrello" disabled>Aggiungi al carrello</button>'
            '<button type="button" class="btn-avvisami">Avvisami quando disponibile</button>'
            '<ul class="vantaggi"><li>Spedizione gratuita sopra i 49\u00a0€</li><li>Reso gratuito entro 30 giorni</li>'
            "<li>Garanzia 2 anni</li></ul>"
            '<div class="descrizione">' + filler(
                ["Una macchina a leva per un espresso come al bar.", "Caldaia in ottone da 1 litro.",
                 "Corpo in acciaio inox lucidato a mano.", "Manometro per controllare la pressione.",
                 "Prodotta in Italia."], 2, 15)
            + "</div></div></main>"
            '<section class="correlati"><h2>Potrebbe piacerti anche</h2>'
            + cards([("Caffè in grani Miscela Oro 1 kg", 18.90, None), ("Tamper in acciaio", 24.00, None),
                     ("Tazzine da espresso (6)", 29.90, 34.90)], eur_it, wrap="carousel__track",
                    card="prodotto-card", price="prodotto-card__prezzo", button="Aggiungi al carrello",
                    badge="Disponibile")
            + '</section><section class="recensioni"><h2>Recensioni</h2>'
            + reviews([("Marco", 5, "Spettacolare", "L'ho pagata 389 € e ne vale ogni centesimo."),
                       ("Giulia", 4, "Bella", "Serve pratica con la leva.")], cls="recensione",
                      helpful="Ti è stata utile?")
            + "</section>" + footer("it", "Bottega del Caffè"))
    return (html_page("it", f"{name} | Bottega del Caffè", "", style, body),
            {"price": "389.00", "currency": "EUR", "sku": "BC-LEVA-02", "availability": "OutOfStock"})


@page
def books_nl_microdata_no_symbol() -> tuple[str, dict[str, str]]:
    """A Dutch marketplace: the price shown without a currency sign ("24" and superscript "99"),
    microdata with ``content=`` for price and currency but no availability, "Tijdelijk
    uitverkocht" with "Houd me op de hoogte", other sellers "vanaf" a lower price, the EAN in a
    specifications list, and sponsored products whose cards say "Op voorraad"."""
    name = "De stille haven – roman"
    style = css(
        ".header{display:flex;gap:18px;padding:12px 30px;background:#0000a4;color:#fff}.pdp{display:grid;"
        "grid-template-columns:1fr 1fr;gap:30px;padding:16px 30px}.pdp h1{font-size:28px}"
        ".promo-price{font-size:34px;font-weight:700}.promo-price__fraction{font-size:18px}"
        ".buy-block__availability--unavailable{color:#c00;font-weight:700}.specs__title{font-weight:700;float:left;"
        "clear:left;width:200px}.specs__value{margin-left:210px}")
    specs = "".join(f'<dt class="specs__title">{k}</dt><dd class="specs__value">{v}</dd>'
                    for k, v in (("Auteur", "Marieke van Dalen"), ("Taal", "Nederlands"), ("Bindwijze", "Paperback"),
                                 ("Aantal pagina's", "384"), ("Uitgever", "Uitgeverij Duin"),
                                 ("EAN", "9789012345670"), ("Verschijningsdatum", "mei 2023")))
    body = ('<header class="header"><a href="/" class="logo">winkelplein</a><form action="/zoeken"><input '
            'type="search" aria-label="Zoeken" placeholder="Waar ben je naar op zoek?"></form><nav>'
            + mega_menu(CATEGORIES_NL, ul_class="menu", li_class="menu__item", sub_class="menu__panel")
            + '</nav><a href="/winkelwagen">Winkelwagen <span>3</span></a></header>'
            '<nav class="breadcrumbs"><a href="/">Home</a> › <a href="/boeken">Boeken</a> › <a href="/romans">Romans</a>'
            '</nav><main class="pdp" itemscope itemtype="https://schema.org/Product"><div class="media">'
            '<img src="/img/haven.jpg" alt="Omslag" width="400" height="600" itemprop="image"></div><div>'
            f'<h1 class="page-heading"><span itemprop="name">{name}</span></h1>'
            '<div class="product-small-specs">Paperback · Nederlands · 9789012345670</div>'
            '<div class="buy-block" itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
            '<meta itemprop="price" content="24.99"><meta itemprop="priceCurrency" content="EUR">'
            '<span class="promo-price" data-test="price">24<sup class="promo-price__fraction" '
            'data-test="price-fraction">99</sup></span>'
            '<div class="buy-block__availability buy-block__availability--unavailable">Tijdelijk uitverkocht</div>'
            '<button type="button" class="btn btn--secondary notify-me">Houd me op de hoogte</button>'
            '<div class="other-sellers"><a href="/aanbod/9789012345670">Andere verkopers (4) vanaf € 21,50</a></div>'
            '</div><div class="product-description" itemprop="description">' + filler(
                ["Een meeslepende roman over een familie aan de kust.", "Winnaar van de Debuutprijs.",
                 "Over vriendschap, verlies en opnieuw beginnen.", "Nu ook als e-book en luisterboek."], 2, 16)
            + f'</div><h2>Specificaties</h2><dl class="specs__list">{specs}</dl></div></main>'
            '<section class="sponsored"><h2>Gesponsorde producten</h2>'
            + cards([("Het lichte huis", 22.99, None), ("Wind over de duinen", 19.99, 23.50),
                     ("Zomer in Zeeland", 21.00, None)], lambda x: f"€ {x:.2f}".replace(".", ","),
                    wrap="product-list", card="product-item", price="product-item__price",
                    button="In winkelwagen", badge="Op voorraad")
            + '</section><section class="reviews"><h2>Reviews</h2>'
            + reviews([("Sanne", 5, "Prachtig", "Voor € 24,99 een aanrader."),
                       ("Pieter", 4, "Mooi", "Het einde was wat snel.")], cls="review", helpful="Nuttig?")
            + "</section>" + footer("nl", "winkelplein"))
    return (html_page("nl", f"{name} | winkelplein", "", style, body),
            {"price": "24.99", "currency": "EUR", "gtin": "9789012345670", "availability": "OutOfStock"})


@page
def computers_pl_omnibus() -> tuple[str, dict[str, str]]:
    """A Polish electronics shop: "zł" after the amount with spaces between thousands, the struck
    old price, the lowest price of the last 30 days before the discount (EU rule), 0% instalments,
    "Dostępny" and "Wysyłka jutro", "Kod producenta" and "Kod produktu" in a table."""
    name = "Monitor Lumen Works 27\" QHD 165 Hz"
    style = css(
        ".header{display:flex;gap:18px;padding:12px 30px;background:#1a1a1a;color:#fff}.product{display:grid;"
        "grid-template-columns:1fr 1fr;gap:30px;padding:16px 30px}.product h1{font-size:24px}"
        ".price--main{font-size:32px;font-weight:700}.price--old{text-decoration:line-through;color:#777}"
        ".omnibus{font-size:12px;color:#777}.available{color:#119e00;font-weight:700}"
        ".add{background:#119e00;color:#fff;border:0;padding:14px;width:100%}")
    body = ('<header class="header"><a href="/" class="logo">komputeria</a><nav>'
            + mega_menu(CATEGORIES_PL, ul_class="menu", li_class="menu__item", sub_class="menu__sub")
            + '</nav><a href="/koszyk">Koszyk (1) · 89,00 zł</a></header>'
            '<nav class="breadcrumbs"><a href="/">Strona główna</a> › <a href="/monitory">Monitory</a> › '
            '<a href="/monitory-27">Monitory 27"</a></nav>'
            '<main class="product"><div class="gallery"><img src="/img/monitor.jpg" alt="Monitor" width="500" '
            f'height="500"></div><div class="buy"><h1>{name}</h1><div class="rating">★★★★★ 4,8 (312 opinii)</div>'
            f'<div class="prices"><span class="price--old">{pln(1499.00)}</span><span class="price--main">'
            f"{pln(1299.00)}</span></div>"
            f'<p class="omnibus">Najniższa cena z 30 dni przed obniżką: {pln(1399.00)}</p>'
            f'<p class="installments">Raty 0%: 10 x {pln(129.90)}</p>'
            '<p class="availability"><span class="available">Dostępny</span> · Wysyłka jutro</p>'
            '<button type="button" class="add">Dodaj do koszyka</button>'
            '<ul class="benefits"><li>Darmowa dostawa</li><li>30 dni na zwrot</li><li>Gwarancja 36 miesięcy</li></ul>'
            "</div></main>"
            '<section class="specs"><h2>Specyfikacja</h2><table><tbody>'
            "<tr><th>Przekątna ekranu</th><td>27\"</td></tr><tr><th>Rozdzielczość</th><td>2560 x 1440</td></tr>"
            "<tr><th>Częstotliwość odświeżania</th><td>165 Hz</td></tr><tr><th>Kod producenta</th><td>LW-27Q165</td></tr>"
            "<tr><th>Kod produktu</th><td>1134567</td></tr></tbody></table></section>"
            '<section class="description">' + filler(
                ["Matryca IPS z szerokimi kątami widzenia.", "Czas reakcji 1 ms.", "Regulacja wysokości i pivot.",
                 "Złącza HDMI 2.0 i DisplayPort 1.4."], 2, 17)
            + '</section><section class="accessories"><h2>Polecane akcesoria</h2>'
            + cards([("Kabel DisplayPort 2 m", 39.00, None), ("Uchwyt biurkowy", 149.00, 179.00),
                     ("Ściereczka do ekranu", 19.99, None)], pln, wrap="carousel__track", card="product-card",
                    price="product-card__price", old="price--old", button="Do koszyka")
            + '</section><section class="opinions"><h2>Opinie</h2>'
            + reviews([("Kasia", 5, "Świetny", "Kupiony za 1 299 zł, wcześniej kosztował 1 499 zł."),
                       ("Tomek", 4, "Dobry", "Lekki backlight bleed.")], cls="opinion", helpful="Pomocna?")
            + "</section>" + footer("pl", "komputeria"))
    return (html_page("pl", f"{name} - komputeria", "", style, body),
            {"price": "1299.00", "currency": "PLN", "sku": "1134567", "mpn": "LW-27Q165", "availability": "InStock"})


@page
def kitchen_ja_sold_out() -> tuple[str, dict[str, str]]:
    """A Japanese mall shop, laid out with tables: the price as "12,800円（税込）", the shop's usual
    price struck, points, free shipping, "売り切れ" with a restock notification button, and the
    item number, model number and JAN code in a specification table."""
    name = "南部鉄器 鉄瓶 1.2L 伝統柄"
    style = css(
        ".header{display:flex;gap:18px;padding:12px 30px;border-bottom:3px solid #bf0000}.item-table{width:100%}"
        ".item-name{font-size:22px}.price2{font-size:30px;color:#bf0000;font-weight:700}.usual{text-decoration:"
        "line-through;color:#666}.soldout{color:#fff;background:#999;padding:4px 10px}.spec th{background:#f3f3f3;"
        "text-align:left;padding:4px 8px}.spec td{padding:4px 8px}")
    spec = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in (
        ("商品番号", "nw-tetsubin-12"), ("型番", "TB-1200-DN"), ("JANコード", "4901234567894"),
        ("容量", "1.2L"), ("素材", "鋳鉄"), ("原産国", "日本")))
    body = ('<header class="header"><a href="/" class="logo">Rマート 鉄器の店</a><nav>'
            + mega_menu(CATEGORIES_JA, ul_class="menu", li_class="menu__item", sub_class="menu__sub")
            + '</nav><a href="/cart">買い物かご (2)</a></header>'
            '<div class="breadcrumb"><a href="/">トップ</a> &gt; <a href="/kitchen">キッチン用品</a> &gt; '
            '<a href="/tetsubin">鉄瓶</a></div>'
            '<table class="item-table" cellpadding="0" cellspacing="0"><tr><td width="50%"><img src="/img/tetsubin.jpg" '
            'alt="鉄瓶" width="480" height="480"></td><td valign="top">'
            f'<h1 class="item-name">{name}</h1>'
            '<table class="price-table"><tr><td>当店通常価格</td><td><span class="usual">15,800円</span> （税込）</td></tr>'
            '<tr><td>販売価格</td><td><span class="price2">12,800円</span> （税込） <span class="shipping">送料無料</span>'
            "</td></tr><tr><td>ポイント</td><td>128ポイント（1倍）</td></tr></table>"
            '<p class="stock"><span class="soldout">売り切れ</span> 次回入荷未定</p>'
            '<button type="button" class="restock-button">再入荷お知らせを受け取る</button>'
            '<p class="coupon">3,980円以上の購入で送料無料</p>'
            '<table class="spec" border="1"><tbody>' + spec + "</tbody></table>"
            "</td></tr></table>"
            '<div class="item-desc"><p>伝統的な製法で一つひとつ手作りされた南部鉄器の鉄瓶です。</p>'
            "<p>お湯がまろやかになり、鉄分も補給できます。</p><p>IH非対応。直火でお使いください。</p></div>"
            '<div class="recommend"><h2>この商品を見た人はこんな商品も見ています</h2>'
            + cards([("南部鉄器 急須 0.6L", 6800, None), ("鉄瓶敷き", 2200, None), ("茶こし", 1100, 1500)],
                    lambda x: f"{x:,.0f}円", wrap="recommend__list", card="recommend__item",
                    price="recommend__price", button="かごに追加", badge="在庫あり")
            + '</div><div class="reviews"><h2>レビュー</h2>'
            + reviews([("たろう", 5, "最高", "12,800円でこの品質なら満足です。"),
                       ("はなこ", 4, "重い", "少し重いですが味は良いです。")], cls="review", helpful="参考になった")
            + "</div>" + footer("ja", "Rマート 鉄器の店"))
    return (html_page("ja", f"【楽天風】{name}｜Rマート 鉄器の店", "", style, body),
            {"price": "12800.00", "currency": "JPY", "sku": "nw-tetsubin-12", "mpn": "TB-1200-DN",
             "gtin": "4901234567894", "availability": "OutOfStock"})


# -- more English-language patterns --------------------------------------------------------------------

@page
def marketplace_several_sellers() -> tuple[str, dict[str, str]]:
    """A marketplace listing: the featured offer in the buy box, and a table of other sellers' offers
    (new and used, each with its own price and "Add to cart"); the JSON-LD gives an AggregateOffer
    over all of them (its lowPrice is a used offer)."""
    name = "Kestrel X2 Action Camera 5K"
    ld = {"@context": "https://schema.org", "@type": "Product", "name": name, "sku": "KX2-5K",
          "gtin13": "0850001234567", "brand": {"@type": "Brand", "name": "Kestrel"},
          "offers": {"@type": "AggregateOffer", "lowPrice": "139.99", "highPrice": "189.00", "offerCount": "6",
                     "priceCurrency": "USD", "availability": "https://schema.org/InStock"}}
    offers = "".join(
        f'<tr class="offer-row"><td class="offer-row__price">{usd(p)}</td><td>{cond}</td><td>{seller}<br>'
        f'<small>{rating}</small></td><td>{ship}</td><td><button type="button" class="btn btn--small">Add to cart'
        "</button></td></tr>"
        for p, cond, seller, rating, ship in (
            (139.99, "Used – Very Good", "CamTrade Outlet", "96% positive", "+ $6.99 shipping"),
            (144.50, "Used – Like New", "ReSnap", "98% positive", "Free shipping"),
            (152.00, "New", "Gadget Depot", "94% positive", "+ $4.99 shipping"),
            (159.95, "New", "PixelPro Store", "99% positive", "Free shipping"),
            (189.00, "New", "Bright Electronics", "91% positive", "Free shipping")))
    style = css(GENERIC_CSS + ".buybox{border:1px solid #ccc;border-radius:8px;padding:16px}"
                ".buybox__price{font-size:32px;font-weight:700}.offers td{padding:6px 10px;border-bottom:1px solid #eee}"
                ".offer-row__price{font-weight:700}")
    body = (generic_header("Tradeplace", 'Cart <span class="cart-count">0</span>')
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/cameras">Cameras</a></li><li>'
            '<a href="/action-cameras">Action Cameras</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/kx2.jpg" alt="Camera" width="520" height="520">'
            f'</div><div class="pdp__info"><h1>{name}</h1><p class="byline">Brand: Kestrel · 4.4 ★ (1,022 ratings)</p>'
            '<div class="buybox"><div class="buybox__price">$149.00</div><p class="buybox__condition">New</p>'
            '<p class="buybox__seller">Sold by <a href="/s/kestrel-official">Kestrel Official Store</a> · Free shipping'
            '</p><p class="buybox__stock">In Stock</p><label for="q">Qty</label> <select id="q"><option>1</option>'
            '<option>2</option></select><button type="button" class="btn btn--primary">Add to cart</button>'
            '<button type="button" class="btn btn--secondary">Buy now</button></div>'
            '<section class="offers"><h2>Compare 5 more offers</h2><table><thead><tr><th>Price</th><th>Condition</th>'
            f"<th>Seller</th><th>Delivery</th><th></th></tr></thead><tbody>{offers}</tbody></table></section>"
            '<div class="pdp__desc">' + filler(COPY_EN, 2, 18) + "</div></div></main>"
            + footer("en", "Tradeplace") + f'<script type="application/ld+json">{json.dumps(ld)}</script>')
    return (html_page("en", f"{name} | Tradeplace", "", style, body),
            {"price": "149.00", "currency": "USD", "sku": "KX2-5K", "gtin": "0850001234567", "availability": "InStock"})


@page
def aggregate_offer_range() -> tuple[str, dict[str, str]]:
    """Sizes at different prices and none chosen yet: the page shows a range, the JSON-LD an
    AggregateOffer with lowPrice and highPrice; a "Recently viewed" strip follows."""
    name = "Organic Cotton Sateen Duvet Cover"
    ld = {"@context": "https://schema.org", "@type": "Product", "name": name, "sku": "HP-DUV-SAT",
          "brand": {"@type": "Brand", "name": "Harbor & Pine Home"},
          "offers": {"@type": "AggregateOffer", "lowPrice": 119.0, "highPrice": 189.0, "priceCurrency": "USD",
                     "offerCount": 4, "availability": "https://schema.org/InStock"}}
    style = css(GENERIC_CSS + ".price-range{font-size:26px}")
    body = ('<div class="topbar">Free shipping on orders over $150</div>'
            + generic_header("Harbor & Pine Home", "Cart (1)")
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/bedding">Bedding</a></li><li>'
            '<a href="/duvet-covers">Duvet Covers</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/duvet.jpg" alt="Duvet" width="520" height="520">'
            f'</div><div class="pdp__info"><h1>{name}</h1><div class="price-range">$119.00 – $189.00</div>'
            '<fieldset><legend>Size</legend><select name="size" aria-label="Size"><option value="">Choose a size'
            '</option><option>Twin – $119.00</option><option>Full/Queen – $159.00</option><option>King – $179.00'
            "</option><option>Cal King – $189.00</option></select></fieldset>"
            '<button type="submit" class="btn btn--primary">Add to cart</button>'
            '<p class="note">Ships in 1–2 business days.</p><div class="pdp__desc">' + filler(COPY_EN, 3, 19)
            + "</div></div></main>"
            '<section class="recently-viewed"><h2>Recently viewed</h2>'
            + cards([("Linen Pillowcase Pair", 59.00, None), ("Waffle Bath Towel", 38.00, 45.00)], usd,
                    wrap="product-grid", card="product-card", price="product-card__price")
            + "</section>" + footer("en", "Harbor & Pine Home")
            + f'<script type="application/ld+json">{json.dumps(ld)}</script>')
    return (html_page("en", f"{name} | Harbor & Pine Home", "", style, body),
            {"price": "119.00", "currency": "USD", "sku": "HP-DUV-SAT", "availability": "InStock"})


@page
def notify_me_sold_out() -> tuple[str, dict[str, str]]:
    """A UK fashion shop: the product is gone ("Back soon"), its only button is "Notify me when
    available"; the carousel below has enabled "Add to bag" buttons and an "Only 2 left" badge."""
    name = "Cropped Wool Blend Blazer"
    style = css(GENERIC_CSS + ".product-price{font-size:24px;font-weight:600}.back-soon{color:#8a1c1c}")
    body = ('<div class="topbar">Free UK delivery over £60 · Free returns</div>'
            + generic_header("Fernhill London", 'Bag <span class="bag-count">1</span>')
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/women">Women</a></li><li>'
            '<a href="/women/blazers">Blazers</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/blazer.jpg" alt="Blazer" width="520" height="520">'
            f'</div><div class="pdp__info"><h1>{name}</h1><div class="product-price">£89.00</div>'
            '<p class="back-soon">Back soon</p><p>Sign up and we\'ll email you as soon as it\'s back.</p>'
            '<form class="notify-form" action="/back-in-stock" method="post"><label for="notify-email">Email</label>'
            '<input id="notify-email" type="email" name="email"><button type="submit" class="btn btn--primary">'
            "Notify me when available</button></form>"
            '<details open><summary>Product details</summary>' + filler(COPY_EN, 2, 20)
            + '<p>Product code: FL-BLZ-0931</p></details></div></main>'
            '<section class="recs"><h2>You might also like</h2>'
            + cards([("Tailored Wide-Leg Trousers", 65.00, None), ("Silk Blend Cami", 39.00, 49.00),
                     ("Wool Blend Coat", 159.00, None)], gbp, wrap="carousel__track", card="carousel__slide",
                    price="carousel__price", button="Add to bag", badge="Only 2 left")
            + "</section>" + footer("en", "Fernhill London"))
    return (html_page("en-GB", f"{name} | Fernhill London", "", style, body),
            {"price": "89.00", "currency": "GBP", "sku": "FL-BLZ-0931", "availability": "OutOfStock"})


@page
def preorder_editions() -> tuple[str, dict[str, str]]:
    """A game pre-order: three editions as radio cards each with a price (the chosen one is
    Deluxe), one edition "Sold out", a "Pre-order" button, a release date and a deposit line."""
    name = "Skyward Frontier — Deluxe Edition"
    editions = "".join(
        f'<label class="edition{" edition--soldout" if sold else ""}"><input type="radio" name="edition" '
        f'value="{slug(e)}"{" checked" if e == "Deluxe Edition" else ""}{" disabled" if sold else ""}>'
        f'<span class="edition__name">{e}</span> <span class="edition__price">{usd(p)}</span>'
        f'{"<span class=edition__status> Sold out</span>" if sold else ""}</label>'
        for e, p, sold in (("Standard Edition", 59.99, False), ("Deluxe Edition", 89.99, False),
                           ("Collector's Edition", 199.99, True)))
    style = css(GENERIC_CSS + ".product-price{font-size:28px;font-weight:700}.edition{display:block;border:1px solid "
                "#ccc;padding:8px;margin:4px 0}.edition--soldout{opacity:.5}")
    body = (generic_header("GameVault", "Cart (0)")
            + '<ul class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/games">Games</a></li><li>'
            '<a href="/coming-soon">Coming Soon</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/skyward.jpg" alt="Cover" width="520" '
            f'height="520"></div><div class="pdp__info"><h1>{name}</h1><p class="platform">PlayBox 5 · Rated T</p>'
            '<div class="product-price">$89.99</div><fieldset class="editions"><legend>Edition</legend>' + editions
            + '</fieldset><p class="release">Release date: March 14, 2025</p>'
            '<p class="deposit">Reserve with a $5.00 deposit, the rest when it ships.</p>'
            '<button type="submit" class="btn btn--primary">Pre-order now</button>'
            '<p class="guarantee">Pre-order price guarantee: if the price drops before release, you pay less.</p>'
            '<div class="pdp__desc">' + filler(COPY_EN, 2, 21) + '</div><p class="sku">SKU: GV-SKY-DLX-PB5</p>'
            "</div></main>" + footer("en", "GameVault"))
    return (html_page("en", f"{name} | GameVault", "", style, body),
            {"price": "89.99", "currency": "USD", "sku": "GV-SKY-DLX-PB5", "availability": "PreOrder"})


@page
def grocery_unit_price() -> tuple[str, dict[str, str]]:
    """A UK supermarket: the unit price right next to the price, a multibuy offer with its own
    price, a "Rest of shelf" strip of other products; the buy button says only "Add"."""
    name = "Northwind Finest Italian Espresso Coffee Beans 750g"
    style = css(GENERIC_CSS + ".price-per-sellable-unit{font-size:26px;font-weight:700}"
                ".price-per-quantity-weight{font-size:14px;color:#555;margin-left:8px}"
                ".offer-text{background:#ffd900;padding:4px 8px}")
    shelf = cards([("Finest Colombian Ground Coffee 227g", 3.20, None), ("Decaf Coffee Beans 500g", 4.85, 5.50),
                   ("Oat Barista Drink 1L", 1.95, None)], gbp, wrap="product-list", card="product-list--list-item",
                  price="beans-price__container", button="Add")
    body = (generic_header("FreshBasket", 'Basket <span class="basket-total">£42.17</span>',
                           cats={"Fresh Food": ["Fruit", "Vegetables", "Meat", "Fish", "Dairy"],
                                 "Bakery": ["Bread", "Cakes", "Wraps"],
                                 "Food Cupboard": ["Coffee", "Tea", "Cereals", "Pasta", "Tins"],
                                 "Drinks": ["Water", "Juice", "Soft Drinks", "Beer", "Wine"],
                                 "Household": ["Cleaning", "Laundry", "Kitchen Roll"]})
            + '<ul class="breadcrumbs"><li><a href="/">Groceries</a></li><li><a href="/food-cupboard">Food Cupboard</a>'
            '</li><li><a href="/coffee">Coffee</a></li><li><a href="/coffee-beans">Coffee Beans</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/beans.jpg" alt="Coffee beans" width="400" '
            f'height="400"></div><div class="pdp__info"><h1 class="product-details-tile__title">{name}</h1>'
            '<div class="price-details--wrapper"><div class="price-control-wrapper"><p class="price-per-sellable-unit">'
            '£7.50</p><p class="price-per-quantity-weight">£10.00/kg</p></div></div>'
            '<div class="offer-text">Any 2 for £13.00 – Offer valid for delivery from 05/06/2024 until 25/06/2024</div>'
            '<form class="add-control" method="post" action="/trolley"><label for="qty">Quantity</label>'
            '<input id="qty" type="number" value="1" min="1"><button type="submit" class="btn btn--primary">Add</button>'
            '</form><div class="product-info-block"><h2>Description</h2><p>Dark roast, intense and full-bodied.</p>'
            "<h2>Storage</h2><p>Store in a cool, dry place. Once opened, keep airtight.</p></div></div></main>"
            '<section class="rest-of-shelf"><h2>Rest of shelf</h2>' + shelf + "</section>"
            + footer("en", "FreshBasket"))
    return (html_page("en-GB", f"{name} - FreshBasket Groceries", "", style, body),
            {"price": "7.50", "currency": "GBP"})


# -- written after the fixes, to check them on patterns they were not tuned on ---------------------------

@page
def shopify_productgroup_url_variant() -> tuple[str, dict[str, str]]:
    """Shopify's newer structured data: a ProductGroup whose variants each carry an offer; the
    shopper picks the 1 kg bag, the theme swaps the price and puts ``?variant=`` in the URL."""
    name = "House Espresso Blend"
    variants = [("250 g", 41001, "HEB-250", 14.00, "InStock"), ("1 kg", 41002, "HEB-1000", 42.00, "InStock"),
                ("5 kg", 41003, "HEB-5000", 180.00, "OutOfStock")]
    ld = {"@context": "https://schema.org", "@type": "ProductGroup", "name": name, "productGroupID": "7001",
          "brand": {"@type": "Brand", "name": "Tidewater Roasters"}, "variesBy": ["https://schema.org/size"],
          "hasVariant": [{"@type": "Product", "name": f"{name} - {label}", "sku": sku, "size": label,
                          "offers": {"@type": "Offer", "price": f"{price:.2f}", "priceCurrency": "USD",
                                     "availability": f"https://schema.org/{stock}",
                                     "url": f"https://tidewater.example/products/house-espresso?variant={vid}"}}
                         for label, vid, sku, price, stock in variants]}
    script = ("<script>var V = " + json.dumps({str(v[1]): [v[0], f"{v[3]:.2f}"] for v in variants}) + ";"
              "function pick(id){document.querySelector('.price-item--regular').textContent='$'+V[id][1]+' USD';"
              "document.querySelector('input[name=id]').value=id;"
              "history.replaceState(null,'',location.pathname+'?variant='+id);}"
              "document.addEventListener('DOMContentLoaded',function(){"
              "document.getElementById('size-41002').checked=true;pick('41002');});</script>")
    radios = "".join(f'<input type="radio" id="size-{vid}" name="Size" value="{label}"{" checked" if i == 0 else ""}'
                     f'{" class=disabled" if stock != "InStock" else ""}><label for="size-{vid}">{label}</label>'
                     for i, (label, vid, _s, _p, stock) in enumerate(variants))
    body = ('<div class="announcement-bar"><p>Free shipping on orders over $40</p></div>'
            + generic_header("Tidewater Roasters", 'Cart <span class="cart-count-bubble">1</span>')
            + '<main id="MainContent"><section class="product product--medium"><div class="product__media-wrapper">'
            '<img src="/img/espresso.jpg" alt="Coffee bag" width="500" height="500"></div>'
            '<div class="product__info-wrapper"><p class="product__text">Tidewater Roasters</p>'
            f'<div class="product__title"><h1>{name}</h1></div><div class="price price--large"><div '
            'class="price__container"><div class="price__regular"><span class="visually-hidden">Regular price</span>'
            '<span class="price-item price-item--regular">$14.00 USD</span></div></div></div>'
            '<div class="product__tax caption">Shipping calculated at checkout.</div>'
            f'<fieldset class="product-form__input"><legend>Size</legend>{radios}</fieldset>'
            '<form method="post" action="/cart/add" class="product-form"><input type="hidden" name="id" value="41001">'
            '<button type="submit" name="add" class="product-form__submit button">Add to cart</button></form>'
            '<div class="product__description rte">' + filler(COPY_EN, 2, 30) + "</div></div></section>"
            '<section class="related-products"><h2>You may also like</h2>'
            + cards([("Decaf Swiss Water", 16.00, None), ("Single Origin Ethiopia", 19.00, 22.00)], usd,
                    wrap="grid product-grid", card="grid__item", price="price") + "</section></main>"
            + footer("en", "Tidewater Roasters") + f'<script type="application/ld+json">{json.dumps(ld)}</script>'
            + script)
    return (html_page("en", f"{name} – Tidewater Roasters", "", css(GENERIC_CSS + ".price-item{font-size:24px}"),
                      body),
            {"price": "42.00", "currency": "USD", "sku": "HEB-1000", "availability": "InStock"})


@page
def swiss_chf_apostrophe() -> tuple[str, dict[str, str]]:
    """A Swiss electronics shop: "CHF 1'299.–" (apostrophe thousands, a dash for no cents), the
    old price "statt CHF 1'499.–", delivery "Morgen geliefert", "Lieferbar", "Herstellernummer"."""
    name = "Lumen Works Beamer 4K L900"
    style = css(GENERIC_CSS + ".productPrice{font-size:32px;font-weight:700}.insteadOf{font-size:14px;color:#666}")
    body = (generic_header("Elektronik Zürich", "Warenkorb (0)", cats=CATEGORIES_DE)
            + '<ul class="breadcrumbs"><li><a href="/">Startseite</a></li><li><a href="/tv">TV &amp; Audio</a></li>'
            '<li><a href="/beamer">Beamer</a></li></ul>'
            '<main class="pdp"><div class="pdp__gallery"><img src="/img/beamer.jpg" alt="Beamer" width="500" '
            f'height="500"></div><div class="pdp__info"><h1>{name}</h1>'
            '<div class="productPrice">CHF 1\'299.–</div><div class="insteadOf">statt CHF 1\'499.–</div>'
            '<p class="delivery">Lieferbar – Morgen geliefert</p>'
            '<button type="button" class="btn btn--primary">In den Warenkorb</button>'
            '<table class="specs"><tbody><tr><td>Auflösung</td><td>3840 x 2160</td></tr>'
            '<tr><td>Helligkeit</td><td>3000 ANSI Lumen</td></tr><tr><td>Herstellernummer</td><td>LW-L900-4K</td></tr>'
            '<tr><td>Artikelnummer</td><td>15948211</td></tr></tbody></table>'
            '<div class="pdp__desc">' + filler(COPY_DE, 2, 31) + "</div></div></main>"
            + footer("de", "Elektronik Zürich"))
    return (html_page("de-CH", f"{name} | Elektronik Zürich", "", style, body),
            {"price": "1299.00", "currency": "CHF", "sku": "15948211", "mpn": "LW-L900-4K", "availability": "InStock"})


@page
def auction_buy_it_now() -> tuple[str, dict[str, str]]:
    """An auction site's fixed-price listing: "US $45.00" with "or Best Offer", "Was US $60.00",
    "Buy It Now" and "Add to cart", shipping "US $12.35", "3 available / 14 sold", item specifics
    as label/value rows of divs, and the item number."""
    name = "Vintage Brass Ship Lantern – Working Condition"
    specifics = "".join(f'<div class="ux-layout-section-evo__col"><div class="ux-labels-values__labels">{k}</div>'
                        f'<div class="ux-labels-values__values">{v}</div></div>'
                        for k, v in (("Condition", "Used"), ("Brand", "Harbor Light Co."), ("MPN", "HL-1962-B"),
                                     ("Material", "Brass"), ("UPC", "Does not apply")))
    style = css(GENERIC_CSS + ".x-price-primary{font-size:28px;font-weight:700}.ux-textspans--STRIKETHROUGH{"
                "text-decoration:line-through}.ux-labels-values__labels{float:left;width:160px;color:#666}")
    body = (generic_header("auctionhouse", "Cart 2")
            + '<main class="pdp"><div class="pdp__gallery"><img src="/img/lantern.jpg" alt="Lantern" width="500" '
            f'height="500"></div><div class="x-item-info"><h1 class="x-item-title__mainTitle"><span>{name}</span></h1>'
            '<div class="x-sellercard">Sold by <a href="/usr/brassbarn">brassbarn</a> (2,310) 99.6% positive</div>'
            '<div class="x-price-section"><div class="x-price-primary"><span class="ux-textspans">US $45.00</span></div>'
            '<div class="x-additional-info"><span class="ux-textspans ux-textspans--SECONDARY">Was </span>'
            '<span class="ux-textspans ux-textspans--STRIKETHROUGH">US $60.00</span> <span>Save US $15.00 (25% off)'
            '</span></div><div class="x-bin-offer">or Best Offer</div></div>'
            '<div class="x-quantity">Quantity: <input type="text" value="1" aria-label="Quantity"> 3 available · '
            "14 sold</div>"
            '<div class="x-buybox-cta"><a class="ux-call-to-action fake-btn fake-btn--primary" href="/bin/12">Buy It Now'
            '</a><a class="ux-call-to-action fake-btn fake-btn--secondary" href="/cart/add/12">Add to cart</a>'
            '<button type="button" class="fake-btn">Make offer</button></div>'
            '<div class="ux-labels-values--shipping">Shipping: US $12.35 Standard Shipping. See details</div>'
            '<div class="ux-labels-values--deliverto">Delivery: Estimated between Tue, Jun 11 and Fri, Jun 14</div>'
            '<div class="ux-layout-section--itemNumber">eBay item number: 256123456789</div></div></main>'
            f'<section class="item-specifics"><h2>Item specifics</h2>{specifics}</section>'
            '<section class="similar"><h2>Similar sponsored items</h2>'
            + cards([("Brass Anchor Bookends", 38.00, None), ("Nautical Wall Clock", 52.50, 70.00)], usd,
                    wrap="carousel__track", card="s-item", price="s-item__price")
            + "</section>" + footer("en", "auctionhouse"))
    return (html_page("en", f"{name} | auctionhouse", "", style, body),
            {"price": "45.00", "currency": "USD", "mpn": "HL-1962-B", "availability": "InStock"})


@page
def flatpack_article_dots() -> tuple[str, dict[str, str]]:
    """A furniture store: the price as "€ 149,-" with the cents a dash, a per-piece price in a
    bundle line, "Article number 204.417.98" (dots), delivery and store stock lines."""
    name = "STRANDHUS Bookcase, white stained oak effect, 80x202 cm"
    style = css(GENERIC_CSS + ".pip-price{font-size:30px;font-weight:700}.pip-price__decimal{font-size:16px;"
                "vertical-align:super}")
    body = (generic_header("Nordhem", 'Shopping bag <span class="bag-total">€ 89,97</span>')
            + '<main class="pdp"><div class="pdp__gallery"><img src="/img/bookcase.jpg" alt="Bookcase" width="500" '
            'height="500"></div><div class="pip-product-summary"><h1><span class="pip-header-section__title--big">'
            'STRANDHUS</span> <span class="pip-header-section__description-text">Bookcase, white stained oak effect, '
            '80x202 cm</span></h1><div class="pip-price-package"><span class="pip-price"><span '
            'class="pip-price__currency">€</span><span class="pip-price__integer">149</span><span '
            'class="pip-price__decimal">,-</span></span></div>'
            '<p class="pip-bundle">Combination: 2 pieces, € 74,50 per piece</p>'
            '<div class="pip-product-identifier"><span class="pip-product-identifier__label">Article number</span>'
            '<span class="pip-product-identifier__value">204.417.98</span></div>'
            '<div class="pip-delivery">Delivery: Available · Store: In stock at Amsterdam</div>'
            '<button type="button" class="btn btn--primary">Add to bag</button>'
            '<div class="pdp__desc">' + filler(COPY_EN, 2, 32) + "</div></div></main>"
            + footer("en", "Nordhem"))
    return (html_page("en-NL", f"{name} - Nordhem", "", style, body),
            {"price": "149.00", "currency": "EUR", "sku": "204.417.98", "availability": "InStock"})


@page
def jp_marketplace_fullwidth_yen() -> tuple[str, dict[str, str]]:
    """A Japanese marketplace: "￥3,280" with a full-width yen sign and "税込", "参考価格" struck,
    points, "在庫あり。", "カートに入れる" and "今すぐ買う", and a details list with 型番."""
    name = "ステンレス製 真空断熱タンブラー 500ml"
    style = css(GENERIC_CSS + ".a-price{font-size:28px}.a-text-strike{text-decoration:line-through}"
                ".a-color-success{color:#007600}")
    body = (generic_header("ショップモール", "カート 0", cats=CATEGORIES_JA)
            + '<main class="pdp"><div class="pdp__gallery"><img src="/img/tumbler.jpg" alt="タンブラー" width="400" '
            f'height="400"></div><div id="centerCol"><h1 id="title"><span id="productTitle">{name}</span></h1>'
            '<div class="price-block"><span class="savingsPercentage">-18%</span> <span class="a-price">￥3,280</span> '
            '<span class="tax">税込</span></div><div class="basis">参考価格: <span class="a-text-strike">￥3,980</span></div>'
            '<div class="points">33pt (1%)</div>'
            '<div id="availability"><span class="a-color-success">在庫あり。</span></div>'
            '<button type="button" class="btn btn--primary">カートに入れる</button>'
            '<button type="button" class="btn btn--secondary">今すぐ買う</button>'
            '<ul class="detail-bullets"><li><span class="a-text-bold">メーカー ‏ : ‎ </span><span>Northwind Japan</span>'
            '</li><li><span class="a-text-bold">型番 ‏ : ‎ </span><span>NWJ-TB500</span></li></ul>'
            "</div></main>" + footer("ja", "ショップモール"))
    return (html_page("ja", f"{name} | ショップモール", "", style, body),
            {"price": "3280.00", "currency": "JPY", "mpn": "NWJ-TB500", "availability": "InStock"})


def main() -> None:
    for name, build in PAGES.items():
        html, expected = build()
        (HERE / f"{name}.html").write_text(html, encoding="utf-8")
        (HERE / f"{name}.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(PAGES)} pages written to {HERE}")


if __name__ == "__main__":
    main()
