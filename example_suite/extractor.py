"""A small deterministic extractor: the "model" under test in this example suite.

It reads short invoice and product texts with regular expressions. It is deliberately a bit
naive (it misses a customer written as "Customer:", keeps day-first dates as written, does not
know every currency sign), so the golden cases show how jsonmatch scores imperfect output.
In a real suite this would call your LLM; it may be ``async def`` too.
"""

from __future__ import annotations

import re
from typing import Any

CURRENCY_SIGNS = {"€": "EUR", "$": "USD", "£": "GBP"}

_LINE_ITEM = re.compile(
    r"^-\s*(?P<qty>\d+)\s*x\s*(?P<desc>.+?)\s*\(SKU\s*(?P<sku>[\w-]+)\)\s*@\s*(?P<price>[\d.,]+)",
    re.MULTILINE,
)


def extract(text: str) -> dict[str, Any]:
    """Return the fields found in ``text``: an invoice when it says so, else a product."""
    if re.search(r"\binvoice\b", text, re.IGNORECASE):
        return extract_invoice(text)
    return extract_product(text)


def _find(pattern: str, text: str) -> str | None:
    match = re.search(pattern, text, re.IGNORECASE | re.MULTILINE)
    return match.group(1).strip() if match else None


def _number(raw: str | None) -> float | None:
    if raw is None:
        return None
    return float(raw.replace(",", ""))


def _currency(text: str) -> str | None:
    code = _find(r"^Currency:\s*([A-Z]{3})", text)
    if code:
        return code
    for sign, name in CURRENCY_SIGNS.items():
        if sign in text:
            return name
    return None


def extract_invoice(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "document_type": "invoice",
        "invoice_number": _find(r"Invoice\s+(?:No\.?\s*)?([A-Z]+-[\w-]+)", text),
        "vendor": _find(r"^(?:From|Vendor):\s*(.+)$", text),
        "customer": _find(r"^Bill to:\s*(.+)$", text),  # misses "Customer:" on purpose
        "date": _find(r"^Date:\s*(\S+)", text),  # kept as written: 05/03/2024 stays so
        "currency": _currency(text),
        "line_items": [
            {
                "sku": m["sku"],
                "description": m["desc"],
                "quantity": int(m["qty"]),
                "unit_price": _number(m["price"]),
            }
            for m in _LINE_ITEM.finditer(text)
        ],
        "total": _number(_find(r"^Total:\s*[^\d]*([\d.,]+)", text)),
    }
    return {k: v for k, v in out.items() if v not in (None, [])}


def extract_product(text: str) -> dict[str, Any]:
    fields = dict(re.findall(r"([A-Za-z ]+):\s*([^|\n]+)", text))
    fields = {k.strip().lower(): v.strip() for k, v in fields.items()}
    out: dict[str, Any] = {"name": fields.get("product"), "brand": fields.get("brand")}
    price = fields.get("price")
    if price:
        out["price"] = _number(re.sub(r"[^\d.,]", "", price))
        out["currency"] = next((c for s, c in CURRENCY_SIGNS.items() if s in price), None)
    if "color" in fields:
        out["color"] = fields["color"]
    if "weight" in fields:
        grams = re.match(r"([\d.]+)\s*(kg|g)", fields["weight"])
        if grams:
            value = float(grams[1])
            out["weight_kg"] = value if grams[2] == "kg" else value / 1000
    if "in stock" in fields:
        out["in_stock"] = fields["in stock"].lower() in ("yes", "true", "y")
    if "tags" in fields:
        out["tags"] = [t.strip() for t in fields["tags"].split(",")]
    return {k: v for k, v in out.items() if v is not None}
