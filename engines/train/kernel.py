"""TC-TD(0) training of n-tuple tables by greedy one-ply play (numba kernels).

One *step* is one real move of a training game:

1. **Choose.**  At the chance state ``s`` (board, moves remaining) the next
   disc is revealed.  Every legal column, tried centre first
   (3, 2, 4, 1, 5, 0, 6 in the game's own orientation; the first best wins),
   is worth the mean over the 7 chance strata of
   ``points / 17000 + U(after)``, or ``points / 17000`` alone for a sample
   that ends the game.  Samples are played on the mirror-canonical board
   with the mirrored column and keyed by
   :func:`engines.drop7.chance.chance_key`, exactly as search does; when
   sample 0 reveals nothing the other six are the same board and are skipped.
2. **Play.**  The chosen column is played on the real game
   (:func:`engines.drop7.core.advance`: discs and reveals from the seeded
   streams), giving the realised points ``r`` (in rises) and the next chance
   state ``s'``.
3. **Learn.**  ``target = r + U(s')``, or ``r`` when the game is over.  A
   censored game (2,000 moves) is truncated, not ended: its last target still
   adds ``U(s')``.  ``U(s')`` is reused from step 1 when ``s'`` equals one of
   the chosen column's sample boards (always, when the move revealed
   nothing); otherwise its entries are gathered once.  The prediction
   ``U(s)`` is read fresh from the tables (its 74 records were touched one
   step earlier, so they are in cache), ``delta = clamp(target - U(s),
   -30, 30)`` and each active entry of ``s`` gets
   ``w += alpha * beta * delta / N`` with ``beta = |E| / A`` (1 while
   ``A == 0``), then ``E += delta``, ``A += |delta|``.

A fill-bucketed layout's afterstate may sit in another bucket than the board
its entries would be derived from, so its entries are always indexed from
scratch (:func:`engines.train.entries.by_difference`): exact, and slower.

The engine half of the choice: a drop on which nothing pops is applied by
:func:`engines.drop7.core.quick_drop`; any other column has all its
strata played at once by :func:`engines.drop7.chance.play_strata`, which
shares the drop and every wave before the first reveal.  The table half:
each afterstate's entries are derived from the move's base or from an
earlier stratum and prefetched at once (:mod:`engines.train.entries`);
values are read after all the engine work.

Tables are held as two arrays: ``vals`` (float32, ``w - 20/N``: a fresh
table is all zeros, and zero pages cost nothing until touched) and ``acc``
(float32 ``(entries, 2)``: the accumulators ``E, A``).  The choice reads
only values; the update writes 74 of each.  The same kernels run frozen
tables (the exported values with ``bias = 0``) for evaluation
(:mod:`engines.train.greedy`) and the benchmark (:mod:`engines.train.bench_kernels`).  Everything
is sequential and deterministic: the same seeds and config give the same
tables bit for bit, and a run cut into chunks (or stopped and resumed)
equals one uninterrupted run.

The move kernels are compiled without numba's reference counting
(``_nrt=False``; they allocate nothing): every counted array reference is an
atomic increment and decrement, and those serialise the table misses in
flight (removing them took a training move from about 10 to 8 us).  The
hot code indexes its work arrays element-wise and never slices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import LEVEL_BONUS, MOVES_PER_LEVEL, SOLID
from engines.drop7.chance import (
    RES_LEN,
    RES_MR,
    RES_OVER,
    RES_POINTS,
    STRATA_SCRATCH_LEN,
    canonicalise,
    chance_key,
    mirror_precedes,
    play_strata,
)
from engines.drop7.core import (
    OUT_LEN,
    OUT_POINTS,
    SCRATCH_LEN,
    ST_GAME_OVER,
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    ST_SCORE,
    advance,
    col_height,
    finished,
    is_legal,
    new_game,
    quick_drop,
)
from engines.drop7.nibbles import CENTRE
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import (
    board_entries,
    entry_indices,
    gather,
    phase_of,
    prefetch_write,
)
from engines.train.entries import (
    by_difference,
    changed_cells,
    contiguous_from,
    drop_entries,
    layout_maps,
    near_entries,
    sample_value,
)

STRATA = 7
DELTA_CLAMP = 30.0
#: the step sizes every learner accepts: ``0 < alpha <= ALPHA_MAX`` (the claim schema's
#: ``training.alpha`` bounds are these, tests/test_checks.py holds them equal)
ALPHA_MAX = 1.0


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float when it is a step a learner accepts; ``ValueError`` otherwise."""
    value = float(alpha)
    if not 0.0 < value <= ALPHA_MAX:  # NaN fails both comparisons
        raise ValueError(f"alpha must be in (0, {ALPHA_MAX:g}], got {alpha}")
    return value
