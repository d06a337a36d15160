"""Fair ``dDsS`` expectimax: the compiled kernel and a small Python wrapper.

A decision node is a public state (board, next disc, moves remaining).  Its
value is the best over legal columns of the column's chance value; a chance
node averages ``S`` samples with weight ``1/S`` (``N x M`` with ``reveals``, below):

* the board is mirror-canonicalised first and every column is tried on the
  canonical board, centre first (3, 2, 4, 1, 5, 0, 6); a strictly greater
  value replaces the best, so ties go to the more central column (of the
  canonical board) and a position and its mirror get mirrored choices;
* sample ``s`` plays the move with the stratified reveals of ``key =
  chance_key(canonical board, disc, moves remaining, column)`` and fixes the
  next disc ``sample_disc(key, S, s)``; the seed is never seen.  A move on
  which nothing pops is :func:`engines.drop7.core.quick_drop`; any other
  has all its samples played at once by :func:`engines.drop7.chance.play_strata`
  (sample ``s`` equals :func:`engines.drop7.chance.play_sample`);
* when the move reveals nothing, the resolved board is the same for every
  sample: it is played once and only the next disc varies;
* the factored node (``reveals = M``, the register's ``N7M6``): a move that
  reveals plays ``T = N M`` samples (``N = S`` disc strata times ``M`` reveal
  samples), each weighted ``1/T``; sample ``t = r N + d`` takes its reveals
  from stratum ``t`` of ``T`` and its next disc from stratum ``d`` of ``N``.
  A move that reveals nothing keeps its ``N`` disc samples.  ``M = 1`` is the
  plain node above, bit for bit;
* a path is worth the points earned along it plus the leaf at depth 0
  (the leaf sees the canonical board); a move that ends the game is worth its
  points plus ``TERMINAL_UTILITY`` and no leaf is called.

Depth counts the player's own moves: ``d3`` is the root move plus two more,
then the leaf.  ``direct`` play is the same kernel at depth 1.

Reuse that changes no value.  A node's value is a function of its public
state and its depth alone, and the same state is met again along other
paths (two moves in the other order, samples that share a board), so each
decision keeps two exact tables: the *node table* holds the value of every
inner decision node (canonical board, disc, moves remaining, depth) and the
*leaf cache* the disc-free part of every frontier board of a leaf kernel
kind declared ``cached`` (the linear leaf; :data:`engines.search.leaf.KERNEL_KINDS`
holds each kind's facts, which the kernel reads instead of naming kinds).  A
hit compares the whole state, so it returns the very float the search
would compute again.  A ``by_difference`` kind (the n-tuple leaf) is not
cached: its value is summed by difference from the frame of the node above
(:mod:`engines.search.ntuple_delta`), so the same board under another node
may differ in the last bit.

Statistics (``stats``): ``STAT_NODES`` counts moves applied (chance samples
played), ``STAT_LEAVES`` leaf values used (a disc-free base counts once),
``STAT_DECISIONS`` root decisions, ``STAT_NODE_HITS`` and ``STAT_LEAF_HITS``
values taken from the node table and the leaf cache; a pruned search
(``prune``, :mod:`engines.search.prune`) adds ``STAT_PRUNED`` nodes ranked by its prior,
``STAT_PRIOR_EVALS`` column values the prior computed and ``STAT_PRIOR_NODES`` and
``STAT_PRIOR_LEAVES``, the moves and leaves of the one-ply prior, or of the q prior's features
(the same samples, counted alike; kept out of the first two).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit

from engines.drop7 import chance
from engines.drop7.board import SOLID, TERMINAL_UTILITY
from engines.drop7.chance import canonicalise, chance_key, next_disc, play_strata_of
from engines.drop7.core import OUT_LEN, SRC_REGISTER, SRC_STRATIFIED, quick_drop
from engines.drop7.nibbles import CENTRE, WORD, is_legal
from engines.drop7.register_rng import OWN_SAMPLING, state_seed
from engines.drop7.rng import fmix64
from engines.filters.oneply_q import Q_COUNTS, Q_LEAVES, Q_MOVES, q_work
from engines.search.leaf import (
    BASE_PART,
    BY_DIFFERENCE,
    CACHED,
    CANONICAL,
    JOINT,
    KERNEL_KINDS,
    LEAF_ZERO,
    has_disc_part,
    has_fact,
    leaf_base,
    leaf_by_difference,
    leaf_disc,
    leaf_joint,
)
from engines.search.limits import MAX_DEPTH, MAX_REVEALS, MAX_STRATA
from engines.search.ntuple_delta import slot_index, work_arrays
from engines.search.prune import (
    P_CODE,
    P_FROM,
    P_K,
    P_ROOT,
    feature_prior,
    kept_columns,
    prune_arrays,
)
from engines.search.prune_kinds import PRIOR_OFF, PRIOR_ONEPLY, PruneSpec

STAT_NODES, STAT_LEAVES, STAT_DECISIONS, STAT_NODE_HITS, STAT_LEAF_HITS = range(5)
#: a pruned search's counts (docs/search.md, "Pruned search"): nodes the prior ranked (and
#: pruned), column values it computed, and the moves applied and leaf values used by a
#: ``searched`` prior (``oneply``), which STAT_NODES and STAT_LEAVES leave out
STAT_PRUNED, STAT_PRIOR_EVALS, STAT_PRIOR_NODES, STAT_PRIOR_LEAVES = range(5, 9)
STAT_LEN = 10
#: log2 of the entries of the node table by search depth (about twice the distinct inner
#: nodes of a d3 / d4 decision); depth 1 has no inner nodes
NODE_TABLE_BITS = {1: 0, 2: 9, 3: 13, 4: 17, 5: 20, 6: 20}
#: most log2 entries of a node table (64 MB)
MAX_NODE_TABLE_BITS = 20
#: log2 of the entries of the linear leaf's cache (512 KB: stays in the L2 cache)
LEAF_CACHE_BITS = 13

_TERMINAL = np.float64(TERMINAL_UTILITY)
_NEG = -np.inf
_GEN_MASK = (1 << 25) - 1
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)


@njit(cache=True, inline="always")
def _entry(canon, meta, gen):
    """The key words and the slot mask's hash of the state ``(canon, meta)`` in decision
    ``gen``: the seven column words packed two to a word (28 bits each), the last one
    with ``meta`` and ``gen``."""
    k0 = canon[0] | (canon[1] << 28)
    k1 = canon[2] | (canon[3] << 28)
    k2 = canon[4] | (canon[5] << 28)
    k3 = canon[6] | ((meta | 512) << 28) | ((gen & _GEN_MASK) << 38)
    h = fmix64(np.uint64(k0) * _M1 + np.uint64(k1) * _M2 + np.uint64(k2) * _M3 + np.uint64(k3))
    return k0, k1, k2, k3, h


@njit(cache=True, inline="always")
def _lookup(table, canon, meta, gen):
    """``(slot, hit)`` of a state in an exact-value table: a hit compares the whole key, so
    the value stored there is always the state's own."""
    k0, k1, k2, k3, h = _entry(canon, meta, gen)
    slot = np.int64(h & np.uint64(table.shape[0] - 1))
    hit = (table[slot, 3] == k3 and table[slot, 0] == k0 and table[slot, 1] == k1
           and table[slot, 2] == k2)
    return slot, hit


