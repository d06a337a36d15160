"""``drop7 records validate DIR``: check a record bundle (protocol/records.py).

Every problem is one line on standard error naming the file and the key
(a record breaking its format, an id named but absent from the bundle, a
protocol hash differing from the experiment's, a per-game file whose hash or
count differs from the result's); exit status 2 on any, else one line on
standard output and 0.
"""

from __future__ import annotations

import argparse
import sys

from protocol.records import check_bundle


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 records``."""
    verbs = parser.add_subparsers(dest="verb", required=True)
    validate = verbs.add_parser("validate", help="check a bundle's records and their links")
    validate.add_argument("directory", help="a bundle: reports/<profile>/records/<claim>")


def run(args: argparse.Namespace) -> int:
    """Validate the bundle; one line per problem, exit 2 on any."""
    problems = check_bundle(args.directory)
    for line in problems:
        print(f"drop7 records: {line}", file=sys.stderr)
    if problems:
        return 2
    print(f"{args.directory}: every record holds its format and every link resolves")
    return 0
