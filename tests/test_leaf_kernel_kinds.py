"""Leaf kernel kinds declare their facts (a disc-free and a next-disc part, the canonical
board, the leaf cache, evaluation by difference), and the search reads the facts, never a
kind's name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from engines.drop7.board import rows_to_cols
from engines.search import leaf as search_leaf
from engines.search.leaf import (
    BASE_PART,
    BY_DIFFERENCE,
    CACHED,
    CANONICAL,
    DISC_PART,
    JOINT,
    KERNEL_KINDS,
    KernelKind,
    Leaf,
    load_leaf,
)
from engines.search.searcher import Searcher
from engines.search.stats import STAT_LEAF_HITS

BOARD = rows_to_cols(["0000000", "0000000", "0000000", "0000000", "0030000", "0124000",
                      "8914725"])


def test_every_kernel_kind_declares_its_facts_once() -> None:
    assert [k.code for k in KERNEL_KINDS] == list(range(len(KERNEL_KINDS)))
    for facts, name in ((BASE_PART, "base_part"), (DISC_PART, "disc_part"),
                        (CANONICAL, "canonical"),
                        (CACHED, "cached"), (BY_DIFFERENCE, "by_difference"),
                        (JOINT, "joint")):
        assert [bool(facts >> k.code & 1) for k in KERNEL_KINDS] == [
            getattr(k, name) for k in KERNEL_KINDS]
        assert facts < 1 << len(KERNEL_KINDS)
    by_name = {k.name: k for k in KERNEL_KINDS}
    assert by_name["linear"].disc_part and by_name["linear"].cached
    assert by_name["ntuple"].by_difference and not by_name["ntuple"].cached
    # the linear leaf with extra terms: the same facts as the fair leaf (its terms are board
    # functions of the canonical board, so its disc-free part is cached as the fair leaf's)
    terms = by_name["linear-terms"]
    assert (terms.base_part, terms.disc_part, terms.canonical, terms.cached,
            terms.by_difference) == (True, True, True, True, False)
    zero = by_name["zero"]
    assert not any((zero.base_part, zero.disc_part, zero.cached, zero.by_difference))
    # the network: its next disc is an input, so no separate parts and no cache of one
    nnue = by_name["nnue"]
    assert (nnue.base_part, nnue.disc_part, nnue.canonical, nnue.cached, nnue.by_difference,
            nnue.joint) == (False, True, True, False, False, True)
    assert [k.name for k in KERNEL_KINDS if k.joint] == ["nnue"]


def test_facts_that_cannot_hold_together_are_refused() -> None:
    with pytest.raises(ValueError, match="by difference has no next-disc part"):
        KernelKind(9, "odd", disc_part=True, by_difference=True)
    with pytest.raises(ValueError, match="keys canonical boards"):
        KernelKind(9, "odd", base_part=True, cached=True)
    with pytest.raises(ValueError, match="only a disc-free part is cached"):
        KernelKind(9, "odd", canonical=True, cached=True)
    for facts in ({}, {"disc_part": True, "base_part": True},
                  {"disc_part": True, "canonical": True, "cached": True}):
        with pytest.raises(ValueError, match="a joint leaf has a next disc and no separate"):
            KernelKind(9, "odd", joint=True, **facts)


def test_a_leaf_of_an_undeclared_kernel_kind_is_refused() -> None:
    """Before, any kind that was not zero or n-tuple went down the linear path."""
    with pytest.raises(ValueError, match=f"kernel kind {len(KERNEL_KINDS)} is not one of "
                                         "KERNEL_KINDS"):
        Leaf(len(KERNEL_KINDS), "mystery")
    with pytest.raises(ValueError, match="kernel kind -1"):
        Leaf(-1, "mystery")


def test_the_search_names_no_kernel_kind() -> None:
    """The search (its kernel, its frontier, its searcher) branches on facts only: a leaf of
    new arithmetic is its module, its KernelKind and its branch in engines/search/leaf.py."""
    for name in ("expectimax.py", "frontier.py", "searcher.py"):
        source = (Path(search_leaf.__file__).parent / name).read_text()
        code = "\n".join(line for line in source.splitlines()
                         if not line.lstrip().startswith("#"))
        assert not re.search(r"LEAF_(LINEAR|NTUPLE)\b", code), name


@pytest.mark.parametrize(("leaf", "hits"), [("linear", True), ("zero", False)])
def test_the_leaf_cache_follows_the_declared_fact(leaf, hits) -> None:
    searcher = Searcher(load_leaf(leaf), 2, 3)
    assert (searcher.lc.shape[0] > 1) is hits
    searcher.choose(np.asarray(BOARD, dtype=np.int64), 3, 5)
    assert bool(searcher.stats[STAT_LEAF_HITS] > 0) is hits
