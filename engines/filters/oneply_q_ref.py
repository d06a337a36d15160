"""The one-ply linear Q, readable: the twin of :mod:`engines.filters.oneply_q`.

It plays each chance sample on its own (:func:`engines.drop7.chance.play_sample`,
the definition the search's shared-prefix sampling is tested against), reads
the leaf terms from the readable leaf (:mod:`engines.leaves.linear_ref`) and
the Klein-Friedmann features from the readable port
(:mod:`engines.filters.kf_ref`), and sums in the compiled module's order, so
tests hold the two equal bit for bit.
"""

from __future__ import annotations

import numpy as np

from engines.drop7 import chance
from engines.drop7.board import MOVES_PER_LEVEL, unpack
from engines.drop7.core import OUT_LEN, OUT_OVER, OUT_POINTS, OUT_REVEALS, SCRATCH_LEN
from engines.drop7.rules import legal_columns
from engines.filters import kf_ref
from engines.filters.oneply_q import (
    BIAS,
    DELTA,
    FEATURE_NAMES,
    KF0,
    LEAF0,
    N_FEATURES,
    RISE0,
    TERMINAL,
)
from engines.leaves import linear_ref
from engines.leaves.kinds import N_TERMS, NEXT_DISC_TERM

__all__ = ["FEATURE_NAMES", "column_features", "q_values"]


def _canonical(cols: np.ndarray) -> tuple[np.ndarray, bool]:
    """The mirror-canonical board and whether it is the mirror."""
    flip = bool(chance.mirrored_is_smaller(cols))
    return (cols[::-1].copy() if flip else cols.copy()), flip


def _terms(board: np.ndarray, mr: int, disc: int) -> list[float]:
    """The fair leaf's 18 terms of a board as the search's leaf sees it (canonical)."""
    canon, _ = _canonical(board)
    return linear_ref.linear_terms(unpack(canon).tolist(), mr, disc)


def _samples(canon: np.ndarray, c: int, disc: int, mr: int, key: np.uint64, total: int
             ) -> list[tuple[np.ndarray, int, int, bool]]:
    """``(board, moves remaining, points, over)`` of each of the ``total`` samples; one
    when the move reveals nothing (every sample is that board)."""
    out = []
    for t in range(total):
        board = canon.copy()
        scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
        res = np.zeros(OUT_LEN, dtype=np.int64)
        _, mr2 = chance.play_sample(board, c, disc, mr, key, total, t, scratch, res)
        out.append((board, int(mr2), int(res[OUT_POINTS]), bool(res[OUT_OVER])))
        if t == 0 and res[OUT_REVEALS] == 0:
            break
    return out


def column_features(cols: np.ndarray, column: int, disc: int, mr: int, strata: int = 7,
                    reveals: int = 1) -> list[float]:
    """The :data:`FEATURE_NAMES` features of dropping ``disc`` into legal column ``column``
    of ``cols`` (the compiled module's docstring states each one)."""
    canon, flip = _canonical(np.asarray(cols, dtype=np.int64))
    c = 6 - column if flip else column
    f = [0.0] * N_FEATURES
    key = np.uint64(chance.chance_key(canon, disc, mr, c))
    total = strata * reveals
    samples = _samples(canon, c, disc, mr, key, total)
    if len(samples) == 1:
        board, mr2, pts, over = samples[0]
        f[DELTA] = float(pts)
        if over:
            f[TERMINAL] = 1.0
        else:
            terms = _terms(board, mr2, int(chance.sample_disc(key, strata, 0)))
            f[LEAF0:LEAF0 + N_TERMS] = terms
            acc = 0.0
            for t in range(strata):  # the next-disc term of each sample's disc
                acc += _terms(board, mr2, int(chance.sample_disc(key, strata, t)))[NEXT_DISC_TERM]
            f[LEAF0 + NEXT_DISC_TERM] = acc / strata
    else:
        dead = 0
        for i in range(total):
            d = i // reveals
            board, mr2, pts, over = samples[(i % reveals) * strata + d]
            f[DELTA] += float(pts)
            if over:
                dead += 1
                continue
            for j, x in enumerate(_terms(board, mr2, int(chance.sample_disc(key, strata, d)))):
                f[LEAF0 + j] += x
        for j in range(TERMINAL):
            f[j] /= total
        f[TERMINAL] = dead / total
    grid = unpack(np.asarray(cols, dtype=np.int64)).tolist()
    f[KF0:KF0 + 6] = [float(v) for v in kf_ref.features(grid, disc, column)]
    f[RISE0 + min(max(mr, 1), MOVES_PER_LEVEL) - 1] = 1.0
    f[BIAS] = 1.0
    return f


def q_values(cols: np.ndarray, disc: int, mr: int, weights: list[float], strata: int = 7,
             reveals: int = 1) -> tuple[list[float], int]:
    """Each column's Q (``-inf`` when full) and the column chosen (the highest, ties to the
    centre-most column of the canonical board; -1 when none is legal)."""
    cols = np.asarray(cols, dtype=np.int64)
    values = [-np.inf] * 7
    for x in legal_columns(unpack(cols).tolist()):
        v = 0.0
        for w, y in zip(weights, column_features(cols, x, disc, mr, strata, reveals),
                        strict=True):
            v += w * y
        values[x] = v
    flip = bool(chance.mirrored_is_smaller(cols))
    best, chosen = -np.inf, -1
    for c in (3, 2, 4, 1, 5, 0, 6):
        x = 6 - c if flip else c
        if values[x] > best:
            best, chosen = values[x], x
    return values, chosen
