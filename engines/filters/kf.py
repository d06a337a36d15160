"""The six-feature Klein-Friedmann policy (compiled): each column's features, values and choice.

A one-ply greedy rule over the board as it stands (nothing is dropped, nothing
pops, no chance is sampled): for each legal column ``x`` the next disc would
land at height ``y`` (the column's height, counted from the floor), and six
integer features describe that landing; the column's value is their weighted
sum (:mod:`engines.filters.kf_weights`) and the policy plays the legal column
of highest value, a tie going to the rightmost column (the register's port
keeps the original's tie rule).  The features, as the register's port computes
them (``approaches/value-policy-learning/klein-friedmann-linear-q``), with
``g(c, r)`` the grey weight of a cell (1 solid, 2 cracked, else 0) and
``a(c, r)`` the sum of ``g`` over its left, lower, upper and right neighbours:

0. lowest column: 1 when ``y`` is the lowest height on the board;
1. row detonations: the row run the disc joins at ``(x, y)`` has length ``n``
   (the disc and the occupied runs either side); each disc of that run whose
   value is ``n`` counts ``1 + a``;
2. column detonations: each disc below the landing cell whose value is
   ``y + 1`` counts ``1 + a``, plus ``a(x, y)`` whatever clears;
3. tallest column: feature 2 again when ``y`` is the highest height and at
   most two columns have it, else 0;
4. a one clears: ``1 + a(x, y)`` when the disc is a 1 and clears (feature 5's
   condition), else 0;
5. the disc clears: ``1 + a(x, y)`` when ``n`` or ``y + 1`` equals the disc,
   else 0.

The readable twin is :mod:`engines.filters.kf_ref`; tests hold them equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import CRACKED, SIZE, SOLID
from engines.drop7.nibbles import col_height

N_FEATURES = 6


@njit(cache=True, inline="always")
def _cell(cols, c, r):
    return (cols[c] >> (4 * r)) & 15


@njit(cache=True, inline="always")
def _grey(cols, c, r):
    v = _cell(cols, c, r)
    return 1 if v == SOLID else 2 if v == CRACKED else 0


@njit(cache=True, inline="always")
def _adjacent_grey(cols, c, r):
    total = 0
    if c > 0:
        total += _grey(cols, c - 1, r)
    if r > 0:
        total += _grey(cols, c, r - 1)
    if r < SIZE - 1:
        total += _grey(cols, c, r + 1)
    if c < SIZE - 1:
        total += _grey(cols, c + 1, r)
    return total


@njit(cache=True)
def kf_features(cols: np.ndarray, disc: np.int64, out: np.ndarray) -> None:
    """``out[c, k]``: feature ``k`` of dropping ``disc`` into legal column ``c`` (rows of full
    columns are zero); ``out`` is ``int64[7, 6]``."""
    kf_features_into(cols, disc, out, np.zeros(SIZE, dtype=np.int64))


@njit(cache=True)
def kf_features_into(cols: np.ndarray, disc: np.int64, out: np.ndarray,
                     heights: np.ndarray) -> None:
    """:func:`kf_features` into caller-owned arrays (``heights``: int64[7] scratch; ``out`` at
    least 7 x 6), allocating nothing: the search's kernels, compiled without reference
    counting, call it."""
    low, high = SIZE, 0
    for c in range(SIZE):
        heights[c] = col_height(cols[c])
        low, high = min(low, heights[c]), max(high, heights[c])
    n_high = 0
    for c in range(SIZE):
        n_high += heights[c] == high
    out[:, :] = 0
    for x in range(SIZE):
        y = heights[x]
        if y >= SIZE:
            continue
        left = x
        while left > 0 and _cell(cols, left - 1, y) != 0:
            left -= 1
        right = x
        while right < SIZE - 1 and _cell(cols, right + 1, y) != 0:
            right += 1
        run = right - left + 1
        row_dets = 0
        for c in range(left, right + 1):
            if _cell(cols, c, y) == run:
                row_dets += 1 + _adjacent_grey(cols, c, y)
        col_dets = _adjacent_grey(cols, x, y)
        for r in range(y):
            if _cell(cols, x, r) == y + 1:
                col_dets += 1 + _adjacent_grey(cols, x, r)
        out[x, 0] = 1 if y == low else 0
        out[x, 1] = row_dets
        out[x, 2] = col_dets
        out[x, 3] = col_dets if y == high and n_high <= 2 else 0
        if run == disc or y + 1 == disc:
            out[x, 5] = 1 + _adjacent_grey(cols, x, y)
            if disc == 1:
                out[x, 4] = out[x, 5]


@njit(cache=True)
def kf_values(cols: np.ndarray, disc: np.int64, weights: np.ndarray, out: np.ndarray) -> np.int64:
    """Each column's value in ``out`` (``float64[7]``; ``-inf`` for a full column: the sum of
    ``weights[k] * feature k`` in feature order) and the column the policy plays (the highest
    value, the rightmost among equals; -1 when no column is legal)."""
    return kf_values_into(cols, disc, weights, out, np.zeros((SIZE, N_FEATURES), dtype=np.int64),
                          np.zeros(SIZE, dtype=np.int64))


@njit(cache=True)
def kf_values_into(cols: np.ndarray, disc: np.int64, weights: np.ndarray, out: np.ndarray,
                   features: np.ndarray, heights: np.ndarray) -> np.int64:
    """:func:`kf_values` with caller-owned scratch (``features`` at least 7 x 6, ``heights``
    7; int64), allocating nothing (the pruned search's ``kf`` prior calls it)."""
    kf_features_into(cols, disc, features, heights)
    best = -1
    for x in range(SIZE):
        if col_height(cols[x]) >= SIZE:
            out[x] = -np.inf
            continue
        value = 0.0
        for k in range(N_FEATURES):
            value += weights[k] * features[x, k]
        out[x] = value
        if best < 0 or value >= out[best]:
            best = x
    return best
