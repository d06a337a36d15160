"""Work tickets: every task runs once, after the phases before it, and a slow thread's
share goes to the others (the lane trainer's scheduling, engines/train/tickets.py)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit, prange

from engines.train.tickets import DONE, SYNC_LEN, claim, finish, load_acquire, nap, wait_done

TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


@njit(parallel=True)
def _run(phases, per_phase, slow_us, done_by, seen):
    """``phases`` phases of ``per_phase`` tasks on two workers; worker 1 naps ``slow_us`` in
    every task it takes.  ``done_by[t]``: the worker of task ``t``; ``seen[t]``: the tasks
    done when it started."""
    sync = np.zeros(SYNC_LEN, dtype=np.int64)
    total = phases * per_phase
    for w in prange(2):
        while True:
            t = claim(sync)
            if t >= total:
                break
            wait_done(sync, t - t % per_phase)
            seen[t] = load_acquire(sync, DONE)
            if w == 1:
                nap(slow_us)
            done_by[t] = w
            finish(sync)


def _tickets(threads: int, slow_us: int, phases: int = 50, per_phase: int = 8):
    done_by = np.full(phases * per_phase, -1, dtype=np.int64)
    seen = np.zeros(phases * per_phase, dtype=np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        _run(phases, per_phase, slow_us, done_by, seen)
    finally:
        numba.set_num_threads(before)
    starts = np.arange(phases * per_phase) // per_phase * per_phase
    return done_by, seen, starts


def test_one_thread_runs_every_task_in_phase_order() -> None:
    """One thread runs both workers' loops one after the other: the first takes every task
    (nothing waits for a worker that has not started)."""
    done_by, seen, starts = _tickets(1, 0)
    assert done_by.tolist() == [0] * len(done_by)
    assert (seen == np.arange(len(seen))).all()  # strictly in ticket order
    assert (seen >= starts).all()


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_a_slow_thread_does_less_and_holds_up_only_its_own_task() -> None:
    """Worker 1 naps 2 ms a task: worker 0 takes most tasks, each task once, and no task starts
    before every task of the phases before its own is done."""
    done_by, seen, starts = _tickets(2, 2000)
    assert set(done_by.tolist()) <= {0, 1} and (done_by >= 0).all()
    assert (seen >= starts).all()
    # with static shares worker 1 would run half the tasks; here about one a phase (1/8)
    assert (done_by == 1).sum() < len(done_by) // 4, np.bincount(done_by)