#: points per rise (the unit of values and rewards)
RISE = float(LEVEL_BONUS)
#: A sample whose board differs from an earlier sample's (same column and orientation) in at
#: most this many cells takes that sample's entries and moves those of the tuples through them.
NEAR_CELLS = 4

# carry: the trainer's position, int64 (saved in checkpoints)
C_GAME, C_IN_GAME, C_MOVES, C_GAMES_DONE, C_SCORE_SUM, C_EXTRA_GATHERS, C_LOOKUPS = range(7)
C_LEN = 8
# fstats: float64 running sums for progress lines (not part of the tables' state)
F_ABS_DELTA, F_STEPS, F_CLAMPED = range(3)
F_LEN = 4

# wi: the choice's scalars
WI_LOOKUPS, WI_READY, WI_PH, WI_DISC, WI_MIRRORED = range(5)
WI_LEN = 6
# per-sample int64 facts (r = 7 * column + stratum)
SI_MR, SI_ORIENT = range(2)
SI_LEN = 2
ROWS = 7 * STRATA
# the work tuple of new_work, by position
(W_WI, W_CANON, W_TMP, W_BASE0, W_BASE1, W_BIDX, W_SCRATCH, W_OUT, W_SBOARD, W_SRES, W_SINFO,
 W_SIDX, W_SVAL, W_SPTS, W_SCOUNT, W_SOFF, W_JSLOT, W_CS, W_CW, W_CN) = range(20)


@njit(cache=True)
def move_scratch(lead):
    """Zeroed scratch arrays of one move's choice, the work tuple's ``W_WI`` .. ``W_SCOUNT``
    in order, each with the leading dimensions ``lead`` (``()`` for one player; the lane
    trainer's ``(workers, PAD)``), so the shapes are written once for both."""
    i8 = np.int64
    return (np.zeros(lead + (WI_LEN,), dtype=i8), np.zeros(lead + (7,), dtype=i8),
            np.zeros(lead + (7,), dtype=i8), np.zeros(lead + (7,), dtype=i8),
            np.zeros(lead + (7,), dtype=i8), np.zeros(lead + (2, N_SLOTS), dtype=i8),
            np.zeros(lead + (STRATA_SCRATCH_LEN,), dtype=i8), np.zeros(lead + (OUT_LEN,), dtype=i8),
            np.zeros(lead + (ROWS, 7), dtype=i8), np.zeros(lead + (ROWS, RES_LEN), dtype=i8),
            np.zeros(lead + (ROWS, SI_LEN), dtype=i8), np.zeros(lead + (ROWS, N_SLOTS), dtype=i8),
            np.zeros(lead + (ROWS,)), np.zeros(lead + (ROWS,)), np.zeros(lead + (7,), dtype=i8))


@njit(cache=True)
def new_work(spec):
    """The work tuple of :func:`choose_move` and friends (positions ``W_*``).

    ``wi`` scalars (``WI_*``); ``canon``, ``tmp``, ``base0``, ``base1`` boards
    (the base and its mirror); ``bidx[o, slot]`` the base's entries;
    ``scratch``, ``out`` engine work space; per sample ``r``: ``sboard[r]``,
    ``sres[r]`` (:data:`engines.drop7.chance.RES_LEN`), ``sinfo[r]``
    (``SI_*``), ``sidx[r, slot]`` entries, ``sval[r]``, ``spts[r]``; ``scount``
    samples per column; then the layout maps of
    :func:`engines.train.entries.layout_maps`.  Seven-word boards are separate
    arrays, not rows of one, so the hot code passes them without views.
    """
    return move_scratch(()) + layout_maps(spec)


