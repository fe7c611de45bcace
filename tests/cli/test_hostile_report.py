"""A saved report is a CI artifact, maybe from a fork's pull request: ``jsonmatch report
evil.json --format html|markdown|text`` must never turn it into markup, a link or a GitHub
workflow command.

Two attacks, each on every leaf of a real report (tests/cli/hostile.py's, with a baseline):
- every string the schema leaves free becomes markup, a URL or a workflow command: the HTML
  page then holds exactly the elements and attributes of the same report with harmless
  strings (parsed by a real Chromium), no script of the data runs, Markdown links nothing,
  and no line of text output starts a workflow command;
- every number (and every string the schema constrains) becomes markup in turn: the report
  is refused, naming the file and the JSON path, and nothing is rendered.
"""

from __future__ import annotations

import copy
import json

import pytest

from pytest_jsonmatch.reporting.run_model.comparisons import Comparison
from pytest_jsonmatch.reporting.run_model.validation import ReportError, check_report
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of, compare
from pytest_jsonmatch.reporting.verdicts.report import baseline_section, load_report, report_text

from .hostile import hostile_report
from .run import jsonmatch
from .test_browser import chromium, page_of  # noqa: F401  (the module's browser fixtures)

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

PAYLOAD = (
    '"><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    '<a href="https://evil.example/">x</a> https://evil.example/p www.evil.example '
    "\n::add-mask::secret\n  ::stop-commands::token"
)


def _report_with_baseline() -> dict:
    """tests/cli/hostile.py's report, held against a baseline in which inv-1 scored 0.5."""
    report = hostile_report()
    comparisons = [Comparison.from_dict(c) for c in report["comparisons"]]
    before = [c.replace(score=0.5) if c.case_id == "inv-1" else c for c in comparisons]
    against = compare(cases_of(comparisons), Baseline("base.json", 3, cases_of(before)))
    return {**report, "baseline": baseline_section(against)}


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _leaves(child, (*path, i))
    else:
        yield path, value


def _set(data, path, value):
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def _stored(report) -> str:
    """The report (as it is held) as the file holds it: its fields rows of a table."""
    return report_text(report)


def _valid(report) -> bool:
    try:
        check_report(json.loads(_stored(report)), "r.json")
    except ReportError:
        return False
    return True


def _with(path, value) -> dict:
    report = copy.deepcopy(BASE)
    _set(report, path, value)
    return report


def _is_data(path) -> bool:
    """A compared value (a field's expected or actual), which may be any JSON value."""
    return (
        len(path) >= 2
        and path[-1] in ("expected", "actual")
        or (len(path) >= 3 and any(p in ("expected", "actual") for p in path[-6:]))
    )


BASE = _report_with_baseline()
LEAVES = list(_leaves(BASE))
# where markup is a valid value (free text: ids, paths, messages, data), and where it is not
FREE = [path for path, _ in LEAVES if _valid(_with(path, PAYLOAD))]
CONSTRAINED = [path for path, _ in LEAVES if path not in FREE]


def _every_free_string(value: str) -> dict:
    report = copy.deepcopy(BASE)
    for k, (path, old) in enumerate(LEAVES):
        if path in FREE and (isinstance(old, str) or _is_data(path)):
            _set(report, path, f"{value} #{k}")  # each its own (case ids must stay unique)
    return report


def test_the_attack_reaches_every_place():
    assert _valid(BASE)
    # free text everywhere a string is free; every number outside the compared data is held
    # to being a number
    assert len(FREE) > 40 and len(CONSTRAINED) > 40
    assert ("run", "command", 1) in FREE and any(p[0] == "cases" for p in FREE)
    assert any(p[:1] == ("baseline",) for p in FREE)
    numbers = [
        path for path, value in LEAVES if isinstance(value, (int, float)) and not _is_data(path)
    ]
    assert numbers and set(numbers) <= set(CONSTRAINED)


@pytest.mark.parametrize("fmt", ["html", "markdown", "text"])
def test_a_hostile_report_renders_as_text(tmp_path, fmt):
    path = tmp_path / "evil.json"
    path.write_text(_stored(_every_free_string(PAYLOAD)))
    proc = jsonmatch("report", str(path), "--format", fmt)
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())
    if fmt == "markdown":
        assert "https://evil" not in out and "www.evil" not in out  # no autolink
        raw = out.replace("\\<", "").replace("\\]", "").replace("\\(", "")  # escaped: text
        assert "<img" not in raw and "<script" not in raw and "](" not in raw
    if fmt == "html":
        assert "<img" not in out and "<script>window" not in out


def test_the_page_holds_only_the_template_s_markup(tmp_path, page_of):  # noqa: F811
    from pytest_jsonmatch.reporting.render.html import render_html

    shapes = []
    for name, value in (("plain", "plain text"), ("evil", PAYLOAD)):
        report = _every_free_string(value)
        page, problems, _ = page_of(load_report_from(tmp_path, name, report), f"{name}.html")
        assert problems == [], problems
        assert page.evaluate("window.pwned") is None
        shapes.append(
            page.evaluate("""() => Array.from(document.querySelectorAll('*')).map(
            e => e.tagName + '[' + Array.from(e.attributes).map(a => a.name).sort().join(',')
                 + ']').sort()""")
        )
    assert shapes[0] == shapes[1]
    assert render_html  # the page was rendered by the same function the command uses


def load_report_from(tmp_path, name, report):
    path = tmp_path / f"{name}.json"
    path.write_text(_stored(report))
    return load_report(path)  # what `jsonmatch report` reads: checked whole


@pytest.mark.parametrize("path", CONSTRAINED, ids=lambda p: ".".join(map(str, p)))
def test_markup_where_a_number_or_a_known_word_belongs_is_refused(tmp_path, path):
    report = copy.deepcopy(BASE)
    _set(report, path, PAYLOAD)
    file = tmp_path / "evil.json"
    file.write_text(_stored(report))
    with pytest.raises(ReportError) as info:
        load_report(file)
    message = str(info.value)
    assert message.startswith(f"{file}: $"), message
    assert "<img" not in message and "\n" not in message
