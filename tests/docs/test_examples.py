"""Every example in README.md and docs/*.md that shows code and what it gives is run here,
so that the documentation cannot drift from the code.

What counts as an example (the conventions a doc writer follows):

* **A ```pycon block** (or a ```python block holding ``>>>``) is a doctest, checked with
  ``NORMALIZE_WHITESPACE | ELLIPSIS``. The blocks of one page are one interactive session:
  a block may use what an earlier block of the same page imported or defined, so each
  test first replays the page's earlier blocks (their output is checked by their own tests).
* **A ```python block with an ``assert`` at the top level** checks itself: it is executed.
* **Shell examples** are tied to files with HTML comments, which Markdown does not show:

  - ``<!-- file: PATH -->`` on the line before a block makes the block the file PATH; or
    ``<!-- file: PATH`` then the file's lines then ``-->`` writes a file the page does not
    show (the inputs a shown command needs).
  - ``<!-- output: COMMAND -->`` on the line before a block: the block is what COMMAND
    prints (standard output and error), run by bash in a fresh folder holding every file
    of the page. The block may be an excerpt: its lines must appear in that order, one
    after the other, in what the command prints. ``...`` stands for anything (timings,
    paths). ``<!-- output: COMMAND; files from OTHER.md -->`` takes the files of another
    page (relative to this one).
  - ``<!-- session -->`` on the line before a block: the block is a shell session, lines
    ``$ command`` followed by the command's whole output; every command runs in order in
    one fresh folder holding the page's files.

  - ``<!-- runs -->`` on the line before a block: the block is a recipe a reader copies
    into CI, run as written in one fresh folder holding the page's files, and every command
    of it must succeed (exit 0). A ```bash block: each command in turn (a line ending in
    ``\\`` goes on). A ```yaml block: a GitHub Actions workflow, its jobs in the order
    their ``needs`` give, each job once per combination of its ``matrix`` (``${{ matrix.X
    }}`` replaced), each step's ``run:`` in turn; the steps that install (``pip install``:
    this test's interpreter is the environment) and the actions (``uses:``: every job works
    in the one folder, so an artifact uploaded is there to download) are left out, and
    ``$GITHUB_STEP_SUMMARY`` is a file of the folder.

  The commands ``python``, ``python3``, ``pytest`` and ``jsonmatch`` run on this test's
  interpreter, whatever PATH holds. Terminal output is 80 columns wide.

A marker that is not followed by a block is an error, and
``test_the_examples_are_all_found`` holds the number of examples to at least what the
pages hold today, so an example cannot silently stop being run.
"""

from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

# What the pages held when this file was written: 38 doctest blocks, 3 self-checking
# Python blocks, 6 shell examples. Raise these when you add examples; never lower them
# without removing the examples on purpose.
MIN_DOCTESTS = 43
MIN_ASSERTING_BLOCKS = 3
MIN_SHELL_EXAMPLES = 18
MIN_RECIPES = 3

# a fenced block: its opening fence (``` or longer, perhaps indented), info string, body
FENCE = re.compile(
    r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)"
    r"^(?P=indent)(?P=fence)[ ]*$",
    re.M | re.S,
)
# a marker on the line right before a fence
MARKER = re.compile(r"<!--\s*(?P<kind>file|output|session|runs)\b(?P<arg>[^\n]*?)\s*-->\s*\n\Z")
# a hidden file: <!-- file: PATH, its lines, -->
HIDDEN_FILE = re.compile(r"^<!--\s*file:\s*(?P<path>\S+)[ ]*\n(?P<body>.*?)^-->[ ]*$", re.M | re.S)
ANY_MARKER = re.compile(r"<!--\s*(file|output|session|runs)\b")


@dataclass
class Example:
    page: Path
    line: int  # of the block's opening fence, 1-based
    kind: str  # doctest, asserting, output, session
    text: str  # the block's body
    command: str = ""  # for output
    files_page: Path | None = None  # for output: whose files
    earlier: list[str] = field(default_factory=list)  # doctest: the page's earlier blocks

    @property
    def id(self) -> str:
        page = self.page.relative_to(ROOT) if ROOT in self.page.parents else self.page.name
        return f"{page}:{self.line}"


