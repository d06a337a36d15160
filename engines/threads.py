"""Threads that wait block: numba's OpenMP threads sleep at a barrier instead of spinning.

The lanes trainer (:mod:`engines.train.lanes`) opens one parallel region a
call; inside it, its threads wait for each other's tasks on their own terms
(spin briefly, then nap: :mod:`engines.train.tickets`), but a thread that
has run out of tasks still meets libgomp's barrier at the region's end, and
libgomp's default is to spin there for about 300,000 iterations
(milliseconds) before sleeping: when another process holds one of the two
cores, that spin burns the core a working thread needs (docs/training.md,
"Lanes", scheduling).  ``passive`` makes a waiting thread sleep at
once (a futex), giving its core back.  libgomp reads the setting once, when
numba first loads it, so it is set when ``engines`` is imported, before any
parallel kernel runs; an ``OMP_WAIT_POLICY`` already in the environment is
kept (a user's explicit choice).  Which thread waits how long never changes
a result: the tables depend on the lanes and seeds only.
"""

from __future__ import annotations

import os

#: the OpenMP wait policy the engine's threads use unless the environment names one
WAIT_POLICY = "passive"


def block_while_waiting() -> None:
    """Ask OpenMP (numba's threading layer) to sleep, not spin, at a barrier."""
    os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
