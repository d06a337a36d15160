"""The dDsS expectimax kernel against a plain reference, on hand and game positions."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from claims_support import REPO

from engines.drop7 import core
from engines.drop7.board import TERMINAL_UTILITY, cols_to_rows, rows_to_cols, unpack
from engines.drop7.chance import canonicalise, chance_key, play_sample, sample_disc
from engines.drop7.game_loop import play_out
from engines.filters import kf_ref, oneply_q_ref
from engines.leaves.extra_terms import N_EXTRA
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear import FAIR_WEIGHTS, linear_value
from engines.leaves.linear_extra import extra_terms_into
from engines.leaves.nnue_class import Sizes
from engines.leaves.nnue_ref import nnue_value
from engines.leaves.nnue_weights import random_network
from engines.ntuple.layouts import Layout
from engines.ntuple.value import ntuple_value
from engines.search.leaf import LEAF_NTUPLE, Leaf, load_leaf, nnue_leaf
from engines.search.prune import prior_weights
from engines.search.searcher import Searcher

CENTRE = (3, 2, 4, 1, 5, 0, 6)


def _leaf_ref(kind: str, cols: np.ndarray, mr: int, disc: int) -> float:
    if kind == "ntuple":
        leaf = _ntuple_leaf()
        return 17_000.0 * float(ntuple_value(cols, mr, leaf.tables, leaf.spec))
    canon = np.zeros(7, dtype=np.int64)
    canonicalise(cols, canon)
    if kind == "nnue":  # the readable network on the canonical board
        grid = [[int(ch) for ch in row] for row in cols_to_rows(canon)]
        return nnue_value(_NNUE_PARAMS, Sizes(16, 8), grid, mr, disc)
    if kind == "linear-terms":  # the fair leaf plus the shipped claim's +900 x the term
        out = np.zeros(N_EXTRA)
        extra_terms_into(canon, mr, out)
        return float(linear_value(canon, mr, disc, FAIR_WEIGHTS)) + 900.0 * float(out[0])
    return 0.0 if kind == "zero" else float(linear_value(canon, mr, disc, FAIR_WEIGHTS))


#: the shipped claim reveal-construction-leaf's leaf (read from the repository)
_TERMS_FILE = "config/pinned/reveal-construction-a900.json"
TERMS_LEAF = (f"linear-file[aligned_double_hit]:"
              f"{hashlib.sha256((REPO / _TERMS_FILE).read_bytes()).hexdigest()}:{_TERMS_FILE}")


_NTUPLE: list[Leaf] = []


def _ntuple_leaf() -> Leaf:
    """Random tables of a small layout with every family (one phased) and asymmetric slots."""
    if not _NTUPLE:
        layout = Layout("test-search", ("rows", "cols", "win23", "win32"), ("win32",),
                        slots=(2, 10, 14, 25, 43, 44, 60, 73))
        rng = np.random.default_rng(5)
        tables = rng.random(layout.entries, dtype=np.float32)
        _NTUPLE.append(Leaf(LEAF_NTUPLE, "ntuple:test", tables=tables, spec=layout.spec))
    return _NTUPLE[0]


#: a seeded network of small layers (the kernel reads its sizes from the leaf's spec)
_NNUE_PARAMS = random_network(11, Sizes(16, 8))


def _leaf(kind: str) -> Leaf:
    if kind == "nnue":
        return nnue_leaf("nnue:test", _NNUE_PARAMS, 16, 8)
    if kind == "linear-terms":
        return load_leaf(TERMS_LEAF)
    return _ntuple_leaf() if kind == "ntuple" else load_leaf(kind)


def _prior_ref(prune, kind: str, canon: np.ndarray, disc: int, mr: int, strata: int,
               reveals: int) -> list[float]:
    """A pruning prior's value of each column of a canonical board, readably: ``oneply`` the
    one-ply search of this reference, ``kf`` the KF twin (engines/filters/kf_ref.py), ``q``
    the one-ply Q's (engines/filters/oneply_q_ref.py)."""
    if prune.prior == "oneply":
        return _values_ref(kind, canon, disc, mr, 1, strata, reveals)[1]
    if prune.prior == "q":
        return oneply_q_ref.q_values(canon, disc, mr, list(prior_weights(prune)), strata,
                                     reveals)[0]
    grid = [list(map(int, r)) for r in unpack(canon)]
    return kf_ref.values(grid, disc, tuple(prior_weights(prune)))


