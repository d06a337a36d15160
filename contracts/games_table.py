"""The games table: one row per game, written by the runner, read by the statistics.

The runner (:mod:`engines.play.runner`) writes every column of
:data:`GAMES_COLUMNS` in this order; the statistics
(:mod:`analysis.games_table`) need :data:`REQUIRED_COLUMNS` and use
:data:`USED_COLUMNS` when present.  :func:`write_rows` and :func:`read_rows`
are the text-level writer and reader (values kept as text), which the runner
and the workflow's block table use.

Every reader checks a file's text layout line by line first
(:func:`read_text`, :func:`table_lines`): pandas, for one, silently shifts a
table whose rows have one field more than the header (the first column
becomes the index) and renames a repeated header name.  Each refusal is a
:class:`GamesTableError` of one line naming the file and the line.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from collections.abc import Iterable, Iterator, Mapping

from contracts.atomic import atomic_file
from contracts.cli_numbers import SEED_SPACE
from contracts.errors import clip
from contracts.input_file import decode_utf8, read_input_bytes

#: every column of a games table, in file order
GAMES_COLUMNS = (
    "arm", "policy", "seed", "game", "score", "moves", "levels", "clears", "censored",
    "popped", "reveals", "chain_max", "chain_mean", "decisions", "nodes", "leaves",
    "filter_applied", "filter_changed", "illegal", "unfinished",
    "wall_s", "trajectory",
)  # fmt: skip
#: the columns the statistics cannot do without
REQUIRED_COLUMNS = ("arm", "seed", "score")
#: optional numeric columns the contrast uses when present
USED_COLUMNS = ("moves", "censored", "illegal", "unfinished")
#: a root filter's counts of a game (empty for an arm without one): decisions at which it
#: refused a column, and those at which it changed the column played (docs/search.md)
FILTER_COLUMNS = ("filter_applied", "filter_changed")
#: the columns a row holds as integers the reader checks
INTEGER_COLUMNS = ("seed", "game")
#: what a game's reading decides by: two readings of a block played the same games when these
#: are equal row for row (wall times, work counts and the policy's spelling aside)
DECIDING_COLUMNS = ("arm", "seed", "score", "moves", "censored", "illegal", "unfinished",
                    "trajectory")


class GamesTableError(ValueError):
    """A file that is not a games table (wrong header, a short or bad row)."""


def write_rows(rows: Iterable[dict], path: str | os.PathLike) -> None:
    """Write a games table atomically (temporary file, then rename)."""
    with atomic_file(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=GAMES_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def table_seed(text: str) -> int | None:
    """A seed (or game number) as a table holds it: plain ASCII decimal digits, below
    2**64; None for anything else (a sign, spaces, ``_``, other scripts' digits)."""
    if 0 < len(text) <= 20 and text.isascii() and text.isdigit():
        value = int(text, 10)
        return value if value < SEED_SPACE else None
    return None


def read_text(path: str | os.PathLike, source: str | None = None) -> str:
    """The text of a games table file.

    Refused, naming ``source`` (default: the path): a missing file or a
    directory, an unreadable one, a byte-order mark, bytes that are not
    UTF-8, a file with nothing but blank space.
    """
    source = str(path) if source is None else source
    data = read_input_bytes(path, source, GamesTableError)
    if data.startswith(b"\xef\xbb\xbf"):
        raise GamesTableError(f"{source}: starts with a byte-order mark (BOM); save it as "
                              "UTF-8 without one")
    text = decode_utf8(data, source, GamesTableError)
    if not text.strip():
        raise GamesTableError(f"{source} is empty")
    return text


def table_lines(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of a table's header (line 1), then of each row.

    Refused, naming the line: a header name that is empty, has spaces
    around it, is repeated or is not a column of :data:`GAMES_COLUMNS`; a
    blank line; a row with more or fewer fields than the header; broken
    CSV quoting.  Values are left to the caller.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
        _check_header(header, source)
        yield 1, header
        for fields in reader:
            line = reader.line_num
            if not fields:
                raise GamesTableError(f"{source}: line {line} is blank")
            if len(fields) != len(header):
                raise GamesTableError(f"{source}: line {line} has {len(fields)} fields, the "
                                      f"header has {len(header)}")
            yield line, fields
    except csv.Error as exc:
        raise GamesTableError(f"{source}: line {reader.line_num}: not valid CSV "
                              f"({exc})") from None


def _check_header(header: list[str], source: str) -> None:
    """Header names: present, unique, known and without spaces around them."""
    seen: dict[str, int] = {}
    for i, name in enumerate(header, start=1):
        if not name.strip():
            raise GamesTableError(f"{source}: line 1: column {i} has no name")
        if name != name.strip():
            raise GamesTableError(f"{source}: line 1: column {i} name {name!r} has spaces "
                                  "around it")
        if name in seen:
            raise GamesTableError(f"{source}: line 1: column {name!r} appears twice "
                                  f"(columns {seen[name]} and {i})")
        if name not in GAMES_COLUMNS:
            raise GamesTableError(f"{source}: line 1: unknown column {name!r}: not a games "
                                  f"table (its columns: {', '.join(GAMES_COLUMNS)})")
        seen[name] = i


#: the columns of a table written before :data:`FILTER_COLUMNS`
_BEFORE_FILTERS = tuple(c for c in GAMES_COLUMNS if c not in FILTER_COLUMNS)


def _with_filters(fields: list[str]) -> list[str]:
    """A row of a table written before the filter columns, with them empty."""
    row = dict(zip(_BEFORE_FILTERS, fields, strict=True))
    return [row.get(c, "") for c in GAMES_COLUMNS]


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """Read a whole games table as the runner wrote it (values kept as text).

    The layout is checked line by line (:func:`read_text`, :func:`table_lines`),
    the header must be :data:`GAMES_COLUMNS` in order, and each row's
    :data:`INTEGER_COLUMNS` plain integers in 0..2**64-1 (:func:`table_seed`).
    A table of no rows is a shard with no games, not an error.  A table written before the
    root filter's columns (:data:`FILTER_COLUMNS`) is read with them empty: its arms had
    none, so nothing is lost and its games need not be played again.
    """
    source = str(path)
    lines = table_lines(read_text(path), source)
    _, header = next(lines)
    if tuple(header) == _BEFORE_FILTERS:  # written before root filters: none played here
        lines = ((line, _with_filters(fields)) for line, fields in lines)
    elif tuple(header) != GAMES_COLUMNS:
        _check_header(header, source)
        missing = [c for c in GAMES_COLUMNS if c not in header]
        if missing:
            raise GamesTableError(f"{source}: line 1: no column {', '.join(missing)}: a games "
                                  "table written before these columns; play its games again "
                                  "(docs/records.md)")
        raise GamesTableError(f"{source}: line 1: columns out of order (the runner writes "
                              f"{', '.join(GAMES_COLUMNS)})")
    rows = []
    for line, fields in lines:
        row = dict(zip(GAMES_COLUMNS, fields, strict=True))
        for key in INTEGER_COLUMNS:
            if table_seed(row[key]) is None:
                raise GamesTableError(f"{source}: line {line}: {key} {clip(row[key])!r} is "
                                      "not an integer in 0..2**64-1")
        rows.append(row)
    return rows


def deciding_sha256(rows: Iterable[Mapping[str, str]]) -> str:
    """SHA-256 of a block's games by their :data:`DECIDING_COLUMNS`, rows in (arm, seed)
    order and values normalised: equal for two readings that played the same games, whatever
    their wall times or shard order (the ledger tells a replay that reproduces its block's
    first reading from one that does not by it)."""
    def key(row: Mapping[str, str]) -> tuple:
        return (row["arm"], int(row["seed"]), int(float(row["score"])), int(row["moves"]),
                int(row["censored"] in ("1", "True", "true")), int(row["illegal"]),
                int(row["unfinished"]), row["trajectory"])

    text = "\n".join(",".join(map(str, k)) for k in sorted(map(key, rows)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
