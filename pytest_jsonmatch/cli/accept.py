"""``jsonmatch accept``: write what a reviewer accepts of an update review (made by
``pytest --jsonmatch-update=KIND,review``): every edit, the cases named, or single fields,
each with the byte-preserving edit of ``--jsonmatch-update`` (updating/review_accept.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .input_error import InputError

DEFAULT = ".jsonmatch/update-review.json"


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = commands.add_parser(
        "accept",
        help="write the edits of an update review that a reviewer accepts",
        description="Write into the golden case files what a reviewer accepts of the update "
        "review that pytest --jsonmatch-update=KIND,review made: every edit (--all), whole "
        "cases (--case), or single fields (--field). A case file changed since the review "
        "is refused; what is accepted leaves the review.",
    )
    p.add_argument(
        "review",
        nargs="?",
        default=DEFAULT,
        metavar="REVIEW",
        help=f"where the review run wrote it, ROOT/{DEFAULT}, ROOT the test root "
        f"(default: {DEFAULT})",
    )
    p.add_argument(
        "--all",
        dest="every",
        action="store_true",
        help="accept every edit but those of xfail cases (name one with --case or --field)",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="accept this case's edit (its id, or FILE::ID); repeatable",
    )
    p.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="ID:PATH",
        help="accept one field of a case (as the review lists it, e.g. inv-7:total); repeatable",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..updating.review_accept import accept

    if not (args.every or args.case or args.field):
        raise InputError(
            "jsonmatch accept: name what to accept: --all, --case ID or --field ID:PATH"
        )
    for line in accept(
        Path(args.review), every=args.every, cases=args.case, fields=args.field, shown=args.review
    ):
        print(line)
    return 0
