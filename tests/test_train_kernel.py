"""The TC-TD trainer: the update rule by hand, the drop shortcut, move choice, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from engines.drop7 import baselines, core
from engines.drop7.chance import canonicalise, chance_key, play_sample
from engines.drop7.core import quick_drop
from engines.drop7.game_loop import play_out
from engines.ntuple.layouts import INITIAL_VALUE, SPEC_MAGIC, get_layout
from engines.ntuple.value import entry_indices, gather, ntuple_value
from engines.train import kernel as kern
from engines.train.trainer import SeedRange
from engines.weights_files import alloc_zeroed

SEEDS = SeedRange(0x1000000000000000, 1 << 40)


def test_td_update_by_hand() -> None:
    """Two entries, bias 20 (offset storage), alpha 1: beta = |E| / A before each update."""
    vals = np.zeros(4, dtype=np.float32)
    acc = np.zeros((4, 2), dtype=np.float32)
    idx = np.array([1, 3], dtype=np.int64)
    # pred 20, target 25: delta 5, beta 1 -> each w += 5 / 2
    assert kern.td_update(vals, acc, 20.0, idx, 2, 25.0, 1.0) == 5.0
    assert vals.tolist() == [0.0, 2.5, 0.0, 2.5] and acc[1].tolist() == [5.0, 5.0]
    # pred 25, target 20: delta -5, beta |5| / 5 = 1 -> back to 0; E 0, A 10
    assert kern.td_update(vals, acc, 20.0, idx, 2, 20.0, 1.0) == -5.0
    assert vals.tolist() == [0.0] * 4 and acc[3].tolist() == [0.0, 10.0]
    # pred 20, target 30: delta 10 but beta = 0 / 10 = 0 -> no change; E 10, A 20
    assert kern.td_update(vals, acc, 20.0, idx, 2, 30.0, 1.0) == 10.0
    assert vals.tolist() == [0.0] * 4 and acc[1].tolist() == [10.0, 20.0]
    # pred 20, target 100: delta clamped to 30, beta 10 / 20, alpha 0.5 -> w += 0.5*0.5*30/2
    assert kern.td_update(vals, acc, 20.0, idx, 2, 100.0, 0.5) == 30.0
    assert vals[1] == pytest.approx(3.75) and acc[1].tolist() == [40.0, 50.0]
    assert vals[0] == 0.0 and vals[2] == 0.0


def _game_states(policies=(0, 1, 2), games: int = 60):
    """(cols, disc, moves_remaining) of every decision of some baseline games."""
    states = []
    for pol in policies:
        for g in range(games):
            seed = np.uint64(0x4000000000000000 + g)

            def record(st, cols, pol=pol, seed=seed) -> int:
                states.append((cols.copy(), int(st[core.ST_NEXT_DISC]),
                               int(st[core.ST_MOVES_REMAINING])))
                return baselines.baseline_choice(pol, seed, st, cols)

            play_out(seed, record)
    return states


def test_quick_drop_equals_the_engine() -> None:
    """On every legal drop of many settled boards: same board, points and end as the engine."""
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    quick = slow = 0
    for cols, disc, mr in _game_states():
        for c in range(7):
            if not core.is_legal(cols, c):
                continue
            a = cols.copy()
            ok, mr_a, pts, over = quick_drop(a, c, disc, mr)
            b = cols.copy()
            key = np.uint64(chance_key(cols, disc, mr, c))
            _, mr_b = play_sample(b, c, disc, mr, key, 7, 0,
                                  scratch, out)
            if ok:
                quick += 1
                assert np.array_equal(a, b) and mr_a == mr_b
                assert (pts, over) == (out[core.OUT_POINTS], bool(out[core.OUT_OVER]))
                assert out[core.OUT_WAVES] == 0
            else:
                slow += 1
                assert np.array_equal(a, cols)  # untouched
                assert out[core.OUT_WAVES] > 0
    assert quick > 1000 and slow > 1000


def test_choice_values_equal_direct_evaluation() -> None:
    """The incremental indices of choose_move give exactly ntuple_value of each sample board."""
    layout = get_layout("T3")
    rng = np.random.default_rng(3)
    tables = rng.standard_normal(layout.entries).astype(np.float32)
    work = kern.new_work(layout.spec)
    sboard, sval, smr, scount, spts = kern.samples_of(work)
    checked = 0
    for cols, disc, mr in _game_states(policies=(1,), games=40):
        c, v = kern.choose_move(tables, 0.0, layout.spec, cols, mr, disc, work)
        values = {}
        for col in range(7):
            for s in range(scount[col]):
                if smr[col, s] >= 0:
                    u = ntuple_value(sboard[col, s], smr[col, s], tables, layout.spec)
                    assert sval[col, s] == u
                    checked += 1
            if scount[col]:
                values[col] = float(np.mean(spts[col, :scount[col]] + sval[col, :scount[col]]))
        best = max(values.values())
        assert c == next(col for col in (3, 2, 4, 1, 5, 0, 6) if values.get(col) == best)
        assert v == best
    assert checked > 1000


def wide_spec() -> np.ndarray:
    """All 74 slots of layout A (columns phased) over one table of about 10^7 entries: the
    tuples' tables overlap, which the kernels never look at, so a test can use every slot
    without allocating 1.92 GB."""
    spec = np.zeros(3 + 3 * 74, dtype=np.int64)
    spec[0], spec[1], spec[2] = SPEC_MAGIC, 74, 997 * 73 + 4 * 10007 + 10**7
    for slot in range(74):
        spec[3 + 3 * slot:6 + 3 * slot] = (slot, 997 * slot, 10007 if 7 <= slot < 14 else 0)
    spec.setflags(write=False)  # as Layout.spec: the kernels compiled for it serve here too
    return spec


def test_choice_entries_and_values_equal_a_gather_from_scratch() -> None:
    """Every sample's entries (derived from the base or an earlier stratum) are its entries
    computed from scratch, and its U the exact float ntuple_value gives, on all 74 slots."""
    spec = wide_spec()
    rng = np.random.default_rng(7)
    tables = rng.standard_normal(int(spec[2])).astype(np.float32)
    work = kern.new_work(spec)
    sboard, sval, smr, scount, _ = kern.samples_of(work)
    sidx = work[kern.W_SIDX].reshape(7, kern.STRATA, -1)
    pat = np.zeros(74, dtype=np.int64)
    idx = np.zeros(74, dtype=np.int64)
    checked = strata = 0
    for cols, disc, mr in _game_states(policies=(0, 1), games=25):
        kern.choose_move(tables, 0.0, spec, cols, mr, disc, work)
        for col in range(7):
            strata += scount[col] == kern.STRATA
            for s in range(scount[col]):
                if smr[col, s] < 0:
                    continue
                entry_indices(sboard[col, s], smr[col, s], spec, pat, idx)
                assert sidx[col, s].tolist() == idx.tolist()
                assert sval[col, s] == ntuple_value(sboard[col, s], smr[col, s], tables, spec)
                checked += 1
    assert checked > 10000 and strata > 200


def _hash_of_training(spec: np.ndarray, moves: int) -> str:
    """SHA-256 (16 hex digits) of values and accumulators after ``moves`` training moves."""
    import hashlib

    vals = np.zeros(int(spec[2]), dtype=np.float32)
    acc = np.zeros((int(spec[2]), 2), dtype=np.float32)
    carry = np.zeros(kern.C_LEN, dtype=np.int64)
    kern.train_moves(vals, acc, INITIAL_VALUE, spec, 1.0, np.uint64(SEEDS.start), SEEDS.count,
                     carry, np.zeros(core.ST_LEN, dtype=np.int64), np.zeros(7, dtype=np.int64),
                     moves, True, np.zeros(kern.F_LEN))
    return hashlib.sha256(vals.tobytes() + acc.tobytes()).hexdigest()[:16]


def test_tables_are_pinned_bit_for_bit() -> None:
    """The tables of 3,000 moves, as the trainer before the shared-strata engine and derived
    entries made them (same floats, same summation order): T3, and all 74 slots."""
    assert _hash_of_training(get_layout("T3").spec, 3000) == "c5d4c8023241685f"
    assert _hash_of_training(wide_spec(), 3000) == "e03193d8fa3eafb8"


def test_fresh_tables_choose_the_centre() -> None:
    """Opening, disc 7 (nothing pops anywhere): all moves worth 20 rises; centre wins."""
    layout = get_layout("T1")
    vals = alloc_zeroed((layout.entries,))
    work = kern.new_work(layout.spec)
    cols = np.full(7, 8, dtype=np.int64)
    assert kern.choose_move(vals, INITIAL_VALUE, layout.spec, cols, 5, 7, work) == (3, 20.0)
    cols[3] = 0x8888888  # full centre column: next most central, 2
    assert kern.choose_move(vals, INITIAL_VALUE, layout.spec, cols, 5, 7, work)[0] == 2


def _train(layout, chunks, learn=True, start=SEEDS.start):
    vals = alloc_zeroed((layout.entries,))
    acc = alloc_zeroed((layout.entries, 2))
    carry = np.zeros(kern.C_LEN, dtype=np.int64)
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    fstats = np.zeros(kern.F_LEN)
    for n in chunks:
        kern.train_moves(vals, acc, INITIAL_VALUE, layout.spec, 1.0, np.uint64(start),
                         SEEDS.count, carry, state, cols, n, learn, fstats)
    return vals, acc, carry


def test_training_is_bit_reproducible_and_chunk_invariant() -> None:
    layout = get_layout("T3")
    v1, a1, c1 = _train(layout, [3000])
    v2, a2, c2 = _train(layout, [1000, 1, 1999])
    assert c1[kern.C_MOVES] == 3000 and c1[kern.C_GAMES_DONE] > 10
    assert np.array_equal(c1, c2)
    assert v1.tobytes() == v2.tobytes() and a1.tobytes() == a2.tobytes()
    assert np.count_nonzero(v1) > 0


def test_no_learning_leaves_tables_untouched() -> None:
    vals, acc, carry = _train(get_layout("T1"), [500], learn=False)
    assert not np.any(vals) and not np.any(acc) and carry[kern.C_MOVES] == 500


def test_td_step_uses_realised_points_and_next_value() -> None:
    """After one move from the opening, the opening's entries moved by delta / N exactly."""
    layout = get_layout("T1")
    st = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    seed = np.uint64(SEEDS.start)
    while True:  # a game whose first disc pops at once (1 or 2 on the grey floor)
        core.new_game(seed, st, cols)
        if st[core.ST_NEXT_DISC] <= 2:
            break
        seed += np.uint64(1)
    vals, acc, carry = _train(layout, [1], start=int(seed))
    opening = cols.copy()
    fresh = alloc_zeroed((layout.entries,))
    work = kern.new_work(layout.spec)
    c, _ = kern.choose_move(fresh, INITIAL_VALUE, layout.spec, cols, 5, st[core.ST_NEXT_DISC],
                            work)
    core.advance(seed, c, st, cols, scratch, out)
    delta = out[core.OUT_POINTS] / 17000.0  # U(s') = U(s) = 20 on fresh tables
    assert delta > 0
    pat = np.zeros(74, dtype=np.int64)
    idx = np.zeros(layout.n_active, dtype=np.int64)
    canon = opening.copy()
    canonicalise(opening, canon)
    entry_indices(canon, 5, layout.spec, pat, idx)
    assert vals[idx].tolist() == [np.float32(delta / layout.n_active)] * layout.n_active
    assert acc[idx, 0].tolist() == [np.float32(delta)] * layout.n_active
    assert np.count_nonzero(vals) == layout.n_active
    assert gather(vals, 20.0, idx, layout.n_active) == pytest.approx(20.0 + delta, abs=1e-5)