def samples_of(work) -> tuple[np.ndarray, ...]:
    """``(sboard[c, s], sval[c, s], smr[c, s], scount[c], spts[c, s])`` views (Python side)."""
    sinfo = work[W_SINFO]
    return (work[W_SBOARD].reshape(7, STRATA, 7), work[W_SVAL].reshape(7, STRATA),
            sinfo[:, SI_MR].reshape(7, STRATA), work[W_SCOUNT],
            work[W_SPTS].reshape(7, STRATA))


# ---- the engine half of a move choice -------------------------------------------------------

@njit(cache=True, inline="always")
def _store_canonical(tmp, sboard, r) -> np.int64:
    """``sboard[r] = tmp = canonical(tmp)``; returns 1 when that is the mirror."""
    flip = mirror_precedes(tmp)
    for k in range(7):
        sboard[r, k] = tmp[6 - k] if flip else tmp[k]
    for k in range(7):
        tmp[k] = sboard[r, k]
    return 1 if flip else 0


@njit(cache=True, inline="always")
def _set_base(cols, mr, wi, canon, base0, base1) -> None:
    """Canonical board, the base (risen when ``mr == 1``) and its mirror; nothing looked up yet."""
    mirrored = canonicalise(cols, canon)
    rising = mr == 1
    for k in range(7):
        w = canon[k]
        w = (w << 4) | SOLID if rising else w
        base0[k] = w
        base1[6 - k] = w
    wi[WI_READY] = 0
    wi[WI_PH] = phase_of(MOVES_PER_LEVEL if rising else mr - 1)
    wi[WI_MIRRORED] = 1 if mirrored else 0


@njit(cache=True, inline="always")
def _base_ready(tab, o, wi, base0, base1, bidx, soff) -> None:
    """Entries of the base in orientation ``o`` (once per move), prefetched."""
    if (wi[WI_READY] >> o) & 1:
        return
    wi[WI_READY] |= 1 << o
    board_entries(base1 if o else base0, soff, wi[WI_PH], bidx, o, tab)


@njit(cache=True, inline="always")
def _engine_column(tab, n, c, cc, mr, wi, canon, tmp, scratch, out, sboard, sres, sinfo, sidx,
                   spts, scount, soff, cs, cw, cn) -> None:
    """Column ``cc`` of the canonical board by the engine, every stratum at once.  A sample a
    few cells from an earlier one of the same orientation takes its entries from it; the
    others are indexed from scratch."""
    disc = wi[WI_DISC]
    for k in range(7):
        tmp[k] = canon[k]
    key = chance_key(canon, disc, mr, cc)
    r0 = STRATA * c
    ns = play_strata(tmp, cc, disc, mr, key, STRATA, sboard, sres, r0, scratch, out)
    scount[c] = ns
    ref0 = -1
    ref1 = -1
    for r in range(r0, r0 + ns):
        spts[r] = sres[r, RES_POINTS] / RISE
        if sres[r, RES_OVER]:
            sinfo[r, SI_MR] = -1
            continue
        sinfo[r, SI_MR] = sres[r, RES_MR]
        for k in range(7):
            tmp[k] = sboard[r, k]
        o = _store_canonical(tmp, sboard, r)
        sinfo[r, SI_ORIENT] = o
        if n == 0:
            continue
        ref = ref1 if o else ref0
        if ref >= 0 and by_difference(soff) and changed_cells(tmp, sboard, ref) <= NEAR_CELLS:
            near_entries(tab, r, ref, tmp, sboard, sidx, cs, cw, cn)
            continue
        board_entries(tmp, soff, wi[WI_PH], sidx, r, tab)
        if o:
            ref1 = r
        else:
            ref0 = r


