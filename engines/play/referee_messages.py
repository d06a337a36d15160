"""The referee protocol's messages, version 2: every line either side writes, in one place.

The harness (:mod:`engines.play.external_policy`) and ``drop7 serve``
(:mod:`engines.play.serve`) both build and parse their lines here, so the two
sides cannot drift apart; docs/referee.md describes the protocol for anyone
writing a program of their own.  A line is ASCII words separated by single
spaces, ended by ``\\n``; each ``go`` carries a number the answer echoes
(``go id N`` / ``move C id N``), so an answer is tied to the ``go`` it answers
and a surplus line cannot pass as a later answer.  The board is the replay format's notation (seven
rows of seven digits, top row first, :mod:`engines.drop7.board`), its rows
joined by ``/``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.drop7.board import MOVES_PER_LEVEL, BoardError, cols_to_rows, rows_to_cols
from engines.drop7.game_loop import game_arrays

#: the protocol's version, sent in the harness's first line
VERSION = 2
#: the harness's first word
HELLO = "drop7"
# harness -> program
SETOPTION, NEWGAME, POSITION, GO, QUIT = "setoption", "newgame", "position", "go", "quit"
# program -> harness
NAME, OPTION, READY, MOVE, INFO, ERROR = "name", "option", "ready", "move", "info", "error"
#: the fields of ``position``, in order (the board, then integers)
POSITION_FIELDS = ("board", "disc", "remaining", "level", "score")
#: the range of each integer field of ``position`` a game can reach (score and level below
#: 2**62, as a replay's start, so the engine's int64 arithmetic cannot overflow)
POSITION_RANGES = {"disc": (1, 7), "remaining": (1, MOVES_PER_LEVEL), "level": (1, 2**62 - 1),
                   "score": (0, 2**62 - 1)}


#: the optional features a program may offer in its handshake (``feature NAME VERSION``) and
#: the version of each this harness speaks; the harness uses a feature only at that version
FEATURE, VALUES = "feature", "values"
FEATURES = {VALUES: 1}
#: the word a ``values`` answer gives an illegal column
NO_VALUE = "-"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class MessageError(ValueError):
    """A line that is not the message it should be."""


def hello_line() -> str:
    """The harness's first line: ``drop7 1``."""
    return f"{HELLO} {VERSION}"


def position_line(state: np.ndarray, cols: np.ndarray) -> str:
    """``position board R0/R1/../R6 disc D remaining M level L score S`` of a game state."""
    board = "/".join(cols_to_rows(cols))
    return (f"{POSITION} board {board} disc {int(state[core.ST_NEXT_DISC])} "
            f"remaining {int(state[core.ST_MOVES_REMAINING])} "
            f"level {int(state[core.ST_LEVEL])} score {int(state[core.ST_SCORE])}")


@dataclass(frozen=True)
class PositionMessage:
    """A parsed ``position``: the packed board and the public numbers."""

    cols: np.ndarray
    disc: int
    remaining: int
    level: int
    score: int

    def state(self) -> np.ndarray:
        """A driver state array (``ST_*``) holding the public fields."""
        state = np.zeros(core.ST_LEN, dtype=np.int64)
        state[core.ST_NEXT_DISC] = self.disc
        state[core.ST_MOVES_REMAINING] = self.remaining
        state[core.ST_LEVEL] = self.level
        state[core.ST_SCORE] = self.score
        return state


def parse_position(line: str) -> PositionMessage:
    """Parse a ``position`` line (fields in the order of :data:`POSITION_FIELDS`)."""
    words = line.split()
    if len(words) != 1 + 2 * len(POSITION_FIELDS) or words[0] != POSITION:
        raise MessageError(f"expected '{POSITION} board ROWS disc D remaining M level L "
                           f"score S', got {line.strip()!r}")
    keys, values = words[1::2], words[2::2]
    if tuple(keys) != POSITION_FIELDS:
        raise MessageError(f"position fields must be {' '.join(POSITION_FIELDS)}, got "
                           f"{' '.join(keys)}")
    try:
        cols = rows_to_cols(values[0].split("/"))
    except BoardError as exc:
        raise MessageError(f"position board: {exc}") from None
    if core.scan(cols, game_arrays()[2]) != 0:
        raise MessageError("position board: a disc on it would pop (a game's position is "
                           "settled)")
    numbers = []
    for key, value in zip(keys[1:], values[1:], strict=True):
        lo, hi = POSITION_RANGES[key]
        if not (value.isascii() and value.isdigit() and len(value) <= 20
                and lo <= int(value) <= hi):
            raise MessageError(f"position {key} must be an integer in {lo}..{hi}, got "
                               f"{value[:40]!r}")
        numbers.append(int(value))
    return PositionMessage(cols, *numbers)