def _values_ref(kind: str, cols: np.ndarray, disc: int, mr: int, depth: int,
                strata: int, reveals: int = 1, prune=None, root: bool = True
                ) -> tuple[float, list[float], bool]:
    """Readable expectimax: every sample played, no shortcuts (canonical columns).

    With ``reveals = M`` each column averages ``T = strata * M`` samples: sample ``r N + d``
    (disc stratum ``d`` of ``N = strata``, reveal sample ``r``) plays the move with the
    reveals of sample ``r N + d`` of ``T`` and draws the next disc of stratum ``d`` of ``N``.
    Moves that reveal nothing are played ``T`` times too (the kernel plays them once).

    ``prune`` (a :class:`~engines.search.prune_kinds.PruneSpec`): a node with at least
    ``from`` plies left (the root only when it says so) and more than ``k`` legal columns
    searches the ``k`` of highest prior value, ties to the more central column; the others
    stay ``-inf``.
    """
    total_samples = strata * reveals
    canon = np.zeros(7, dtype=np.int64)
    mirrored = bool(canonicalise(cols, canon))
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    values = [-np.inf] * 7
    legal = [c for c in range(7) if core.is_legal(canon, c)]
    if (prune is not None and depth >= prune.from_ and (prune.root or not root)
            and len(legal) > prune.k):
        prior = _prior_ref(prune, kind, canon, disc, mr, strata, reveals)
        legal = sorted(legal, key=lambda c: (-prior[c], CENTRE.index(c)))[:prune.k]
    for c in legal:
        key = np.uint64(chance_key(canon, disc, mr, c))
        total = 0.0
        for s in range(total_samples):
            child = canon.copy()
            _, mr2 = play_sample(child, c, disc, mr, key, total_samples, s, scratch, out)
            pts = float(out[core.OUT_POINTS])
            nxt = int(sample_disc(key, strata, s % strata))
            if out[core.OUT_OVER]:
                total += pts + TERMINAL_UTILITY
            elif depth == 1:
                total += pts + _leaf_ref(kind, child, int(mr2), nxt)
            else:
                total += pts + _values_ref(kind, child, nxt, int(mr2), depth - 1, strata,
                                           reveals, prune, False)[0]
        values[c] = total / total_samples
    return max(values), values, mirrored


def _game_positions(n_games: int, every: int) -> list[tuple[np.ndarray, int, int]]:
    """Public states from games of direct linear play (varied, with greys and reveals)."""
    searcher = Searcher(load_leaf("linear"), 1, 7)
    positions = []

    def choose(state, cols) -> int:
        disc, mr = int(state[core.ST_NEXT_DISC]), int(state[core.ST_MOVES_REMAINING])
        if state[core.ST_MOVES_PLAYED] % every == 3:
            positions.append((cols.copy(), disc, mr))
        return searcher.choose(cols, disc, mr)

    for seed in range(1, n_games + 1):
        play_out(seed, choose)
    return positions


POSITIONS = _game_positions(3, 9)


@pytest.mark.parametrize(("kind", "depth", "strata"),
                         [("linear", 1, 7), ("zero", 1, 7), ("linear", 2, 7), ("zero", 2, 3),
                          ("linear", 1, 2), ("ntuple", 1, 7), ("ntuple", 2, 7), ("ntuple", 2, 3),
                          ("linear-terms", 1, 7), ("linear-terms", 2, 3), ("nnue", 1, 7),
                          ("nnue", 2, 3)])
def test_kernel_equals_reference(kind: str, depth: int, strata: int) -> None:
    searcher = Searcher(_leaf(kind), depth, strata)
    checked = 0
    for cols, disc, mr in POSITIONS[:: 3 if depth > 1 else 1]:
        _, ref, mirrored = _values_ref(kind, cols, disc, mr, depth, strata)
        ref = ref[::-1] if mirrored else ref
        got = searcher.column_values(cols, disc, mr)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-6), (cols, disc, mr)
        best = max(ref)
        order = CENTRE if not mirrored else tuple(6 - c for c in CENTRE)
        # ties go to the first column in centre order of the canonical board
        want = next(c for c in order if ref[c] == best)
        if sum(1 for v in ref if abs(v - best) < 1e-6) == 1:
            assert searcher.choose(cols, disc, mr) == want
        checked += 1
    assert checked >= 5


def test_depth_one_search_is_direct() -> None:
    """search d=1 and direct play are the same one-ply averaging."""
    from engines.play.policy import load_policy

    direct = load_policy("direct:leaf=linear")
    search = load_policy("search:leaf=linear,d=1,s=7")
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    for cols, disc, mr in POSITIONS:
        state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, mr
        _, ref, mirrored = _values_ref("linear", cols, disc, mr, 1, 7)
        ref = ref[::-1] if mirrored else ref
        assert direct.choose(state, cols) == search.choose(state, cols)
        assert ref[direct.choose(state, cols)] == pytest.approx(max(ref), rel=1e-12)


