"""Nibble arithmetic on column words (numba): the board masks, written once.

A column word holds the cell at height ``k`` in nibble ``k`` (bits
``4k..4k+3``, see :mod:`engines.drop7.board`).  A *flag word* marks cells
by bit ``4k`` (a subset of :data:`LOW`); every test here treats the seven
cells of a word at once, without a loop or a branch.

Gravity is one bit-gather per column: ``pext`` (BMI2) where the CPU has a
fast one, otherwise a loop over the dropped cells; both give the same word.
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from engines.drop7.board import CENTRE_ORDER

LOW = 0x1111111  # bit 0 of each of the seven nibbles: the flag of every cell
WORD = 0xFFFFFFF  # the seven nibbles of a column word
TOP = 0xF000000  # nibble 6: the top row of a column
#: Columns in the order every policy and the search try them (centre first).
CENTRE = np.array(CENTRE_ORDER, dtype=np.int64)


def _fast_pext() -> bool:
    """True when numba compiles for this CPU and its ``pext`` is a fast instruction.

    AMD before Zen 3 runs ``pext`` in microcode (tens to hundreds of cycles),
    so the loop is kept there; a fixed ``NUMBA_CPU_NAME`` may lack BMI2.
    """
    if config.CPU_NAME is not None:
        return False
    name = llvm.get_host_cpu_name()
    return bool(llvm.get_host_cpu_features().get("bmi2")) and name not in (
        "znver1", "znver2", "bdver4", "generic")


FAST_PEXT = _fast_pext()


@intrinsic
def _pext(typingctx, x, mask):
    """BMI2 ``pext``: the bits of ``x`` under ``mask``, packed to the bottom."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64")
        return builder.call(fn, list(args))

    return types.int64(types.int64, types.int64), codegen


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an ``int64`` (LLVM ``ctpop``)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def zero_nibbles(x: np.int64) -> np.int64:
    """Flags of the nibbles of ``x`` that are zero."""
    return ~(x | (x >> 1) | (x >> 2) | (x >> 3)) & LOW


@njit(cache=True, inline="always")
def occupied(x: np.int64) -> np.int64:
    """Flags of the nibbles of ``x`` that are not zero (occupied cells, or changed
    cells of ``a ^ b``)."""
    return (x | (x >> 1) | (x >> 2) | (x >> 3)) & LOW


@njit(cache=True, inline="always")
def greys(w: np.int64) -> np.int64:
    """Flags of the grey cells (8 solid, 9 cracked) of a column word."""
    return (w >> 3) & LOW


@njit(cache=True, inline="always")
def numbered(w: np.int64) -> np.int64:
    """Flags of the numbered discs (1-7) of a column word."""
    return occupied(w) & ~(w >> 3) & LOW


@njit(cache=True, inline="always")
def equal_to(w: np.int64, v: np.int64) -> np.int64:
    """Flags of the cells of ``w`` that hold the value ``v`` (1-15)."""
    return zero_nibbles(w ^ (v * LOW))


@njit(cache=True, inline="always")
def count_flags(f: np.int64) -> np.int64:
    """Number of flags in ``f`` (a subset of ``LOW``)."""
    return ((f * LOW) >> 24) & 0xF


@njit(cache=True, inline="always")
def count_board_flags(flags: np.ndarray, first: np.int64) -> np.int64:
    """Number of flags in the seven flag words ``flags[first:first + 7]``, by one
    ``popcount`` (flag words shifted apart so no two flags share a bit)."""
    lo = flags[first] | (flags[first + 1] << 1) | (flags[first + 2] << 2) | (flags[first + 3] << 3)
    hi = flags[first + 4] | (flags[first + 5] << 1) | (flags[first + 6] << 2)
    return popcount(lo | (hi << 32))


@njit(cache=True, inline="always")
def col_height(w: np.int64) -> np.int64:
    """Height of a bottom-packed column word (its highest non-zero nibble, plus one)."""
    return (67 - leading_zeros(np.uint64(w))) >> 2


@njit(cache=True, inline="always")
def is_legal(cols: np.ndarray, column: np.int64) -> bool:
    """A column is legal when its top cell is empty."""
    return (cols[column] & TOP) == 0


@njit(cache=True, inline="always")
def legal_mask(cols: np.ndarray) -> np.int64:
    """Bit ``c`` set when column ``c`` is legal."""
    m = 0
    for c in range(7):
        m |= np.int64((cols[c] & TOP) == 0) << c
    return m


@njit(cache=True, inline="always")
def is_empty(cols: np.ndarray) -> bool:
    """True when no cell of the board is occupied."""
    acc = 0
    for c in range(7):
        acc |= cols[c]
    return acc == 0


@njit(cache=True, inline="always")
def any_top(cols: np.ndarray) -> bool:
    """True when a disc stands in the top row."""
    top = 0
    for c in range(7):
        top |= cols[c]
    return (top & TOP) != 0


if FAST_PEXT:

    @njit(cache=True, inline="always")
    def flag_bits(f: np.int64) -> np.int64:
        """The seven flags of ``f`` (a subset of ``LOW``) as bits 0-6."""
        return _pext(np.int64(f), np.int64(LOW))

    @njit(cache=True, inline="always")
    def drop_cells(w: np.int64, flags: np.int64) -> np.int64:
        """Column word ``w`` without the cells flagged in ``flags``: the ones above fall."""
        return _pext(np.int64(w), np.int64(WORD & ~(flags * 0xF)))

else:

    @njit(cache=True, inline="always")
    def flag_bits(f: np.int64) -> np.int64:
        """The seven flags of ``f`` (a subset of ``LOW``) as bits 0-6."""
        m = 0
        for k in range(7):
            m |= ((f >> (4 * k)) & 1) << k
        return m

    @njit(cache=True, inline="always")
    def drop_cells(w: np.int64, flags: np.int64) -> np.int64:
        """Column word ``w`` without the cells flagged in ``flags``: the ones above fall."""
        while flags:
            low = (1 << (63 - leading_zeros(np.uint64(flags)))) - 1  # nibbles below the top one
            w = (w & low) | ((w >> 4) & ~low)
            flags &= low
        return w


@njit(cache=True, inline="always")
def lowest_flag(f: np.int64) -> np.int64:
    """Bit index of the lowest flag (``f`` not 0)."""
    return trailing_zeros(f)