def go_line(decision: int, movetime_ms: int | None) -> str:
    """``go id N`` or ``go id N movetime MS`` (``N`` the decision's number)."""
    line = f"{GO} id {decision}"
    return line if movetime_ms is None else f"{line} movetime {movetime_ms}"


@dataclass(frozen=True)
class Go:
    """A parsed ``go``: the decision's number and the movetime (``None`` when not given)."""

    decision: int
    movetime_ms: int | None


def _number(word: str) -> int | None:
    """A non-negative decimal integer of ASCII digits (leading zeros allowed), else None."""
    return int(word) if word.isascii() and word.isdigit() else None


def parse_go(line: str) -> Go:
    """Parse ``go id N`` or ``go id N movetime MS``."""
    words = line.split()
    if (len(words) in (3, 5) and words[:2] == [GO, "id"] and _number(words[2]) is not None
            and (len(words) == 3 or (words[3] == "movetime" and _number(words[4]) is not None))):
        return Go(int(words[2]), int(words[4]) if len(words) == 5 else None)
    raise MessageError(f"expected 'go id N' or 'go id N movetime MS', got {line.strip()!r}")


def move_line(column: int, decision: int) -> str:
    """The program's answer ``move C id N`` to ``go id N``."""
    return f"{MOVE} {column} id {decision}"


def parse_move(line: str) -> tuple[int, int] | None:
    """``(column, decision)`` of an answer ``move C id N``; ``None`` for any other line.

    The line is split at runs of ASCII whitespace, so surrounding spaces and a ``\\r``
    before the newline are dropped; C and N are ASCII digits, leading zeros
    allowed (``move 03 id 7`` is column 3), no sign (``move +3 id 7`` and ``move -1 id 7``
    are not answers).  Any C is returned; the harness checks it is legal."""
    words = line.split()
    if len(words) != 4 or words[0] != MOVE or words[2] != "id":
        return None
    column, decision = _number(words[1]), _number(words[3])
    return None if column is None or decision is None else (column, decision)


def split(line: str) -> tuple[str, str]:
    """A line's first word and the rest (stripped)."""
    word, _, rest = line.strip().partition(" ")
    return word, rest.strip()


def feature_line(name: str) -> str:
    """``feature NAME VERSION``: the program offers a feature at the version this harness
    speaks (:data:`FEATURES`)."""
    return f"{FEATURE} {name} {FEATURES[name]}"


def values_request(decision: int) -> str:
    """``values id N``: the value of every column of the last ``position`` (N numbers it,
    counted with the ``go`` lines)."""
    return f"{VALUES} id {decision}"


def parse_values_request(line: str) -> int:
    """The number N of ``values id N``."""
    words = line.split()
    if len(words) == 3 and words[:2] == [VALUES, "id"] and _number(words[2]) is not None:
        return int(words[2])
    raise MessageError(f"expected 'values id N', got {line.strip()!r}")


def values_answer(decision: int, values: np.ndarray) -> str:
    """``values id N V0 V1 V2 V3 V4 V5 V6``: each column's value as Python writes a float
    (it reads back exactly), :data:`NO_VALUE` for an illegal column (NaN or -inf)."""
    words = [NO_VALUE if not math.isfinite(v) else repr(float(v)) for v in values]
    return f"{VALUES} id {decision} {' '.join(words)}"


def parse_values_answer(line: str) -> tuple[int, list[float | None]] | None:
    """``(N, [V0 .. V6])`` of ``values id N V0 .. V6`` (None for :data:`NO_VALUE`); ``None``
    for any other line: seven fields, each a finite decimal number (``12``, ``-3.5``,
    ``1e+06``) or ``-``."""
    words = line.split()
    if len(words) != 10 or words[:2] != [VALUES, "id"] or _number(words[2]) is None:
        return None
    values: list[float | None] = []
    for word in words[3:]:
        if word == NO_VALUE:
            values.append(None)
        elif word.isascii() and _NUMBER.fullmatch(word) and math.isfinite(float(word)):
            values.append(float(word))
        else:
            return None
    return int(words[2]), values