@njit(cache=True, inline="always")
def _store(table, values, canon, meta, gen, value) -> None:
    """Put a state's value in its slot (one 64-byte row; the entry there goes)."""
    k0, k1, k2, k3, h = _entry(canon, meta, gen)
    slot = np.int64(h & np.uint64(table.shape[0] - 1))
    table[slot, 0] = k0
    table[slot, 1] = k1
    table[slot, 2] = k2
    table[slot, 3] = k3
    values[slot, 4] = value


@njit(cache=True, inline="always")
def _cached_base(kind, leafbuf, mr2, weights, tables, spec, lc, lcf, gen, stats) -> np.float64:
    """The disc-free part of a ``cached`` leaf kind at a canonical board, from the leaf cache
    when it is there (a one-row cache is off: every value is computed)."""
    if lc.shape[0] == 1:
        return leaf_base(kind, leafbuf, mr2, weights, tables, spec)
    slot, hit = _lookup(lc, leafbuf, mr2, gen)
    if hit:
        stats[STAT_LEAF_HITS] += 1
        return lcf[slot, 4]
    base = leaf_base(kind, leafbuf, mr2, weights, tables, spec)
    _store(lc, lcf, leafbuf, mr2, gen, base)
    return base


@njit(cache=True, inline="always")
def _frontier(kind, child, mr2, src, key, strata, one_sample, s, frame, leafbuf, weights,
              tables, spec, slot_j, nt_i, nt_f, lc, lcf, gen, stats):
    """Leaf value (points) of a resolved, non-terminal child at a depth-1 node.

    With ``one_sample`` the value for the next disc of sample ``s`` only;
    otherwise the mean over all ``strata`` next discs (the board is shared).
    ``frame`` is the board a ``by_difference`` leaf differences from: the node's
    canonical board, or that board risen when the node's moves bring a rise.
    The leaf kind's facts (:data:`engines.search.leaf.KERNEL_KINDS`) choose the
    path: by difference, on the canonical board or not, a disc-free part from
    the cache or not (or none), a next-disc part or not.
    """
    stats[STAT_LEAVES] += 1
    if has_fact(BY_DIFFERENCE, kind):  # no next disc, no cache
        return leaf_by_difference(kind, child, mr2, frame, tables, spec, slot_j, nt_i, nt_f)
    board = child
    if has_fact(CANONICAL, kind):
        canonicalise(child, leafbuf)
        board = leafbuf
    if has_fact(JOINT, kind):  # the next disc inside: all samples' discs at once
        return leaf_joint(kind, board, mr2, src, key, strata, one_sample, s, tables, spec)
    base = 0.0
    if has_fact(CACHED, kind):
        base = _cached_base(kind, board, mr2, weights, tables, spec, lc, lcf, gen, stats)
    elif has_fact(BASE_PART, kind):
        base = leaf_base(kind, board, mr2, weights, tables, spec)
    if not has_disc_part(kind):
        return base
    if one_sample:
        return base + leaf_disc(kind, board, next_disc(src, key, strata, s), weights)
    acc = 0.0
    for t in range(strata):
        acc += leaf_disc(kind, board, next_disc(src, key, strata, t), weights)
    return base + acc / strata


