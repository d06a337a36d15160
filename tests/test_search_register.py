"""The register's chance sampling (``Searcher(register_seed=...)``) against the register itself.

``tests/data/register_sampling.json`` holds column values and choices that the register's
own Rust search computed (its header says which files, at which commits); the kernel must
give them bit for bit.  A readable reference that plays every sample holds the kernel's
shortcuts (shared boards, the node table, the leaf cache) to the same sampling with the
fair leaf, and our own sampling is shown to differ, so the fixture tests the sampling.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engines.drop7 import core, register_rng
from engines.drop7.board import TERMINAL_UTILITY, rows_to_cols
from engines.drop7.chance import canonicalise, play_sample_of
from engines.leaves.linear import FAIR_WEIGHTS, linear_value
from engines.search.expectimax import Searcher
from engines.search.leaf import load_leaf
from engines.search.positions import load_positions

FIXTURE = Path(__file__).with_name("data") / "register_sampling.json"
SEED = register_rng.REGISTER_POLICY_SEED


def _cases() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def _expected(case: dict) -> np.ndarray:
    return np.array([-np.inf if v is None else v for v in case["values"]])


def test_fixture_covers_depths_strata_and_seeds() -> None:
    cases = _cases()
    assert {(c["depth"], c["strata"]) for c in cases} >= {(1, 7), (2, 7), (3, 7), (2, 5)}
    assert len({c["policy_seed"] for c in cases}) >= 2
    assert len(cases) >= 150


def test_kernel_reproduces_the_registers_values_and_choices() -> None:
    """Every column value bit for bit and every choice, as the register's search gives them."""
    searchers: dict[tuple, Searcher] = {}
    for case in _cases():
        key = (case["depth"], case["strata"], case["policy_seed"])
        if key not in searchers:
            searchers[key] = Searcher(load_leaf("zero"), *key[:2], register_seed=key[2])
        cols = rows_to_cols(case["board"])
        choice, values = searchers[key].choose_values(cols, case["disc"], case["moves_remaining"])
        assert choice == case["choice"], case
        assert values.tolist() == _expected(case).tolist(), case


def test_own_sampling_gives_other_values() -> None:
    """The fixture tells the two samplings apart: ours misses most of its d2 values."""
    cases = [c for c in _cases()
             if (c["depth"], c["strata"], c["policy_seed"]) == (2, 7, SEED)]
    own = Searcher(load_leaf("zero"), 2, 7)
    differ = sum(
        own.column_values(rows_to_cols(c["board"]), c["disc"], c["moves_remaining"]).tolist()
        != _expected(c).tolist() for c in cases)
    assert differ > len(cases) // 2


def _values_ref(cols: np.ndarray, disc: int, mr: int, depth: int, strata: int,
                seed: int) -> tuple[list[float], bool]:
    """Readable register search with the fair leaf: every sample of every column played, the
    samples keyed by the node's state seed (not the column), no table, no shared boards."""
    canon = np.zeros(7, dtype=np.int64)
    mirrored = bool(canonicalise(cols, canon))
    node_seed = register_rng.state_seed(canon, disc, mr, seed, depth)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    values = [-np.inf] * 7
    for c in range(7):
        if not core.is_legal(canon, c):
            continue
        total = 0.0
        for s in range(strata):
            child = canon.copy()
            _, mr2 = play_sample_of(core.SRC_REGISTER, child, c, disc, mr, node_seed, strata, s,
                                    scratch, out)
            pts = float(out[core.OUT_POINTS])
            nxt = int(register_rng.sample_disc(node_seed, strata, s))
            if out[core.OUT_OVER]:
                total += pts + TERMINAL_UTILITY
            elif depth == 1:
                leaf_board = np.zeros(7, dtype=np.int64)
                canonicalise(child, leaf_board)
                total += pts + float(linear_value(leaf_board, int(mr2), nxt, FAIR_WEIGHTS))
            else:
                total += pts + max(_values_ref(child, nxt, int(mr2), depth - 1, strata, seed)[0])
        values[c] = total / strata
    return values, mirrored


@pytest.mark.parametrize(("depth", "strata"), [(1, 7), (2, 7), (2, 4)])
def test_kernel_equals_readable_register_search(depth: int, strata: int) -> None:
    """The kernel's shortcuts change no value of the register's sampling (fair leaf)."""
    searcher = Searcher(load_leaf("linear"), depth, strata, register_seed=SEED)
    for cols, disc, mr in load_positions()[:: 6 if depth > 1 else 2]:
        ref, mirrored = _values_ref(cols, disc, mr, depth, strata, SEED)
        ref = ref[::-1] if mirrored else ref
        got = searcher.column_values(cols, disc, mr)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-6), (cols, disc, mr)


def test_register_sampling_is_refused_where_it_does_not_apply() -> None:
    zero = load_leaf("zero")
    with pytest.raises(ValueError, match="factored"):
        Searcher(zero, 2, 7, reveals=2, register_seed=SEED)
    with pytest.raises(ValueError, match="32-bit"):
        Searcher(zero, 2, 7, register_seed=1 << 32)
    with pytest.raises(ValueError, match="32-bit"):
        Searcher(zero, 2, 7, register_seed=-1)
