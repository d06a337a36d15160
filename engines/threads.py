"""Threads that wait block: numba's OpenMP threads sleep at a barrier instead of spinning.

The lanes trainer (:mod:`engines.train.lanes`) meets two barriers every
round, tens of microseconds apart.  libgomp's default is to spin at a
barrier for about 300,000 iterations (milliseconds) before sleeping: when
another process holds one of the two cores, the waiting thread burns the
core the working thread needs, and two threads fall to a few thousand moves
a second (docs/training.md, "Lanes on a busy machine").  ``passive`` makes a
waiting thread sleep at once (a futex), giving its core back.  libgomp reads
the setting once, when numba first loads it, so it is set when ``engines`` is
imported, before any parallel kernel runs; an ``OMP_WAIT_POLICY`` already in
the environment is kept (a user's explicit choice).  Which thread waits how
long never changes a result: the tables depend on the lanes and seeds only.
"""

from __future__ import annotations

import os

#: the OpenMP wait policy the engine's threads use unless the environment names one
WAIT_POLICY = "passive"


def block_while_waiting() -> None:
    """Ask OpenMP (numba's threading layer) to sleep, not spin, at a barrier."""
    os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