@njit(cache=True, inline="always")
def _n_legal(canon) -> np.int64:
    """How many columns of a board are legal."""
    n = 0
    for c in range(7):
        if is_legal(canon, c):
            n += 1
    return n


@njit(cache=True, _nrt=False)
def node_value(cols, disc, mr, depth, top, strata, reveals, rseed, kind, weights, tables, spec,
               ws, vals, boards, res, slot_j, nt_i, nt_f, scratch, out, tt, ttf, lc, lcf, gen,
               stats, prune, pw, pv, qw, sdepth):
    """Value of a decision node searched ``depth`` own moves deep.

    Returns ``(value, canonical column, mirrored)``; ``vals[depth]`` receives
    the chance value of each canonical column (``-inf`` when illegal).  The
    board must be settled (no latent poppers), as every board of a game is.
    Below the root (``depth < top``) the value comes from the node table
    ``tt`` when this decision has computed it already (the column is then -1).
    ``ws`` is int64 ``(2 * depth + 12, 7)`` (its last 8 rows a feature prior's scratch);
    ``boards[d]`` and ``res[d]``
    hold the chance samples of the move being searched at depth ``d`` (at least
    ``strata * reveals`` rows).  ``reveals`` is ``M`` of the factored node (1: the plain
    one).  ``rseed`` is ``OWN_SAMPLING`` for our samples (keyed by state and column,
    :func:`engines.drop7.chance.chance_key`) or the register's policy seed for its samples
    (keyed by state and depth, shared by the node's columns; ``reveals`` is then 1).

    ``prune`` (int64 ``[code, k, from, root]``, :mod:`engines.search.prune`; code
    ``PRIOR_OFF``: none) prunes a node with at least ``from`` plies remaining (the root only
    with ``root``) and more than ``k`` legal columns to the prior's top ``k``; ``pw`` holds the
    prior's weights and ``pv[depth]`` its values of the node's columns.  ``sdepth`` > 0 keys
    the register's samples as at that depth (the one-ply prior of a deeper node draws that
    node's samples); 0 everywhere else.
    """
    total = strata * reveals
    canon = ws[2 * depth + 2]
    work = ws[2 * depth + 3]
    mirrored = canonicalise(cols, canon)
    register = rseed != OWN_SAMPLING
    src = SRC_REGISTER if register else SRC_STRATIFIED
    node_key = (state_seed(canon, disc, mr, rseed, depth if sdepth == 0 else sdepth)
                if register else np.uint64(0))
    meta = disc | (mr << 3) | (depth << 6)
    probe = depth < top and tt.shape[0] > 1
    if probe:
        slot, hit = _lookup(tt, canon, meta, gen)
        if hit:
            stats[STAT_NODE_HITS] += 1
            return ttf[slot, 4], -1, mirrored
    frame = canon
    if depth == 1 and has_fact(BY_DIFFERENCE, kind) and mr == 1:  # every child has risen
        frame = ws[1]
        for c in range(7):
            frame[c] = ((canon[c] << 4) | SOLID) & WORD
    keep = np.int64(127)  # the columns searched (bit c of the canonical board)
    if (prune[P_CODE] != PRIOR_OFF and depth >= prune[P_FROM]
            and (depth < top or prune[P_ROOT] != 0) and _n_legal(canon) > prune[P_K]):
        # a node to prune: the prior ranks its legal columns (the searched prior is the
        # node's own one-ply search, its samples and leaf, no node table: its moves and
        # leaves are counted as the prior's, not the search's)
        prior = pv[depth]
        stats[STAT_PRUNED] += 1
        stats[STAT_PRIOR_EVALS] += _n_legal(canon)
        if prune[P_CODE] == PRIOR_ONEPLY:
            nodes, leaves = stats[STAT_NODES], stats[STAT_LEAVES]
            one = np.int64(1)  # typed as the other calls' (a literal would compile another
            # specialisation of this recursive kernel, which numba's cache does not reload)
            node_value(canon, disc, mr, one, one, strata, reveals, rseed, kind, weights, tables,
                       spec, ws, vals, boards, res, slot_j, nt_i, nt_f, scratch, out, tt, ttf,
                       lc, lcf, gen, stats, prune, pw, pv, qw, depth)
            for c in range(7):
                prior[c] = vals[1, c]
            stats[STAT_PRIOR_NODES] += stats[STAT_NODES] - nodes
            stats[STAT_PRIOR_LEAVES] += stats[STAT_LEAVES] - leaves
            stats[STAT_NODES] = nodes
            stats[STAT_LEAVES] = leaves
        else:  # a q prior's moves and leaf terms, counted as the one-ply prior's are
            qc = qw[Q_COUNTS]
            qc[Q_MOVES] = 0
            qc[Q_LEAVES] = 0
            feature_prior(prune[P_CODE], canon, disc, mr, pw, prior, ws[2 * top + 4:], strata,
                          reveals, qw)
            stats[STAT_PRIOR_NODES] += qc[Q_MOVES]
            stats[STAT_PRIOR_LEAVES] += qc[Q_LEAVES]
        keep = kept_columns(canon, prior, prune[P_K])
    leafbuf = ws[0]
    bd = boards[depth]
    rd = res[depth]
    best = _NEG
    best_c = -1
    for i in range(7):
        c = CENTRE[i]
        vals[depth, c] = _NEG
        if not is_legal(canon, c) or not (keep >> c) & 1:
            continue
        for k in range(7):
            work[k] = canon[k]
        quiet, mr2, pts, over = quick_drop(work, c, disc, mr)
        if quiet:  # nothing pops: one board, no reveals, no key unless a next disc is drawn
            rows = 1
            for k in range(7):
                bd[0, k] = work[k]
            rd[0, chance.RES_MR] = mr2
            rd[0, chance.RES_POINTS] = pts
            rd[0, chance.RES_OVER] = over
            key = np.uint64(0)
            if not over and (depth > 1 or has_disc_part(kind)):
                key = node_key if register else chance_key(canon, disc, mr, c)
        else:
            key = node_key if register else chance_key(canon, disc, mr, c)
            rows = play_strata_of(src, work, c, disc, mr, key, total, bd, rd, 0, scratch, out)
        stats[STAT_NODES] += rows
        shared = rows == 1  # one board for every sample
        # and one value for every sample (the register's sampling sums every sample, as it
        # does: a value tied there is tied here)
        once = shared and (rd[0, chance.RES_OVER] != 0 or depth == 1) and not register
        n = 1 if once else (strata if shared else total)
        acc = 0.0
        for i in range(n):  # disc stratum d outer, reveal sample inner (row r M + d)
            d = i if shared else i // reveals
            r = 0 if shared else (i % reveals) * strata + d
            pts_s = np.float64(rd[r, chance.RES_POINTS])
            if rd[r, chance.RES_OVER]:
                acc += pts_s + _TERMINAL
            elif depth == 1:
                acc += pts_s + _frontier(kind, bd[r], rd[r, chance.RES_MR], src, key, strata,
                                         register or not shared, d, frame, leafbuf, weights,
                                         tables, spec, slot_j, nt_i, nt_f, lc, lcf, gen, stats)
            else:
                sub, _, _ = node_value(bd[r], next_disc(src, key, strata, d),
                                       rd[r, chance.RES_MR], depth - 1, top, strata, reveals,
                                       rseed, kind, weights, tables, spec, ws, vals, boards, res,
                                       slot_j, nt_i, nt_f, scratch, out, tt, ttf, lc, lcf, gen,
                                       stats, prune, pw, pv, qw, np.int64(0))
                acc += pts_s + sub
        v = acc if once else acc / n
        vals[depth, c] = v
        if v > best:
            best = v
            best_c = c
    if probe:
        _store(tt, ttf, canon, meta, gen, best)
    return best, best_c, mirrored


