"""TC-TD(0) training in L lanes: L games side by side, tables independent of the thread count.

Lane ``l`` of ``L`` plays games ``first_game + l, first_game + l + L, ...``
of the seed range (its own ``carry``, ``state`` and ``cols`` rows).  One
*round* is one move of every lane, in two phases:

1. **Choose** (parallel over lanes, tables read only).  Each lane chooses its
   move exactly as :mod:`engines.train.kernel` does, plays it, computes its
   target, reads its prediction ``U(s)`` and its clamped ``delta``, and lists
   the entries of ``s`` to update, sorted (stably) by the *part* that owns
   each entry.  Every read sees the tables as they stand at the round's
   start.
2. **Learn** (parallel over parts).  Table entries are partitioned into
   ``parts`` by a hash of their 64-entry block (256 bytes of values, 512 of
   accumulators: no cache line is written by two parts).  Part ``p`` walks
   lanes ``0 .. L-1`` in order and applies each lane's update to the entries
   it owns, in the lane's own entry order: ``beta = |E| / A`` (1 while
   ``A == 0``), ``w += alpha * beta * delta / N``, ``E += delta``,
   ``A += |delta|``.

Every entry therefore receives the same updates in the same order (lane
order, then entry order) whatever ``parts`` is and whichever thread runs
which lane: the tables depend on L and the seeds, never on the thread count.
With one lane a round is one sequential move (the prediction is read after
the choice, before any update, as :func:`engines.train.kernel.td_update`
reads it), so ``L = 1`` gives the tables of
:func:`engines.train.kernel.train_moves` bit for bit.  With L lanes a lane's
reads are up to ``L - 1`` updates stale (those of the lanes before it in the
same round).

The phases are timed with the cycle counter (``ticks[0]`` choose,
``ticks[1]`` learn) for ``drop7 bench train --lanes``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from engines.drop7.chance import RES_LEN, STRATA_SCRATCH_LEN, canonicalise
from engines.drop7.core import (
    OUT_LEN,
    SCRATCH_LEN,
    ST_MOVES_REMAINING,
    ST_SCORE,
    finished,
)
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import entry_indices, gather, prefetch_write
from engines.train.entries import layout_maps
from engines.train.kernel import (
    C_GAME,
    C_GAMES_DONE,
    C_IN_GAME,
    C_LOOKUPS,
    C_MOVES,
    C_SCORE_SUM,
    DELTA_CLAMP,
    F_ABS_DELTA,
    F_CLAMPED,
    F_STEPS,
    ROWS,
    SI_LEN,
    WI_LEN,
    WI_LOOKUPS,
    _seed_of,
    play_move_target,
    tc_entry,
)

#: entries are owned in blocks of 2^6 = 64 (whole cache lines of values and accumulators)
BLOCK_SHIFT = 6
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@intrinsic
def cycle_counter(typingctx):
    """LLVM ``readcyclecounter`` (the time-stamp counter on x86; 0 where there is none)."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@njit(cache=True, inline="always")
