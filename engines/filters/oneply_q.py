"""The one-ply linear Q (compiled): 32 one-ply features of each legal column, and their values.

The register's prior of theory ``oneply-linear-q-prune-prior``: a column's
value is a weighted sum of what one ply of the fair search sees when it drops
the next disc there, so it can rank a node's columns for a pruned search, a
panel or a greedy player.  Entry points (``@njit``; ``cols`` seven ``int64``
column words of a settled board, ``disc`` the next disc, ``mr`` the moves
remaining before the rise, ``strata`` ``S`` and ``reveals`` ``M`` of the
chance node, 1 for the plain node)::

    work = q_work(strata, reveals)              # work space, made once (Python)
    q_values(cols, disc, mr, strata, reveals, weights, out, work) -> column
    oneply_features(cols, disc, mr, strata, reveals, feats, work) -> legal mask

``q_values`` fills ``out`` (``float64[7]``) with ``weights . features`` of
each legal column of ``cols`` (``-inf`` for a full one) and returns the column
of highest value, ties going as the search's (centre first on the
mirror-canonical board, a strictly greater value replacing the best), -1 when
no column is legal.  ``weights`` is ``float64[N_FEATURES]`` in
:data:`FEATURE_NAMES` order (:mod:`engines.filters.oneply_q_weights` reads a
fitted file).  ``oneply_features`` fills ``feats`` (``float64[7,
N_FEATURES]``; rows of full columns zero).

The features of a column ``c`` (indices in :data:`FEATURE_NAMES`), under the
chance samples of the fair search's one-ply node exactly
(:func:`engines.search.expectimax.node_value` at depth 1; our own sampling,
keyed by :func:`engines.drop7.chance.chance_key`):

* ``0..17`` the mean over the node's samples of the 18 fair-leaf terms
  (:func:`engines.leaves.linear.linear_terms`) of the sample's resolved,
  mirror-canonical board with its moves remaining and its next disc; a sample
  that ends the game adds 0;
* ``18`` the mean points of the move over the samples, ``19`` the fraction of
  samples that end the game;
* ``20..25`` the six Klein-Friedmann features of dropping the disc into ``c``
  (:func:`engines.filters.kf.kf_features`, which read the board before the drop);
* ``26..30`` the rise clock, one-hot: ``mr`` = 1 .. 5;
* ``31`` a bias, 1.

A move on which nothing is revealed gives every sample one board (only the
next disc differs): terms 0..16 are that board's, term 17 the mean over the
``S`` next discs.  So the depth-1 search value of a column is the Q of
:func:`d1_weights` (the fair leaf's 18 weights, 1 on the points,
``TERMINAL_UTILITY`` on the terminal fraction) up to the order of float sums.
The readable twin is :mod:`engines.filters.oneply_q_ref`; tests hold the two
equal bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7 import chance
from engines.drop7.board import MOVES_PER_LEVEL, TERMINAL_UTILITY
from engines.drop7.chance import canonicalise, chance_key, next_disc, play_strata_of
from engines.drop7.core import OUT_LEN, SRC_STRATIFIED, quick_drop
from engines.drop7.nibbles import CENTRE, is_legal
from engines.filters.kf import N_FEATURES as N_KF
from engines.filters.kf import kf_features_into
from engines.filters.kf_weights import FEATURES as KF_NAMES
from engines.leaves.kinds import N_TERMS, NEXT_DISC_TERM
from engines.leaves.linear import FAIR_WEIGHTS, TERM_NAMES, linear_terms, next_disc_term

#: the features, in the order every weight vector lists them
FEATURE_NAMES: tuple[str, ...] = (
    *(f"leaf_{n}" for n in TERM_NAMES), "delta_mean", "terminal_frac",
    *(f"kf_{n}" for n in KF_NAMES), *(f"rise_{m}" for m in range(1, MOVES_PER_LEVEL + 1)),
    "bias")
N_FEATURES = len(FEATURE_NAMES)
#: where each group starts
LEAF0, DELTA, TERMINAL, KF0 = 0, N_TERMS, N_TERMS + 1, N_TERMS + 2
RISE0 = KF0 + N_KF
BIAS = RISE0 + MOVES_PER_LEVEL
assert BIAS == N_FEATURES - 1 and FEATURE_NAMES[DELTA] == "delta_mean"

# work space slots (q_work)
_CANON, _WORK, _LEAFBUF, _BOARDS, _RES, _SCRATCH, _OUT, _TERMS, _KF, _FEATS, _HEIGHTS = range(11)
#: the work space's counters (int64[2]): the moves played (sample boards resolved) and the leaf
#: terms computed since they were last read, counted as the search's depth-1 node counts its
#: moves and leaves, so a pruning prior's work is in the search's units
Q_COUNTS = 11
Q_MOVES, Q_LEAVES = 0, 1


def q_work(strata: int, reveals: int = 1) -> tuple:
    """The work space of :func:`q_values` and :func:`oneply_features` for nodes of ``strata``
    samples and ``reveals`` reveal samples per stratum (one per searcher or thread)."""
    if strata < 1 or reveals < 1:  # the search's limits are checked where it is built
        raise ValueError(f"strata and reveals must be at least 1, got {strata} and {reveals}")
    rows = strata * reveals
    return (np.zeros(7, np.int64), np.zeros(7, np.int64), np.zeros(7, np.int64),
            np.zeros((rows, 7), np.int64), np.zeros((rows, chance.RES_LEN), np.int64),
            np.zeros(chance.STRATA_SCRATCH_LEN, np.int64), np.zeros(OUT_LEN, np.int64),
            np.zeros(N_TERMS, np.float64), np.zeros((7, N_KF), np.int64),
            np.zeros((7, N_FEATURES), np.float64), np.zeros(7, np.int64),
            np.zeros(2, np.int64))


def d1_weights() -> np.ndarray:
    """The weights whose Q is the depth-1 fair search's column value: the fair leaf's 18
    weights, 1 on the mean points and ``TERMINAL_UTILITY`` on the terminal fraction."""
    w = np.zeros(N_FEATURES, dtype=np.float64)
    w[LEAF0:LEAF0 + N_TERMS] = FAIR_WEIGHTS
    w[DELTA] = 1.0
    w[TERMINAL] = TERMINAL_UTILITY
    return w


@njit(cache=True)
def _add_terms(board, mr, disc, leafbuf, terms, row) -> None:
    """``row[0:18] +=`` the leaf terms of ``board`` (canonicalised) with ``mr`` and ``disc``."""
    canonicalise(board, leafbuf)
    linear_terms(leafbuf, mr, disc, terms)
    for j in range(N_TERMS):
        row[LEAF0 + j] += terms[j]


@njit(cache=True)
def _column_features(canon, c, disc, mr, strata, reveals, work, row) -> None:
    """``row[0:20]``: the leaf-term means, mean points and terminal fraction of canonical
    column ``c``, sampled as the search's depth-1 node samples it."""
    w, leafbuf, bd, rd = work[_WORK], work[_LEAFBUF], work[_BOARDS], work[_RES]
    terms, counts = work[_TERMS], work[Q_COUNTS]
    for k in range(7):
        w[k] = canon[k]
    total = strata * reveals
    key = chance_key(canon, disc, mr, c)
    quiet, mr2, pts, over = quick_drop(w, c, disc, mr)
    if quiet:
        rows = 1
        for k in range(7):
            bd[0, k] = w[k]
        rd[0, chance.RES_MR] = mr2
        rd[0, chance.RES_POINTS] = pts
        rd[0, chance.RES_OVER] = over
    else:
        rows = play_strata_of(SRC_STRATIFIED, w, c, disc, mr, key, total, bd, rd, 0,
                              work[_SCRATCH], work[_OUT])
    counts[Q_MOVES] += rows
    if rows == 1:  # one board for every sample: only the next disc varies
        row[DELTA] = np.float64(rd[0, chance.RES_POINTS])
        if rd[0, chance.RES_OVER]:
            row[TERMINAL] = 1.0
            return
        counts[Q_LEAVES] += 1
        _add_terms(bd[0], rd[0, chance.RES_MR], next_disc(SRC_STRATIFIED, key, strata, 0),
                   leafbuf, terms, row)
        acc = 0.0
        for t in range(strata):
            acc += next_disc_term(leafbuf, next_disc(SRC_STRATIFIED, key, strata, t))
        row[LEAF0 + NEXT_DISC_TERM] = acc / strata
        return
    dead = 0
    for i in range(total):  # disc stratum d outer, reveal sample inner (row r M + d), as the search
        d = i // reveals
        r = (i % reveals) * strata + d
        row[DELTA] += np.float64(rd[r, chance.RES_POINTS])
        if rd[r, chance.RES_OVER]:
            dead += 1
            continue
        counts[Q_LEAVES] += 1
        _add_terms(bd[r], rd[r, chance.RES_MR], next_disc(SRC_STRATIFIED, key, strata, d),
                   leafbuf, terms, row)
    for j in range(TERMINAL):
        row[j] /= total
    row[TERMINAL] = dead / total


