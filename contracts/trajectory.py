"""The trajectory checksum of a game: its seed, its moves and its score after every move.

Defined in docs/engine.md ("Trajectory checksum") so that any engine can
compute it: the SHA-256 (lowercase hex) of the ASCII text ::

    drop7-trajectory-v1
    seed 0x<seed as 16 lowercase hex digits>
    <column> <score after the move>      (one line per move played, in order)

every line ending in ``\\n`` (a game of no moves is the first two lines).
Columns are 0..6 from the left; scores are the running total in decimal.
The games table's ``trajectory`` column and the register's
``trajectoryChecksum`` hold it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from contracts.cli_numbers import seed_hex

#: the first line of the hashed text (the definition's version)
TRAJECTORY_FORMAT = "drop7-trajectory-v1"


def trajectory_text(seed: int, moves: Sequence[int], scores: Sequence[int]) -> str:
    """The text whose SHA-256 is the checksum (see the module docstring)."""
    if len(moves) != len(scores):
        raise ValueError(f"{len(moves)} moves but {len(scores)} scores")
    lines = [TRAJECTORY_FORMAT, f"seed {seed_hex(seed)}"]
    lines += [f"{int(c)} {int(s)}" for c, s in zip(moves, scores, strict=True)]
    return "".join(line + "\n" for line in lines)


def trajectory_checksum(seed: int, moves: Sequence[int], scores: Sequence[int]) -> str:
    """SHA-256 hex of :func:`trajectory_text`."""
    return hashlib.sha256(trajectory_text(seed, moves, scores).encode("ascii")).hexdigest()
