"""GitHub's side of ``gh run list`` and ``gh run download``, for a workflow the tests run
(tests/helpers/workflow_runs.py): the GitHub CLI cannot reach GitHub from a test, so this
script stands in for it, reading the runs and artifacts the test's runner recorded.

It refuses what GitHub would refuse: no ``GH_TOKEN`` in the environment (the CLI's own
message), a token without ``actions: read`` (the API's 403), an artifact the run lacks.
It reads the flags a workflow gives these two commands and refuses any other, so a
command the docs show that it cannot answer fails the test instead of passing unread.

State: ``$FAKE_GH_STATE/runs.json`` (a list of runs: ``databaseId``, ``workflow`` (its file),
``headBranch``, ``event``, ``status``, ``conclusion``) and
``$FAKE_GH_STATE/artifacts/<databaseId>/<name>/`` (each artifact's files);
``$FAKE_GH_PERMISSIONS`` holds the token's permissions as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

# the only jq program this stand-in answers: the newest run's id
NEWEST_ID = ".[0].databaseId"


def _fail(message: str, status: int = 1) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(status)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gh run")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list")
    listing.add_argument("-w", "--workflow")
    listing.add_argument("-b", "--branch")
    listing.add_argument("-e", "--event")
    listing.add_argument("-s", "--status")
    listing.add_argument("-L", "--limit", type=int, default=20)
    listing.add_argument("--json", dest="fields")
    listing.add_argument("-q", "--jq")
    listing.add_argument("-R", "--repo")
    download = commands.add_parser("download")
    download.add_argument("run_id", nargs="?")
    download.add_argument("-n", "--name", action="append", required=True)
    download.add_argument("-D", "--dir", default=".")
    download.add_argument("-R", "--repo")
    return parser


def _allowed() -> None:
    if not os.environ.get("GH_TOKEN"):
        _fail(
            "gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN "
            "environment variable. Example:\n  env:\n    GH_TOKEN: ${{ github.token }}",
            4,
        )
    permissions = json.loads(os.environ.get("FAKE_GH_PERMISSIONS", "{}"))
    if permissions.get("actions") not in ("read", "write"):
        _fail("HTTP 403: Resource not accessible by integration (the token lacks actions: read)")


def _runs(state: Path) -> list[dict[str, object]]:
    path = state / "runs.json"
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    return sorted(runs, key=lambda run: int(run["databaseId"]), reverse=True)


def _status_holds(run: dict[str, object], status: str | None) -> bool:
    if status is None:
        return True
    if status in ("queued", "in_progress", "completed"):
        return run["status"] == status
    return run["conclusion"] == status  # success, failure, cancelled, ...


def run_list(args: argparse.Namespace, state: Path) -> None:
    if args.fields != "databaseId" or args.jq != NEWEST_ID:
        _fail(f"the stand-in gh answers only --json databaseId --jq {NEWEST_ID!r}", 2)
    runs = [
        run
        for run in _runs(state)
        if (args.workflow is None or run["workflow"] == args.workflow)
        and (args.branch is None or run["headBranch"] == args.branch)
        and (args.event is None or run["event"] == args.event)
        and _status_holds(run, args.status)
    ][: args.limit]
    print(runs[0]["databaseId"] if runs else "null")


def run_download(args: argparse.Namespace, state: Path) -> None:
    if args.run_id is None or not args.run_id.isdigit():
        _fail(f"invalid run ID {args.run_id!r}")
    target = Path(args.dir)
    for name in args.name:
        folder = state / "artifacts" / args.run_id / name
        if not folder.is_dir():
            _fail("no valid artifacts found to download")
        for source in folder.iterdir():
            shutil.copy2(source, target / source.name)


def main(argv: list[str]) -> None:
    if argv[:1] != ["run"]:
        _fail(f"the stand-in gh answers only 'gh run list' and 'gh run download', not {argv!r}")
    args = _parser().parse_args(argv[1:])
    _allowed()
    state = Path(os.environ["FAKE_GH_STATE"])
    (run_list if args.command == "list" else run_download)(args, state)


if __name__ == "__main__":
    main(sys.argv[1:])