@njit(cache=True)
def oneply_features(cols, disc, mr, strata, reveals, feats, work) -> np.int64:
    """``feats[c]``: the features of each legal column ``c`` of ``cols`` (see the module;
    full columns' rows zero); returns the legal columns as a bit mask."""
    canon = work[_CANON]
    mirrored = canonicalise(cols, canon)
    kf = work[_KF]
    kf_features_into(cols, disc, kf, work[_HEIGHTS])  # allocates nothing: a search may call it
    feats[:] = 0.0
    legal = np.int64(0)
    for c in range(7):
        if not is_legal(canon, c):
            continue
        x = 6 - c if mirrored else c
        legal |= np.int64(1) << x
        row = feats[x]
        _column_features(canon, c, disc, mr, strata, reveals, work, row)
        for k in range(N_KF):
            row[KF0 + k] = np.float64(kf[x, k])
        row[RISE0 + min(max(mr, 1), MOVES_PER_LEVEL) - 1] = 1.0
        row[BIAS] = 1.0
    return legal


@njit(cache=True)
def q_values(cols, disc, mr, strata, reveals, weights, out, work) -> np.int64:
    """``out[c]``: the Q of each column of ``cols`` (``-inf`` when full); returns the column
    of highest Q, ties to the centre-most column of the canonical board (-1: none legal)."""
    feats = work[_FEATS]
    legal = oneply_features(cols, disc, mr, strata, reveals, feats, work)
    for x in range(7):
        out[x] = -np.inf
        if (legal >> x) & 1:
            v = 0.0
            for j in range(N_FEATURES):
                v += weights[j] * feats[x, j]
            out[x] = v
    mirrored = chance.mirror_precedes(cols)
    best, chosen = -np.inf, -1
    for i in range(7):
        c = CENTRE[i]
        x = 6 - c if mirrored else c
        if (legal >> x) & 1 and out[x] > best:
            best, chosen = out[x], x
    return chosen