def _mirror(cols: np.ndarray) -> np.ndarray:
    return cols[::-1].copy()


@pytest.mark.parametrize(("kind", "depth"), [("linear", 1), ("linear", 2), ("ntuple", 2),
                                             ("linear-terms", 2), ("nnue", 2)])
def test_mirror_equivariance(kind: str, depth: int) -> None:
    searcher = Searcher(_leaf(kind), depth, 7)
    asymmetric = 0
    for cols, disc, mr in POSITIONS[:: 1 if depth == 1 else 4]:
        v = searcher.column_values(cols, disc, mr)
        vm = searcher.column_values(_mirror(cols), disc, mr)
        assert np.array_equal(v, vm[::-1])  # bit for bit
        if not np.array_equal(cols, _mirror(cols)):
            asymmetric += 1
            assert searcher.choose(_mirror(cols), disc, mr) == 6 - searcher.choose(cols, disc, mr)
    assert asymmetric >= 3


def test_takes_the_clear_and_breaks_ties_centre_first() -> None:
    # a lone 2 in column 5; dropping a 2 in column 4, 5 or 6 pops both: +70,000
    cols = rows_to_cols(["0000000"] * 6 + ["0000020"])
    for kind, depth in (("zero", 1), ("linear", 1), ("linear", 2)):
        searcher = Searcher(load_leaf(kind), depth, 7)
        values = searcher.column_values(cols, 2, 3)
        assert all(values[c] >= 70_000 for c in (4, 5, 6))
        assert all(values[c] < 70_000 for c in (0, 1, 2, 3))
        assert searcher.choose(cols, 2, 3) in (4, 5, 6)
    zero = Searcher(load_leaf("zero"), 1, 7)
    values = zero.column_values(cols, 2, 3)
    assert values[4] == values[5] == values[6]  # a three-way tie ...
    assert zero.choose(cols, 2, 3) == 4  # ... goes to the most central column
    assert zero.choose(np.zeros(7, dtype=np.int64), 5, 5) == 3  # all equal: the centre


def test_avoids_immediate_game_over_with_terminal_utility() -> None:
    # column 0 holds six discs; with one move left before the rise, filling it ends the game
    cols = rows_to_cols(["0000000", "2000000", "5000000", "4000000", "3000000", "2000000",
                         "8888888"])
    for kind, depth in (("zero", 1), ("linear", 1), ("zero", 2)):
        searcher = Searcher(load_leaf(kind), depth, 7)
        values = searcher.column_values(cols, 3, 1)
        # a 3 in column 0 pops nothing (column height 7, row runs 1): the rise ends the game
        assert values[0] == pytest.approx(TERMINAL_UTILITY, abs=1.0)
        assert all(values[c] > -100_000 for c in range(1, 7))
        assert searcher.choose(cols, 3, 1) != 0


def test_no_legal_column() -> None:
    cols = rows_to_cols(["1234567"] * 7)
    assert Searcher(load_leaf("zero"), 1, 7).choose(cols, 3, 5) == -1


def test_leaf_arrays_share_one_kernel_type() -> None:
    a, b = load_leaf("zero"), Leaf(1, "w", np.arange(float(N_TERMS)))
    for leaf in (a, b):
        assert not leaf.weights.flags.writeable and not leaf.tables.flags.writeable
        assert not leaf.spec.flags.writeable


def test_searcher_rejects_bad_depth_and_strata() -> None:
    with pytest.raises(ValueError, match="depth"):
        Searcher(load_leaf("zero"), 0, 7)
    with pytest.raises(ValueError, match="strata"):
        Searcher(load_leaf("zero"), 3, 0)


@pytest.mark.parametrize("kind", ["linear", "ntuple"])
def test_a_searcher_keeps_no_state_between_decisions(kind: str) -> None:
    reused = Searcher(_leaf(kind), 2, 7)
    sequence = POSITIONS[::4] + POSITIONS[::-5]
    for cols, disc, mr in sequence:
        fresh = Searcher(_leaf(kind), 2, 7).column_values(cols, disc, mr)
        assert np.array_equal(reused.column_values(cols, disc, mr), fresh)


def test_stats_count_nodes_and_decisions() -> None:
    searcher = Searcher(load_leaf("zero"), 2, 7)
    cols, disc, mr = POSITIONS[0]
    searcher.choose(cols, disc, mr)
    nodes, leaves, decisions = searcher.stats[:3]
    assert decisions == 1 and nodes >= 7 + 7 * 7 and 0 < leaves <= nodes
