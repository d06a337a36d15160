"""``drop7 leaf-terms FILE|-``: the frozen fair leaf's 18 terms and value per state.

Input: JSON lines, each ``{"board": [7 row strings, top first],
"moves_remaining": 1..5, "next_disc": 1..7}`` (blank lines are skipped;
other keys are ignored).  Output: one JSON line per state,
``{"terms": [18 floats in the table's order], "value": float}``, and with
``--terms NAME[,NAME]`` the named extra terms too (``"extra": {NAME: float}``,
:mod:`engines.leaves.extra_terms`; the value stays the fair leaf's).  Every line
is validated before anything is printed: a bad line is refused with one error
line naming it, exit status 2 and no output at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from contracts.errors import InputError
from contracts.input_file import read_input_lines
from engines.drop7.board import MOVES_PER_LEVEL, BoardError, rows_to_cols
from engines.leaves.extra_terms import EXTRA_TERMS, N_EXTRA, TermError, check_terms
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear import FAIR_WEIGHTS, linear_terms_many

KEYS = ("board", "moves_remaining", "next_disc")


def _int_in(record: dict, key: str, lo: int, hi: int) -> int:
    v = record[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"{key} must be an integer {lo}..{hi}, got {v!r}")
    return v


def parse_state(record: Any) -> tuple[np.ndarray, int, int]:
    """Validate one parsed line: packed board, moves remaining, next disc."""
    if not isinstance(record, dict):
        raise InputError("a state must be a JSON object")
    missing = [k for k in KEYS if k not in record]
    if missing:
        raise InputError(f"missing key {missing[0]!r}")
    try:
        cols = rows_to_cols(record["board"])
    except BoardError as exc:
        raise InputError(f"board: {exc}") from None
    return (cols, _int_in(record, "moves_remaining", 1, MOVES_PER_LEVEL),
            _int_in(record, "next_disc", 1, 7))


def parse_lines(lines: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every state of the input (boards int64[n, 7], moves remaining, next discs)."""
    boards, mrs, discs = [], [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {number}: invalid JSON ({exc.msg})") from None
        try:
            cols, mr, disc = parse_state(record)
        except InputError as exc:
            raise InputError(f"line {number}: {exc}") from None
        boards.append(cols)
        mrs.append(mr)
        discs.append(disc)
    if not boards:
        raise InputError("no states in input")
    return (np.array(boards, dtype=np.int64), np.array(mrs, dtype=np.int64),
            np.array(discs, dtype=np.int64))


def leaf_terms_lines(lines: list[str], extra: tuple[str, ...] = ()) -> list[str]:
    """The output lines for the input lines (raises :class:`InputError` on any bad line),
    with the ``extra`` terms named when given."""
    boards, mrs, discs = parse_lines(lines)
    terms = np.zeros((boards.shape[0], N_TERMS), dtype=np.float64)
    linear_terms_many(boards, mrs, discs, terms)
    extras = np.zeros((boards.shape[0], N_EXTRA), dtype=np.float64)
    if extra:
        from engines.leaves.linear_extra import extra_terms_many

        extra_terms_many(boards, mrs, extras)
    out = []
    for row, more in zip(terms.tolist(), extras.tolist(), strict=True):
        value = 0.0
        for w, x in zip(FAIR_WEIGHTS.tolist(), row, strict=True):
            value += w * x
        named = {"extra": {n: more[EXTRA_TERMS[n].code] for n in extra}} if extra else {}
        out.append(json.dumps({"terms": row, **named, "value": value}))
    return out


def _term_names(text: str) -> tuple[str, ...]:
    """``--terms NAME[,NAME]``: registered extra terms."""
    try:
        return check_terms(text.split(","))
    except TermError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 leaf-terms``."""
    parser.add_argument("file", help="JSON lines of states; - for stdin")
    parser.add_argument("--terms", type=_term_names, default=(),
                        help="extra terms to print too, NAME[,NAME] "
                             f"({', '.join(EXTRA_TERMS)}; docs/leaf.md, Extra terms)")


def run(args: argparse.Namespace) -> int:
    """Print the terms and value of every state, or refuse the input whole."""
    lines = read_input_lines(args.file)
    out = leaf_terms_lines(lines, args.terms)
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0
