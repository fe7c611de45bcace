"""The plugin's hooks (hookspecs.py) in conftest files: pytest_jsonmatch_register adds comparators
for the session (from a conftest found during collection too), pytest_jsonmatch_result sees
every comparison, and what a session registered is gone when it ends."""

from __future__ import annotations

from tests.helpers.plugin_cases import ARGS


def test_conftest_registers_comparators_and_sees_every_result(pytester):
    pytester.makeconftest("""
        seen = []

        def pytest_jsonmatch_register(registry):
            registry.register_comparator("always_half", lambda e, a, params: 0.5)

        def pytest_jsonmatch_result(item, result, threshold, passed):
            seen.append((item.name, round(result.score, 4), threshold, passed))

        def pytest_sessionfinish(session):
            print("SEEN", sorted(seen))  # pytest < 8 runs sub/ after test_half.py, pytest 8+ before
    """)
    # sub/conftest.py is found during collection, after configure: it registers too
    pytester.mkpydir("sub").joinpath("conftest.py").write_text(
        "def pytest_jsonmatch_register(registry):\n"
        "    registry.register_comparator('always_one', lambda e, a, params: 1.0)\n"
    )
    # field_f1 with one field scored 0.5 as a mismatch: P = R = F1 = 0.5
    pytester.makepyfile(
        test_half="""
        from pytest_jsonmatch import assert_json_match

        def test_pass():
            assert_json_match({"a": 1}, {"a": 2}, threshold=0.5,
                              fields={"a": {"comparator": "always_half"}})

        def test_fail():
            assert_json_match({"a": 1}, {"a": 2}, fields={"a": {"comparator": "always_half"}})
    """
    )
    pytester.path.joinpath("sub", "test_one.py").write_text(
        "from pytest_jsonmatch import assert_json_match\n"
        "def test_one():\n"
        "    assert_json_match({'a': 1}, {'a': 2}, fields={'a': {'comparator': 'always_one'}})\n"
    )
    result = pytester.runpytest_inprocess(*ARGS, "-s")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*SEEN [[]('test_fail', 0.5, 1.0, False), ('test_one', 1.0, 1.0, True), "
            "('test_pass', 0.5, 0.5, True)[]]"
        ]
    )
    # what a session registered is gone when it ends
    from pytest_jsonmatch import REGISTRY

    assert "always_half" not in REGISTRY.comparator_names
    assert "always_one" not in REGISTRY.comparator_names


def test_type_defaults_embedders_and_names_a_test_module_sets_are_undone_at_session_end(pytester):
    # registrations made anywhere in a session (a test module at import, not only the hook),
    # and field_f1's type defaults, are put back when the session ends
    from pytest_jsonmatch import REGISTRY, match_json

    before = match_json({"a": "x"}, {"a": "X"}, metric="field_f1").score
    assert before == 0.0  # strings compare exactly by default
    pytester.makepyfile("""
        from pytest_jsonmatch import REGISTRY, match_json, register_comparator

        REGISTRY.set_type_default("string", "normalized")
        REGISTRY.register_embedder("toy_embedder", lambda texts: [[1.0, 0.0] for _ in texts])
        register_comparator("module_level", lambda e, a, params: 1.0)

        def test_inside():
            assert match_json({"a": "x"}, {"a": "X"}, metric="field_f1").score == 1.0
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)
    assert match_json({"a": "x"}, {"a": "X"}, metric="field_f1").score == 0.0
    assert REGISTRY.type_default("string") == "exact"
    assert "module_level" not in REGISTRY.comparator_names
    assert "toy_embedder" not in REGISTRY.embedders.names