@njit(cache=True, inline="always")
def _play_samples(tab, n, cols, mr, disc, wi, canon, tmp, base0, base1, bidx, scratch, out,
                  sboard, sres, sinfo, sidx, spts, scount, soff, cs, cw, cn) -> None:
    """The body of :func:`play_samples` over unpacked work arrays."""
    _set_base(cols, mr, wi, canon, base0, base1)
    wi[WI_DISC] = disc
    mirrored = wi[WI_MIRRORED] == 1
    for c in range(7):
        scount[c] = 0
        if not is_legal(cols, c):
            continue
        cc = 6 - c if mirrored else c
        for k in range(7):
            tmp[k] = canon[k]
        h = col_height(canon[cc]) + (1 if mr == 1 else 0)  # the new disc's height in the base
        ok, mr2, pts, over = quick_drop(tmp, cc, disc, mr)
        if not ok:
            _engine_column(tab, n, c, cc, mr, wi, canon, tmp, scratch, out, sboard, sres, sinfo,
                           sidx, spts, scount, soff, cs, cw, cn)
            continue
        r = STRATA * c  # nothing pops: one board, no reveals, no key needed
        scount[c] = 1
        spts[r] = pts / RISE
        if over:
            sinfo[r, SI_MR] = -1
            continue
        o = _store_canonical(tmp, sboard, r)
        sinfo[r, SI_MR] = mr2
        sinfo[r, SI_ORIENT] = o
        if n > 0 and not by_difference(soff):
            board_entries(tmp, soff, wi[WI_PH], sidx, r, tab)
        elif n > 0:
            _base_ready(tab, o, wi, base0, base1, bidx, soff)
            drop_entries(tab, r, o, 7 * (6 - cc if o else cc) + h, disc, bidx, sidx, cs, cw, cn)


@njit(cache=True, _nrt=False)
def play_samples(tab, spec, cols, mr, disc, work) -> None:
    """Play every legal column's chance samples (the engine half of a move choice).

    For real column ``c``: ``scount[c]`` samples (0 if illegal; 1 when sample
    0 reveals nothing, else 7); sample ``s`` (``r = 7 c + s``) leaves its
    canonical board in ``sboard[r]``, its points in rises in ``spts[r]``, its
    moves remaining in ``sinfo[r, SI_MR]`` (-1 when it ends the game), its
    orientation relative to the base in ``sinfo[r, SI_ORIENT]`` and, with a
    layout (``spec[1] > 0``), its entries in ``sidx[r, slot]``, prefetched as
    soon as it is played.

    A drop on which nothing pops is applied by
    :func:`engines.drop7.core.quick_drop` (no engine call, no chance
    key); other columns by :func:`engines.drop7.chance.play_strata` on the
    canonical board with the mirrored column, keyed by
    :func:`engines.drop7.chance.chance_key`.
    """
    (wi, canon, tmp, base0, base1, bidx, scratch, out, sboard, sres, sinfo, sidx, _, spts,
     scount, soff, _, cs, cw, cn) = work
    _play_samples(tab, spec[1], cols, mr, disc, wi, canon, tmp, base0, base1, bidx, scratch, out,
                  sboard, sres, sinfo, sidx, spts, scount, soff, cs, cw, cn)


# ---- values and the choice ------------------------------------------------------------------

@njit(cache=True, inline="always")
def _gather_samples(tab, bias, n, wi, sinfo, sidx, sval, scount, jslot) -> None:
    """``sval[r] = U`` of every non-terminal sample, read after all the engine work."""
    j0 = contiguous_from(n, jslot)
    for c in range(7):
        for s in range(scount[c]):
            r = STRATA * c + s
            if sinfo[r, SI_MR] < 0:
                sval[r] = 0.0
                continue
            sval[r] = sample_value(tab, bias, n, r, sidx, jslot, j0)
            wi[WI_LOOKUPS] += n


@njit(cache=True, inline="always")
def _best_column(sval, scount, spts):
    """Mean over samples of points + value, centre first, the first best wins."""
    best_c = -1
    best_v = -np.inf
    for i in range(7):
        c = CENTRE[i]
        ns = scount[c]
        if ns == 0:
            continue
        total = 0.0
        for s in range(ns):
            total += spts[STRATA * c + s] + sval[STRATA * c + s]
        value = total / ns
        if value > best_v:
            best_v = value
            best_c = c
    return best_c, best_v


@njit(cache=True, _nrt=False)
def best_column(work):
    """:func:`_best_column` over a work tuple (after the sample values are in ``sval``)."""
    return _best_column(work[W_SVAL], work[W_SCOUNT], work[W_SPTS])


