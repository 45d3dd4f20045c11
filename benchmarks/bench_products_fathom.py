"""Product price on real shops' pages nobody here wrote: ``../shared/corpora/products-fathom`` (72 product
pages of 72 shops, saved as their DOM after their scripts ran, with the price a person marked).

Each page is read by ``read_page`` (``real_pages``: served on 127.0.0.1, the product's own read path).
A page is right when the product's price equals one of ``expected_prices`` (to the cent; a range page
is right at either end); wrong when it gives another price (worse than none); none when it gives no
price. Also ``read_page``'s time from the call (median, p95) and tokens per read on these pages.

Only the price is marked in this set. SKU and availability are measured against what the page's own
structured data says, as extruct alone reads it (``declared``: the first schema.org Product in its
JSON-LD or microdata, its ``sku`` or its first offer's, its first offer's ``availability``), on the
pages that declare them: agreement with the page's own claim, not a person's reading.
``--quick`` reads the first 20 pages; ``JAWAD_BENCH_PAGES=test-rei,...`` reads those only.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from typing import Any

from benchmarks import Figure
from benchmarks.real_pages import CORPORA, decoded, read_pages

CORPUS = CORPORA / "products-fathom"
QUICK_PAGES = 20
GOAL_RIGHT, GOAL_WRONG = 0.9, 2


def amount(text: str) -> float | None:
    """The product's price string as a number ("1,299.00" and "1299.00" alike)."""
    try:
        return round(float(text.replace(",", "")), 2)
    except ValueError:
        return None


def verdict(product: dict[str, Any] | None, expected: list[float]) -> str:
    price = amount(str((product or {}).get("price", "") or ""))
    if price is None:
        return "none"
    return "right" if any(abs(price - round(e, 2)) < 0.005 for e in expected) else "wrong"


def declared(html: str) -> tuple[str, str]:
    """(SKU, availability) as the page's structured data declares them, read by extruct alone; ""
    for what it does not declare. Availability as its schema.org word, lower case, letters only."""
    import extruct

    data = extruct.extract(html, syntaxes=["json-ld", "microdata"], uniform=True, errors="ignore")

    def items(node: Any) -> Any:
        if isinstance(node, list):
            for entry in node:
                yield from items(entry)
        elif isinstance(node, dict):
            yield node
            yield from items(node.get("@graph", []))

    for syntax in ("json-ld", "microdata"):
        for item in items(data.get(syntax, [])):
            kinds = item.get("@type", "")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if "product" not in [str(k).rsplit("/", 1)[-1].lower() for k in kinds]:
                continue
            offers = item.get("offers") or []
            offers = [o for o in (offers if isinstance(offers, list) else [offers]) if isinstance(o, dict)]
            sku = str(item.get("sku") or next((o["sku"] for o in offers if o.get("sku")), "") or "").strip()
            stock = str(next((o["availability"] for o in offers if o.get("availability")), "") or "")
            return sku, "".join(c for c in stock.rsplit("/", 1)[-1].lower() if c.isalpha())
    return "", ""


def run(quick: bool) -> list[Figure]:
    if not CORPUS.is_dir():
        raise RuntimeError(f"the products-fathom corpus is missing: {CORPUS}")
    expected: dict[str, Any] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    names = sorted(expected)
    chosen = os.environ.get("JAWAD_BENCH_PAGES", "")
    if chosen:
        wanted = {f"{p.strip().removesuffix('.html')}.html" for p in chosen.split(",")}
        names = [n for n in names if n in wanted]
    elif quick:
        names = names[:QUICK_PAGES]
    records = read_pages(CORPUS / "pages", names)
    verdicts = {n: verdict(records.get(n, {}).get("product"), expected[n]["expected_prices"]) for n in names}
    right = [n for n, v in verdicts.items() if v == "right"]
    wrong = [n for n, v in verdicts.items() if v == "wrong"]
    none = [n for n, v in verdicts.items() if v == "none"]
    read = [r for r in records.values() if "read_ms" in r]
    times, tokens = [r["read_ms"] for r in read], [r["tokens"] for r in read]
    share = len(right) / len(names) if names else 0.0

    def shown(n: str) -> str:
        got = (records.get(n, {}).get("product") or {}).get("price", "")
        return f"{n.removesuffix('.html')} {got or '-'} (want {expected[n]['expected_price_text'][:20]})"

    ordered = sorted(times)
    claims = {n: declared(decoded(CORPUS / "pages" / n)) for n in names}
    sku_pages = [n for n in names if claims[n][0]]
    stock_pages = [n for n in names if claims[n][1]]
    sku_same = [n for n in sku_pages if str((records.get(n, {}).get("product") or {}).get("sku", "")) == claims[n][0]]
    stock_same = [n for n in stock_pages if "".join(
        c for c in str((records.get(n, {}).get("product") or {}).get("availability", "")).lower() if c.isalpha())
        == claims[n][1]]
    stock_off = [n for n in stock_pages if n not in stock_same]
    return [
        Figure(name=f"products-fathom price right ({len(names)} pages)", value=share, unit="",
               goal=f">= {GOAL_RIGHT} and <= {GOAL_WRONG} wrong", ok=share >= GOAL_RIGHT and len(wrong) <= GOAL_WRONG,
               note=f"{len(right)} right, {len(wrong)} wrong, {len(none)} none"),
        Figure(name="products-fathom wrong prices", value=float(len(wrong)), unit="pages",
               note="; ".join(shown(n) for n in wrong)[:600]),
        Figure(name="products-fathom no price", value=float(len(none)), unit="pages",
               note="; ".join(shown(n) for n in none)[:400]),
        Figure(name=f"products-fathom SKU as the page's structured data declares it ({len(sku_pages)} pages)",
               value=len(sku_same) / len(sku_pages) if sku_pages else float("nan"), unit="",
               note="not marked by a person: extruct alone on the page; differs on "
               + ", ".join(f"{n.removesuffix('.html')} {(records.get(n, {}).get('product') or {}).get('sku', '-')}"
                           f" (declared {claims[n][0]})" for n in sku_pages if n not in sku_same)[:300]),
        Figure(name=f"products-fathom availability as the structured data declares it ({len(stock_pages)} pages)",
               value=len(stock_same) / len(stock_pages) if stock_pages else float("nan"), unit="",
               note="not marked by a person: extruct alone on the page"
               + (f"; differs on {', '.join(n.removesuffix('.html') for n in stock_off)}"[:300] if stock_off else "")),
        Figure(name="products-fathom read_page time from the call, median",
               value=statistics.median(times) if times else float("nan"), unit="ms"),
        Figure(name="products-fathom read_page time from the call, p95",
               value=ordered[max(0, -(-95 * len(ordered) // 100) - 1)] if ordered else float("nan"), unit="ms"),
        Figure(name="products-fathom tokens per read (text + element list, gpt-4o), median",
               value=statistics.median(tokens) if tokens else float("nan"), unit="tokens"),
    ]


if __name__ == "__main__":
    for fig in run(quick="--quick" in sys.argv):
        print(fig)
