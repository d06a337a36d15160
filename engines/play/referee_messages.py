"""The referee protocol's messages, version 1: every line either side writes, in one place.

The harness (:mod:`engines.play.referee`) and ``drop7 serve``
(:mod:`engines.play.serve`) both build and parse their lines here, so the two
sides cannot drift apart; docs/referee.md describes the protocol for anyone
writing a program of their own.  A line is ASCII words separated by single
spaces, ended by ``\\n``.  The board is the replay format's notation (seven
rows of seven digits, top row first, :mod:`engines.drop7.board`), its rows
joined by ``/``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.drop7.board import MOVES_PER_LEVEL, BoardError, cols_to_rows, rows_to_cols

#: the protocol's version, sent in the harness's first line
VERSION = 1
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
class Position:
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


def parse_position(line: str) -> Position:
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
    if core.scan(cols, np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)) != 0:
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
    return Position(cols, *numbers)


def go_line(movetime_ms: int | None) -> str:
    """``go`` or ``go movetime MS``."""
    return GO if movetime_ms is None else f"{GO} movetime {movetime_ms}"


def parse_go(line: str) -> int | None:
    """The movetime of a ``go`` line (``None`` when not given)."""
    words = line.split()
    if words == [GO]:
        return None
    if len(words) == 3 and words[:2] == [GO, "movetime"] and words[2].isdigit():
        return int(words[2])
    raise MessageError(f"expected 'go' or 'go movetime MS', got {line.strip()!r}")


def move_line(column: int) -> str:
    """The program's answer ``move C``."""
    return f"{MOVE} {column}"


def parse_move(line: str) -> int | None:
    """The column of a ``move C`` answer, any integer C (the harness checks it is legal);
    ``None`` for a line that is not ``move`` and one integer."""
    words = line.split()
    if (len(words) == 2 and words[0] == MOVE and words[1].lstrip("-").isdigit()
            and words[1].isascii()):
        return int(words[1])
    return None


def split(line: str) -> tuple[str, str]:
    """A line's first word and the rest (stripped)."""
    word, _, rest = line.strip().partition(" ")
    return word, rest.strip()
