"""--jsonmatch-update=KIND,review and ``jsonmatch accept`` (updating/update_review.py,
review_accept.py, review_markdown.py; cli/accept.py): a review run writes no case file and
lists each field's old value, new value and why; an accept writes exactly the cases or
fields named, byte for byte as an update would, refuses a file changed since the review and
a review that names a file outside the root. One pytest session; the accepts run in-process
on reviews made from real case files."""

from __future__ import annotations

import hashlib
import json

import pytest

from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.updating.update_review import REVIEW_JSON, REVIEW_MD, write_review
from pytest_jsonmatch.updating.updates import CaseUpdate, UpdateMode, update_mode
from pytest_jsonmatch.updating.yaml_edit import rewrite
from tests.helpers.plugin_cases import ARGS

# The target answers {"vendor": <input upper-cased>, "total": 10}.
TARGET = """
def pytest_jsonmatch_target(case, config):
    return {"vendor": case.input.upper(), "total": 10}
"""

CASES = (
    "threshold: 0.9\n"
    "cases:\n"
    "  - id: wrong\n"
    "    expected: {vendor: ACME, total: 12}   # the total is off\n"
    "    input: acme\n"
    "  - id: two\n"
    "    expected:\n"
    "      vendor: Initech   # both fields are off\n"
    "      total: 11\n"
    "    input: initech\n"
    "  - id: same\n"
    "    expected: {vendor: ACME, total: 10}\n"
    "    input: acme\n"
)


def test_a_review_run_writes_no_case_file_and_shows_old_new_and_why(pytester):
    pytester.makeconftest(TARGET)
    path = pytester.path / "c.jsonmatch.yaml"
    path.write_text(CASES)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix,review")
    assert path.read_text() == CASES  # nothing written
    # nothing was written: the failing cases still fail, the gates judge the scores
    result.assert_outcomes(passed=1, failed=2)
    # wrong: vendor matches, total 12 vs 10: (1 + 0) / 2 = 0.5 < 0.9
    # two: both fields differ: 0.0 < 0.9
    result.stdout.fnmatch_lines(
        [
            "update review (fix,review): 2 cases in 1 file would change, 3 fields; "
            "no case file was written",
            "  c.jsonmatch.yaml:3 wrong: scored 0.5 < threshold 0.9",
            "    total: 12 -> 10 (field scored 0.0: mismatch*)",
            "  c.jsonmatch.yaml:6 two: scored 0.0 < threshold 0.9",
            '    vendor: "Initech" -> "INITECH" (field scored 0.0: mismatch*)',
            "    total: 11 -> 10 (field scored 0.0: mismatch*)",
            "review written to .jsonmatch/update-review.json and "
            ".jsonmatch/update-review.md; write it with jsonmatch accept --all*",
        ]
    )
    assert "updated" not in result.stdout.str()
    review = json.loads((pytester.path / ".jsonmatch" / REVIEW_JSON).read_text())
    (file,) = review["files"]
    assert file["path"] == "c.jsonmatch.yaml"
    assert file["sha256"] == hashlib.sha256(CASES.encode()).hexdigest()
    wrong, two = file["cases"]
    assert (wrong["id"], wrong["old"], wrong["new"]) == (
        "wrong",
        {"vendor": "ACME", "total": 12},
        {"vendor": "ACME", "total": 10},
    )
    assert [(f["path"], f["old"], f["new"]) for f in two["fields"]] == [
        ("vendor", "Initech", "INITECH"),
        ("total", 11, 10),
    ]
    markdown = (pytester.path / ".jsonmatch" / REVIEW_MD).read_text()
    assert "### c.jsonmatch.yaml" in markdown
    assert "#### wrong (line 3): scored 0.5 \\< threshold 0.9" in markdown  # (\< shows <)
    assert "| total | 12 | 10 | field scored 0.0: mismatch" in markdown


def test_the_review_modifier_is_read_and_refused_in_ci_unless_asked():
    assert update_mode("fix,review", "u", in_ci=False) == UpdateMode("fix", review=True)
    assert update_mode("review,all", "u", in_ci=False) == UpdateMode("all", review=True)
    assert update_mode("review", "u", in_ci=False) == UpdateMode("fix", review=True)
    assert update_mode("create,review,ci", "u", in_ci=True) == UpdateMode("create", review=True)
    with pytest.raises(ConfigError, match=r"pass u=fix,review,ci to update them anyway"):
        update_mode("fix,review", "u", in_ci=True)
    with pytest.raises(ConfigError, match=r"takes a mode and optionally ',review' and ',ci'"):
        update_mode("fix,all", "u", in_ci=False)
    with pytest.raises(ConfigError, match=r"not 'fix,reveiw' \(did you mean 'review'\?\)"):
        update_mode("fix,reveiw", "u", in_ci=False)


# -- accepting ---------------------------------------------------------------------------------

