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

from contracts.cli_numbers import INT64_MAX, SEED_SPACE, parse_int
from contracts.errors import InputError, clip
from contracts.input_file import read_input_lines
from contracts.trajectory import trajectory_checksum
from engines.drop7 import core
from engines.drop7.board import (
    MAX_MOVES,
    MOVES_PER_LEVEL,
    BoardError,
    cols_to_rows,
    opening_cols,
    rows_to_cols,
)
from engines.drop7.game_loop import game_arrays
from engines.drop7.trajectory import replay_seeded

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


def _seed(record: dict) -> int | None:
    """The record's optional ``seed``: an integer or a ``0x`` hex string, in 0..2**64-1."""
    seed = record.get("seed")
    if seed is None:
        return None
    if isinstance(seed, str):
        return parse_int(seed, "seed", 0, SEED_SPACE - 1, hex_ok=True)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_SPACE:
        raise InputError(f"seed must be an integer in 0..2**64-1 or a 0x hex string, "
                         f"got {_show(seed)}")
    return seed


def _move_log(m: int, column: int, out: np.ndarray, score: int, game_over: bool) -> dict:
    return {"move": m, "column": column, "points": int(out[core.OUT_POINTS]),
            "score": score, "waves": int(out[core.OUT_WAVES]),
            "popped": int(out[core.OUT_POPPED]), "cleared": bool(out[core.OUT_CLEARED]),
            "rose": bool(out[core.OUT_ROSE]), "game_over": game_over}


def _replay_seeded(seed: int, moves: np.ndarray) -> dict:
    """A record with a seed and no streams: the discs and reveals are the seed's."""
    columns = [int(c) for c in moves]
    outs, state, cols = replay_seeded(seed, columns)
    scores = np.cumsum(outs[:, core.OUT_POINTS]).tolist() if len(columns) else []
    log = [_move_log(m, c, outs[m], scores[m], bool(outs[m, core.OUT_OVER]))
           for m, c in enumerate(columns)]
    final = {"score": int(state[core.ST_SCORE]), "moves_played": len(columns),
             "level": int(state[core.ST_LEVEL]),
             "moves_remaining": int(state[core.ST_MOVES_REMAINING]),
             "game_over": bool(state[core.ST_GAME_OVER]),
             "censored": bool(state[core.ST_CENSORED]), "board": cols_to_rows(cols)}
    return {"moves": log, "final": final}


def replay_record(record: Any) -> dict:
    """Replay one parsed record; raises :class:`InputError` naming the move.

    With a ``seed``, the result also holds the game's ``trajectory`` checksum;
    a seed and no ``discs`` and ``reveals`` replays game ``seed`` itself.
    """
    if not isinstance(record, dict):
        raise InputError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise InputError(f"format must be {FORMAT!r}, got {_show(record.get('format'))}")
    if record.get("ruleset", RULESET) != RULESET:
        raise InputError(f"ruleset must be {RULESET!r}, got {_show(record.get('ruleset'))}")
    seed = _seed(record)
    if seed is not None and "discs" not in record and "reveals" not in record:
        if "start" in record:
            raise InputError("a seeded record (no discs, no reveals) starts from the opening: "
                             "drop 'start'")
        result = _replay_seeded(seed, _int_list(record, "moves", 0, 6, "column"))
    else:
        result = _replay_streams(record)
    if seed is not None:
        scores = [entry["score"] for entry in result["moves"]]
        columns = [entry["column"] for entry in result["moves"]]
        result["trajectory"] = trajectory_checksum(seed, columns, scores)
    return result


def _replay_streams(record: dict) -> dict:
    """A record whose discs and reveals are given."""
    discs = _int_list(record, "discs", 1, 7, "disc")
    reveals = _int_list(record, "reveals", 1, 7, "reveal value")
    moves = _int_list(record, "moves", 0, 6, "column")
    if len(discs) < len(moves):
        raise InputError(f"{len(moves)} moves but only {len(discs)} discs")
    cols, mr, level, score = _start(record)
    if not core.legal_mask(cols):
        raise InputError("start board has no legal column: the game is already over")
    _, _, scratch, out = game_arrays()
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
        log.append(_move_log(m, column, out, score, game_over))
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
