"""``jsonmatch accept`` and the update review held to the test root and to what the review
shows (updating/review_accept.py, update_review.py, review_text.py): the review is read only
at ``ROOT/.jsonmatch/update-review.json``, as a regular file of bounded size; every case
file it names is a .yaml path under the root that resolves inside it, a regular file, with
the review's old value; a refusal writes and removes nothing. And the Markdown the review
page (and every report) writes makes no GitHub mention of a name from the data. Each test
runs the command in-process on a review made as a review run makes it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading

import pytest

from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.engine.reading import user_files
from pytest_jsonmatch.reporting.render.markdown import escape
from pytest_jsonmatch.updating import update_review
from pytest_jsonmatch.updating.update_fields import changes
from pytest_jsonmatch.updating.update_review import REVIEW_JSON, REVIEW_MD, write_review
from pytest_jsonmatch.updating.updates import CaseUpdate, UpdateMode
from tests.plugin.golden.test_update_review import FILE, _review

DIGEST = hashlib.sha256(FILE.encode()).hexdigest()
CASE = "cases/c.jsonmatch.yaml"


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """What ``jsonmatch ARGV`` says when it refuses (exit status 2)."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.removeprefix("jsonmatch: error: ").rstrip("\n")


def _edited(review, edit) -> None:
    data = json.loads(review.read_text())
    edit(data)
    review.write_text(json.dumps(data))


# -- where the review is read ------------------------------------------------------------------


