"""Fair ``dDsS`` expectimax: the compiled kernel (:func:`node_value`, :func:`search_choice`).

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

Reuse that changes no value: below the root a decision's value comes from its node
table when the decision has computed it already, and a ``cached`` leaf kind's disc-free
part from its leaf cache (:mod:`engines.search.value_table`; a hit is the very float the
search would compute again).  The leaf at the frontier is
:func:`engines.search.frontier.frontier`'s, the counters :mod:`engines.search.stats`'
and the Python wrapper that owns the work arrays :class:`engines.search.searcher.Searcher`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7 import chance
from engines.drop7.board import SOLID, TERMINAL_UTILITY
from engines.drop7.chance import canonicalise, chance_key, next_disc, play_strata_of
from engines.drop7.core import SRC_REGISTER, SRC_STRATIFIED, quick_drop
from engines.drop7.nibbles import CENTRE, WORD, is_legal
from engines.drop7.register_rng import OWN_SAMPLING, state_seed
from engines.filters.oneply_q import Q_COUNTS, Q_LEAVES, Q_MOVES
from engines.search.frontier import frontier
from engines.search.leaf import BY_DIFFERENCE, has_disc_part, has_fact
from engines.search.prune import P_CODE, P_FROM, P_K, P_ROOT, feature_prior, kept_columns
from engines.search.prune_kinds import PRIOR_OFF, PRIOR_ONEPLY
from engines.search.stats import (
    STAT_DECISIONS,
    STAT_LEAVES,
    STAT_NODE_HITS,
    STAT_NODES,
    STAT_PRIOR_EVALS,
    STAT_PRIOR_LEAVES,
    STAT_PRIOR_NODES,
    STAT_PRUNED,
)
from engines.search.value_table import lookup, store

_TERMINAL = np.float64(TERMINAL_UTILITY)
_NEG = -np.inf


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
        slot, hit = lookup(tt, canon, meta, gen)
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
                acc += pts_s + frontier(kind, bd[r], rd[r, chance.RES_MR], src, key, strata,
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
        store(tt, ttf, canon, meta, gen, best)
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