@njit(cache=True, inline="always")
def _choose(tab, bias, n, cols, mr, disc, wi, canon, tmp, base0, base1, bidx, scratch, out,
            sboard, sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs, cw, cn):
    """The body of :func:`choose_move` over unpacked work arrays."""
    _play_samples(tab, n, cols, mr, disc, wi, canon, tmp, base0, base1, bidx, scratch, out,
                  sboard, sres, sinfo, sidx, spts, scount, soff, cs, cw, cn)
    _gather_samples(tab, bias, n, wi, sinfo, sidx, sval, scount, jslot)
    return _best_column(sval, scount, spts)


@njit(cache=True, _nrt=False)
def choose_move(tab, bias, spec, cols, mr, disc, work):
    """Greedy one-ply choice with n-tuple values; returns ``(column, value in rises)``.

    ``work`` is the tuple of :func:`new_work`; see :func:`play_samples` for
    what it holds afterwards (and ``sval[r]``, each sample's ``U``;
    :func:`samples_of` gives ``[c, s]`` views).
    """
    (wi, canon, tmp, base0, base1, bidx, scratch, out, sboard, sres, sinfo, sidx, sval, spts,
     scount, soff, jslot, cs, cw, cn) = work
    return _choose(tab, bias, spec[1], cols, mr, disc, wi, canon, tmp, base0, base1, bidx,
                   scratch, out, sboard, sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs,
                   cw, cn)


# ---- learning -------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def td_update(vals, acc, bias, idx, n, target, alpha) -> float:
    """One TC-TD(0) update of the ``n`` entries ``idx``; returns the clamped delta.

    ``vals`` holds ``w - 20/N`` (so ``bias = 20``), ``acc[i] = (E, A)``.
    """
    delta = clamp_delta(target - gather(vals, bias, idx, n))
    step = alpha * delta / n
    ad = abs(delta)
    for j in range(n):
        tc_entry(vals, acc, idx[j], step, delta, ad)
    return delta


@njit(cache=True, inline="always")
def clamp_delta(delta):
    """The TD error clamped to ``[-DELTA_CLAMP, DELTA_CLAMP]`` rises."""
    if delta > DELTA_CLAMP:
        return DELTA_CLAMP
    if delta < -DELTA_CLAMP:
        return -DELTA_CLAMP
    return delta


@njit(cache=True, inline="always")
def count_delta(fstats, delta) -> None:
    """Add one update's clamped ``delta`` to the training statistics ``fstats`` (``F_*``)."""
    fstats[F_ABS_DELTA] += abs(delta)
    fstats[F_STEPS] += 1.0
    if abs(delta) >= DELTA_CLAMP:
        fstats[F_CLAMPED] += 1.0


@njit(cache=True)
def tc_entry(vals, acc, i, step, delta, ad) -> None:
    """TC's update of entry ``i``: ``step`` scaled by ``beta = |E| / A`` (1 while ``A = 0``),
    then ``E += delta``, ``A += |delta|``; shared by the sequential and the lane learners."""
    e = np.float64(acc[i, 0])
    a = np.float64(acc[i, 1])
    beta = abs(e) / a if a > 0.0 else 1.0
    vals[i] = np.float64(vals[i]) + step * beta
    acc[i, 0] = e + delta
    acc[i, 1] = a + ad


@njit(cache=True, inline="always")
def _seed_of(seed_start, seed_count, game):
    """Seed of the trainer's ``game``-th game: the range read in order, wrapping."""
    return np.uint64(seed_start) + np.uint64(game % seed_count)


@njit(cache=True, inline="always")
def _find_sample(sboard, sinfo, scount, c, canon, mr2):
    """Index ``r`` of the chosen column's sample equal to ``(canon, mr2)``, or -1."""
    for s in range(scount[c]):
        r = STRATA * c + s
        if sinfo[r, SI_MR] != mr2:
            continue
        same = True
        for k in range(7):
            if sboard[r, k] != canon[k]:
                same = False
                break
        if same:
            return r
    return -1