def test_a_jsonmatch_folder_linked_out_of_the_root_is_refused_writing_and_removing_nothing(
    tmp_path, monkeypatch, capsys
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _, review = _review(elsewhere)  # a review whose case file's digest matches the root's
    root = tmp_path / "root"
    (root / "cases").mkdir(parents=True)
    (root / CASE).write_text(FILE)
    (root / ".jsonmatch").symlink_to(elsewhere / ".jsonmatch")
    monkeypatch.chdir(root)
    assert _refused(capsys, ["accept", "--all"]) == (
        f".jsonmatch resolves to {(elsewhere / '.jsonmatch').resolve()}, outside the test "
        f"root {root.resolve()}: nothing accepted"
    )
    assert (root / CASE).read_text() == FILE
    assert review.is_file() and review.with_name(REVIEW_MD).is_file()  # nothing removed there


def test_a_review_saved_outside_jsonmatch_is_refused_not_read_from_its_grandparent(
    tmp_path, monkeypatch, capsys
):
    # the review's grandparent holds the case file its digest names: read as the root, the
    # accept would write above the folder it runs in
    path, review = _review(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    review.rename(project / "review.json")
    monkeypatch.chdir(project)
    assert _refused(capsys, ["accept", "--all", "review.json"]) == (
        "review.json: an update review is read only where a review run writes it, "
        "ROOT/.jsonmatch/update-review.json (the test root is the folder that holds "
        ".jsonmatch): nothing accepted"
    )
    assert path.read_text() == FILE and (project / "review.json").is_file()


def test_a_review_path_holding_a_nul_byte_is_refused_naming_it(capsys):
    assert _refused(capsys, ["accept", "--all", "re\0view.json"]) == (
        "re\\x00view.json: no file can have this path (it holds a NUL byte)"
    )


def test_a_review_larger_than_the_project_reads_is_refused_before_it_is_read(
    tmp_path, monkeypatch, capsys
):
    path, review = _review(tmp_path)
    with review.open("r+b") as fh:  # (sparse: no byte of it is written)
        fh.truncate(user_files.MAX_FILE_BYTES + 1)
    monkeypatch.chdir(tmp_path)
    assert _refused(capsys, ["accept", "--all"]) == (
        "the update review '.jsonmatch/update-review.json' is larger than 256 MB"
    )
    assert path.read_text() == FILE


def test_a_review_file_that_is_a_link_is_refused(tmp_path, monkeypatch, capsys):
    path, review = _review(tmp_path)
    kept = tmp_path / "kept.json"
    review.rename(kept)
    review.symlink_to(kept)
    monkeypatch.chdir(tmp_path)
    assert _refused(capsys, ["accept", "--all"]) == (
        ".jsonmatch/update-review.json is a symbolic link, not a regular file: refused (the "
        "plugin writes its own files only as regular files); remove it and make the review again"
    )
    assert path.read_text() == FILE and kept.is_file()


def test_a_review_page_that_is_a_link_is_refused_before_anything_is_written(
    tmp_path, monkeypatch, capsys
):
    path, review = _review(tmp_path)
    victim = tmp_path / "victim.md"
    victim.write_text("mine\n")
    page = review.with_name(REVIEW_MD)
    page.unlink()
    page.symlink_to(victim)
    before = review.read_text()
    monkeypatch.chdir(tmp_path)
    assert _refused(capsys, ["accept", "--case", "wrong"]) == (
        ".jsonmatch/update-review.md is a symbolic link, not a regular file: refused (the "
        "plugin writes its own files only as regular files); remove it and make the review again"
    )
    assert path.read_text() == FILE and review.read_text() == before
    assert victim.read_text() == "mine\n" and page.is_symlink()
    # a review run refuses it as well, before writing either file
    review.unlink()
    lines, errors = write_review(
        [_update(tmp_path, path)], UpdateMode("fix", review=True), tmp_path
    )
    assert errors == [
        "could not write the update review: .jsonmatch/update-review.md is a symbolic link, not "
        "a regular file: refused (the plugin writes its own files only as regular files); "
        "remove it and make the review again"
    ]
    assert not review.exists() and victim.read_text() == "mine\n"


def _update(root, path, value=None) -> CaseUpdate:
    return CaseUpdate(
        path=str(path),
        display=str(path.relative_to(root)),
        case_id="wrong",
        line=2,
        value=value or {"vendor": "ACME", "total": 10},
        default_id="c",
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        root=str(root),
        old={"vendor": "ACME", "total": 12},
        why="scored 0.5 < threshold 1.0",
    )


def test_a_review_too_large_to_accept_is_not_written_and_the_older_one_is_removed(
    tmp_path, monkeypatch
):
    path, review = _review(tmp_path)
    monkeypatch.setattr(user_files, "MAX_FILE_BYTES", 2**20)
    big = _update(tmp_path, path, {"vendor": "A" * 2**20, "total": 10})
    lines, errors = write_review([big], UpdateMode("fix", review=True), tmp_path)
    assert errors == [
        "could not write the update review: the update review would be larger than 1 MB, the "
        "most jsonmatch accept reads: not written; review fewer cases at once (pytest -k)"
    ]
    assert not review.exists() and not review.with_name(REVIEW_MD).exists()


# -- the case files it names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("..\\outside.yaml", "is not a path under the test root"),
        ("cases\\..\\..\\outside.yaml", "is not a path under the test root"),
        ("C:outside.yaml", "is not a path under the test root"),
        ("\\\\server\\share\\outside.yaml", "is not a path under the test root"),
        ("/abs/outside.yaml", "is not a path under the test root"),
        ("notes.txt", "is not a case file (a .yaml file of cases)"),
        ("cases/jsonmatch.yaml", "is not a case file (a .yaml file of cases)"),
    ],
)
def test_a_case_file_no_review_run_names_is_refused(tmp_path, capsys, name, problem):
    path, review = _review(tmp_path)
    (tmp_path / "notes.txt").write_text(FILE)  # (its digest is the review's)
    _edited(review, lambda data: data["files"][0].update(path=name))
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"{review}: not an update review jsonmatch can read (the case file {name!r} {problem})"
    )
    assert path.read_text() == FILE and (tmp_path / "notes.txt").read_text() == FILE


def test_a_case_file_linked_out_of_the_root_is_refused_before_any_file_is_written(tmp_path, capsys):
    root = tmp_path / "root"
    (root / "cases").mkdir(parents=True)
    inside, linked = root / "cases" / "a.jsonmatch.yaml", root / "cases" / "b.jsonmatch.yaml"
    outside = tmp_path / "outside.jsonmatch.yaml"
    inside.write_text(FILE)
    outside.write_text(FILE)
    linked.symlink_to(outside)
    updates = [_update(root, inside), _update(root, linked)]
    assert write_review(updates, UpdateMode("fix", review=True), root)[1] == []
    review = root / ".jsonmatch" / REVIEW_JSON
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"cases/b.jsonmatch.yaml: resolves to {outside.resolve()}, outside the test root "
        f"{root.resolve()} (a symlinked file or folder?): nothing accepted; the plugin writes "
        f"only inside the root"
    )
    assert inside.read_text() == FILE and outside.read_text() == FILE


