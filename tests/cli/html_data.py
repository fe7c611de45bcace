"""The HTML page's data block read back in Python, by the rules html_cases.py documents
(a second reader, written from the documentation, so that a test holds the writer to it)."""

from __future__ import annotations

import json

from pytest_jsonmatch.reporting.render import html_cases as hc


def page_data(page: str) -> dict:
    start = page.index('<script type="application/json" id="case-data">')
    start = page.index(">", start) + 1
    return json.loads(page[start : page.index("</script>", start)])


def fields_of(data: dict, run: list) -> list[dict]:
    """A comparison's fields, one dict each."""
    shape, flat = run[6], run[7]
    places = data["shapes"][shape] if isinstance(shape, int) else shape
    out, k = [], 0
    for place in places:
        flags, status = divmod(flat[k], hc.CODE)
        flags ^= hc.USUAL
        status = data["field_statuses"][status]
        at = k + 1
        score = 1.0 if status == "match" else 0.0
        if flags & hc.HAS_SCORE:
            score, at = flat[at], at + 1
        path, field_path = data["places"][place]
        field = {"path": path, "field_path": field_path, "status": status, "score": score}

        def value(raw, cut, as_text=bool(flags & hc.VALUE_TEXT)):
            return json.loads(raw) if as_text and not cut else raw

        if flags & hc.HAS_EXPECTED:
            field["expected"] = value(flat[at], flags & hc.EXPECTED_CUT)
            at += 1
        if flags & hc.HAS_ACTUAL:
            if flags & hc.SAME:
                field["actual"] = field["expected"]
            else:
                field["actual"] = value(flat[at], flags & hc.ACTUAL_CUT)
                at += 1
        field["expected_cut"] = bool(flags & hc.EXPECTED_CUT)
        field["actual_cut"] = bool(flags & hc.ACTUAL_CUT)
        out.append(field)
        k = at
    assert k == len(flat)
    return out


def case_ids(data: dict) -> list[str]:
    """The cases' ids, the plugin's (file::rest) put together again."""
    return [
        data["strings"][c[4]] + "::" + c[0][0] if isinstance(c[0], list) else c[0]
        for c in data["cases"]
    ]


def run_case_ids(data: dict) -> list[str]:
    """Each comparison's case id, from its case's index (or as written)."""
    ids = case_ids(data)
    return [ids[r[0]] if isinstance(r[0], int) else r[0] for r in data["runs"]]


def reconstructed(data: dict) -> list[list[dict]]:
    """Every comparison's fields, in the page's order."""
    return [fields_of(data, run) for run in data["runs"]]
