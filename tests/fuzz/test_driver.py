"""The hostile fuzz driver (tests/fuzz/driver.py) as CI runs it: a short seeded run with no
hang and no foreign exception, and the driver's own parts (its watchdog and its classes)
shown to catch what they are there to catch. The long run (100,000 calls) is
``python -m tests.fuzz.driver --pairs 100000 --seed 55`` (docs/errors.md, Fuzzing)."""

from __future__ import annotations

import time

import pytest

from pytest_jsonmatch.engine.core import numbers

from . import driver

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

PAIRS = 2000


def test_a_seeded_run_has_no_hang_and_no_foreign_exception():
    began = time.monotonic()
    tally = driver.drive(seed=55, pairs=PAIRS)
    assert tally.findings == [], "\n".join(
        f"{kind} at `python -m tests.fuzz.driver --seed 55 --only {i}`: {detail}"
        for i, kind, detail in tally.findings
    )
    assert sum(tally.counts.values()) == PAIRS
    # both classes are reached: hostile values refused, and others scored
    assert tally.counts["error"] > PAIRS // 10 and tally.counts["ok"] > PAIRS // 10
    print(f"{PAIRS} calls in {time.monotonic() - began:.1f} s: {dict(tally.counts)}")


def test_every_kind_of_call_is_drawn():
    drawn = {driver.draw_call(55, i).function for i in range(PAIRS)}
    assert drawn == set(driver.FUNCTIONS)


def test_the_same_seed_and_index_draw_the_same_call():
    assert driver.draw_call(55, 123).show() == driver.draw_call(55, 123).show()
    assert driver.draw_call(55, 123).show() != driver.draw_call(56, 123).show()


def test_a_call_that_never_ends_is_killed_counted_and_the_run_goes_on(monkeypatch):
    monkeypatch.setenv("FUZZ_SPIN_AT", "3")
    tally = driver.drive(seed=1, pairs=8, limit=0.5, wall=20)
    assert tally.counts["hang"] == 1 and sum(tally.counts.values()) == 8
    assert [(i, kind) for i, kind, _ in tally.findings] == [(3, "hang")]


def test_an_exception_outside_the_family_is_foreign():
    kind, detail = driver.run_call(driver.Call("no_such_function", ()))
    assert kind == "foreign" and detail.startswith("AttributeError")
    assert driver.run_call(driver.Call("match_json", ({"a": 1}, {"a": 1}))) == ("ok", "")
    assert driver.run_call(driver.Call("match_json", ({"a": 1}, {"a": 1}), {"beta": 2}))[0] == (
        "error"
    )


def test_a_count_of_thousands_of_digits_or_a_foreign_digit_is_no_number():
    # found by the driver: int() refuses both (ValueError), where a setting's reader called it
    assert numbers.whole_in("9" * 5000, 1, 10**9) is None
    assert numbers.whole_in("\u00b2", 0, 10) is None  # a superscript two: isdigit() passes it
    assert numbers.whole_in(" 0007 ", 1, 10) == 7