def test_a_case_file_replaced_by_a_folder_or_a_fifo_is_refused_without_hanging(tmp_path, capsys):
    path, review = _review(tmp_path)
    path.unlink()
    path.mkdir()
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"the case file {CASE!r} is not a regular file (a directory)"
    )
    path.rmdir()
    os.mkfifo(path)  # no writer: opening it to read would wait for one for good
    said: list[int] = []
    worker = threading.Thread(target=lambda: said.append(main(["accept", "--all", str(review)])))
    worker.daemon = True
    worker.start()
    worker.join(10)
    assert said == [2]
    assert "is not a regular file (a FIFO)" in capsys.readouterr().err


def test_a_case_file_larger_than_the_project_reads_is_refused_before_it_is_read(tmp_path, capsys):
    path, review = _review(tmp_path)
    with path.open("r+b") as fh:  # (sparse)
        fh.truncate(user_files.MAX_FILE_BYTES + 1)
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"the case file {CASE!r} is larger than 256 MB"
    )


def test_one_case_file_named_twice_through_a_linked_folder_is_refused_before_writing(
    tmp_path, capsys
):
    # two spellings of one file: the first written would make the second "changed"
    path, review = _review(tmp_path)
    (tmp_path / "alias").symlink_to(tmp_path / "cases")

    def split(data):
        first = data["files"][0]
        second = dict(first, path="alias/c.jsonmatch.yaml", cases=first["cases"][1:])
        first["cases"] = first["cases"][:1]
        data["files"].append(second)

    _edited(review, split)
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"alias/c.jsonmatch.yaml: the update review {review} names this case file twice (as "
        f"{CASE!r} too): nothing accepted; make the review again"
    )
    assert path.read_text() == FILE


def test_a_review_that_is_a_fifo_is_refused_without_hanging(tmp_path, capsys):
    path, review = _review(tmp_path)
    review.unlink()
    os.mkfifo(review)
    said: list[int] = []
    worker = threading.Thread(target=lambda: said.append(main(["accept", "--all", str(review)])))
    worker.daemon = True
    worker.start()
    worker.join(10)
    assert said == [2]
    assert capsys.readouterr().err == (
        "jsonmatch: error: .jsonmatch/update-review.json is a FIFO, not a regular file: refused "
        "(the plugin writes its own files only as regular files); remove it and make the review "
        "again\n"
    )


# -- what the review says ----------------------------------------------------------------------


def _listed_twice(data):
    data["files"].append(dict(data["files"][0], path="cases/./c.jsonmatch.yaml"))


def _case_twice(data):
    data["files"][0]["cases"].append(data["files"][0]["cases"][0])


def _forged_old(data):
    # old and its fields say total was 11: the page shows 11 -> 10, the file holds 12
    case = data["files"][0]["cases"][0]
    case["old"]["total"] = 11
    case["fields"][0]["old"] = 11


def _fields_hide_a_change(data):
    # the page lists the total alone; the value written changes the vendor too
    data["files"][0]["cases"][0]["new"]["vendor"] = "EVIL"


def _no_such_case(data):
    data["files"][0]["cases"][0]["id"] = "wro\u0301ng"  # (a combining accent: not the file's)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            _listed_twice,
            "not an update review jsonmatch can read (the case file "
            "'cases/./c.jsonmatch.yaml' is listed twice)",
        ),
        (
            _case_twice,
            "not an update review jsonmatch can read (the case 'wrong' of "
            "'cases/c.jsonmatch.yaml' is listed twice)",
        ),
        (
            lambda data: data.update(update="fix,review,ci"),
            "not an update review jsonmatch can read ('update' is 'fix,review,ci', not "
            "one of create,review, fix,review, all,review)",
        ),
        (
            lambda data: data["files"][0]["cases"][0].update(id="a::b"),
            "not an update review jsonmatch can read (a case of 'cases/c.jsonmatch.yaml' without "
            "id, line, default_id or new, or with a key other than expected or conversation)",
        ),
        (  # (an update writes a case's expected value, or a conversation's turns: nothing else)
            lambda data: data["files"][0]["cases"][0].update(key="input"),
            "not an update review jsonmatch can read (a case of 'cases/c.jsonmatch.yaml' without "
            "id, line, default_id or new, or with a key other than expected or conversation)",
        ),
        (
            _fields_hide_a_change,
            "not an update review jsonmatch can read (the fields of case "
            "'wrong' of 'cases/c.jsonmatch.yaml' are not where its old and new values differ)",
        ),
        (
            _forged_old,
            "cases/c.jsonmatch.yaml: case 'wrong': the review's old value is not "
            "the file's (was the review edited?): nothing accepted; make the review again",
        ),
        (
            _no_such_case,
            "cases/c.jsonmatch.yaml: case 'wro\u0301ng': it holds no such case (was "
            "the review edited?): nothing accepted; make the review again",
        ),
    ],
)
def test_a_review_edited_to_write_what_its_page_does_not_show_is_refused(
    tmp_path, capsys, edit, said
):
    path, review = _review(tmp_path)
    _edited(review, edit)
    message = _refused(capsys, ["accept", "--all", str(review)])
    assert message == (said if said.startswith("cases/") else f"{review}: {said}")
    assert path.read_text() == FILE


