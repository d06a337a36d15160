"""The linear leaf with extra terms (numba): the fair leaf's 18 and the registered extras.

A loaded leaf's weights are ``float64[N_TERMS + 1 + N_EXTRA]``: the 18 weights, the
intercept, then one weight per registered term (:mod:`engines.leaves.extra_terms`,
by code; 0 for a term the leaf does not name).  The value's board part sums terms
1..17 as :func:`engines.leaves.linear.linear_value_no_disc` does, then adds each
term of non-zero weight in code order; a chance node adds term 18 per disc as for
the fair leaf.  The fair leaf's own kernels never call this module, so a leaf
without terms is today's arithmetic bit for bit.  A new term is one branch of
:func:`extra_term`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from engines.leaves.double_hit import aligned_double_hit
from engines.leaves.extra_terms import N_EXTRA
from engines.leaves.kinds import N_TERMS, NEXT_DISC_TERM
from engines.leaves.linear import _stack_f64, _stack_i64, fill_terms

#: the slot of the first extra term's weight (after the 18 weights and the intercept)
EXTRA_SLOT = N_TERMS + 1


@njit(cache=True, inline="always")
def extra_term(code, cell, h, numbered_bits, grey_bits, run_lo, run_hi, add, rel) -> float:
    """The registered term ``code`` (:data:`engines.leaves.extra_terms.EXTRA_TERMS`)."""
    if code == 0:
        return aligned_double_hit(cell, h, numbered_bits, grey_bits, run_lo, run_hi, add, rel)
    return 0.0


@njit(cache=True, inline="always")
def linear_extra_value_no_disc(cols: np.ndarray, moves_remaining: int,
                               weights: np.ndarray) -> float:
    """Terms 1..17 weighted and summed in table order, then each extra term of non-zero
    weight, in code order (the intercept and term 18 are added by the caller)."""
    t = numba.carray(_stack_f64(18), (N_TERMS,))
    h = numba.carray(_stack_i64(7), (7,))
    cell = numba.carray(_stack_i64(49), (49,))
    run_lo = numba.carray(_stack_i64(49), (49,))
    run_hi = numba.carray(_stack_i64(49), (49,))
    add = numba.carray(_stack_f64(49), (49,))
    rel = numba.carray(_stack_f64(49), (49,))
    numbered_bits, grey_bits = fill_terms(cols, moves_remaining, t, h, cell, run_lo, run_hi,
                                          add, rel)
    value = 0.0
    for k in range(NEXT_DISC_TERM):
        value += weights[k] * t[k]
    for code in range(N_EXTRA):
        w = weights[EXTRA_SLOT + code]
        if w != 0.0:
            value += w * extra_term(code, cell, h, numbered_bits, grey_bits, run_lo, run_hi,
                                    add, rel)
    return value


@njit(cache=True)
def extra_terms_into(cols: np.ndarray, moves_remaining: int, out: np.ndarray) -> None:
    """``out[:N_EXTRA]`` = every registered extra term of a board, by code."""
    t = numba.carray(_stack_f64(18), (N_TERMS,))
    h = numba.carray(_stack_i64(7), (7,))
    cell = numba.carray(_stack_i64(49), (49,))
    run_lo = numba.carray(_stack_i64(49), (49,))
    run_hi = numba.carray(_stack_i64(49), (49,))
    add = numba.carray(_stack_f64(49), (49,))
    rel = numba.carray(_stack_f64(49), (49,))
    numbered_bits, grey_bits = fill_terms(cols, moves_remaining, t, h, cell, run_lo, run_hi,
                                          add, rel)
    for code in range(N_EXTRA):
        out[code] = extra_term(code, cell, h, numbered_bits, grey_bits, run_lo, run_hi, add,
                               rel)


@njit(cache=True)
def extra_terms_many(boards: np.ndarray, moves_remaining: np.ndarray, out: np.ndarray) -> None:
    """``out[n, :N_EXTRA]`` = the extra terms of state n (for ``drop7 leaf-terms`` and tests)."""
    for n in range(boards.shape[0]):
        extra_terms_into(boards[n], moves_remaining[n], out[n])
