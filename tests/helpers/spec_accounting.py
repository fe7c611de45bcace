"""Section 3 of the spec, written out independently of the engine, for tests to check
the engine's precision, recall and F1 against."""

STATUSES = {"match", "mismatch", "omission", "hallucination", "skipped"}


def section3(fields):
    """Precision, recall, F1 from field statuses, exactly as section 3 defines them."""
    tp = sum(f.score for f in fields if f.status in ("match", "mismatch"))
    n = {s: sum(1 for f in fields if f.status == s) for s in STATUSES}
    p_den = n["match"] + n["mismatch"] + n["hallucination"]
    r_den = n["match"] + n["mismatch"] + n["omission"]
    p = tp / p_den if p_den else 1.0
    r = tp / r_den if r_den else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f1


def assert_follows_section3(result):
    """The result's precision, recall and F1 are section 3's, from its own fields."""
    import pytest

    p, r, f1 = section3(result.fields)
    assert result.precision == pytest.approx(p)
    assert result.recall == pytest.approx(r)
    assert result.f1 == pytest.approx(f1)
