"""``drop7 replay``: replay ``drop7-replay-v1`` records on the fast core.

A record gives the random stream explicitly (``discs``, ``reveals``) and the
columns played (``moves``), optionally from a ``start`` position.  Every
record of the input is validated and replayed before anything is printed, so
a bad record anywhere yields one error line naming the file and the line,
exit status 2 and no output at all.  The input must be UTF-8 JSON whose
records are objects nested no deeper than a record needs (:data:`MAX_DEPTH`);
start numbers are bounded by the engine's 64-bit state.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import IO, Any

import numpy as np

from contracts.cli_numbers import INT64_MAX
from contracts.errors import InputError, clip
from engines.drop7 import core
from engines.drop7.board import (
    MAX_MOVES,
    MOVES_PER_LEVEL,
    BoardError,
    cols_to_rows,
    opening_cols,
    rows_to_cols,
)
from engines.drop7.cli import read_input_lines

FORMAT = "drop7-replay-v1"
RULESET = "research"
#: deepest nesting of brackets a record needs (an object, its start object, the board list)
MAX_DEPTH = 3


def _show(value: Any) -> str:
    """``repr(value)``, cut short: a bad value of any size gives a short message."""
    return clip(type(value).__name__ if isinstance(value, list | dict) else repr(value))


def _int_list(record: dict, key: str, lo: int, hi: int, what: str) -> np.ndarray:
    values = record.get(key)
    if not isinstance(values, list):
        raise InputError(f"'{key}' must be a list, got {_show(values)}")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise InputError(f"{key}[{i}] = {_show(v)} is not a {what} ({lo}..{hi})")
    return np.array(values, dtype=np.int64)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text`` (brackets inside strings ignored)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if match[0] in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _parse(text: str) -> Any:
    """One JSON document, refusing nesting deeper than :data:`MAX_DEPTH` before parsing."""
    if _depth(text) > MAX_DEPTH:
        raise InputError(f"nested deeper than a record ({MAX_DEPTH} levels)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of thousands of digits
        raise InputError(f"invalid JSON ({str(exc).split(';')[0]})") from None


def _start(record: dict) -> tuple[np.ndarray, int, int, int]:
    start = record.get("start")
    if start is None:
        return opening_cols(), MOVES_PER_LEVEL, 1, 0
    if not isinstance(start, dict):
        raise InputError("'start' must be an object")
    try:
        cols = rows_to_cols(start.get("board"))
    except BoardError as exc:
        raise InputError(f"start board: {clip(str(exc), 120)}") from None
    mr, level, score = (start.get(k) for k in ("moves_remaining", "level", "score"))
    for name, v, lo in (("moves_remaining", mr, 1), ("level", level, 1), ("score", score, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= INT64_MAX // 2:
            raise InputError(f"start {name} must be an integer in {lo}..2**62-1, "
                             f"got {_show(v)}")
    if mr > MOVES_PER_LEVEL:
        raise InputError(f"start moves_remaining must be 1..{MOVES_PER_LEVEL}, got {mr}")
    return cols, mr, level, score


def replay_record(record: Any) -> dict:
    """Replay one parsed record; raises :class:`InputError` naming the move."""
    if not isinstance(record, dict):
        raise InputError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise InputError(f"format must be {FORMAT!r}, got {_show(record.get('format'))}")
    if record.get("ruleset", RULESET) != RULESET:
        raise InputError(f"ruleset must be {RULESET!r}, got {_show(record.get('ruleset'))}")
    discs = _int_list(record, "discs", 1, 7, "disc")
    reveals = _int_list(record, "reveals", 1, 7, "reveal value")
    moves = _int_list(record, "moves", 0, 6, "column")
    if len(discs) < len(moves):
        raise InputError(f"{len(moves)} moves but only {len(discs)} discs")
    cols, mr, level, score = _start(record)
    if not core.legal_mask(cols):
        raise InputError("start board has no legal column: the game is already over")
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    rpos = 0
    game_over = False
    log = []
    for m, column in enumerate(moves.tolist()):
        if game_over:
            raise InputError(f"move {m}: the game is already over")
        if m >= MAX_MOVES:
            raise InputError(f"move {m}: the game stopped (censored) after {MAX_MOVES} moves")
        status, mr = core.play_move(cols, column, discs[m], mr, core.SRC_LIST, np.uint64(0),
                                    reveals, rpos, 7, 0, scratch, out)
        if status == core.ERR_ILLEGAL:
            raise InputError(f"move {m}: column {column} is full")
        if status == core.ERR_REVEALS:
            raise InputError(f"move {m}: ran out of reveals (record has {len(reveals)})")
        rpos += int(out[core.OUT_REVEALS])
        score += int(out[core.OUT_POINTS])
        level += int(out[core.OUT_ROSE])
        game_over = bool(out[core.OUT_OVER])
        log.append({"move": m, "column": column, "points": int(out[core.OUT_POINTS]),
                    "score": score, "waves": int(out[core.OUT_WAVES]),
                    "popped": int(out[core.OUT_POPPED]), "cleared": bool(out[core.OUT_CLEARED]),
                    "rose": bool(out[core.OUT_ROSE]), "game_over": game_over})
    final = {"score": score, "moves_played": len(moves), "level": level,
             "moves_remaining": int(mr), "game_over": game_over,
             "censored": not game_over and len(moves) >= MAX_MOVES,
             "board": cols_to_rows(cols)}
    return {"moves": log, "final": final}


def replay_lines(lines: list[str], source: str = "input") -> list[dict]:
    """Replay every record (one per non-blank line, or one multi-line JSON document).

    Errors name ``source`` and the line: ``FILE: line N: ...``.
    """
    text = "".join(lines)
    records: list[tuple[int, Any]] = []
    try:
        records = [(1, _parse(text))] if text.strip() else []
    except InputError:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append((number, _parse(line)))
            except InputError as exc:
                raise InputError(f"{source}: line {number}: {exc}") from None
    if not records:
        raise InputError(f"{source}: no records")
    results = []
    for number, record in records:
        try:
            results.append(replay_record(record))
        except InputError as exc:
            raise InputError(f"{source}: line {number}: {exc}") from None
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 replay``."""
    parser.add_argument("file", help="a record, or JSON lines of records; - for stdin")


def run(args: argparse.Namespace) -> int:
    """Replay the file and print one JSON object per record."""
    lines = read_input_lines(args.file)
    results = replay_lines(lines, "standard input" if args.file == "-" else args.file)
    write_results(results, sys.stdout)
    return 0


def write_results(results: list[dict], stream: IO[str]) -> None:
    """Print one compact JSON object per line."""
    stream.write("".join(json.dumps(r, separators=(", ", ": ")) + "\n" for r in results))