@njit(cache=True)
def train_moves(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                n_moves, learn, fstats) -> np.int64:
    """Play (and, if ``learn``, train on) ``n_moves`` moves; returns the moves played.

    ``carry`` (``C_*``), ``state`` and ``cols`` hold the position in the seed
    stream and the game in progress; they are updated in place, so calling
    this in chunks equals one call.  (Allocates the work arrays and runs
    :func:`_train_loop`.)
    """
    n = max(spec[1], 1)
    loc = (np.zeros(7, dtype=np.int64), np.zeros(N_SLOTS, dtype=np.int64),
           np.zeros(2 * SCRATCH_LEN, dtype=np.int64), np.zeros(OUT_LEN, dtype=np.int64),
           np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
           acc.reshape(acc.shape[0] * acc.shape[1]))
    return _train_loop(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                       n_moves, learn, fstats, new_work(spec), loc)


@njit(cache=True, _nrt=False)
def play_move_target(vals, bias, n, spec, pat, seed, carry, state, cols, canon, idx_s, idx_next,
                     scratch, out, wi, wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard,
                     sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs, cw, cn) -> float:
    """One training move: start a game when none is on (its first afterstate's entries into
    ``idx_s``), choose greedily one ply, play it; returns the TD target in rises (the move's
    points plus ``U`` of the next afterstate, whose entries go into ``idx_next``).  Shared by
    the sequential loop and every lane of :mod:`engines.train.lanes`."""
    if not carry[C_IN_GAME]:
        new_game(seed, state, cols)
        canonicalise(cols, canon)
        entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx_s)
        carry[C_IN_GAME] = 1
    c, _ = _choose(vals, bias, n, cols, state[ST_MOVES_REMAINING], state[ST_NEXT_DISC], wi,
                   wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard, sres, sinfo, sidx,
                   sval, spts, scount, soff, jslot, cs, cw, cn)
    advance(seed, c, state, cols, scratch, out)
    target = out[OUT_POINTS] / RISE
    if state[ST_GAME_OVER] == 0:
        mr2 = state[ST_MOVES_REMAINING]
        canonicalise(cols, canon)
        r = _find_sample(sboard, sinfo, scount, c, canon, mr2)
        if r >= 0:  # the realised board is a sample board: reuse its U and indices
            target += sval[r]
            for j in range(n):
                idx_next[j] = sidx[r, jslot[j]]
        else:
            entry_indices(canon, mr2, spec, pat, idx_next)
            target += gather(vals, bias, idx_next, n)
            wi[WI_LOOKUPS] += n
            carry[C_EXTRA_GATHERS] += 1
    return target


@njit(cache=True, _nrt=False)
def _train_loop(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                n_moves, learn, fstats, work, loc) -> np.int64:
    """The loop of :func:`train_moves` (no allocation, no reference counting)."""
    n = spec[1]
    (wi, wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard, sres, sinfo, sidx, sval, spts,
     scount, soff, jslot, cs, cw, cn) = work
    canon, pat, scratch, out, idx_s, idx_next, acc_flat = loc
    if carry[C_IN_GAME]:
        canonicalise(cols, canon)
        entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx_s)
    done = 0
    while done < n_moves:
        target = play_move_target(
            vals, bias, n, spec, pat, _seed_of(seed_start, seed_count, carry[C_GAME]), carry,
            state, cols, canon, idx_s, idx_next, scratch, out, wi, wcanon, tmp, base0, base1,
            bidx, wscratch, wout, sboard, sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs,
            cw, cn)
        if learn:
            delta = td_update(vals, acc, bias, idx_s, n, target, alpha)
            wi[WI_LOOKUPS] += n
            count_delta(fstats, delta)
        for j in range(n):
            idx_s[j] = idx_next[j]
            if learn:  # the next update writes these accumulators: ask for them a move ahead
                prefetch_write(acc_flat, 2 * idx_next[j])
        done += 1
        carry[C_MOVES] += 1
        if finished(state):
            carry[C_IN_GAME] = 0
            carry[C_GAME] += 1
            carry[C_GAMES_DONE] += 1
            carry[C_SCORE_SUM] += state[ST_SCORE]
    carry[C_LOOKUPS] += wi[WI_LOOKUPS]
    return done