def owner(i, parts) -> np.int64:
    """The part (``0 .. parts-1``) that writes entry ``i``: a Fibonacci hash of its block."""
    h = np.uint64(i >> BLOCK_SHIFT) * _GOLDEN
    return np.int64(((h >> np.uint64(32)) * np.uint64(parts)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def _lane_move(vals, bias, spec, n, seed_start, seed_count, stride, carry, state, cols, wi,
               wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard, sres, sinfo, sidx, sval,
               spts, scount, soff, jslot, cs, cw, cn, canon, pat, scratch, out, idx_s, idx_next,
               parts, upd_idx, upd_off, upd_delta, lane) -> None:
    """One move of one lane against the tables as they stand (the choose phase).

    Leaves the update in ``upd_idx`` (the entries of ``s``, grouped by owning
    part, each group in entry order; part ``p``'s are ``upd_off[p] ..
    upd_off[p + 1] - 1``) and ``upd_delta[lane]``.
    """
    target = play_move_target(
        vals, bias, n, spec, pat, _seed_of(seed_start, seed_count, carry[C_GAME]), carry, state,
        cols, canon, idx_s, idx_next, scratch, out, wi, wcanon, tmp, base0, base1, bidx,
        wscratch, wout, sboard, sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs, cw, cn)
    delta = target - gather(vals, bias, idx_s, n)
    wi[WI_LOOKUPS] += n
    if delta > DELTA_CLAMP:
        delta = DELTA_CLAMP
    elif delta < -DELTA_CLAMP:
        delta = -DELTA_CLAMP
    upd_delta[lane] = delta
    # a stable counting sort of the entries by owning part
    for p in range(parts + 1):
        upd_off[p] = 0
    for j in range(n):
        upd_off[owner(idx_s[j], parts) + 1] += 1
    for p in range(parts):
        upd_off[p + 1] += upd_off[p]
    for j in range(n):
        p = owner(idx_s[j], parts)
        upd_idx[upd_off[p]] = idx_s[j]
        upd_off[p] += 1
    for p in range(parts, 0, -1):
        upd_off[p] = upd_off[p - 1]
    upd_off[0] = 0
    for j in range(n):
        idx_s[j] = idx_next[j]
    carry[C_MOVES] += 1
    if finished(state):
        carry[C_IN_GAME] = 0
        carry[C_GAME] += stride
        carry[C_GAMES_DONE] += 1
        carry[C_SCORE_SUM] += state[ST_SCORE]


@njit(cache=True, _nrt=False)
def _learn_part(vals, acc, acc_flat, upd_idx, upd_off, upd_delta, alpha, n, part) -> None:
    """The learn phase of one part: every lane's update to the entries it owns, lane by lane
    (its entries prefetched for writing first, so their misses overlap)."""
    lanes = upd_delta.shape[0]
    for lane in range(lanes):
        for k in range(upd_off[lane, part], upd_off[lane, part + 1]):
            i = upd_idx[lane, k]
            prefetch_write(vals, i)
            prefetch_write(acc_flat, 2 * i)
    for lane in range(lanes):
        delta = upd_delta[lane]
        step = alpha * delta / n
        ad = abs(delta)
        for k in range(upd_off[lane, part], upd_off[lane, part + 1]):
            tc_entry(vals, acc, upd_idx[lane, k], step, delta, ad)


@njit(cache=True, parallel=True)
def train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                 n_rounds, parts, fstats, ticks) -> np.int64:
    """Train ``n_rounds`` rounds of ``L = carry.shape[0]`` lanes; returns the moves played.

    ``carry[l]`` (``C_*``), ``state[l]`` and ``cols[l]`` are lane ``l``'s
    position and game, updated in place (calling this in chunks equals one
    call).  ``parts`` (at least 1) partitions the entries for the learn phase;
    the tables do not depend on it.  ``ticks[0]``/``ticks[1]`` accumulate the
    cycle counter over the choose and learn phases.
    """
    lanes = carry.shape[0]
    n = spec[1]
    m = max(n, 1)
    soff, jslot, cs, cw, cn = layout_maps(spec)
    wi = np.zeros((lanes, WI_LEN), dtype=np.int64)
    wcanon = np.zeros((lanes, 7), dtype=np.int64)
    tmp = np.zeros((lanes, 7), dtype=np.int64)
    base0 = np.zeros((lanes, 7), dtype=np.int64)
    base1 = np.zeros((lanes, 7), dtype=np.int64)
    bidx = np.zeros((lanes, 2, N_SLOTS), dtype=np.int64)
    wscratch = np.zeros((lanes, STRATA_SCRATCH_LEN), dtype=np.int64)
    wout = np.zeros((lanes, OUT_LEN), dtype=np.int64)
    sboard = np.zeros((lanes, ROWS, 7), dtype=np.int64)
    sres = np.zeros((lanes, ROWS, RES_LEN), dtype=np.int64)
    sinfo = np.zeros((lanes, ROWS, SI_LEN), dtype=np.int64)
    sidx = np.zeros((lanes, ROWS, N_SLOTS), dtype=np.int64)
    sval = np.zeros((lanes, ROWS))
    spts = np.zeros((lanes, ROWS))
    scount = np.zeros((lanes, 7), dtype=np.int64)
    canon = np.zeros((lanes, 7), dtype=np.int64)
    pat = np.zeros((lanes, N_SLOTS), dtype=np.int64)
    scratch = np.zeros((lanes, 2 * SCRATCH_LEN), dtype=np.int64)
    out = np.zeros((lanes, OUT_LEN), dtype=np.int64)
    idx_s = np.zeros((lanes, m), dtype=np.int64)
    idx_next = np.zeros((lanes, m), dtype=np.int64)
    upd_idx = np.zeros((lanes, m), dtype=np.int64)
    upd_off = np.zeros((lanes, parts + 1), dtype=np.int64)
    upd_delta = np.zeros(lanes)
    acc_flat = acc.reshape(acc.shape[0] * acc.shape[1])
    stride = np.int64(lanes)
    for lane in range(lanes):
        if carry[lane, C_IN_GAME]:
            canonicalise(cols[lane], canon[lane])
            entry_indices(canon[lane], state[lane, ST_MOVES_REMAINING], spec, pat[lane],
                          idx_s[lane])
    for _ in range(n_rounds):
        t0 = cycle_counter()
        for lane in prange(lanes):
            _lane_move(vals, bias, spec, n, seed_start, seed_count, stride, carry[lane],
                       state[lane], cols[lane], wi[lane], wcanon[lane], tmp[lane], base0[lane],
                       base1[lane], bidx[lane], wscratch[lane], wout[lane], sboard[lane],
                       sres[lane], sinfo[lane], sidx[lane], sval[lane], spts[lane], scount[lane],
                       soff, jslot, cs, cw, cn, canon[lane], pat[lane], scratch[lane], out[lane],
                       idx_s[lane], idx_next[lane], parts, upd_idx[lane], upd_off[lane],
                       upd_delta, lane)
        t1 = cycle_counter()
        for part in prange(parts):
            _learn_part(vals, acc, acc_flat, upd_idx, upd_off, upd_delta, alpha, n, part)
        ticks[0] += t1 - t0
        ticks[1] += cycle_counter() - t1
        for lane in range(lanes):
            d = abs(upd_delta[lane])
            fstats[F_ABS_DELTA] += d
            fstats[F_STEPS] += 1.0
            if d >= DELTA_CLAMP:
                fstats[F_CLAMPED] += 1.0
    for lane in range(lanes):
        carry[lane, C_LOOKUPS] += wi[lane, WI_LOOKUPS]
    return n_rounds * lanes
