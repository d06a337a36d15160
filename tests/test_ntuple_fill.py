"""Fill-bucketed n-tuple layouts: the bucket rule, the kernels against their readable twin,
the trainer's and the search's values, the table file's fill facts, and promotion (the
promoted leaf is the frozen leaf bit for bit on real positions)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from engine_cases import random_grid

from cli.main import main
from engines.drop7 import baselines, core
from engines.drop7.board import pack
from engines.drop7.game_loop import play_out
from engines.ntuple.fill import promote
from engines.ntuple.layouts import FILL_RULES, FillRule, get_layout, layout_names
from engines.ntuple.storage import load_ntuple
from engines.ntuple.value import (
    board_entries,
    entry_indices,
    fill_offset,
    ntuple_value,
    ntuple_value_py,
    phase_of,
    slot_offsets,
)
from engines.search.leaf import LEAF_NTUPLE, Leaf
from engines.search.searcher import Searcher
from engines.train import kernel as kern
from engines.train.trainer import NtupleLearner
from engines.weights_files import WeightsError, array_chunks, save_weights


def _boards(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [pack(np.array(random_grid(rng, max_height=int(rng.integers(1, 8))),
                          dtype=np.int8)) for _ in range(n)]


def _game_states(games: int = 12) -> list[tuple[np.ndarray, int, int]]:
    """(cols, disc, moves_remaining) of every decision of some baseline games (they fill
    the board, so every bucket is reached)."""
    states = []
    for g in range(games):
        seed = np.uint64(0x4100000000000000 + g)

        def record(st, cols, seed=seed, pol=g % 3) -> int:
            states.append((cols.copy(), int(st[core.ST_NEXT_DISC]),
                           int(st[core.ST_MOVES_REMAINING])))
            return baselines.baseline_choice(pol, seed, st, cols)

        play_out(seed, record)
    return states


def test_the_registers_rules_and_the_bucket_of_a_measure() -> None:
    occ, hgt = FILL_RULES["occ5"], FILL_RULES["hgt5"]
    assert [occ.bucket(m) for m in (0, 13, 14, 20, 21, 27, 28, 34, 35, 49)] == \
        [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [hgt.bucket(m) for m in range(8)] == [0, 0, 0, 0, 1, 2, 3, 4]
    a, bucketed = get_layout("A"), get_layout("A+occ5")
    assert bucketed.entries == 5 * a.entries and bucketed.n_active == a.n_active
    assert bucketed.base == "A" and bucketed.describe()["fill"] == \
        {"by": "cells", "cuts": [14, 21, 28, 35], "buckets": 5}
    assert "fill" not in a.describe()  # unbucketed layouts (and their config hashes) as before
    assert "E+hgt5" in layout_names()
    for bad in ("A+occ6", "F+occ5", "A+"):
        with pytest.raises(ValueError, match="unknown layout"):
            get_layout(bad)
    with pytest.raises(ValueError, match="cuts must rise"):
        FillRule("tallest", (4, 4, 8))


@pytest.mark.parametrize("name", ["T3+occ5", "T3+hgt5", "E+hgt5"])
def test_kernel_matches_twin_in_every_bucket(name: str) -> None:
    """Random tables (each bucket its own values): the kernel equals the readable twin,
    is mirror invariant, and the boards reach every bucket."""
    layout = get_layout(name)
    rng = np.random.default_rng(3)
    tables = rng.standard_normal(layout.entries).astype(np.float32)
    stride = layout.entries // layout.buckets
    reached = set()
    for b in _boards(150, seed=8):
        reached.add(int(fill_offset(layout.spec, b)) // stride)
        for mr in (1, 4):
            u = ntuple_value(b, mr, tables, layout.spec)
            assert u == pytest.approx(ntuple_value_py(b, mr, tables, layout.spec), abs=1e-9)
            assert ntuple_value(b[::-1].copy(), mr, tables, layout.spec) == u
    assert reached == set(range(layout.buckets))


def test_entries_of_a_bucket_are_the_base_entries_shifted() -> None:
    """entry_indices and board_entries (the trainer's) of a bucketed layout: the base
    layout's entries plus bucket x stride, by the twin's count of the bucket."""
    base, layout = get_layout("T3"), get_layout("T3+occ5")
    soff = slot_offsets(layout.spec)
    slots = [14, 31, 44, 73]
    pat = np.zeros(74, dtype=np.int64)
    idx, ref = np.zeros(74, dtype=np.int64), np.zeros(74, dtype=np.int64)
    out = np.zeros((1, 74), dtype=np.int64)
    tab = np.zeros(1, dtype=np.float32)
    for b in _boards(60, seed=2):
        cells = sum(1 for c in range(7) for k in range(7) if (int(b[c]) >> (4 * k)) & 0xF)
        shift = FILL_RULES["occ5"].bucket(cells) * base.entries
        n = entry_indices(b, 3, layout.spec, pat, idx)
        entry_indices(b, 3, base.spec, pat, ref)
        assert (idx[:n] - ref[:n]).tolist() == [shift] * n
        board_entries(b, soff, phase_of(3), out, 0, tab)
        assert out[0, slots].tolist() == idx[:n].tolist()


def test_choice_values_of_a_bucketed_layout_equal_direct_evaluation() -> None:
    """The trainer's one-ply choice values every sample as ntuple_value does, in its own
    bucket."""
    layout = get_layout("T3+occ5")
    tables = np.random.default_rng(4).standard_normal(layout.entries).astype(np.float32)
    work = kern.new_work(layout.spec)
    sboard, sval, smr, scount, _ = kern.samples_of(work)
    checked = 0
    for cols, disc, mr in _game_states(6):
        kern.choose_move(tables, 0.0, layout.spec, cols, mr, disc, work)
        for col in range(7):
            for s in range(scount[col]):
                if smr[col, s] >= 0:
                    assert sval[col, s] == ntuple_value(sboard[col, s], smr[col, s], tables,
                                                        layout.spec)
                    checked += 1
    assert checked > 500


def _save(path: Path, values: np.ndarray, layout: str, **extra) -> None:
    save_weights(path, values.shape, values.dtype, array_chunks(values),
                 {"kind": "ntuple", "layout": layout, "entries": int(values.shape[0]),
                  **extra})


def test_a_file_is_refused_when_its_buckets_are_not_the_declared_ones(tmp_path: Path) -> None:
    layout = get_layout("T1+hgt5")
    values = np.zeros(layout.entries, dtype=np.float32)
    _save(tmp_path / "ok", values, "T1+hgt5", fill=layout.fill.describe())
    assert load_ntuple(tmp_path / "ok")[1] is layout
    _save(tmp_path / "none", values, "T1+hgt5")
    with pytest.raises(WeightsError, match=r"none/manifest.json: key fill is None"):
        load_ntuple(tmp_path / "none")
    _save(tmp_path / "other", values, "T1+hgt5",
          fill={"by": "tallest", "cuts": [3, 5, 6, 7], "buckets": 5})
    with pytest.raises(WeightsError, match="key fill"):
        load_ntuple(tmp_path / "other")
    small = np.zeros(get_layout("T1").entries, dtype=np.float32)
    _save(tmp_path / "flat", small, "T1", fill=layout.fill.describe())
    with pytest.raises(WeightsError, match="key fill"):
        load_ntuple(tmp_path / "flat")


@pytest.fixture(scope="module")
def frozen(tmp_path_factory) -> tuple[Path, str]:
    """T1 tables trained 4,000 moves: the frozen tables a promotion starts from."""
    out = tmp_path_factory.mktemp("frozen") / "run"
    assert main(["train", "--layout", "T1", "--moves", "4000", "--seeds", "0x2000:1000",
                 "--out", str(out), "--log-every", "1000"]) == 0
    step = out / "step-4000"
    return step, json.loads((step / "manifest.json").read_text())["sha256"]


def test_the_promoted_leaf_is_the_frozen_leaf_bit_for_bit(frozen) -> None:
    """Warm-starting T1+occ5 from T1 copies the tables into every bucket with fresh
    accumulators: on real positions the leaf and the d2 search are the frozen one's bits."""
    tables, base, _ = load_ntuple(frozen[0])
    learner = NtupleLearner(get_layout("T1+occ5"))
    learner.warm_start(str(frozen[0]), frozen[1])
    promoted = learner.values()
    assert np.array_equal(promoted, promote(tables, base, learner.layout))
    assert not learner.acc.any() and learner.bias == 0.0
    spec = learner.layout.spec
    stride = base.entries
    states = _game_states(8)
    assert {int(fill_offset(spec, c)) // stride for c, _, _ in states} == set(range(5))
    assert any(ntuple_value(c, m, tables, base.spec) != ntuple_value(c, m, tables * 0, base.spec)
               for c, _, m in states)  # trained entries are read
    for cols, _, mr in states:
        assert ntuple_value(cols, mr, promoted, spec) == ntuple_value(cols, mr, tables,
                                                                      base.spec)
    a = Searcher(Leaf(LEAF_NTUPLE, "frozen", tables=tables, spec=base.spec), 2, 3)
    b = Searcher(Leaf(LEAF_NTUPLE, "promoted", tables=promoted, spec=spec), 2, 3)
    for cols, disc, mr in states[::25]:
        assert a.column_values(cols, disc, mr).tolist() == b.column_values(cols, disc,
                                                                           mr).tolist()


def test_training_a_promoted_layout_moves_the_buckets_apart(tmp_path: Path, frozen) -> None:
    """``drop7 train --layout T1+occ5 --init`` promotes, trains and writes the fill facts;
    the buckets no longer hold the same tables, and unbucketed tables of another layout
    are refused."""
    out = tmp_path / "fill"
    assert main(["train", "--layout", "T1+occ5", "--moves", "3000", "--seeds", "0x9000:1000",
                 "--out", str(out), "--log-every", "1000", "--init", str(frozen[0]),
                 "--init-sha256", frozen[1]]) == 0
    values, layout, manifest = load_ntuple(out / "step-3000")
    assert manifest["fill"] == layout.fill.describe() and manifest["init"]["sha256"] == frozen[1]
    copies = values.reshape(layout.buckets, -1)
    assert any(not np.array_equal(copies[0], copies[b]) for b in range(1, layout.buckets))
    with pytest.raises(WeightsError, match="holds layout T1 tables"):
        NtupleLearner(get_layout("T3+occ5")).warm_start(str(frozen[0]), frozen[1])


def _fill_train(out: Path, frozen, moves: int, *extra: str) -> dict:
    assert main(["train", "--layout", "T1+occ5", "--moves", str(moves), "--every", "800",
                 "--seeds", "0x9000:1000", "--out", str(out), "--log-every", "1000",
                 "--init", str(frozen[0]), "--init-sha256", frozen[1], *extra]) == 0
    return json.loads((out / f"step-{moves}" / "manifest.json").read_text())


def test_a_promoted_training_resumes_and_runs_in_lanes_bit_for_bit(tmp_path: Path,
                                                                   frozen) -> None:
    """Two segments equal one run, and four lanes give the same bits on one and two
    threads, for a bucketed layout as for any other."""
    once = _fill_train(tmp_path / "once", frozen, 1600)["sha256"]
    for s, e in ((0, 800), (800, 1600)):
        seg = _fill_train(tmp_path / "seg", frozen, e, "--start", str(s))
    assert seg["sha256"] == once
    lanes = [_fill_train(tmp_path / f"l{t}", frozen, 1600, "--lanes", "4", "--threads", t)
             for t in ("1", "2")]
    assert lanes[0]["sha256"] == lanes[1]["sha256"] != once