FILE = (
    "cases:\n"
    "  - id: wrong\n"
    "    expected: {vendor: ACME, total: 12}   # the total is off\n"
    "  - id: two\n"
    "    expected:\n"
    "      vendor: Initech   # both fields are off\n"
    "      total: 11\n"
)
NEW = {"wrong": {"vendor": "ACME", "total": 10}, "two": {"vendor": "INITECH", "total": 10}}
OLD = {"wrong": {"vendor": "ACME", "total": 12}, "two": {"vendor": "Initech", "total": 11}}


def _review(tmp_path, text=FILE):
    """A review of c.jsonmatch.yaml (as a review run writes it) under the root tmp_path."""
    path = tmp_path / "cases" / "c.jsonmatch.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    updates = [
        CaseUpdate(
            path=str(path),
            display="cases/c.jsonmatch.yaml",
            case_id=case_id,
            line=line,
            value=NEW[case_id],
            default_id="c",
            sha256=digest,
            root=str(tmp_path),
            old=OLD[case_id],
            why="scored 0.5 < threshold 1.0",
        )
        for case_id, line in (("wrong", 2), ("two", 4))
    ]
    lines, errors = write_review(updates, UpdateMode("fix", review=True), tmp_path)
    assert errors == [] and path.read_text() == text
    return path, tmp_path / ".jsonmatch" / REVIEW_JSON


def test_accepting_a_case_writes_exactly_its_edit(tmp_path, capsys):
    path, review = _review(tmp_path)
    assert main(["accept", "--case", "wrong", str(review)]) == 0
    # wrong's total, and nothing else: its comment, the other case byte for byte
    assert path.read_text() == FILE.replace("total: 12}", "total: 10}")
    out = capsys.readouterr().out
    assert "accepted 1 field of 1 case:\n  cases/c.jsonmatch.yaml:2 wrong: every field" in out
    assert "holds 1 more case" in out
    left = json.loads(review.read_text())
    assert [c["id"] for c in left["files"][0]["cases"]] == ["two"]
    # the review's digest follows the bytes written: the rest can still be accepted
    before = path.read_text()
    assert main(["accept", "--all", str(review)]) == 0
    # two's edit is the one --jsonmatch-update makes (nothing of its mapping stays: written anew)
    assert path.read_text() == rewrite(before, {"two": NEW["two"]}, "c", "c")
    assert not review.exists() and not review.with_name(REVIEW_MD).exists()


def test_accepting_a_field_writes_that_field_alone(tmp_path):
    path, review = _review(tmp_path)
    assert main(["accept", "--field", "two:total", str(review)]) == 0
    assert path.read_text() == FILE.replace("total: 11", "total: 10")  # vendor stays Initech
    (left,) = [c for c in json.loads(review.read_text())["files"][0]["cases"] if c["id"] == "two"]
    assert [f["path"] for f in left["fields"]] == ["vendor"]
    assert left["old"] == {"vendor": "Initech", "total": 10}
    assert main(["accept", "--field", "cases/c.jsonmatch.yaml::two:vendor", str(review)]) == 0
    assert path.read_text() == FILE.replace("total: 11", "total: 10").replace(
        "vendor: Initech", "vendor: INITECH"
    )


def test_a_case_file_changed_since_the_review_is_refused(tmp_path, capsys):
    path, review = _review(tmp_path)
    edited = FILE.replace("# the total is off", "# edited by hand")
    path.write_text(edited)
    assert main(["accept", "--all", str(review)]) == 2
    err = capsys.readouterr().err
    assert "cases/c.jsonmatch.yaml: changed since the update review" in err
    assert "nothing accepted" in err
    assert path.read_text() == edited


def test_a_name_the_review_lacks_is_refused_naming_what_it_holds(tmp_path, capsys):
    path, review = _review(tmp_path)
    assert main(["accept", "--field", "two:totl", str(review)]) == 2
    err = capsys.readouterr().err
    assert "--field 'two:totl': no such field" in err and "did you mean 'two:total'" in err
    assert main(["accept", str(review)]) == 2  # nothing named
    assert path.read_text() == FILE


def test_a_review_naming_a_file_outside_the_root_is_refused(tmp_path, capsys):
    path, review = _review(tmp_path)
    outside = tmp_path.parent / "outside.jsonmatch.yaml"
    data = json.loads(review.read_text())
    data["files"][0]["path"] = "../" + outside.name
    review.write_text(json.dumps(data))
    assert main(["accept", "--all", str(review)]) == 2
    assert "is not a path under the test root" in capsys.readouterr().err
    assert not outside.exists()


