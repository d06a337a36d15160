"""Pruning inside the search: the priors' compiled values, the columns kept, the arrays.

The kernel (:func:`engines.search.expectimax.node_value`) asks, at a node to
prune, for each legal column's prior value: the ``searched`` prior
(``oneply``) is the kernel's own one-ply search of the node, any other is
:func:`feature_prior` on the canonical board; :func:`kept_columns` then keeps
the ``k`` best, ties to the search's centre-first column order.  The names,
codes and declarations are :mod:`engines.search.prune_kinds`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.nibbles import CENTRE, is_legal
from engines.filters.kf import kf_values_into
from engines.filters.kf_weights import TRAINED, kf_weights, read_kf_file, read_kf_trained
from engines.filters.oneply_q import q_values
from engines.filters.oneply_q_weights import read_q
from engines.search.prune_kinds import PRIOR_KF, PRIOR_OFF, PRIOR_Q, PruneSpec

#: a searcher's pruning array: prior code, k, from, root pruned (0/1)
P_CODE, P_K, P_FROM, P_ROOT = range(4)


@njit(cache=True)
def feature_prior(code, canon, disc, mr, weights, out, scratch, strata, reveals, qwork) -> None:
    """Each column's value under a prior that plays no move (``out``: float64[7], ``-inf`` for
    an illegal column), on the canonical board the search ranks; ``scratch`` is int64
    ``(8, 7)`` (nothing is allocated: the kernel runs without reference counting)."""
    if code == PRIOR_KF:
        kf_values_into(canon, np.int64(disc), weights, out, scratch[:7], scratch[7])
    elif code == PRIOR_Q:  # our own samples of the node (``qwork``: its work space)
        q_values(canon, disc, mr, strata, reveals, weights, out, qwork)


@njit(cache=True, inline="always")
def kept_columns(canon, prior, k) -> np.int64:
    """The ``k`` legal columns of highest ``prior`` value (bit ``c``: column ``c`` of the
    canonical board): each pick is the best of the columns left, scanned centre first, a
    strictly greater value replacing the best, so ties go to the more central column as the
    search's own ties do."""
    keep = np.int64(0)
    for _ in range(k):
        pick = -1
        for i in range(7):
            c = CENTRE[i]
            if (keep >> c) & 1 or not is_legal(canon, c):
                continue
            if pick < 0 or prior[c] > prior[pick]:
                pick = c
        if pick < 0:
            break
        keep |= np.int64(1) << pick
    return keep


def prune_arrays(spec: PruneSpec | None, verify: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's pruning array (:data:`P_CODE` ...) and the prior's weights (float64; a
    one-entry placeholder for a prior without weights) of a declared pruning (None: off)."""
    if spec is None:
        return np.array([PRIOR_OFF, 7, 99, 0], dtype=np.int64), np.zeros(1)
    prune = np.array([spec.kind.code, spec.k, spec.from_, int(spec.root)], dtype=np.int64)
    return prune, prior_weights(spec, verify)


def prior_weights(spec: PruneSpec, verify: bool = True) -> np.ndarray:
    """The weights a prior reads (float64): ``kf`` a named vector, a pinned file or a
    training directory (``trained:DIR``), as ``play: kf`` reads them; ``q`` a pinned weights
    directory or (``trained:DIR``) a fit the claim trained, checked against its own manifest;
    hashes are checked unless ``verify`` is false."""
    if spec.kind.weights is None:
        return np.zeros(1)
    sha, colon, path = (spec.weights or "").partition(":")
    if spec.kind.weights == "kf":
        six = (read_kf_trained(path, verify) if sha == TRAINED
               else read_kf_file(path, sha, verify) if colon else kf_weights(spec.weights))
        return np.array(six, dtype=np.float64)
    if spec.kind.weights == "file":
        pin = None if sha == TRAINED else sha
        return np.ascontiguousarray(read_q(path, pin, verify), dtype=np.float64)
    raise ValueError(f"prune: no weights loader for prior {spec.prior!r}")
