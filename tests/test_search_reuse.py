"""The node table and the leaf cache change no value: every root value equals the plain search.

The plain search (``reuse=False``) computes every value where it meets it; on
every shipped bench position the default searcher must give the same column
values bit for bit, and the same column.  A pinned hash of the root values
holds the search to what it computed before the tables (and before the
engine's rewrite) existed.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from engines.ntuple.layouts import Layout
from engines.search.leaf import LEAF_NTUPLE, Leaf, load_leaf
from engines.search.positions import load_positions
from engines.search.searcher import Searcher
from engines.search.stats import STAT_LEAF_HITS, STAT_NODE_HITS

POSITIONS = load_positions()


def _leaf(kind: str) -> Leaf:
    """The frozen leaves, or random tables of a small layout with every family."""
    if kind != "ntuple":
        return load_leaf(kind)
    layout = Layout("pin", ("rows", "cols", "win23", "win32"), ("cols",),
                    slots=(1, 9, 12, 20, 43, 47, 60))
    tables = np.random.default_rng(14).standard_normal(layout.entries).astype(np.float32)
    return Leaf(LEAF_NTUPLE, "ntuple:pin", tables=tables, spec=layout.spec)


def _same_as_plain(kind: str, depth: int, positions: list) -> Searcher:
    leaf = _leaf(kind)
    plain, fast = Searcher(leaf, depth, 7, reuse=False), Searcher(leaf, depth, 7)
    for cols, disc, mr in positions:
        assert np.array_equal(fast.column_values(cols, disc, mr),
                              plain.column_values(cols, disc, mr)), (cols, disc, mr)
        assert fast.choose(cols, disc, mr) == plain.choose(cols, disc, mr)
    assert plain.stats[STAT_NODE_HITS] == plain.stats[STAT_LEAF_HITS] == 0
    return fast


@pytest.mark.parametrize("kind", ["linear", "ntuple", "zero"])
def test_reuse_changes_no_root_value_at_d3(kind: str) -> None:
    fast = _same_as_plain(kind, 3, POSITIONS)
    assert fast.stats[STAT_NODE_HITS] > 0
    assert (fast.stats[STAT_LEAF_HITS] > 0) == (kind == "linear")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["linear", "ntuple"])
def test_reuse_changes_no_root_value_at_d4(kind: str) -> None:
    _same_as_plain(kind, 4, POSITIONS[::10])


PINNED = {("zero", 2): "74f74b81b32d6d61", ("zero", 3): "fe4105ca38cce3b3",
          ("linear", 2): "7b3cc7b8f22b2249", ("linear", 3): "ea9847e243ca5f34",
          ("ntuple", 2): "2bdf6b77d4384ab6", ("ntuple", 3): "5c6fbd225ceb4a16"}


@pytest.mark.parametrize(("kind", "depth"), sorted(PINNED))
def test_root_values_are_pinned(kind: str, depth: int) -> None:
    searcher = Searcher(_leaf(kind), depth, 7)
    digest = hashlib.sha256()
    for cols, disc, mr in POSITIONS:
        digest.update(searcher.column_values(cols, disc, mr).tobytes())
        digest.update(np.int64(searcher.choose(cols, disc, mr)).tobytes())
    assert digest.hexdigest()[:16] == PINNED[kind, depth]