def test_the_markdown_escapes_what_the_data_says(tmp_path):
    hostile = "cases:\n  - id: wrong\n    expected: {vendor: ACME, total: 12}\n"
    path = tmp_path / "c.jsonmatch.yaml"
    path.write_text(hostile)
    update = CaseUpdate(
        path=str(path),
        display="c.jsonmatch.yaml",
        case_id="wrong",
        line=2,
        value={"vendor": "a|b\n<script>", "total": 12},
        default_id="c",
        sha256=hashlib.sha256(hostile.encode()).hexdigest(),
        root=str(tmp_path),
        old={"vendor": "ACME", "total": 12},
        why="scored 0.5 < 1.0",
        field_whys={"vendor": "field scored 0.0: mismatch"},
    )
    # the notes cross the xdist wire (a worker's updates reach the controller as dicts)
    assert CaseUpdate.from_dict(json.loads(json.dumps(update.to_dict()))) == update
    write_review([update], UpdateMode("all", review=True), tmp_path)
    markdown = (tmp_path / ".jsonmatch" / REVIEW_MD).read_text()
    row = next(line for line in markdown.splitlines() if line.startswith("| vendor"))
    # one row of four cells: the | and < of the value escaped, its newline as \n
    assert row == '| vendor | "ACME" | "a\\|b\\\\n\\<script\\>" | field scored 0.0: mismatch |'


def test_a_field_accept_from_a_review_whose_old_value_was_edited_is_refused(tmp_path, capsys):
    # accepting one field writes the file's other values as the review says they were: a
    # review edited to say otherwise would have them changed unseen
    path, review = _review(tmp_path)
    data = json.loads(review.read_text())
    data["files"][0]["cases"][1]["old"]["vendor"] = "Forged"
    data["files"][0]["cases"][1]["fields"][0]["old"] = "Forged"  # (its page says so too)
    review.write_text(json.dumps(data))
    assert main(["accept", "--field", "two:total", str(review)]) == 2
    assert "case 'two': the review's old value is not the file's" in capsys.readouterr().err
    assert path.read_text() == FILE


def test_fields_deep_in_a_case_added_and_removed_keys_are_accepted_one_by_one(
    tmp_path, monkeypatch
):
    text = (
        "cases:\n"
        "  - id: a\n"
        "    expected:\n"
        "      items:\n"
        "        - {sku: X1, qty: 2}   # first\n"
        "        - {sku: X2, qty: 1}\n"
        '      "unit price": 3\n'
        "      gone: 1\n"
        "      note: keep\n"
    )
    path = tmp_path / "c.jsonmatch.yaml"
    path.write_text(text)
    old = {"items": [{"sku": "X1", "qty": 2}, {"sku": "X2", "qty": 1}], "unit price": 3}
    old |= {"gone": 1, "note": "keep"}
    new = {"items": [{"sku": "X1", "qty": 5}, {"sku": "X2", "qty": 1}], "unit price": 4}
    new |= {"note": "keep", "added": True}
    update = CaseUpdate(
        path=str(path),
        display="c.jsonmatch.yaml",
        case_id="a",
        line=2,
        value=new,
        default_id="c",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        root=str(tmp_path),
        old=old,
        why="scored 0.6 < 1.0",
    )
    lines, _ = write_review([update], UpdateMode("all", review=True), tmp_path)
    # the fields as the field tables name them: an index, a quoted key, a key each side lacks
    assert lines[2:6] == [
        "    items[0].qty: 2 -> 5 (scored 0.6 < 1.0)",
        '    ["unit price"]: 3 -> 4 (scored 0.6 < 1.0)',
        "    gone: 1 -> (none) (scored 0.6 < 1.0)",
        "    added: (none) -> true (scored 0.6 < 1.0)",
    ]
    review = tmp_path / ".jsonmatch" / REVIEW_JSON
    assert main(["accept", "--field", "a:added", "--field", "a:gone", str(review)]) == 0
    assert path.read_text() == text.replace("      gone: 1\n", "") + "      added: true\n"
    monkeypatch.chdir(tmp_path)  # the review where the run writes it: the default
    assert main(["accept", "--field", 'a:["unit price"]', "--field", "a:items[0].qty"]) == 0
    assert path.read_text() == rewrite(text, {"a": new}, "c", "c")
    assert not review.exists()


def test_a_case_without_expected_is_reviewed_whole_and_accepted(tmp_path):
    text = "cases:\n  - id: new   # no expected yet\n    input: acme\n"
    path = tmp_path / "c.jsonmatch.yaml"
    path.write_text(text)
    value = {"vendor": "ACME", "total": 10}
    update = CaseUpdate(
        path=str(path),
        display="c.jsonmatch.yaml",
        case_id="new",
        line=2,
        value=value,
        default_id="c",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        root=str(tmp_path),
        had_expected=False,  # as create,review asks it (update_review.case_update)
        why="no expected yet",
    )
    lines, _ = write_review([update], UpdateMode("create", review=True), tmp_path)
    assert lines[1:3] == [
        "  c.jsonmatch.yaml:2 new: no expected yet",
        '    $: (none) -> {"vendor": "ACME", "total": 10} (no expected yet)',
    ]
    assert main(["accept", "--field", "new:$", str(tmp_path / ".jsonmatch" / REVIEW_JSON)]) == 0
    assert path.read_text() == rewrite(text, {"new": value}, "c", "c")
    assert path.read_text() == text + "    expected:\n      vendor: ACME\n      total: 10\n"
