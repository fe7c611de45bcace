"""The commit a report records, read from the repository's files (git_head.py), held to
what ``git rev-parse HEAD`` says of real repositories in every shape the reader follows
itself, and to git's own answer where it steps aside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pytest_jsonmatch.reporting.verdicts import git_head
from pytest_jsonmatch.reporting.verdicts.git_head import head_commit

_GIT = [
    "git",
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "-c",
    "init.defaultBranch=main",
]


def _git(where: Path, *args: str) -> str:
    done = subprocess.run([*_GIT, *args], cwd=where, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _rev_parse(where: Path) -> str | None:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _repository(where: Path, commits: int = 2) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    _git(where, "init", "-q")
    for n in range(commits):
        (where / "f.txt").write_text(str(n))
        _git(where, "add", "f.txt")
        _git(where, "commit", "-q", "-m", f"c{n}")
    return where


@pytest.fixture
def no_git_process(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where the files say, no git process may be asked: each ask is recorded."""
    asked: list[str] = []
    monkeypatch.setattr(git_head, "_asked", lambda root: asked.append(root))
    for name in git_head._STEERING:
        monkeypatch.delenv(name, raising=False)
    return asked


def test_a_branch_its_subfolders_and_its_packed_refs(
    tmp_path: Path, no_git_process: list[str]
) -> None:
    repo = _repository(tmp_path / "repo")
    (repo / "deep" / "er").mkdir(parents=True)
    expected = _rev_parse(repo)
    assert expected is not None and len(expected) == 40
    assert head_commit(str(repo)) == expected
    assert head_commit(str(repo / "deep" / "er")) == expected
    _git(repo, "pack-refs", "--all")  # the branch now only in packed-refs
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert head_commit(str(repo)) == expected
    # a new commit writes the loose ref again, which wins over the packed one
    (repo / "g.txt").write_text("x")
    _git(repo, "add", "g.txt")
    _git(repo, "commit", "-q", "-m", "c2")
    assert head_commit(str(repo)) == _rev_parse(repo) != expected
    assert no_git_process == []


def test_a_detached_head_a_branch_in_folders_and_a_linked_worktree(
    tmp_path: Path, no_git_process: list[str]
) -> None:
    repo = _repository(tmp_path / "repo", commits=3)
    first = _git(repo, "rev-list", "--max-parents=0", "HEAD")
    _git(repo, "checkout", "-q", "--detach", first)
    assert head_commit(str(repo)) == first == _rev_parse(repo)
    _git(repo, "checkout", "-q", "-b", "feature/deep/name")
    assert head_commit(str(repo)) == first
    tree = tmp_path / "linked"
    _git(repo, "worktree", "add", "-q", "--detach", str(tree), "main")
    assert (tree / ".git").is_file()
    assert head_commit(str(tree)) == _rev_parse(tree) == _git(repo, "rev-parse", "main")
    _git(tree, "checkout", "-q", "-b", "other")  # a branch of the worktree, in the common refs
    assert head_commit(str(tree)) == _rev_parse(tree)
    assert no_git_process == []


def test_no_repository_and_a_branch_without_a_commit(
    tmp_path: Path, no_git_process: list[str]
) -> None:
    # git's own answer for the test's folder: None outside a repository, the enclosing
    # one's commit where the base folder lies inside one
    assert head_commit(str(tmp_path)) == _rev_parse(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, "init", "-q")
    assert _rev_parse(empty) is None
    assert head_commit(str(empty)) is None
    assert head_commit(str(tmp_path / "not" / "there")) is None
    assert no_git_process == []


def test_a_sha256_repository(tmp_path: Path, no_git_process: list[str]) -> None:
    where = tmp_path / "repo"
    where.mkdir()
    _git(where, "init", "-q", "--object-format=sha256")
    (where / "f.txt").write_text("x")
    _git(where, "add", "f.txt")
    _git(where, "commit", "-q", "-m", "one")
    expected = _rev_parse(where)
    assert expected is not None and len(expected) == 64
    assert head_commit(str(where)) == expected
    assert no_git_process == []


@pytest.mark.parametrize(
    "spoil",
    [
        "ref: refs/heads/../../../etc/passwd",  # a ref name git refuses
        "ref: refs/heads/main.lock",
        "print('no')",  # neither a ref nor a commit
        "ref: refs/heads/loop",  # a ref naming itself
        "",
    ],
)
def test_what_the_files_do_not_say_is_asked_of_git(tmp_path: Path, spoil: str) -> None:
    """A hostile or unusual HEAD is never followed out of the repository nor taken as a
    commit: git answers it (here, as git cannot read it either: no commit)."""
    repo = _repository(tmp_path / "repo")
    (repo / ".git" / "HEAD").write_text(spoil + "\n")
    if spoil.endswith("loop"):
        (repo / ".git" / "refs" / "heads" / "loop").write_text("ref: refs/heads/loop\n")
    with pytest.raises(git_head._Unknown):
        git_head._read_head(str(repo))
    assert head_commit(str(repo)) == _rev_parse(repo)


def test_a_packed_ref_that_is_no_commit_and_a_reftable_store(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    _git(repo, "pack-refs", "--all")
    packed = repo / ".git" / "packed-refs"
    packed.write_text(packed.read_text().replace(_rev_parse(repo) or "-", "not-a-commit", 1))
    with pytest.raises(git_head._Unknown):
        git_head._read_head(str(repo))
    other = _repository(tmp_path / "other")
    (other / ".git" / "reftable").mkdir()  # refs kept in another store: git reads them
    with pytest.raises(git_head._Unknown):
        git_head._read_head(str(other))


def test_git_steered_by_its_variables_answers_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``GIT_DIR`` set, git reads that repository whatever the folder: so does the
    report (the files of the folder's own repository would name another commit)."""
    here = _repository(tmp_path / "here", commits=1)
    there = _repository(tmp_path / "there", commits=2)
    own, steered = _rev_parse(here), _rev_parse(there)
    assert own is not None and steered is not None and own != steered
    assert head_commit(str(here)) == own
    monkeypatch.setenv("GIT_DIR", str(there / ".git"))
    assert head_commit(str(here)) == steered


def test_the_search_stops_at_the_file_system_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_git_process: list[str]
) -> None:
    """git does not look for a repository across a mount point: neither does the reader
    (the folder's device read as another)."""
    repo = _repository(tmp_path / "repo")
    inner = repo / "mounted"
    inner.mkdir()
    real_stat = os.stat
    inner_device = real_stat(inner).st_dev + 1

    class _Stat:
        def __init__(self, st_dev: int) -> None:
            self.st_dev = st_dev

    def stat(path: object, *args: object, **kwargs: object) -> object:
        result = real_stat(path, *args, **kwargs)  # type: ignore[arg-type]
        return _Stat(inner_device) if str(path) == str(inner) else result

    monkeypatch.setattr(git_head.os, "stat", stat)
    assert head_commit(str(inner)) is None
    assert head_commit(str(repo)) == _rev_parse(repo)


@pytest.mark.parametrize("where", ["HEAD", "packed-refs", "refs/heads/main"])
def test_a_fifo_among_the_files_is_never_waited_on(tmp_path: Path, where: str) -> None:
    """A file git reads that is a fifo (or a device) is not opened: the reader asks git,
    and a run never waits on it."""
    repo = _repository(tmp_path / "repo")
    _git(repo, "pack-refs", "--all")
    target = repo / ".git" / where
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    with pytest.raises(git_head._Unknown):
        git_head._read_head(str(repo))
