"""The factored chance node (``reveals = M``) against the readable twin, mirrored and repeated.

Positions with pending reveals: hand-built boards where a pop reaches cracked greys, and
game positions where at least one legal column reveals.  ``reveals`` left out must be
today's search bit for bit (``M = 1`` is that same node).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from test_search_kernel import CENTRE, POSITIONS, _leaf, _values_ref

from engines.drop7 import core
from engines.drop7.board import rows_to_cols
from engines.drop7.chance import canonicalise, chance_key, play_sample
from engines.search.leaf import load_leaf
from engines.search.limits import MAX_REVEALS
from engines.search.positions import load_positions
from engines.search.searcher import Searcher
from engines.search.stats import STAT_NODES
from engines.search.value_table import node_table_bits

EMPTY_ROW = "0000000"
#: hand-built settled boards on which some drop pops next to cracked greys (9)
HAND = [
    # a 2 in column 2 pops the two 3s and itself: three cracked greys revealed
    (rows_to_cols([EMPTY_ROW] * 5 + ["3300000", "9999999"]), 2, 4),
    # two rows of greys, a popping pair over the cracked ones on the right
    (rows_to_cols([EMPTY_ROW] * 4 + ["0000044", "8889999", "8888888"]), 2, 3),
    # a rise is one move away: the reveals and the rise meet in one move
    (rows_to_cols([EMPTY_ROW] * 3 + ["0000000", "1000000", "9300000", "9990000"]), 3, 1),
]


def reveal_columns(cols: np.ndarray, disc: int, mr: int) -> int:
    """How many legal columns of the position reveal a grey (on the canonical board)."""
    canon = np.zeros(7, dtype=np.int64)
    canonicalise(cols, canon)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    n = 0
    for c in range(7):
        if core.is_legal(canon, c):
            child = canon.copy()
            key = np.uint64(chance_key(canon, disc, mr, c))
            play_sample(child, c, disc, mr, key, 7, 0, scratch, out)
            n += out[core.OUT_REVEALS] > 0
    return n


REVEALING = HAND + [p for p in POSITIONS + load_positions()[::4] if reveal_columns(*p)]


def test_the_positions_have_pending_reveals() -> None:
    assert all(reveal_columns(*p) for p in HAND)
    assert len(REVEALING) >= len(HAND) + 5


@pytest.mark.parametrize(("kind", "depth", "strata", "reveals"),
                         [("linear", 1, 7, 2), ("linear", 1, 7, 6), ("zero", 1, 3, 4),
                          ("ntuple", 1, 7, 3), ("linear", 2, 3, 2), ("zero", 2, 2, 3),
                          ("ntuple", 2, 3, 2)])
def test_factored_node_equals_the_twin(kind: str, depth: int, strata: int,
                                       reveals: int) -> None:
    searcher = Searcher(_leaf(kind), depth, strata, reveals=reveals)
    plain = Searcher(_leaf(kind), depth, strata)
    differs = 0
    positions = REVEALING if depth == 1 else HAND + REVEALING[len(HAND)::4]
    for cols, disc, mr in positions:
        _, ref, mirrored = _values_ref(kind, cols, disc, mr, depth, strata, reveals)
        ref = ref[::-1] if mirrored else ref
        got = searcher.column_values(cols, disc, mr)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-6), (cols, disc, mr)
        best = max(ref)
        order = CENTRE if not mirrored else tuple(6 - c for c in CENTRE)
        if sum(1 for v in ref if abs(v - best) < 1e-6) == 1:
            assert searcher.choose(cols, disc, mr) == next(c for c in order if ref[c] == best)
        # the reveal samples matter: M samples are not the plain node's one
        differs += not np.allclose(plain.column_values(cols, disc, mr), ref, rtol=1e-12,
                                   atol=1e-6)
    if kind != "zero" or depth > 1 or strata < 7:
        assert differs >= 1


def test_twin_at_one_reveal_is_the_plain_twin() -> None:
    for cols, disc, mr in HAND:
        assert _values_ref("linear", cols, disc, mr, 1, 7, 1) == _values_ref(
            "linear", cols, disc, mr, 1, 7)


def _mirror(cols: np.ndarray) -> np.ndarray:
    return cols[::-1].copy()


@pytest.mark.parametrize(("kind", "depth", "reveals"),
                         [("linear", 1, 6), ("linear", 2, 2), ("ntuple", 2, 2), ("zero", 3, 2)])
def test_mirror_symmetry(kind: str, depth: int, reveals: int) -> None:
    searcher = Searcher(_leaf(kind), depth, 7, reveals=reveals)
    asymmetric = 0
    for cols, disc, mr in REVEALING[:: 1 if depth == 1 else 3]:
        v = searcher.column_values(cols, disc, mr)
        vm = searcher.column_values(_mirror(cols), disc, mr)
        assert np.array_equal(v, vm[::-1])  # bit for bit
        if not np.array_equal(cols, _mirror(cols)):
            asymmetric += 1
            assert searcher.choose(_mirror(cols), disc, mr) == 6 - searcher.choose(cols, disc, mr)
    assert asymmetric >= 3


@pytest.mark.parametrize("kind", ["linear", "ntuple"])
def test_deterministic_and_reuse_free(kind: str) -> None:
    """The same state gives the same values whatever was searched before, with or without
    the node table and the leaf cache."""
    reused = Searcher(_leaf(kind), 2, 7, reveals=3)
    plain = Searcher(_leaf(kind), 2, 7, reuse=False, reveals=3)
    for cols, disc, mr in REVEALING[::3] + REVEALING[::-4]:
        fresh = Searcher(_leaf(kind), 2, 7, reveals=3).column_values(cols, disc, mr)
        assert np.array_equal(reused.column_values(cols, disc, mr), fresh)
        assert np.array_equal(plain.column_values(cols, disc, mr), fresh)


def test_reuse_free_at_d3() -> None:
    leaf = load_leaf("linear")
    fast, plain = Searcher(leaf, 3, 7, reveals=2), Searcher(leaf, 3, 7, reuse=False,
                                                               reveals=2)
    for cols, disc, mr in HAND + REVEALING[len(HAND)::6]:
        assert np.array_equal(fast.column_values(cols, disc, mr),
                              plain.column_values(cols, disc, mr))


#: root values of the shipped bench positions at d2s7 (test_search_reuse's pins)
PINNED = {"zero": "74f74b81b32d6d61", "linear": "7b3cc7b8f22b2249"}


@pytest.mark.parametrize("kind", sorted(PINNED))
@pytest.mark.parametrize("reveals", [None, 0, 1])
def test_reveals_left_out_is_todays_search(kind: str, reveals: int | None) -> None:
    searcher = Searcher(load_leaf(kind), 2, 7, reveals=reveals)
    digest = hashlib.sha256()
    for cols, disc, mr in load_positions():
        digest.update(searcher.column_values(cols, disc, mr).tobytes())
        digest.update(np.int64(searcher.choose(cols, disc, mr)).tobytes())
    assert digest.hexdigest()[:16] == PINNED[kind]
    assert searcher.reveals is None if not reveals else searcher.reveals == 1


def test_samples_played_grow_with_reveals() -> None:
    nodes = []
    for m in (1, 2, 6):
        searcher = Searcher(load_leaf("linear"), 2, 7, reveals=m)
        for cols, disc, mr in HAND:
            searcher.choose(cols, disc, mr)
        nodes.append(int(searcher.stats[STAT_NODES]))
    assert nodes[0] < nodes[1] < nodes[2]


def test_node_table_grows_with_reveals_only() -> None:
    assert node_table_bits(3, 1) == 13 and node_table_bits(1, 6) == 0
    assert 13 < node_table_bits(3, 6) <= 20 and node_table_bits(4, 2) >= 17


def test_searcher_rejects_bad_reveals() -> None:
    for bad in (-1, MAX_REVEALS + 1):
        with pytest.raises(ValueError, match="reveals must be 1.."):
            Searcher(load_leaf("zero"), 1, 7, reveals=bad)


@pytest.mark.parametrize(("reveals", "pairs"), [(1, 7), (2, 14), (6, 42), (7, 49), (12, 49)])
def test_reveal_samples_cover_the_disc_reveal_pairs(reveals: int, pairs: int) -> None:
    """At S = 7, sample ``r 7 + d`` of ``7 M`` meets ``7 M`` (next disc, first reveal) pairs
    of values up to M = 7 and all 49 from there (docs/search.md)."""
    from engines.drop7.core import stratum_parts, stratum_value

    total = 7 * reveals
    for k in range(50):
        rot, m = stratum_parts(np.uint64((k + 1) * 0x9E3779B97F4A7C15 % 2**64), 0, total)
        seen = {(d, int(stratum_value(rot, m, r * 7 + d, total)))
                for d in range(7) for r in range(reveals)}
        assert len(seen) == pairs
