"""The Python face of the search: :class:`Searcher`, one leaf bound to its work arrays.

A searcher owns everything the kernel (:mod:`engines.search.expectimax`) views and never
allocates: the work space, the chance samples' rows, the node table and the leaf cache
(:mod:`engines.search.value_table`), the pruning arrays and the counters
(:mod:`engines.search.stats`).  It compiles the leaf's entry points before the kernel
(:func:`_compile_leaf_calls`) and reads the root's values back in the board's own columns.
"""

from __future__ import annotations

import numba
import numpy as np

from engines.drop7 import chance
from engines.drop7.core import OUT_LEN
from engines.drop7.nibbles import CENTRE
from engines.drop7.register_rng import OWN_SAMPLING
from engines.filters.oneply_q import q_work
from engines.search.expectimax import node_value, search_choice
from engines.search.leaf import KERNEL_KINDS, LEAF_ZERO, leaf_base, leaf_disc, leaf_joint
from engines.search.limits import MAX_DEPTH, MAX_REVEALS, MAX_STRATA
from engines.search.ntuple_delta import slot_index, work_arrays
from engines.search.prune import prune_arrays
from engines.search.prune_kinds import PruneSpec
from engines.search.stats import STAT_LEN
from engines.search.value_table import LEAF_CACHE_BITS, empty_table, node_table_bits

_WARM: set[tuple] = set()


def _compile_leaf_calls(leaf) -> None:
    """Compile the leaf entry points from Python before the kernel needs them.

    The kernels are compiled without reference counting (numba's
    ``_nrt=False``: they allocate nothing and only view arrays their caller
    keeps alive), and numba passes that setting on to callees compiled
    during the kernel's own compilation.  The leaves may need the runtime
    (stack-backed arrays), so they are compiled first, normally, here; the
    kernel then links the compiled versions.
    """
    types = tuple(numba.typeof(a) for a in (leaf.weights, leaf.tables, leaf.spec))
    if types in _WARM:
        return
    board = np.zeros(7, dtype=np.int64)
    leaf_base(LEAF_ZERO, board, 5, leaf.weights, leaf.tables, leaf.spec)
    leaf_disc(LEAF_ZERO, board, 1, leaf.weights)
    leaf_joint(LEAF_ZERO, board, 5, 0, np.uint64(0), 1, True, 0, leaf.tables, leaf.spec)
    _WARM.add(types)