def test_a_review_nested_past_the_doors_depth_is_refused_naming_where(tmp_path, capsys):
    path, review = _review(tmp_path)
    deep = review.read_text().replace('"total": 10', '"total": ' + "[" * 2500 + "]" * 2500, 1)
    review.write_text(deep)
    where = ("files[0].cases[0].new.total" + "[0]" * 2_000)[:60]
    assert _refused(capsys, ["accept", "--all", str(review)]) == (
        f"{review}: values nest too deeply (more than 2,000 levels, at {where}...)"
    )
    assert path.read_text() == FILE


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("1e400", "a number too large for a float, read as an infinity"),
        ('"\\ud800"', "a lone surrogate in '\\ud800', which no UTF-8 file can hold"),
        ("NaN", None),
    ],
)
def test_a_value_no_case_file_can_hold_is_refused(tmp_path, capsys, value, problem):
    # (1e400 was written into the case file as .inf; a lone surrogate stopped the write
    # with an internal error)
    path, review = _review(tmp_path)
    review.write_text(review.read_text().replace('"total": 10', f'"total": {value}', 1))
    said = (
        f"not an update review jsonmatch can read ({problem})"
        if problem
        else "cannot read the update review (NaN is not a JSON number)"
    )
    assert _refused(capsys, ["accept", "--all", str(review)]) == f"{review}: {said}"
    assert path.read_text() == FILE


def test_the_fields_of_values_as_deep_as_the_door_takes_are_found():
    old, new = 1, 2
    for _ in range(1_500):
        old, new = {"a": old}, {"a": new}
    ((at, was, now),) = changes(old, new)
    assert len(at) == 64 and was == old_at(old, 64) and now == old_at(new, 64)


def old_at(value, levels):
    for _ in range(levels):
        value = value["a"]
    return value


def test_a_name_the_review_lacks_lists_twenty_of_its_cases_and_counts_the_rest(tmp_path, capsys):
    path, review = _review(tmp_path)

    def many(data):
        case = data["files"][0]["cases"][0]
        data["files"][0]["cases"] = [dict(case, id=f"c{i}") for i in range(1_000)]

    _edited(review, many)
    message = _refused(capsys, ["accept", "--case", "nope", str(review)])
    assert message.endswith("'c18', 'c19' and 980 more")
    assert len(message) < 600


# -- mentions ----------------------------------------------------------------------------------

MENTION = re.compile(r"(?:^|[^A-Za-z0-9_`])@[A-Za-z0-9]")  # GitHub's: a non-word character, @name


@pytest.mark.parametrize(
    "text",
    [
        "@octocat",
        "cc @acme/admins",
        "a@octocat",
        "\\_@octocat",
        "(@Octo-Cat)",
        "x, @1a",
        "mail a@b.example",
    ],
)
def test_markdown_escaping_leaves_no_mention(text):
    escaped = escape(text)
    assert MENTION.search(escaped.replace("\\", "")) is None  # (as rendered: escapes gone)
    assert escaped.replace("\u200b", "").replace("\\", "") == text.replace("\\", "")


def test_the_review_page_pings_no_one_the_data_names(tmp_path):
    path = tmp_path / "c.jsonmatch.yaml"
    path.write_text(FILE)
    update = _update(tmp_path, path, {"vendor": "@octocat cc @acme/admins", "total": 10})
    write_review([update], UpdateMode("fix", review=True), tmp_path)
    page = (tmp_path / ".jsonmatch" / REVIEW_MD).read_text()
    row = (
        '| vendor | "ACME" | "@\u200boctocat cc @\u200bacme/admins" | scored 0.5 \\< threshold 1.0'
    )
    assert row + " |" in page.splitlines()
    assert MENTION.search(page.replace("\\", "")) is None


def test_the_review_folder_helper_names_what_is_refused(tmp_path):
    (tmp_path / ".jsonmatch").symlink_to(tmp_path / ".jsonmatch")  # a loop
    with pytest.raises(update_review.CaseFileError, match=r"^\.jsonmatch cannot be resolved"):
        update_review.review_folder(tmp_path)
