"""``drop7 records validate DIR``: check a record bundle (protocol/records/check.py);
``drop7 records rebuild DIR``: write a committed bundle and its page's records again
(protocol/records/rebuild.py);
``drop7 records register-check --register PATH [--claims DIR]``: check every claim's
``theory``, ``derived_from`` and ``recorded`` block against a checkout of the register
(protocol/records/register.py).

Every problem is one line on standard error naming the file and the key
(a record breaking its format, an id named but absent from the bundle, a
protocol hash differing from the experiment's, a per-game file whose hash or
count differs from the result's); exit status 2 on any, else one line on
standard output and 0.  A bundle that cannot be rebuilt is one line, exit 2,
and nothing written.
"""

from __future__ import annotations

import argparse
import sys

from protocol.records.check import check_bundle
from protocol.records.ids import RecordError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 records``."""
    verbs = parser.add_subparsers(dest="verb", required=True)
    validate = verbs.add_parser("validate", help="check a bundle's records and their links")
    validate.add_argument("directory", help="a bundle: reports/<profile>/records/<claim>")
    rebuild = verbs.add_parser("rebuild", help="write a committed bundle again from the "
                               "bundle, the ledger and its git history")
    rebuild.add_argument("directory", help="a committed bundle: reports/<profile>/records/<claim>")
    reg = verbs.add_parser("register-check", help="check the claims' recorded blocks and "
                           "theory ids against a local checkout of the register")
    reg.add_argument("--register", required=True, help="the register's checkout (holds "
                     "research/results, research/theories, research/experiments)")
    reg.add_argument("--claims", default="config/claims", help="a claims folder "
                     "(default: config/claims)")


def run(args: argparse.Namespace) -> int:
    """Validate (one line per problem, exit 2 on any), rebuild the bundle, or check the claims
    against the register."""
    if args.verb == "register-check":
        return _register_check(args.register, args.claims)
    if args.verb == "rebuild":
        from protocol.records.rebuild import rebuild, refresh_claim_page

        try:
            result = rebuild(args.directory)
        except (RecordError, OSError, ValueError) as exc:
            print(f"drop7 records: error: {args.directory}: {exc}", file=sys.stderr)
            return 2
        page = refresh_claim_page(args.directory)
        print(f"{args.directory}: written again ({result['resultId']})"
              + (f"; {page} refreshed" if page else ""))
        return 0
    problems = check_bundle(args.directory)
    for line in problems:
        print(f"drop7 records: {line}", file=sys.stderr)
    if problems:
        return 2
    print(f"{args.directory}: every record holds its format and every link resolves")
    return 0


def _register_check(register: str, claims: str) -> int:
    """One line per disagreement of the claims with the register and exit 2, else 0."""
    from protocol.records.register import check_claims

    try:
        problems = check_claims(claims, register)
    except (OSError, ValueError) as exc:
        print(f"drop7 records: error: {exc}", file=sys.stderr)
        return 2
    for line in problems:
        print(f"drop7 records: {line}", file=sys.stderr)
    if problems:
        return 2
    print(f"{claims}: every claim's theory and recorded figures agree with the register "
          f"at {register}")
    return 0
