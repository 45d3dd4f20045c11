"""Scoring a product reading against the dev sets' expected fields.

Two sets: the simple one (tests/pages/products/*.json, one pattern per small page) and the real one
(tests/pages/products/real/*.json, full-size pages built the way real shops render them; see
real/generate.py). Shared by tests/browser/test_product_devset.py and benchmarks/bench_products.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEVSET = Path(__file__).resolve().parent.parent / "pages" / "products"


SETS = {"simple": "", "real": "real"}  # set name -> folder under tests/pages/products/


def devset(which: str = "simple") -> list[tuple[str, dict[str, str]]]:
    """(page path under tests/pages/products/, expected fields) for every page of a set, sorted by name."""
    folder = DEVSET / SETS[which]
    prefix = f"{SETS[which]}/" if SETS[which] else ""
    return [(prefix + p.with_suffix(".html").name, json.loads(p.read_text(encoding="utf-8")))
            for p in sorted(folder.glob("*.json"))]


def wrong_fields(expected: dict[str, str], product: dict[str, Any] | None) -> list[str]:
    """The expected fields the product gets wrong, each as ``field: got != expected``."""
    got = product or {}
    wrong = []
    for key, want in expected.items():
        value = got.get(key)
        same = _amount(value) == _amount(want) if key == "price" and value else value == want
        if not same:
            wrong.append(f"{key}: {value!r} != {want!r}")
    return wrong


def _amount(value: Any) -> float | None:
    try:
        return round(float(str(value).replace(",", "")), 2)
    except ValueError:
        return None


@dataclass
class Score:
    """Counts over the dev set: price as precision/recall/F1, SKU and availability as accuracy."""

    price_right: int = 0
    price_given: int = 0
    price_expected: int = 0
    sku_right: int = 0
    sku_expected: int = 0
    ids_right: int = 0  # MPN and GTIN, where the page shows them
    ids_expected: int = 0
    avail_right: int = 0
    avail_expected: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, name: str, expected: dict[str, str], product: dict[str, Any] | None) -> None:
        got = product or {}
        self.price_expected += 1
        if got.get("price"):
            self.price_given += 1
            if _amount(got["price"]) == _amount(expected["price"]) and got.get("currency") == expected["currency"]:
                self.price_right += 1
            else:
                self.misses.append(f"{name}: price {got.get('price')} {got.get('currency')} != "
                                   f"{expected['price']} {expected['currency']}")
        else:
            self.misses.append(f"{name}: no price")
        if "sku" in expected:
            self.sku_expected += 1
            if got.get("sku") == expected["sku"]:
                self.sku_right += 1
            else:
                self.misses.append(f"{name}: sku {got.get('sku')!r} != {expected['sku']!r}")
        for key in ("mpn", "gtin"):
            if key in expected:
                self.ids_expected += 1
                if got.get(key) == expected[key]:
                    self.ids_right += 1
                else:
                    self.misses.append(f"{name}: {key} {got.get(key)!r} != {expected[key]!r}")
        if "availability" in expected:
            self.avail_expected += 1
            if got.get("availability") == expected["availability"]:
                self.avail_right += 1
            else:
                self.misses.append(f"{name}: availability {got.get('availability')!r} != {expected['availability']!r}")

    def figures(self) -> dict[str, float]:
        precision = self.price_right / self.price_given if self.price_given else 0.0
        recall = self.price_right / self.price_expected if self.price_expected else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"price_f1": round(f1, 3),
                "sku_accuracy": round(self.sku_right / self.sku_expected, 3) if self.sku_expected else 0.0,
                "availability_accuracy": round(self.avail_right / self.avail_expected, 3)
                if self.avail_expected else 0.0,
                "mpn_gtin_accuracy": round(self.ids_right / self.ids_expected, 3) if self.ids_expected else 0.0}
