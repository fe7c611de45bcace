"""The commit a repository has checked out, as a report records it (``run.git_commit``).

Read from the repository's own files the way git keeps them: the ``.git`` folder (or the
``.git`` file of a worktree or submodule, naming its folder) found from the root upwards,
its ``HEAD``, and the branch ``HEAD`` names among the loose refs or ``packed-refs`` of the
common folder. Starting a ``git`` process costs a run several milliseconds of its own time
(the process module's import, the fork) and more of the clock; reading two small files
costs a few dozen microseconds. Where the files say what this reader does not follow (git's
discovery steered by ``GIT_*`` variables, a ``reftable`` store, a ref that names another
ref too many times), ``git rev-parse HEAD`` answers as before.

Nothing of the repository runs: its files are read as text and a commit is taken only as
40 or 64 hexadecimal digits. So a repository whose owner git would refuse to work in (its
``safe.directory`` check, which guards against running a stranger's configuration) still
has its commit recorded.
"""

from __future__ import annotations

import os

# variables that move or bound git's search for the repository: git itself then answers
_STEERING = (
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_NAMESPACE",
)
_BAD_IN_REF = frozenset("~^:?*[\\\x7f")  # (with spaces and controls: git check-ref-format)
_HOPS = 5  # refs naming refs followed before git is asked instead
_READ = 1 << 12  # bytes read of HEAD, a loose ref or a .git file: each is one short line


class _Unknown(Exception):
    """The files say something only git answers."""


def head_commit(root: str) -> str | None:
    """The commit checked out in the repository that holds ``root`` (a folder); None where
    there is no repository or its branch has no commit yet, or git cannot say."""
    if not any(name in os.environ for name in _STEERING):
        try:
            return _read_head(root)
        except _Unknown:
            pass
    return _asked(root)


def _read_head(root: str) -> str | None:
    """The commit as the files give it (:class:`_Unknown` where they do not say)."""
    git_dir = _git_folder(os.path.abspath(root))
    if git_dir is None:
        return None
    common = _common_folder(git_dir)
    if os.path.isdir(os.path.join(common, "reftable")):
        raise _Unknown
    text = _line(os.path.join(git_dir, "HEAD"))
    for _ in range(_HOPS):
        if _is_commit(text):
            return text
        if not text.startswith("ref:"):
            raise _Unknown
        ref = text[4:].strip()
        if not _is_ref(ref):
            raise _Unknown
        # a worktree's own refs sit in its folder; branches and tags in the common one
        own = ref.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
        loose = os.path.join(git_dir if own else common, *ref.split("/"))
        if os.path.lexists(loose):  # (anything but a file there: git answers)
            text = _line(loose)
            continue
        return _packed(common, ref)
    raise _Unknown


def _git_folder(start: str) -> str | None:
    """The repository folder of the first ``.git`` met from ``start`` upwards, within the
    file system ``start`` is on (as git's own search stops at its edge); None where none is
    met."""
    here = start
    try:
        device = os.stat(here).st_dev
    except OSError:
        return None
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            if not os.path.isfile(os.path.join(dot_git, "HEAD")):
                raise _Unknown
            return dot_git
        if os.path.isfile(dot_git):  # a worktree's or a submodule's: "gitdir: <folder>"
            line = _line(dot_git)
            if not line.startswith("gitdir:"):
                raise _Unknown
            folder = os.path.normpath(os.path.join(here, line[7:].strip()))
            if not os.path.isdir(folder):
                raise _Unknown
            return folder
        parent = os.path.dirname(here)
        if parent == here:
            return None
        try:
            if os.stat(parent).st_dev != device:
                return None
        except OSError:
            return None
        here = parent


def _common_folder(git_dir: str) -> str:
    """Where the repository's branches are kept: a linked worktree's folder names it in
    ``commondir`` (relative to itself, most often); any other keeps its own."""
    named = os.path.join(git_dir, "commondir")
    if not os.path.lexists(named):
        return git_dir
    folder = os.path.normpath(os.path.join(git_dir, _line(named)))
    if not os.path.isdir(folder):
        raise _Unknown
    return folder


def _packed(common: str, ref: str) -> str | None:
    """``ref``'s commit in ``packed-refs`` (``<commit> <ref>`` lines; ``#`` a header, ``^``
    a peeled tag's commit); None where the ref is nowhere: a branch without a commit."""
    packed = os.path.join(common, "packed-refs")
    if not os.path.lexists(packed):
        return None
    if not os.path.isfile(packed):
        raise _Unknown
    try:
        with open(packed, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                commit, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    if not _is_commit(commit):
                        raise _Unknown
                    return commit
    except FileNotFoundError:
        return None
    except OSError:
        raise _Unknown from None
    return None


def _line(path: str) -> str:
    """The first line of a short file, stripped (:class:`_Unknown` where it cannot be
    read)."""
    if not os.path.isfile(path):  # (a fifo or a device would be waited on)
        raise _Unknown
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(_READ).partition("\n")[0].strip()
    except OSError:
        raise _Unknown from None


def _asked(root: str) -> str | None:
    """``git rev-parse HEAD`` in ``root``: None without git, a repository or a commit."""
    import subprocess  # (only where the files do not say)

    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and _is_commit(commit) else None


def _is_commit(text: str) -> bool:
    """Whether ``text`` is a commit as git writes it: SHA-1's 40 or SHA-256's 64 lowercase
    hexadecimal digits."""
    return len(text) in (40, 64) and not text.strip("0123456789abcdef")


def _is_ref(name: str) -> bool:
    """Whether ``name`` is a ref git would keep under ``refs/`` (no part starting with a
    dot, no ``..``, no ``.lock`` end, no space, control or ``~^:?*[\\``): never a path out
    of the repository's folder."""
    return (
        name.startswith("refs/")
        and "/." not in name
        and ".." not in name
        and "//" not in name
        and not name.endswith((".lock", "/"))
        and not any(c <= " " or c in _BAD_IN_REF for c in name)
    )
