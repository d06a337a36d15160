"""The panel table: one row per (root, ranker), written by the labelling, read by the readings.

A ranking panel (docs/panels.md) asks rankers to order the legal columns of
held-out root positions and compares them with a reference.  Each row holds
one ranker's answer at one root:

``game``
    the seed of the game the root was taken from (plain decimal, 0..2**64-1);
    the bootstrap resamples these, since the roots of one game are correlated;
``root``
    the root's number within its game (the decision's 0-based index);
``ranker``
    the ranker's name (the reference is a ranker like any other, named by
    the panel);
``choice``
    the column the ranker would play, 0..6;
``work``
    its work at this root (search nodes, or leaf evaluations: the panel says
    which), a whole number, or empty when the ranker does not report it;
``v0`` .. ``v6``
    its value of each column, empty for an illegal column; all seven empty
    when the ranker gives its choice alone (then only the readings of a
    choice apply: top-1 and regret).

:data:`TIE_ORDER` is how a ranking breaks ties (the engine's centre order:
the centre, then outwards, left before right).  :func:`write_rows` and
:func:`read_rows` keep values as text; each refusal is one
:class:`PanelTableError` line naming the file and the line.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable

from contracts.atomic import atomic_file
from contracts.errors import clip
from contracts.games_table import table_seed
from contracts.input_file import decode_utf8, read_input_bytes

#: the columns of a board, left to right
N_COLUMNS = 7
#: the value columns, ``v0`` (leftmost board column) to ``v6``
VALUE_COLUMNS = tuple(f"v{c}" for c in range(N_COLUMNS))
#: every column of a panel table, in file order
PANEL_COLUMNS = ("game", "root", "ranker", "choice", "work", *VALUE_COLUMNS)
#: the order in which equal values are ranked (equal to ``engines.drop7.board.CENTRE_ORDER``,
#: which a test checks): ties go to the more central column, left before right
TIE_ORDER = (3, 2, 4, 1, 5, 0, 6)
#: the table name of an outcome reference (a panel whose reference is a Monte Carlo outcome
#: labeller, not an arm; no arm may be named so)
OUTCOME_REFERENCE = "outcome-reference"


class PanelTableError(ValueError):
    """A file that is not a panel table, or a row that breaks its layout."""


def write_rows(rows: Iterable[dict], path: str | os.PathLike) -> None:
    """Write a panel table atomically; a value of ``None`` (or NaN) is written empty."""
    with atomic_file(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=PANEL_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            out = {}
            for key in PANEL_COLUMNS:
                value = row.get(key)
                if value is None or (isinstance(value, float) and math.isnan(value)):
                    value = ""
                elif isinstance(value, float):
                    value = repr(float(value))  # a numpy float's repr names its type
                out[key] = value
            writer.writerow(out)


def _whole(text: str) -> bool:
    return 0 < len(text) <= 20 and text.isascii() and text.isdigit()


def _value(text: str) -> bool:
    """A finite decimal number as Python writes one (no spaces, no ``_``)."""
    if not text or not text.isascii() or text != text.strip() or "_" in text:
        return False
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def check_row(row: dict[str, str], where: str) -> None:
    """Refuse a row whose fields break the layout (one line naming ``where``)."""
    if table_seed(row["game"]) is None:
        raise PanelTableError(f"{where}: game {clip(row['game'])!r} is not an integer in "
                              "0..2**64-1")
    if not _whole(row["root"]):
        raise PanelTableError(f"{where}: root {clip(row['root'])!r} is not a whole number")
    if not row["ranker"] or row["ranker"] != row["ranker"].strip():
        raise PanelTableError(f"{where}: ranker {row['ranker']!r} is empty or has spaces "
                              "around it")
    if row["choice"] not in {str(c) for c in range(N_COLUMNS)}:
        raise PanelTableError(f"{where}: choice {clip(row['choice'])!r} is not a column 0..6")
    if row["work"] and not _whole(row["work"]):
        raise PanelTableError(f"{where}: work {clip(row['work'])!r} is not a whole number "
                              "(or empty)")
    given = [k for k in VALUE_COLUMNS if row[k]]
    for key in given:
        if not _value(row[key]):
            raise PanelTableError(f"{where}: {key} {clip(row[key])!r} is not a finite number")
    if given and f"v{row['choice']}" not in given:
        raise PanelTableError(f"{where}: choice {row['choice']} has no value (v{row['choice']} "
                              "is empty: an illegal column)")


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """Every row of a panel table (values as text), its layout checked line by line.

    Refused in one line: a missing, unreadable, non-UTF-8 or empty file, a
    header that is not :data:`PANEL_COLUMNS` in order, a blank line, a row of
    another field count or broken quoting, a field that breaks
    :func:`check_row`, and a (game, root, ranker) given twice.
    """
    source = str(path)
    text = decode_utf8(read_input_bytes(path, source, PanelTableError), source,
                       PanelTableError)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[dict[str, str]] = []
    seen: dict[tuple[str, str, str], int] = {}
    try:
        header = next(reader, None)
        if header is None:
            raise PanelTableError(f"{source} is empty")
        if tuple(header) != PANEL_COLUMNS:
            raise PanelTableError(f"{source}: line 1: the header must be "
                                  f"{','.join(PANEL_COLUMNS)}")
        for fields in reader:
            where = f"{source}: line {reader.line_num}"
            if not fields:
                raise PanelTableError(f"{where} is blank")
            if len(fields) != len(PANEL_COLUMNS):
                raise PanelTableError(f"{where} has {len(fields)} fields, the header has "
                                      f"{len(PANEL_COLUMNS)}")
            row = dict(zip(PANEL_COLUMNS, fields, strict=True))
            check_row(row, where)
            key = (str(int(row["game"])), str(int(row["root"])), row["ranker"])
            if key in seen:
                raise PanelTableError(f"{where}: game {key[0]} root {key[1]} ranker {key[2]} "
                                      f"is given twice (first on line {seen[key]})")
            seen[key] = reader.line_num
            rows.append(row)
    except csv.Error as exc:
        raise PanelTableError(f"{source}: line {reader.line_num}: not valid CSV "
                              f"({exc})") from None
    return rows
