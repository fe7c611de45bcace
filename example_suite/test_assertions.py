"""Assertion-style checks beside the YAML cases: the same scoring, written as Python tests.

``assert_json_match`` returns the MatchResult when the score meets the threshold and raises
an AssertionError listing the fields that cost points when it does not. Every call is
recorded for the jsonmatch summary at the end of the run, like the YAML cases.
"""

from pathlib import Path

import pytest
from extractor import extract

from pytest_jsonmatch import assert_json_match

HERE = Path(__file__).parent
INVOICE_SCHEMA = str(HERE / "schemas" / "invoice.schema.json")

INVOICE_TEXT = """\
Invoice INV-2024-201
From: Cyberdyne Systems
Bill to: Skynet Labs
Date: 2024-08-02
Currency: USD
- 4 x Servo motor (SKU M-800) @ 249.00
- 2 x Control board (SKU C-101) @ 180.00
Total: 1,356.00
"""


def test_invoice_extraction_field_f1():
    result = assert_json_match(
        extract(INVOICE_TEXT),
        {
            "document_type": "invoice",
            "invoice_number": "INV-2024-201",
            "vendor": "Cyberdyne Systems",
            "customer": "Skynet Labs",
            "date": "2024-08-02",
            "currency": "USD",
            "line_items": [
                {
                    "sku": "C-101",
                    "description": "Control board",
                    "quantity": 2,
                    "unit_price": 180.0,
                },
                {"sku": "M-800", "description": "Servo motor", "quantity": 4, "unit_price": 249.0},
            ],
            "total": 1356.0,
        },
        metric="field_f1",
        threshold=1.0,
        schema=INVOICE_SCHEMA,  # line items are paired by SKU, so their order does not matter
    )
    assert result.score == 1.0


def test_product_similarity_from_model_text():
    model_reply = 'Sure: {"name": "Trailblazer Tent", "brand": "Northpeak", "price": 249.99}'
    assert_json_match(
        model_reply,
        {"name": "Trailblazer 2 Tent", "brand": "Northpeak", "price": 249.99},
        metric="json_similarity",
        threshold=0.9,  # the name lost "2 ": levenshtein 16/18 -> (0.889 + 1 + 1) / 3 = 0.963
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Product: Mug | Brand: Northpeak | Price: $9.00",
            {"name": "Mug", "brand": "Northpeak", "price": 9.0, "currency": "USD"},
        ),
        (
            "Product: Scarf | Brand: Hygge | Price: €25.00 | Color: oat",
            {"name": "Scarf", "brand": "Hygge", "price": 25.0, "currency": "EUR", "color": "oat"},
        ),
    ],
)
def test_product_fields_with_session_defaults(json_match, text, expected):
    # the json_match fixture carries the session's metric and threshold (pytest.ini)
    json_match(extract(text), expected)
