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
    choice apply: top-1 and regret);
``fault`` (only in a table where some row has a fault)
    empty, or the ranker's fault at this root, as a game counts its
    decisions' (:data:`FAULTS`): ``illegal`` (an answer that is not a legal
    column, or not values of every legal column) or ``unfinished`` (a
    time-out, a program that exited).  A faulted row's choice is the
    centre-first column the harness took instead and it has no values.  A
    table without faults is written without the column (so its bytes are those
    of a table written before faults were recorded), and one read without it
    has none.

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
#: every column of a panel table, in file order (and :data:`FAULT` after them when some row
#: has a fault)
PANEL_COLUMNS = ("game", "root", "ranker", "choice", "work", *VALUE_COLUMNS)
#: the column of a ranker's fault at a root (written only when some row has one)
FAULT = "fault"
#: a ranker's faults at a root, as the games table's counts name a decision's
FAULTS = ("illegal", "unfinished")
#: the order in which equal values are ranked (equal to ``engines.drop7.board.CENTRE_ORDER``,
#: which a test checks): ties go to the more central column, left before right
TIE_ORDER = (3, 2, 4, 1, 5, 0, 6)
#: the ranker name of an outcome reference in a panel table (no arm may take it)
OUTCOME_REFERENCE = "outcome-reference"
#: what a panel's ``work`` column counts: search nodes or leaf evaluations
WORK = ("nodes", "leaves")


class PanelTableError(ValueError):
    """A file that is not a panel table, or a row that breaks its layout."""


def table_columns(rows: Iterable[dict]) -> tuple[str, ...]:
    """The columns of a table of ``rows``: :data:`PANEL_COLUMNS`, and :data:`FAULT` when some
    row has a fault."""
    return (*PANEL_COLUMNS, FAULT) if any(row.get(FAULT) for row in rows) else PANEL_COLUMNS


def table_text(rows: Iterable[dict]) -> str:
    """A panel table's text (header, then one line per row); a value of ``None`` (or NaN) is
    written empty, a float as its ``repr``, text as it is (so rows read back write alike)."""
    rows = list(rows)
    columns = table_columns(rows)
    fh = io.StringIO(newline="")
    writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        out = {}
        for key in columns:
            value = row.get(key)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                value = ""
            elif isinstance(value, float):
                value = repr(float(value))  # a numpy float's repr names its type
            out[key] = value
        writer.writerow(out)
    return fh.getvalue()


def write_rows(rows: Iterable[dict], path: str | os.PathLike) -> None:
    """Write a panel table (:func:`table_text`) atomically."""
    with atomic_file(path, "w", newline="") as fh:
        fh.write(table_text(rows))


def _whole(text: str) -> bool:
    return 0 < len(text) <= 20 and text.isascii() and text.isdigit()


#: the value of a legal column a ranker's pruned root left out (docs/panels.md)
PRUNED_VALUE = "-inf"


def _value(text: str) -> bool:
    """A finite decimal number as Python writes one (no spaces, no ``_``), or
    :data:`PRUNED_VALUE`."""
    if text == PRUNED_VALUE:
        return True
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
    fault = row.get(FAULT, "")
    if fault and fault not in FAULTS:
        raise PanelTableError(f"{where}: fault {clip(fault)!r} is not one of "
                              f"{', '.join(FAULTS)} (or empty)")
    if fault and given:
        raise PanelTableError(f"{where}: a row with a fault ({fault}) has no values "
                              f"({given[0]} is {clip(row[given[0]])!r})")
    for key in given:
        if not _value(row[key]):
            raise PanelTableError(f"{where}: {key} {clip(row[key])!r} is not a finite number "
                                  f"(or {PRUNED_VALUE}: a column a pruned root left out)")
    if given and f"v{row['choice']}" not in given:
        raise PanelTableError(f"{where}: choice {row['choice']} has no value (v{row['choice']} "
                              "is empty: an illegal column)")


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """Every row of a panel table (values as text), its layout checked line by line.

    Refused in one line: a missing, unreadable, non-UTF-8 or empty file, a
    header that is not :data:`PANEL_COLUMNS` in order (then :data:`FAULT` or
    nothing: a row read without it has no ``fault`` key, and no fault), a blank line, a row of
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
        columns = tuple(header)
        if columns not in (PANEL_COLUMNS, (*PANEL_COLUMNS, FAULT)):
            raise PanelTableError(f"{source}: line 1: the header must be "
                                  f"{','.join(PANEL_COLUMNS)} (then {FAULT}, or nothing)")
        for fields in reader:
            where = f"{source}: line {reader.line_num}"
            if not fields:
                raise PanelTableError(f"{where} is blank")
            if len(fields) != len(columns):
                raise PanelTableError(f"{where} has {len(fields)} fields, the header has "
                                      f"{len(columns)}")
            row = dict(zip(columns, fields, strict=True))
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
