"""``drop7 tables edit``: a training-free edit of frozen n-tuple tables, as a new table file.

Prints the new file's manifest facts (its SHA-256, the source's and the
counts) as one JSON object; :mod:`engines.ntuple.edits` says what each edit does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engines.ntuple.edits import edit_tables


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``edit SOURCE --zero-untouched | --class-mean --out DIR``."""
    sub = parser.add_subparsers(dest="action", required=True)
    edit = sub.add_parser("edit", help="the never-updated entries zeroed or set to their "
                          "class's mean, written as a new table file")
    edit.add_argument("source", type=Path, help="a frozen n-tuple weights directory")
    rule = edit.add_mutually_exclusive_group(required=True)
    rule.add_argument("--zero-untouched", dest="rule", action="store_const",
                      const="zero-untouched", help="untouched entries become 0")
    rule.add_argument("--class-mean", dest="rule", action="store_const", const="class-mean",
                      help="untouched entries become the mean of the touched entries of the "
                      "same table, phase, bucket and pattern occupancy")
    edit.add_argument("--out", type=Path, required=True, help="the new weights directory")
    edit.add_argument("--state", type=Path, default=None,
                      help="the training's resume state at the same step: its accumulators "
                      "are checked against the file (entries never updated are at the start)")


def run(args: argparse.Namespace) -> int:
    """Write the edit and print its facts."""
    manifest = edit_tables(args.source, args.out, args.rule, args.state)
    print(json.dumps({"out": str(args.out), "sha256": manifest["sha256"],
                      "layout": manifest["layout"], **manifest["edit"]}))
    return 0