class Searcher:
    """A ``dDsS`` searcher bound to one leaf, with its own workspace.

    ``leaf`` is a :class:`engines.search.leaf.Leaf` (kind, weights, tables,
    spec).  ``reveals`` is ``M`` of the factored chance node (``M`` reveal
    samples per disc stratum where a move reveals); None (or 0) is the plain
    node, which ``M = 1`` equals bit for bit.  With ``reuse`` (the default) a
    decision computes the value of each inner node once (the node table) and
    the disc-free leaf of each board once (the leaf cache, for a ``cached``
    kernel kind); without it every value is computed where it is met.  Both
    give the same values bit for bit.  ``register_seed`` (a 32-bit policy seed) draws the
    chance samples as the research register does (:mod:`engines.drop7.register_rng`);
    None is our own sampling.  ``prune`` (:class:`engines.search.prune_kinds.PruneSpec`)
    searches only a prior's top ``k`` columns at the nodes it names (docs/search.md, "Pruned
    search"); None is the full-width search, bit for bit.  A searcher's node table holds its
    own search's values only, so pruned and full-width values never meet in one table.
    Not thread-safe: one searcher per thread or process.
    """

    def __init__(self, leaf, depth: int, strata: int, reuse: bool = True,
                 reveals: int | None = None, register_seed: int | None = None,
                 prune: PruneSpec | None = None, verify: bool = True) -> None:
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be 1..{MAX_DEPTH}, got {depth}")
        if not 1 <= strata <= MAX_STRATA:
            raise ValueError(f"strata must be 1..{MAX_STRATA}, got {strata}")
        if reveals is not None and not 0 <= reveals <= MAX_REVEALS:
            raise ValueError(f"reveals must be 1..{MAX_REVEALS}, got {reveals}")
        if register_seed is not None:
            if not 0 <= register_seed < 1 << 32:
                raise ValueError(f"register_seed must be a 32-bit seed, got {register_seed}")
            if (reveals or 1) != 1:
                raise ValueError("the register's sampling has no factored chance node (reveals)")
        if prune is not None:
            prune.check(depth)
        self.register_seed = register_seed
        self.prune_spec = prune
        self.prune, self.pw = prune_arrays(prune, verify)
        self.pv = np.zeros((depth + 1, 7), dtype=np.float64)
        self.qw = q_work(strata, reveals or 1)  # the q prior's work space
        self.leaf = leaf
        self.depth = depth
        self.strata = strata
        self.reveals = reveals or None  # as declared; the kernel plays M = 1 for None
        rows = max(MAX_STRATA, strata * (reveals or 1))
        # rows 2 depth + 4 on: the scratch of a feature prior (engines.search.prune)
        self.ws = np.zeros((2 * depth + 12, 7), dtype=np.int64)
        self.vals = np.zeros((depth + 1, 7), dtype=np.float64)
        self.boards = np.zeros((depth + 1, rows, 7), dtype=np.int64)
        self.res = np.zeros((depth + 1, rows, chance.RES_LEN), dtype=np.int64)
        self.slot_j = slot_index(leaf.spec)
        self.nt_i, self.nt_f = work_arrays()
        self.scratch = np.zeros(chance.STRATA_SCRATCH_LEN, dtype=np.int64)
        self.out = np.zeros(OUT_LEN, dtype=np.int64)
        self.stats = np.zeros(STAT_LEN, dtype=np.int64)
        self.tt, self.ttf = empty_table(node_table_bits(depth, reveals or 1) if reuse else 0)
        cache = reuse and KERNEL_KINDS[leaf.kind].cached and depth > 1
        self.lc, self.lcf = empty_table(LEAF_CACHE_BITS if cache else 0)
        self.gen = 0
        _compile_leaf_calls(leaf)

    def reset(self) -> None:
        """Empty the node table and the leaf cache and count decisions from 0 again: a game
        started after this searches exactly as with a new searcher (the same hits, so the
        same node and leaf counts), whatever it searched before."""
        for table in (self.tt, self.lc):
            table.fill(0)
        self.gen = 0

    def _args(self) -> tuple:
        leaf = self.leaf
        self.gen += 1  # a new decision: the tables' earlier entries no longer match
        rseed = OWN_SAMPLING if self.register_seed is None else self.register_seed
        return (self.depth, self.strata, self.reveals or 1, rseed, leaf.kind, leaf.weights,
                leaf.tables, leaf.spec,
                self.ws, self.vals, self.boards, self.res, self.slot_j, self.nt_i, self.nt_f,
                self.scratch, self.out, self.tt, self.ttf, self.lc, self.lcf, self.gen,
                self.stats, self.prune, self.pw, self.pv, self.qw)

    def choose(self, cols: np.ndarray, disc: int, moves_remaining: int) -> int:
        """The chosen column of a public state (-1 when no column is legal)."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        return int(search_choice(board, disc, moves_remaining, *self._args()))

    def choose_values(self, cols: np.ndarray, disc: int, moves_remaining: int
                      ) -> tuple[int, np.ndarray]:
        """The chosen column and the chance value of each column of ``cols`` (``-inf`` when
        illegal) from one search: the choice, the counts and the tables are exactly those
        of :meth:`choose` (the root's values are the ones it compared)."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        choice = int(search_choice(board, disc, moves_remaining, *self._args()))
        row = self.vals[self.depth].copy()
        return choice, (row[::-1].copy() if chance.mirror_precedes(board) else row)

    def choose_among(self, cols: np.ndarray, disc: int, moves_remaining: int, refused: int
                     ) -> tuple[int, int]:
        """``(chosen, unrestricted)``: the column chosen among the legal columns of ``cols``
        not in ``refused`` (bit ``c``: column ``c``; it must leave one), and the one
        :meth:`choose` picks, from one search.  A root filter changes no value below the
        root, so the root's values, compared in the kernel's order (centre first on the
        canonical board, a strictly greater value replacing the best), rank the columns left
        exactly as a search over those alone would; the choice and the counts with
        ``refused = 0`` are :meth:`choose`'s."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        free = int(search_choice(board, disc, moves_remaining, *self._args()))
        if free < 0 or not (refused >> free) & 1:
            return free, free
        row = self.vals[self.depth]  # the canonical board's columns
        mirrored = chance.mirror_precedes(board)
        best, chosen = -np.inf, -1
        for c in CENTRE:
            column = 6 - c if mirrored else c
            if not (refused >> column) & 1 and row[c] > best:
                best, chosen = row[c], int(column)
        return chosen, free

    def column_values(self, cols: np.ndarray, disc: int, moves_remaining: int) -> np.ndarray:
        """Chance value of each column of ``cols`` (``-inf`` when illegal)."""
        board = np.ascontiguousarray(cols, dtype=np.int64)
        args = self._args()
        _, _, mirrored = node_value(board, disc, moves_remaining, args[0], *args, 0)
        row = self.vals[self.depth].copy()
        return row[::-1].copy() if mirrored else row