@dataclass
class Page:
    path: Path
    files: dict[str, str]  # relative path -> content
    examples: list[Example]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _dedent(body: str, indent: str) -> str:
    return "".join(
        line[len(indent) :] if line.startswith(indent) else line
        for line in body.splitlines(keepends=True)
    )


def read_page(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    files: dict[str, str] = {}
    examples: list[Example] = []
    doctests: list[str] = []
    marked = 0
    for hidden in HIDDEN_FILE.finditer(text):
        files[hidden["path"]] = hidden["body"]
        marked += 1
    for block in FENCE.finditer(text):
        line = _line_of(text, block.start())
        body = _dedent(block["body"], block["indent"])
        info = block["info"].strip().split()[0] if block["info"].strip() else ""
        before = text[max(0, block.start() - 300) : block.start()]
        marker = MARKER.search(before)
        if marker:
            marked += 1
            arg = marker["arg"].lstrip(":").strip()
            if marker["kind"] == "file":
                files[arg] = body
            elif marker["kind"] == "session":
                examples.append(Example(path, line, "session", body))
            elif marker["kind"] == "runs":
                assert info in ("bash", "yaml"), f"{path}:{line}: a recipe is bash or yaml"
                examples.append(Example(path, line, "recipe", body, command=info))
            else:
                command, _, source = arg.partition(";")
                files_page = path
                if source.strip():
                    found = re.fullmatch(r"files from (\S+)", source.strip())
                    assert found, f"{path}:{line}: cannot read the marker {marker.group(0)!r}"
                    files_page = (path.parent / found[1]).resolve()
                examples.append(Example(path, line, "output", body, command.strip(), files_page))
        if info in ("pycon", "python") and ">>>" in body:
            examples.append(Example(path, line, "doctest", body, earlier=list(doctests)))
            doctests.append(body)
        elif info == "python" and re.search(r"^assert\b", body, re.M):
            examples.append(Example(path, line, "asserting", body))
    # every marker must have been attached to a block (or be a hidden file)
    assert len(ANY_MARKER.findall(text)) == marked, (
        f"{path}: a <!-- file/output/session --> marker is not on the line right before a "
        "fenced block, or a hidden file does not end with a line '-->'"
    )
    return Page(path, files, examples)


PAGE_CACHE = {page: read_page(page) for page in PAGES}
EXAMPLES = [example for page in PAGE_CACHE.values() for example in page.examples]


@pytest.fixture
def registry_left_as_found():
    """Examples register comparators, post-processors and type defaults; undo them."""
    from pytest_jsonmatch.engine.comparing.registry import REGISTRY

    before = REGISTRY.state()
    yield
    REGISTRY.restore(before)


# -- doctests -----------------------------------------------------------------------------


def _replay(blocks: list[str], globs: dict, name: str) -> None:
    """Run earlier blocks of the page for what they define; their output is not checked
    here (their own tests check it), but an exception they do not show is an error."""
    parser = doctest.DocTestParser()
    for block in blocks:
        for example in parser.get_examples(block):
            try:
                exec(compile(example.source, name, "single"), globs)  # noqa: S102
            except Exception:
                if example.exc_msg is None:
                    raise


def run_doctest(example: Example) -> None:
    globs: dict = {"__name__": "__docs__"}
    _replay(example.earlier, globs, example.id)
    test = doctest.DocTestParser().get_doctest(
        example.text, globs, example.id, str(example.page), example.line
    )
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    result = runner.run(test, out=report.write)
    assert result.failed == 0, (
        f"{example.id}: the block does not give what it shows\n{report.getvalue()}"
    )
    assert result.attempted > 0


# -- shell examples -----------------------------------------------------------------------


def _commands_on_this_interpreter(bin_dir: Path) -> None:
    python = shlex.quote(sys.executable)
    shims = {
        "python": f'exec {python} "$@"',
        "python3": f'exec {python} "$@"',
        # the plugins of this project's test dependencies (hypothesis's, anyio's: not a
        # reader's) are half a second of imports in each session and no part of what a page
        # shows: left out as in every inner session (ARGS)
        "pytest": f"exec {python} -m pytest {' '.join(ARGS)} " + '"$@"',
        "jsonmatch": f'exec {python} -m pytest_jsonmatch "$@"',
    }
    bin_dir.mkdir()
    for name, line in shims.items():
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{line}\n")
        shim.chmod(0o755)


def _environment(bin_dir: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTEST_", "COLUMNS", "LINES"))
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "80"
    return env


def _workdir(tmp_path: Path, files: dict[str, str]) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    for name, content in files.items():
        target = work / name
        assert work in target.resolve().parents, f"the file {name!r} leaves the example's folder"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return work


def _run(command: str, work: Path, env: dict[str, str]) -> str:
    return _ran(command, work, env).stdout


def _ran(command: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash in ``work``: its output (standard output and error) and status."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )


def _matches(shown: str, got: str, excerpt: bool) -> bool:
    want = shown.strip("\n") + "\n"
    if excerpt:  # the block's lines, whole, anywhere in the output: between two markers
        want = "...\n" + want + "...\n"
        got = "<output>\n" + got.rstrip("\n") + "\n</output>\n"
    return doctest.OutputChecker().check_output(want, got, FLAGS)


def run_output(example: Example, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _commands_on_this_interpreter(bin_dir)
    work = _workdir(tmp_path, PAGE_CACHE[example.files_page].files)
    got = _run(example.command, work, _environment(bin_dir))
    assert _matches(example.text, got, excerpt=True), (
        f"{example.id}: `{example.command}` does not print the block (as an excerpt)\n"
        f"--- the block shows:\n{example.text}--- the command printed:\n{got}"
    )


def run_session(example: Example, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _commands_on_this_interpreter(bin_dir)
    work = _workdir(tmp_path, PAGE_CACHE[example.page].files)
    env = _environment(bin_dir)
    steps: list[tuple[str, list[str]]] = []
    for line in example.text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"{example.id}: a session block starts with '$ command'"
            steps[-1][1].append(line)
    for command, shown in steps:
        got = _run(command, work, env)
        want = "\n".join(shown)
        if not want.strip():
            assert not got.strip(), (
                f"{example.id}: `{command}` printed\n{got}\nwhere the block shows nothing"
            )
            continue
        assert _matches(want, got, excerpt=False), (
            f"{example.id}: `{command}` does not print what the block shows\n"
            f"--- the block shows:\n{want}\n--- the command printed:\n{got}"
        )


# -- CI recipes ---------------------------------------------------------------------------

# what a workflow step installs: this test's interpreter already holds the project
INSTALLS = re.compile(r"^\s*(python3? -m )?pip install\b")
MATRIX = re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")


def bash_commands(text: str) -> list[str]:
    """A bash block's commands: one a line, a line ending in a backslash going on; blank
    lines and comments left out."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line[:-1].rstrip() + " " if line.endswith("\\") else line.strip()
        if not line.endswith("\\"):
            commands.append(pending.strip())
            pending = ""
    return commands


def workflow_commands(text: str) -> list[tuple[str, str]]:
    """A GitHub Actions workflow's ``run:`` steps as (where, command), jobs in ``needs``
    order, each once per combination of its matrix; installs and actions left out."""
    import itertools

    import yaml

    jobs = yaml.safe_load(text)["jobs"]
    order: list[str] = []
    while len(order) < len(jobs):
        ready = [
            name
            for name, job in jobs.items()
            if name not in order and set(_needs(job)) <= set(order)
        ]
        assert ready, "the workflow's needs go round in a circle"
        order += ready
    out = []
    for name in order:
        job = jobs[name]
        matrix = {
            k: v
            for k, v in job.get("strategy", {}).get("matrix", {}).items()
            if isinstance(v, list)
        }
        for values in itertools.product(*matrix.values()):
            chosen = dict(zip(matrix, values))
            for k, step in enumerate(job["steps"]):
                if "run" not in step or INSTALLS.match(step["run"]):
                    continue
                command = MATRIX.sub(lambda m, at=chosen: str(at[m[1]]), step["run"]).strip()
                where = f"job {name}" + (f" {chosen}" if chosen else "") + f" step {k + 1}"
                out.append((where, command))
    return out


def _needs(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def run_recipe(example: Example, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _commands_on_this_interpreter(bin_dir)
    work = _workdir(tmp_path, PAGE_CACHE[example.page].files)
    env = _environment(bin_dir)
    env["GITHUB_STEP_SUMMARY"] = str(work / "step-summary.md")
    if example.command == "yaml":
        steps = workflow_commands(example.text)
    else:
        steps = [(f"command {k + 1}", c) for k, c in enumerate(bash_commands(example.text))]
    assert steps, f"{example.id}: the recipe runs nothing"
    for where, command in steps:
        proc = _ran(command, work, env)
        assert proc.returncode == 0, (
            f"{example.id}: {where} of the recipe fails as written (exit {proc.returncode})\n"
            f"$ {command}\n{proc.stdout}"
        )


# -- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.id for example in EXAMPLES])
def test_example(example: Example, tmp_path, monkeypatch, registry_left_as_found):
    if example.kind == "doctest":
        monkeypatch.chdir(tmp_path)
        run_doctest(example)
    elif example.kind == "asserting":
        monkeypatch.chdir(tmp_path)
        exec(compile(example.text, example.id, "exec"), {"__name__": "__docs__"})  # noqa: S102
    elif example.kind == "output":
        run_output(example, tmp_path)
    elif example.kind == "recipe":
        run_recipe(example, tmp_path)
    else:
        run_session(example, tmp_path)


def test_the_examples_are_all_found():
    kinds = [example.kind for example in EXAMPLES]
    assert kinds.count("doctest") >= MIN_DOCTESTS
    assert kinds.count("asserting") >= MIN_ASSERTING_BLOCKS
    assert kinds.count("output") + kinds.count("session") >= MIN_SHELL_EXAMPLES
    assert kinds.count("recipe") >= MIN_RECIPES
    assert len({example.id for example in EXAMPLES}) == len(EXAMPLES)


def test_a_wrong_output_is_caught(tmp_path):
    """The checks can fail: a doctest, an excerpt and a session that show the wrong thing."""
    page = tmp_path / "page.md"
    page.write_text("```pycon\n>>> 1 + 1\n3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="does not give what it shows"):
        run_doctest(Example(page, 1, "doctest", ">>> 1 + 1\n3\n"))
    assert _matches("b\nc\n", "a\nb\nc\nd\n", excerpt=True)
    assert not _matches("b\nd\n", "a\nb\nc\nd\n", excerpt=True)
    assert not _matches("a\n", "a\nb\n", excerpt=False)


def test_a_recipe_is_read_as_ci_runs_it():
    workflow = """
jobs:
  gate:
    needs: [shard]
    steps:
      - run: jsonmatch merge shard-*.json
  shard:
    strategy: {matrix: {group: [1, 2]}}
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e ".[test]"
      - run: >
          pytest --group ${{ matrix.group }}
          --report s-${{ matrix.group }}.json
"""
    # the shards first (the gate needs them), once per group; the install and the action
    # left out; a folded run: one command
    assert workflow_commands(workflow) == [
        ("job shard {'group': 1} step 3", "pytest --group 1 --report s-1.json"),
        ("job shard {'group': 2} step 3", "pytest --group 2 --report s-2.json"),
        ("job gate step 1", "jsonmatch merge shard-*.json"),
    ]
    assert bash_commands("# main\npytest a \\\n  --b\n\npytest c\n") == [
        "pytest a --b",
        "pytest c",
    ]


def test_a_recipe_that_fails_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("", encoding="utf-8")
    PAGE_CACHE[page] = Page(page, {}, [])
    try:
        with pytest.raises(AssertionError, match="command 2 of the recipe fails as written"):
            run_recipe(Example(page, 1, "recipe", "true\nexit 3\n", command="bash"), tmp_path)
    finally:
        del PAGE_CACHE[page]
