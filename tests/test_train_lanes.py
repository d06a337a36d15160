"""Training in lanes: one lane is the sequential trainer, the thread count changes nothing,
chunks, segments and resume equal one run, and the refusals of ``drop7 train --lanes``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numba
import numpy as np
import pytest
from test_train_kernel import SEEDS, wide_spec

from cli.main import main
from engines.drop7 import core
from engines.held_core import held_core
from engines.ntuple.layouts import INITIAL_VALUE, get_layout
from engines.train import kernel as kern
from engines.train.lanes import (
    S_OWED,
    S_SIT,
    SIT_ROUNDS,
    SLOW_TICKS,
    T_SAT,
    T_SIT,
    TICKS_LEN,
    new_sitting,
    owner,
    train_rounds,
)
from engines.weights_files import alloc_zeroed

CLI_SEEDS = "0x1000000000000000:1000000"
TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


def _lanes(spec, lanes: int, chunks: list[int], parts: int, threads: int = 1,
           zeroed: bool = False, slow_ticks: int = SLOW_TICKS, ticks=None, sitting=None,
           cores: int | None = None, count_path: str | None = None):
    """Tables and carry after ``sum(chunks)`` rounds of ``lanes`` lanes (fresh tables);
    ``cores`` 0 calls the machine always crowded, so a slow task always sits out."""
    ticks = np.zeros(TICKS_LEN, dtype=np.int64) if ticks is None else ticks
    entries = int(spec[2])
    vals = alloc_zeroed((entries,)) if zeroed else np.zeros(entries, dtype=np.float32)
    acc = alloc_zeroed((entries, 2)) if zeroed else np.zeros((entries, 2), dtype=np.float32)
    carry = np.zeros((lanes, kern.C_LEN), dtype=np.int64)
    carry[:, kern.C_GAME] = np.arange(lanes)
    state = np.zeros((lanes, core.ST_LEN), dtype=np.int64)
    cols = np.zeros((lanes, 7), dtype=np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for rounds in chunks:
            train_rounds(vals, acc, INITIAL_VALUE, spec, 1.0, np.uint64(SEEDS.start),
                         SEEDS.count, carry, state, cols, rounds, parts, np.zeros(kern.F_LEN),
                         ticks, slow_ticks, sitting, cores, count_path)
    finally:
        numba.set_num_threads(before)
    return vals, acc, carry


def _sha(vals: np.ndarray, acc: np.ndarray) -> str:
    h = hashlib.sha256(memoryview(vals).cast("B"))
    h.update(memoryview(acc.reshape(-1)).cast("B"))
    return h.hexdigest()[:16]


def test_one_lane_is_the_sequential_trainer_bit_for_bit() -> None:
    """The pinned hashes of kernel.train_moves (tests/test_train_kernel.py), in any chunks and
    learn-phase partitions."""
    assert _sha(*_lanes(get_layout("T3").spec, 1, [3000], 1)[:2]) == "c5d4c8023241685f"
    assert _sha(*_lanes(wide_spec(), 1, [3000], 1)[:2]) == "e03193d8fa3eafb8"
    assert _sha(*_lanes(wide_spec(), 1, [1000, 1, 1999], 3)[:2]) == "e03193d8fa3eafb8"


@pytest.mark.parametrize("lanes", [1, 4, 16])
def test_tables_do_not_depend_on_threads_parts_or_chunks(lanes: int) -> None:
    """All 74 slots: T = 1 and T = 2 threads, 1, 2 or 7 learn parts, one call or three."""
    rounds = 3200 // lanes
    ref = _lanes(wide_spec(), lanes, [rounds], 1)
    cases = [([rounds], 2, 1), ([rounds // 3, 1, rounds - rounds // 3 - 1], 7, 1)]
    if TWO_THREADS:
        cases += [([rounds], 2, 2), ([rounds // 2, rounds - rounds // 2], 3, 2)]
    for chunks, parts, threads in cases:
        got = _lanes(wide_spec(), lanes, chunks, parts, threads)
        assert _sha(*got[:2]) == _sha(*ref[:2]), (chunks, parts, threads)
        assert np.array_equal(got[2], ref[2])
    carry = ref[2]
    assert carry[:, kern.C_MOVES].tolist() == [rounds] * lanes
    # lane l plays games l, l + L, ...: its next game is l + L * (games it finished)
    assert carry[:, kern.C_GAME].tolist() == [
        lane + lanes * int(carry[lane, kern.C_GAMES_DONE]) for lane in range(lanes)]
    assert carry[:, kern.C_GAMES_DONE].sum() > 10


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_workers_sitting_out_any_rounds_keep_the_bits() -> None:
    """With ``slow_ticks`` 0 every task looks descheduled: a worker sits out after each task
    it runs while the other runs the rest (rounds sat out counted), and the tables and lanes
    are one thread's; one thread never sits out."""
    rounds = 3200 // 16
    ref = _lanes(wide_spec(), 16, [rounds], 1)
    ticks = np.zeros(TICKS_LEN, dtype=np.int64)
    got = _lanes(wide_spec(), 16, [rounds // 3, rounds - rounds // 3], 5, 2, slow_ticks=0,
                 ticks=ticks, cores=0)
    assert _sha(*got[:2]) == _sha(*ref[:2]) and np.array_equal(got[2], ref[2])
    assert ticks[T_SAT] > 0
    alone = np.zeros(TICKS_LEN, dtype=np.int64)
    _lanes(wide_spec(), 16, [rounds], 5, 1, slow_ticks=0, ticks=alone, cores=0)
    assert alone[T_SAT] == 0


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_a_slow_task_on_a_machine_with_a_core_for_every_thread_sits_nobody_out() -> None:
    """Every task looks descheduled, but the machine has fewer runnable threads than cores
    (a million, here): a hiccup of the host, not a competitor, so nobody sits out."""
    rounds = 3200 // 16
    ref = _lanes(wide_spec(), 16, [rounds], 1)
    ticks = np.zeros(TICKS_LEN, dtype=np.int64)
    got = _lanes(wide_spec(), 16, [rounds], 5, 2, slow_ticks=0, ticks=ticks, cores=10**6)
    assert _sha(*got[:2]) == _sha(*ref[:2]) and np.array_equal(got[2], ref[2])
    assert ticks[T_SAT] == 0 and ticks[T_SIT] == 0


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_sitting_out_carries_over_calls_and_keeps_the_bits() -> None:
    """A sitting-out state kept from call to call, in calls of 7 rounds (shorter than a first
    sit-out): the sit-outs grow past twice ``SIT_ROUNDS``, which they can only do from a
    sit-out a call's end cut short and the next calls finished (resting); the tables and
    lanes are still one thread's.  A fresh state in each call grows at most once (a second
    worker slow on the call's last task, as the first comes back, doubles the team's
    sit-out), never twice."""
    rounds = 3200 // 16
    chunks = [7] * 20 + [rounds - 140]
    ref = _lanes(wide_spec(), 16, [rounds], 1)
    sitting, ticks = new_sitting(), np.zeros(TICKS_LEN, dtype=np.int64)
    got = _lanes(wide_spec(), 16, chunks, 3, 2, slow_ticks=0, ticks=ticks, sitting=sitting,
                 cores=0)
    assert _sha(*got[:2]) == _sha(*ref[:2]) and np.array_equal(got[2], ref[2])
    assert sitting[:, 0, S_SIT].max() > 2 * SIT_ROUNDS and ticks[T_SAT] > 0
    fresh = new_sitting()
    for chunk in chunks[:20]:
        one = new_sitting()
        _lanes(wide_spec(), 16, [chunk], 3, 2, slow_ticks=0, sitting=one, cores=0)
        fresh = np.maximum(fresh, one)
    assert fresh[:, 0, S_SIT].max() <= 2 * SIT_ROUNDS


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
@pytest.mark.parametrize("crowded", [True, False])
def test_a_worker_owing_rounds_rests_while_the_machine_is_crowded(crowded: bool) -> None:
    """Worker 1 owes 100 rounds of a sit-out: on a crowded machine two 8-round calls run on
    worker 0 alone (16 rounds sat out, 84 still owed: the second call had two threads
    again to rest one of); on a free one both work and nothing is owed.  The bits are one
    thread's either way."""
    ref = _lanes(wide_spec(), 16, [16], 1)
    sitting, ticks = new_sitting(), np.zeros(TICKS_LEN, dtype=np.int64)
    sitting[1, 0, S_OWED] = 100
    got = _lanes(wide_spec(), 16, [8, 8], 3, 2, ticks=ticks, sitting=sitting,
                 cores=0 if crowded else 10**6)
    assert _sha(*got[:2]) == _sha(*ref[:2]) and np.array_equal(got[2], ref[2])
    assert sitting[1, 0, S_OWED] == (84 if crowded else 0)
    assert ticks[T_SAT] == (16 if crowded else 0)


def test_lanes_change_the_tables_and_layout_e_ignores_the_threads() -> None:
    """16 lanes on layout E (fresh pages cost nothing): T = 1 and T = 2 give the same SHA-256
    of values and accumulators, and not those of one lane."""
    spec = get_layout("E").spec
    one = _sha(*_lanes(spec, 16, [40], 1, zeroed=True)[:2])
    assert one == _sha(*_lanes(spec, 16, [40], 2, threads=2 if TWO_THREADS else 1,
                               zeroed=True)[:2])
    assert one != _sha(*_lanes(spec, 1, [640], 1, zeroed=True)[:2])


@pytest.mark.skipif(not TWO_THREADS, reason="needs two threads")
def test_two_threads_beside_a_competing_process_keep_the_bits() -> None:
    """A busy loop in another process holds a core (niced, a few seconds at most) while two
    threads train 16 lanes in several chunks and learn parts: the tables and every lane's
    game are those of one thread, one part."""
    rounds = 3200 // 16
    ref = _lanes(wide_spec(), 16, [rounds], 1)
    cases = [([rounds], 16), ([rounds // 4, 1, rounds - rounds // 4 - 1], 3), ([rounds], 32)]
    with held_core(20, nice=5) as competitor:
        got = [_lanes(wide_spec(), 16, chunks, parts, threads=2) for chunks, parts in cases]
        assert competitor.poll() is None  # it held its core throughout
    for (chunks, parts), (vals, acc, carry) in zip(cases, got, strict=True):
        assert _sha(vals, acc) == _sha(*ref[:2]), (chunks, parts)
        assert np.array_equal(carry, ref[2])


def test_owner_partitions_entries_into_every_part() -> None:
    blocks = np.arange(0, 64 * 4000, 64, dtype=np.int64)
    for parts in (1, 2, 3, 16, 32):
        owners = [owner(int(i), parts) for i in blocks]
        assert min(owners) == 0 and max(owners) == parts - 1
        counts = np.bincount(owners, minlength=parts)
        assert counts.min() > 0.7 * len(blocks) / parts  # about balanced
        assert owner(int(blocks[5]) + 63, parts) == owners[5]  # a block has one owner


# ---- drop7 train --lanes --------------------------------------------------------------------

def _train(out: Path, moves: int, every: int, *extra: str) -> int:
    return main(["train", "--layout", "T1", "--moves", str(moves), "--every", str(every),
                 "--seeds", CLI_SEEDS, "--out", str(out), "--log-every", "1000", "--lanes", "4",
                 *extra])


def _step_sha(directory: Path) -> str:
    return json.loads((directory / "manifest.json").read_text())["sha256"]


def test_resume_and_segments_of_four_lanes_equal_one_run(tmp_path: Path) -> None:
    assert _train(tmp_path / "once", 2400, 800) == 0
    assert _train(tmp_path / "twice", 1000, 800) == 0         # stops at 1000 (mid-interval)
    assert _train(tmp_path / "twice", 2400, 800, "--resume") == 0
    seg = tmp_path / "seg"
    for start, end in ((0, 800), (800, 1600), (1600, 2400)):
        assert _train(seg, end, 800, "--start", str(start)) == 0
    threads = "2" if TWO_THREADS else "1"
    assert _train(tmp_path / "threads", 2400, 800, "--threads", threads) == 0
    for step in (800, 1600, 2400):
        ref = _step_sha(tmp_path / "once" / f"step-{step}")
        for other in ("twice", "seg", "threads"):
            assert _step_sha(tmp_path / other / f"step-{step}") == ref, (other, step)
    manifest = json.loads((tmp_path / "once" / "latest" / "manifest.json").read_text())
    assert manifest["config"]["lanes"] == 4
    assert manifest["format"] == "drop7-train-lanes-resume-v1"
    state = json.loads((tmp_path / "once" / "latest" / "state.json").read_text())
    assert state["lanes"] == 4 and len(state["carry"]) == 4 and len(state["cols"]) == 4
    # the lanes are part of the config: one lane does not resume a four-lane state
    assert main(["train", "--layout", "T1", "--moves", "3200", "--seeds", CLI_SEEDS, "--out",
                 str(tmp_path / "once"), "--resume"]) == 2


def test_one_lane_keeps_the_sequential_config_and_format(tmp_path: Path) -> None:
    out = tmp_path / "one"
    assert main(["train", "--layout", "T1", "--moves", "300", "--seeds", CLI_SEEDS, "--out",
                 str(out), "--lanes", "1", "--threads", "2" if TWO_THREADS else "1"]) == 0
    manifest = json.loads((out / "latest" / "manifest.json").read_text())
    assert "lanes" not in manifest["config"]
    assert manifest["format"] == "drop7-train-resume-v1"
    state = json.loads((out / "latest" / "state.json").read_text())
    assert "lanes" not in state and len(state["cols"]) == 7


@pytest.mark.parametrize("argv, message", [
    (["--layout", "T1", "--moves", "10", "--lanes", "0"], "--lanes must be in 1.."),
    (["--layout", "linear", "--moves", "10", "--lanes", "2"], "linear-trained trains in one"),
    (["--layout", "T1", "--moves", "10", "--lanes", "4"], "--moves 10 is not a multiple"),
    (["--layout", "T1", "--moves", "16", "--every", "6", "--lanes", "4"],
     "--every 6 is not a multiple"),
    (["--layout", "T1", "--moves", "16", "--start", "2", "--lanes", "4"],
     "--start 2 is not a multiple"),
    (["--layout", "T1", "--moves", "16", "--threads", "0"], "--threads must be in 1.."),
    (["--layout", "T1", "--moves", "16", "--threads", "100000"], "--threads must be in 1.."),
])
def test_bad_lanes_exit_2(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    code = main(["train", *argv, "--seeds", CLI_SEEDS, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err and message in err[-1] and err[-1].startswith("drop7 train: error:")
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_resuming_with_another_lane_count_says_the_lane_counts(tmp_path: Path, capsys) -> None:
    """One lane on a four-lane state said "not a drop7-train-resume-v1 state"."""
    assert _train(tmp_path / "four", 800, 800) == 0
    capsys.readouterr()
    for lanes in ("1", "2"):
        assert main(["train", "--layout", "T1", "--moves", "1600", "--every", "800", "--seeds",
                     CLI_SEEDS, "--out", str(tmp_path / "four"), "--lanes", lanes,
                     "--resume"]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "lane count mismatch: the state was trained in 4 lane(s), " \
            f"this run trains in {lanes} (--lanes)" in err, err
