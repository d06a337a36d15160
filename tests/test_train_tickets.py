"""Work tickets: every task runs once, after the phases before it, and a slow thread's
share goes to the others (the lane trainer's scheduling, engines/train/tickets.py)."""

from __future__ import annotations

import resource

import numba
import numpy as np
import pytest
from numba import njit, prange

from engines.train.cycles import cycle_counter
from engines.train.tickets import (
    SPIN_TICKS,
    done_count,
    fetch_add,
    finish,
    nap,
    sync_len,
    take,
    wait_done,
)

TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


@njit(parallel=True)
def _run(phases, per_phase, task_us, slow_us, done_by, seen, runs):
    """``phases`` phases of ``per_phase`` tasks on two workers, each phase in two ranges; a
    task naps ``task_us``, and ``slow_us`` more on worker 1.  ``done_by[t]``: the worker of task
    ``t``; ``seen[t]``: the tasks done when it started; ``runs[t]``: how often it ran."""
    sync = np.zeros(sync_len(2), dtype=np.int64)
    for w in prange(2):
        for q in range(phases):
            wait_done(sync, q * per_phase)
            j = 0
            while True:
                k, j = take(sync, w, 2, (per_phase,), q, 0, j)
                if k < 0:
                    break
                seen[q * per_phase + k] = done_count(sync)
                fetch_add(runs, q * per_phase + k, 1)
                if task_us + w * slow_us > 0:
                    nap(task_us + w * slow_us)
                done_by[q * per_phase + k] = w
                finish(sync, w)


def _tickets(threads: int, slow_us: int, phases: int = 50, per_phase: int = 8,
             task_us: int = 0):
    done_by = np.full(phases * per_phase, -1, dtype=np.int64)
    seen = np.zeros(phases * per_phase, dtype=np.int64)
    runs = np.zeros(phases * per_phase, dtype=np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        _run(phases, per_phase, task_us, slow_us, done_by, seen, runs)
    finally:
        numba.set_num_threads(before)
    assert runs.tolist() == [1] * len(runs)  # every task ran, and only once
    starts = np.arange(phases * per_phase) // per_phase * per_phase
    return done_by, seen, starts


def test_one_thread_runs_every_task_in_phase_order() -> None:
    """One thread runs both workers' loops one after the other: the first takes every task,
    its own range's and the other's (nothing waits for a worker that has not started)."""
    done_by, seen, starts = _tickets(1, 0)
    assert done_by.tolist() == [0] * len(done_by)
    assert (seen == np.arange(len(seen))).all()  # strictly in order
    assert (seen >= starts).all()


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_a_slow_thread_does_less_and_holds_up_only_its_own_task() -> None:
    """Worker 1 naps 2 ms a task: worker 0 takes most of worker 1's range too, each task runs
    once, and no task starts before every task of the phases before its own is done."""
    done_by, seen, starts = _tickets(2, 2000)
    assert set(done_by.tolist()) <= {0, 1} and (done_by >= 0).all()
    assert (seen >= starts).all()
    # with static shares worker 1 would run half the tasks (its range); here about one a
    # phase (1/8)
    assert (done_by == 1).sum() < len(done_by) // 4, np.bincount(done_by)


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_idle_workers_keep_to_their_own_ranges() -> None:
    """Equal tasks (a 200 us nap each) on two threads: each runs mostly its own range (in
    the lane trainer, the lanes whose rows its cache holds)."""
    done_by, _, _ = _tickets(2, 0, phases=30, per_phase=16, task_us=200)
    own = np.arange(len(done_by)) % 16 >= 8  # worker 1's range is the second half
    assert (done_by == own).mean() > 0.6, done_by.reshape(30, 16)


@njit(parallel=True)
def _one_waits(busy_ticks, waited):
    """Worker 0 works ``busy_ticks`` cycles on the one task; worker 1 waits for it."""
    sync = np.zeros(sync_len(1), dtype=np.int64)
    for w in prange(2):
        if w == 0:
            t0 = cycle_counter()
            while cycle_counter() - t0 < busy_ticks:
                pass
            finish(sync, w)
        else:
            waited[0] = wait_done(sync, 1)


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_a_long_wait_naps_after_spinning() -> None:
    """A wait of a thousand spins' length gives the core back: the waiter sleeps (switches
    out voluntarily) again and again; spinning, it would switch out only as the parallel
    region starts and ends."""
    waited = np.zeros(1, dtype=np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        _one_waits(10, waited)  # compile
        switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
        _one_waits(1000 * SPIN_TICKS, waited)
        switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - switches
    finally:
        numba.set_num_threads(before)
    assert waited[0] > SPIN_TICKS  # it did wait past the spin
    # a nap is 70 us or more (much more on a loaded machine); a short region switches
    # out about 5 times (the threads sleeping at its start and end)
    assert switches >= 25, switches
