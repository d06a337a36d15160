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

#: the first line of the hashed text (the definition's version)
TRAJECTORY_FORMAT = "drop7-trajectory-v1"


def seed_hex(seed: int) -> str:
    """A 64-bit seed as the seed bank writes it: ``0x`` and 16 lowercase hex digits."""
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed {seed} is not in 0..2**64-1")
    return f"0x{seed:016x}"


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
