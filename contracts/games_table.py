"""The games table: one row per game, written by the runner, read by the statistics.

The runner (:mod:`engines.play.runner`) writes every column of
:data:`GAMES_COLUMNS` in this order; the statistics
(:mod:`analysis.games_table`) need :data:`REQUIRED_COLUMNS` and use
:data:`USED_COLUMNS` when present.  :func:`write_rows` and :func:`read_rows`
are the text-level writer and reader (values kept as text), which the runner
and the workflow's block table use.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable

from contracts.atomic import atomic_file

#: every column of a games table, in file order
GAMES_COLUMNS = (
    "arm", "policy", "seed", "game", "score", "moves", "levels", "clears", "censored",
    "popped", "decisions", "illegal", "unfinished", "wall_s",
)  # fmt: skip
#: the columns the statistics cannot do without
REQUIRED_COLUMNS = ("arm", "seed", "score")
#: optional numeric columns the contrast uses when present
USED_COLUMNS = ("moves", "censored", "illegal", "unfinished")
#: the columns a row holds as integers the reader checks
INTEGER_COLUMNS = ("seed", "game")


class GamesTableError(ValueError):
    """A file that is not a games table (wrong header, a short or bad row)."""


def write_rows(rows: Iterable[dict], path: str | os.PathLike) -> None:
    """Write a games table atomically (temporary file, then rename)."""
    with atomic_file(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=GAMES_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a games table (values kept as text); checks the header and each row's fields."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != GAMES_COLUMNS:
            raise GamesTableError(f"{path}: not a games table (header {reader.fieldnames})")
        rows = list(reader)
    for n, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            raise GamesTableError(f"{path}: line {n} has the wrong number of fields")
        for key in INTEGER_COLUMNS:
            if not row[key].isdigit():
                raise GamesTableError(f"{path}: line {n}: {key} {row[key]!r} is not an integer")
    return rows
