"""The machine's runnable-thread count, read from compiled code, and how a sitting lane
thread uses it (engines/train/machine_load.py, engines/train/lanes.py)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from test_train_kernel import wide_spec
from test_train_lanes import _lanes, _sha

from engines.train.lanes import SIT_ROUNDS, T_SAT, TICKS_LEN, _sit_out
from engines.train.machine_load import (
    BUF_LEN,
    count_file,
    crowded,
    path_bytes,
    runnable_threads,
)
from engines.train.tickets import LINE, done_slot, sync_len

TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


def _count(tmp_path: Path, text: str) -> np.ndarray:
    f = tmp_path / "loadavg"
    f.write_text(text)
    return path_bytes(str(f))


def _buf() -> np.ndarray:
    return np.zeros(BUF_LEN, dtype=np.uint8)


def test_the_count_is_the_fourth_field_before_its_slash(tmp_path: Path) -> None:
    assert runnable_threads(_count(tmp_path, "0.00 0.01 0.05 17/300 123\n"), _buf()) == 17
    assert runnable_threads(_count(tmp_path, "1.5 1.2 0.9 3/81 99"), _buf()) == 3


@pytest.mark.parametrize("text", ["", "garbage\n", "0.00 0.01 0.05 x/300 1\n",
                                  "0.00 0.01 0.05 17\n", "0.00 0.01 0.05 /300 1\n"])
def test_no_count_is_minus_one(tmp_path: Path, text: str) -> None:
    path = _count(tmp_path, text)
    assert runnable_threads(path, _buf()) == -1
    assert crowded(path, _buf(), 2) == -1


def test_a_missing_file_is_no_signal(tmp_path: Path) -> None:
    assert runnable_threads(path_bytes(str(tmp_path / "none")), _buf()) == -1
    assert crowded(path_bytes(str(tmp_path / "none")), _buf(), 2) == -1


def test_crowded_when_more_threads_run_than_cores(tmp_path: Path) -> None:
    path = _count(tmp_path, "0.1 0.1 0.1 3/100 7\n")
    assert crowded(path, _buf(), 2) == 1
    assert crowded(path, _buf(), 3) == 0
    assert crowded(path, _buf(), 0) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /proc/loadavg")
def test_the_machine_counts_at_least_the_reader() -> None:
    assert runnable_threads(count_file(), _buf()) >= 1


def _sync_at(done: int) -> np.ndarray:
    sync = np.zeros(sync_len(2), dtype=np.int64)
    sync[done_slot(1)] = done
    return sync


def test_a_sitter_comes_back_at_the_round_under_way_once_no_thread_waits(
        tmp_path: Path) -> None:
    """10 tasks a round, 35 done: round 3 is under way; sat from round 2 to go to round 100,
    the sitter looks after its first nap, sees a core for every thread, and goes on from
    round 3 (its seat given back, one round counted as sat out)."""
    seats, ticks = np.zeros(LINE, dtype=np.int64), np.zeros(TICKS_LEN, dtype=np.int64)
    seats[0] = 1
    free = _count(tmp_path, "0.1 0.1 0.1 1/100 7\n")
    assert _sit_out(_sync_at(35), seats, ticks, 2, 100, 10, SIT_ROUNDS, free, _buf(), 2) == 3
    assert seats[0] == 0 and ticks[T_SAT] == 1


def test_a_sitter_on_a_crowded_machine_waits_for_its_round(tmp_path: Path) -> None:
    """Crowded: the sitter goes on only at the round it sat out to (here already reached)."""
    seats, ticks = np.zeros(LINE, dtype=np.int64), np.zeros(TICKS_LEN, dtype=np.int64)
    seats[0] = 1
    busy = _count(tmp_path, "0.1 0.1 0.1 9/100 7\n")
    assert _sit_out(_sync_at(1000), seats, ticks, 2, 100, 10, SIT_ROUNDS, busy, _buf(), 2) == 100
    assert seats[0] == 0 and ticks[T_SAT] == 98


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_sitters_brought_back_when_the_machine_frees_keep_the_bits(tmp_path: Path) -> None:
    """Every task looks descheduled and the count file says crowded, so a worker keeps sitting
    out; partway through the count drops below the cores and the sitter comes back at the
    round under way: the tables and lanes are still one thread's."""
    count = tmp_path / "loadavg"
    count.write_text("0.1 0.1 0.1 9/100 7\n")
    rounds = 3200 // 16

    def free_later() -> None:
        time.sleep(0.02)
        count.write_text("0.1 0.1 0.1 1/100 7\n")

    flip = threading.Thread(target=free_later)
    flip.start()
    try:
        ticks = np.zeros(TICKS_LEN, dtype=np.int64)
        got = _lanes(wide_spec(), 16, [rounds] * 4, 5, 2, slow_ticks=0, ticks=ticks, cores=2,
                     count_path=str(count))
    finally:
        flip.join()
    ref = _lanes(wide_spec(), 16, [rounds * 4], 1)
    assert _sha(*got[:2]) == _sha(*ref[:2]) and np.array_equal(got[2], ref[2])