@njit(cache=True, _nrt=False)
def search_choice(cols, disc, mr, depth, strata, reveals, rseed, kind, weights, tables, spec, ws,
                  vals, boards, res, slot_j, nt_i, nt_f, scratch, out, tt, ttf, lc, lcf, gen,
                  stats, prune, pw, pv, qw) -> np.int64:
    """The column (of ``cols``, not the canonical board) chosen at the root."""
    _, c, mirrored = node_value(cols, disc, mr, depth, depth, strata, reveals, rseed, kind,
                                weights, tables, spec, ws, vals, boards, res, slot_j, nt_i,
                                nt_f, scratch, out, tt, ttf, lc, lcf, gen, stats, prune, pw,
                                pv, qw, np.int64(0))
    stats[STAT_DECISIONS] += 1
    if c >= 0 and mirrored:
        return 6 - c
    return c


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


def node_table_bits(depth: int, reveals: int) -> int:
    """log2 of a node table's entries: :data:`NODE_TABLE_BITS`, grown for a factored node
    by about ``sqrt(M)`` per inner ply (only moves that reveal play ``M`` times the samples,
    a bit less than half of them); only speed depends on it."""
    bits = NODE_TABLE_BITS[depth]
    if depth == 1 or reveals == 1:
        return bits
    grow = (depth - 1) * math.log2(reveals) / 2
    return max(bits, min(MAX_NODE_TABLE_BITS, bits + round(grow)))


def _value_table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty exact-value table of ``2**bits`` entries (one row of 8 words each) and its
    float view; ``bits = 0`` gives the one-row table that switches it off."""
    table = np.zeros((1 << bits, 8), dtype=np.int64)
    return table, table.view(np.float64)


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
        self.tt, self.ttf = _value_table(node_table_bits(depth, reveals or 1) if reuse else 0)
        cache = reuse and KERNEL_KINDS[leaf.kind].cached and depth > 1
        self.lc, self.lcf = _value_table(LEAF_CACHE_BITS if cache else 0)
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
        best, chosen = _NEG, -1
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


