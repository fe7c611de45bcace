"""A labels file read (calibration/labels.py): YAML and JSONL alike, its digest, and every
kind of wrong item a ConfigError naming the file, the line, the item and the key."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_jsonmatch.calibration.labels import Label, read_labels
from pytest_jsonmatch.engine.core.errors import ConfigError

YAML = """\
- id: a
  field: summary
  reference: two boxes
  produced: 2 boxes
  human: same
- field: notes
  reference: {"x": 1}
  produced: fragile
  human: different
"""
JSONL = (
    '{"id": "a", "field": "summary", "reference": "two boxes", "produced": "2 boxes", '
    '"human": "same"}\n\n'
    '{"field": "notes", "reference": {"x": 1}, "produced": "fragile", "human": "different"}\n'
)


def test_yaml_and_jsonl_read_alike(tmp_path: Path) -> None:
    (tmp_path / "l.yaml").write_text(YAML)
    (tmp_path / "l.jsonl").write_text(JSONL)
    (tmp_path / "wrapped.yml").write_text(
        "labels:\n" + "".join(f"  {x}\n" for x in YAML.splitlines())
    )
    want = (
        Label("a", "summary", "two boxes", "2 boxes", True),
        Label("2", "notes", {"x": 1}, "fragile", False),
    )
    for name in ("l.yaml", "l.jsonl", "wrapped.yml"):
        labels = read_labels(tmp_path / name)
        assert labels.items == want and labels.same == 1, name
    raw = (tmp_path / "l.yaml").read_bytes()
    assert read_labels(tmp_path / "l.yaml").digest == "sha256:" + hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        (
            "l.yaml",
            YAML.replace("human: same", "human: yes"),
            "l.yaml:1: item 1 (id 'a'): human must be 'same' or 'different', not True",
        ),
        (
            "l.yaml",
            YAML.replace("human: different", "human: [same]"),
            "l.yaml:6: item 2: human must be 'same' or 'different', not a list",
        ),
        ("l.yaml", YAML.replace("  produced: fragile\n", ""), "l.yaml:6: item 2: no 'produced'"),
        (
            "l.yaml",
            YAML.replace("  human: same", "  human: same\n  humna: same"),
            "item 1 (id 'a'): unknown key 'humna'",
        ),
        (
            "l.yaml",
            YAML.replace("- field: notes", "- id: a\n  field: notes"),
            "item 2 has the id 'a' of item 1",
        ),
        (
            "l.yaml",
            YAML.replace("field: summary", "field: ''"),
            "item 1 (id 'a'): field must be a non-empty line of text, not ''",
        ),
        ("l.yaml", "a: 1\n", "l.yaml:1: a list of labelled items"),
        ("l.yaml", "- [1\n", "l.yaml:2:1: invalid YAML"),
        ("l.yaml", "- 3\n", "l.yaml:1: item 1 is 3, not a mapping"),
        ("l.jsonl", JSONL + "{oops\n", "l.jsonl:4: not a JSON value"),
        ("l.jsonl", '{"field": "x", "reference": NaN}\n', "NaN is not a JSON number"),
        ("l.jsonl", "[" * 50_000 + "]" * 50_000 + "\n", "l.jsonl:1: the item nests too deeply"),
        ("l.txt", YAML, "name it .yaml, .yml or .jsonl (its format), not '.txt'"),
        (
            "l.yaml",
            '- id: "a\\nb"\n  field: f\n  reference: 1\n  produced: 2\n  human: same\n',
            "id must be a non-empty line of text, not 'a\\nb'",
        ),
    ],
)
def test_a_wrong_labels_file_is_a_config_error_naming_where(
    tmp_path: Path, name: str, text: str, said: str
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_labels(tmp_path / name)
    message = str(caught.value)
    assert said in message and "\n" not in message


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "l.yaml")
    with pytest.raises(ConfigError, match="not a regular file"):
        read_labels(tmp_path / "l.yaml")


@pytest.mark.parametrize(
    ("item", "said"),
    [
        (
            "{field: f, reference: .nan, produced: 1, human: same}",
            "labels file l.yaml:2: item 2: reference holds nan at $, not a JSON number (NaN and "
            "Infinity are not JSON)",
        ),
        (
            "{id: x, field: f, reference: 1, produced: {a: [1, -.inf]}, human: same}",
            "labels file l.yaml:2: item 2 (id 'x'): produced holds -inf at a[1], not a JSON "
            "number (NaN and Infinity are not JSON)",
        ),
        (
            "{field: f, reference: 1.0e+999, produced: 1, human: same}",
            "labels file l.yaml:2: item 2: reference holds inf at $, not a JSON number",
        ),
    ],
)
def test_a_yaml_label_of_nan_or_an_infinity_is_refused_as_jsonl_refuses_it(
    tmp_path: Path, item: str, said: str
) -> None:
    # the judge's recording of such a label would hold a bare NaN, which is no JSON
    path = tmp_path / "l.yaml"
    path.write_text(f"- {{field: f, reference: 1, produced: 1, human: same}}\n- {item}\n")
    with pytest.raises(ConfigError) as caught:
        read_labels(path)
    assert str(caught.value).startswith(said.replace("l.yaml", str(path), 1))


def test_the_digest_is_of_the_bytes_whose_items_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the file replaced right after it is read: its items and digest are both the bytes read
    from pytest_jsonmatch.calibration import labels as module

    path = tmp_path / "l.yaml"
    path.write_text(YAML)
    real = module.read_regular

    def then_replaced(*args, **kwargs):  # type: ignore[no-untyped-def]
        raw = real(*args, **kwargs)
        path.write_text(YAML.replace("human: different", "human: same"))
        return raw

    monkeypatch.setattr(module, "read_regular", then_replaced)
    labels = read_labels(path)
    assert labels.same == 1
    assert labels.digest == "sha256:" + hashlib.sha256(YAML.encode()).hexdigest()
