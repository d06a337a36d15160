"""``drop7 tables edit``: a training-free edit of frozen n-tuple tables, as a new table file.

Prints the new file's manifest facts (its SHA-256, the source's and the
counts) as one JSON object, and with ``--record`` writes them as the edited
artefact's record (what a claim's edit job leaves, beside its plain tables);
:mod:`engines.ntuple.edits` says what each edit does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contracts.json_file import load_json, write_json
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
    pin = edit.add_mutually_exclusive_group()
    pin.add_argument("--source-sha256", default=None, metavar="HEX",
                     help="the SHA-256 the source's tables must have (a pinned file's)")
    pin.add_argument("--source-record", default=None, metavar="FILE.json",
                     help="a frozen record whose sha256 the source's tables must have")
    edit.add_argument("--plain", action="store_true",
                      help="write a plain tables.npy, as frozen weights are (game jobs "
                      "memory-map it), instead of a compressed stream")
    edit.add_argument("--record", type=Path, default=None, metavar="FILE.json",
                      help="also write the printed facts to this JSON record (the edited "
                      "artefact's: its sha256 is what the screen's arms are checked against), "
                      "with gates_passed: the --source-record's (true for a pinned source)")
    edit.add_argument("--artefact", default=None, metavar="CLAIM/NAME",
                      help="the artefact's name the record gives (with --record)")


def run(args: argparse.Namespace) -> int:
    """Write the edit, print its facts and record them when asked."""
    from contracts.errors import InputError

    if args.artefact is not None and args.record is None:
        raise InputError("--artefact names the record's artefact: give --record too")
    sha, gates = args.source_sha256, True
    if args.source_record is not None:
        from contracts.json_file import recorded_sha256

        sha = recorded_sha256(args.source_record, "--source-record")
        gates = load_json(args.source_record).get("gates_passed", True)
    manifest = edit_tables(args.source, args.out, args.rule, args.state, sha, args.plain)
    facts = {"out": str(args.out), "sha256": manifest["sha256"],
             "layout": manifest["layout"], **manifest["edit"]}
    if args.record is not None:
        # the source's gates go with its tables: an edit of tables frozen past failed gates
        # (a profile that opens screens anyway) is read as they are (protocol/verdict.py)
        write_json(args.record, {**({"artefact": args.artefact} if args.artefact else {}),
                                 **facts, "gates_passed": bool(gates)})
    print(json.dumps(facts))
    return 0
