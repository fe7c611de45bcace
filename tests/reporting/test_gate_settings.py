"""Reading the gates' settings (reporting/verdicts/gates.py): each parse function names, in its error,
the setting its caller says it read (an ini setting, a flag), and knows no spelling itself."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.reporting.verdicts.gate_settings import (
    Floor,
    parse_floors,
    parse_mode,
    parse_score,
)


@pytest.mark.parametrize("name", ["jsonmatch_gates max_drop", "--max-drop", "max_drop="])
def test_a_bad_score_names_the_setting_given(name):
    with pytest.raises(ConfigError) as info:
        parse_score("2", name)
    assert str(info.value) == f"{name} must be a number between 0 and 1, not '2'"
    assert parse_score(" 0.25 ", name) == 0.25


@pytest.mark.parametrize("name", ["jsonmatch_gate", "--gate"])
def test_a_bad_mode_names_the_setting_given(name):
    with pytest.raises(ConfigError) as info:
        parse_mode("loose", name)
    assert str(info.value) == f"{name} must be one of statistical, strict, not 'loose'"
    assert (parse_mode("", name), parse_mode(" strict ", name)) == ("statistical", "strict")


@pytest.mark.parametrize("name", ["jsonmatch_field_floors", "--field-floor"])
def test_a_bad_floor_names_the_setting_given(name):
    with pytest.raises(ConfigError) as info:
        parse_floors(["total"], name)
    assert str(info.value) == (
        f"{name}: expected 'field.path=score' or 'group:field.path=score', not 'total'"
    )
    with pytest.raises(ConfigError) as info:
        parse_floors(["total=2"], name)
    assert str(info.value) == f"{name} 'total' must be a number between 0 and 1, not '2'"
    assert parse_floors(["# a comment", "field_f1:total=0.9"], name) == (
        Floor("total", 0.9, "field_f1"),
    )
