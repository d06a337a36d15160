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

Tables are held as two arrays: ``vals`` (float32, ``w - 20/N``: a fresh
table is all zeros, and zero pages cost nothing until touched) and ``acc``
(float32 ``(entries, 2)``: the accumulators ``E, A``).  The evaluation pass
reads about 1,150 entries a move and only needs values; the update pass
writes 74.  Keeping the values dense (4 bytes an entry: 1.92 GB for layout A
instead of 5.76 GB of 12-byte records) made a random read about 3.5 times
cheaper on this machine (22 ns against 78 ns with the reads overlapped), which
outweighs the second cache line an update touches.  The same kernels run
frozen tables (the exported values with ``bias = 0``) for evaluation.
Everything is sequential and deterministic: the same seeds and config give
the same tables bit for bit, and a run cut into chunks (or stopped and
resumed) equals one uninterrupted run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import LEVEL_BONUS, MOVES_PER_LEVEL, SOLID
from engines.drop7.chance import canonicalise, chance_key, mirrored_is_smaller, play_sample
from engines.drop7.core import (
    OUT_LEN,
    OUT_OVER,
    OUT_POINTS,
    OUT_REVEALS,
    OUT_WAVES,
    SCRATCH_LEN,
    ST_GAME_OVER,
    ST_LEN,
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    ST_SCORE,
    advance,
    col_height,
    finished,
    is_legal,
    new_game,
)
from engines.ntuple.layouts import N_SLOTS, SPEC_FIELDS, SPEC_HEADER
from engines.ntuple.value import (
    board_patterns,
    cell_map,
    entry_indices,
    gather,
    phase_of,
    prefetch,
)
from engines.train.fastdrop import quick_drop

STRATA = 7
DELTA_CLAMP = 30.0
CENTRE = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
_RISE = float(LEVEL_BONUS)

# carry: the trainer's position, int64 (saved in checkpoints)
C_GAME, C_IN_GAME, C_MOVES, C_GAMES_DONE, C_SCORE_SUM, C_EXTRA_GATHERS, C_LOOKUPS = range(7)
C_LEN = 8
# fstats: float64 running sums for progress lines (not part of the tables' state)
F_ABS_DELTA, F_STEPS, F_CLAMPED = range(3)
F_LEN = 4


# Work arrays of the move choice, allocated once per kernel call (:func:`new_work`).
# Per-sample arrays are indexed by r = 7 * column + stratum.  The hot code
# indexes them element-wise and never slices: every array view costs an
# atomic reference-count increment and decrement, which measured as a
# quarter of the trainer's time before this layout.
WI_LOOKUPS, WI_READY0, WI_READY1, WI_MRB, WI_DISC = range(5)
WI_LEN = 6


@njit(cache=True)
def new_work(spec):
    """The work tuple of :func:`choose_move` and friends.

    ``(wi, canon, tmp, base, cb, pat, scratch, out, idx, base_idx, sboard, sval,
    smr, scount, spts, scell, cj, cw, cn)``; see :func:`play_samples`.
    """
    n = max(spec[1], 1)
    cj, cw, cn = cell_map(spec)
    return (np.zeros(WI_LEN, dtype=np.int64), np.zeros(7, dtype=np.int64),
            np.zeros(7, dtype=np.int64), np.zeros(7, dtype=np.int64),
            np.zeros(7, dtype=np.int64), np.zeros(N_SLOTS, dtype=np.int64),
            np.zeros(2 * SCRATCH_LEN, dtype=np.int64), np.zeros(OUT_LEN, dtype=np.int64),
            np.zeros((7 * STRATA, n), dtype=np.int64), np.zeros((2, n), dtype=np.int64),
            np.zeros((7 * STRATA, 7), dtype=np.int64), np.zeros(7 * STRATA),
            np.zeros(7 * STRATA, dtype=np.int64), np.zeros(7, dtype=np.int64),
            np.zeros(7 * STRATA), np.zeros(7 * STRATA, dtype=np.int64), cj, cw, cn)


def samples_of(work) -> tuple[np.ndarray, ...]:
    """``(sboard[c, s], sval[c, s], smr[c, s], scount[c], spts[c, s])`` views (Python side)."""
    sboard, sval, smr, scount, spts = work[10:15]
    return (sboard.reshape(7, STRATA, 7), sval.reshape(7, STRATA), smr.reshape(7, STRATA),
            scount, spts.reshape(7, STRATA))


@njit(cache=True, inline="always")
def _store_canonical(tmp, sboard, r) -> bool:
    """``sboard[r] = canonical(tmp)``; True when that is the mirror."""
    flip = mirrored_is_smaller(tmp)
    for k in range(7):
        sboard[r, k] = tmp[6 - k] if flip else tmp[k]
    return flip


@njit(cache=True, inline="always")
def _indices_into(board, mr, spec, pat, out2d, r) -> None:
    """``out2d[r, :n]`` = entry indices of the canonical ``board`` (1-D) in phase of ``mr``."""
    board_patterns(board, pat)
    ph = phase_of(mr)
    for j in range(spec[1]):
        o = SPEC_HEADER + SPEC_FIELDS * j
        out2d[r, j] = spec[o + 1] + ph * spec[o + 2] + pat[spec[o]]


@njit(cache=True, inline="always")
def _sample_indices(tab, spec, r, wi, tmp, base, cb, pat, idx, base_idx, sboard, smr, scell,
                    cj, cw, cn) -> None:
    """Entry indices of sample ``r`` into ``idx[r]``, and prefetch their values.

    A board on which nothing popped takes the base's indices (per
    orientation, computed on first use) with the tuples through the new cell
    adjusted by ``disc * cw``; other boards are indexed from scratch.  The
    prefetches let the table misses overlap the engine work of the following
    samples.
    """
    n = spec[1]
    code = scell[r]
    if code < 0:
        for k in range(7):
            cb[k] = sboard[r, k]
        _indices_into(cb, smr[r], spec, pat, idx, r)
    else:
        o = code & 1
        cell = code >> 1
        if wi[WI_READY0 + o] == 0:
            for k in range(7):
                tmp[k] = base[6 - k] if o == 1 else base[k]
            _indices_into(tmp, wi[WI_MRB], spec, pat, base_idx, o)
            wi[WI_READY0 + o] = 1
        for j in range(n):
            idx[r, j] = base_idx[o, j]
        disc = wi[WI_DISC]
        for q in range(cn[cell]):
            idx[r, cj[cell, q]] += disc * cw[cell, q]
    for j in range(n):
        prefetch(tab, idx[r, j])


@njit(cache=True, inline="always")
def _play_samples(tab, spec, cols, mr, disc, wi, canon, tmp, base, cb, pat, scratch, out, idx,
                  base_idx, sboard, smr, scount, spts, scell, cj, cw, cn) -> None:
    """The body of :func:`play_samples` over unpacked work arrays."""
    with_tables = spec[1] > 0
    mirrored = canonicalise(cols, canon)
    rising = mr == 1
    for k in range(7):
        base[k] = (canon[k] << 4) | SOLID if rising else canon[k]
    wi[WI_MRB] = MOVES_PER_LEVEL if rising else mr - 1
    wi[WI_DISC] = disc
    wi[WI_READY0] = 0
    wi[WI_READY1] = 0
    hoff = 1 if rising else 0
    for c in range(7):
        scount[c] = 0
        if not is_legal(cols, c):
            continue
        cc = 6 - c if mirrored else c
        h = col_height(canon[cc]) + hoff
        for k in range(7):
            tmp[k] = canon[k]
        ok, mr2, pts, over = quick_drop(tmp, cc, disc, mr)
        if ok:  # nothing pops: one board, no reveals, no key needed
            r = STRATA * c
            scount[c] = 1
            spts[r] = pts / _RISE
            if over:
                smr[r] = -1
            else:
                flip = _store_canonical(tmp, sboard, r)
                smr[r] = mr2
                scell[r] = 2 * (7 * (6 - cc if flip else cc) + h) + (1 if flip else 0)
                if with_tables:
                    _sample_indices(tab, spec, r, wi, tmp, base, cb, pat, idx, base_idx,
                                    sboard, smr, scell, cj, cw, cn)
            continue
        key = chance_key(canon, disc, mr, cc)
        ns = STRATA
        for s in range(STRATA):
            r = STRATA * c + s
            for k in range(7):
                tmp[k] = canon[k]
            _, mr2 = play_sample(tmp, cc, disc, mr, key, STRATA, s, scratch, out)
            spts[r] = out[OUT_POINTS] / _RISE
            if out[OUT_OVER]:
                smr[r] = -1
            else:
                flip = _store_canonical(tmp, sboard, r)
                smr[r] = mr2
                if out[OUT_WAVES] == 0:
                    scell[r] = 2 * (7 * (6 - cc if flip else cc) + h) + (1 if flip else 0)
                else:
                    scell[r] = -1
                if with_tables:
                    _sample_indices(tab, spec, r, wi, tmp, base, cb, pat, idx, base_idx,
                                    sboard, smr, scell, cj, cw, cn)
            if s == 0 and out[OUT_REVEALS] == 0:
                ns = 1
                break
        scount[c] = ns


@njit(cache=True)
def play_samples(tab, spec, cols, mr, disc, work) -> None:
    """Play every legal column's chance samples (the engine half of a move choice).

    For real column ``c``: ``scount[c]`` samples (0 if illegal; 1 when sample
    0 reveals nothing, else 7); sample ``s`` (``r = 7 c + s``) leaves its
    canonical board in ``sboard[r]``, its points in rises in ``spts[r]`` and
    its moves remaining in ``smr[r]`` (-1 when it ends the game).
    ``scell[r]`` is ``2 * (7 * column + height) + flip`` of the dropped disc
    when nothing popped (the board is then the *base* plus that disc, seen
    mirrored if ``flip``), else -1.  The base is the canonical board, shifted
    up over a grey floor when the move brings a rise.

    A drop on which nothing pops is applied by
    :func:`engines.train.fastdrop.quick_drop` (no engine call, no chance
    key); other columns are played by
    :func:`engines.drop7.chance.play_sample` on the canonical board with the
    mirrored column, keyed by :func:`engines.drop7.chance.chance_key`.  With
    a layout (``spec[1] > 0``) each sample's entry indices are computed, and
    its table entries prefetched, as soon as it is played.
    """
    (wi, canon, tmp, base, cb, pat, scratch, out, idx, base_idx, sboard, _, smr, scount, spts,
     scell, cj, cw, cn) = work
    _play_samples(tab, spec, cols, mr, disc, wi, canon, tmp, base, cb, pat, scratch, out, idx,
                  base_idx, sboard, smr, scount, spts, scell, cj, cw, cn)


@njit(cache=True, inline="always")
def _gather_samples(tab, bias, n, wi, idx, sval, smr, scount) -> None:
    """``sval[r] = U`` of every non-terminal sample, read back to back after the engine work."""
    for c in range(7):
        for s in range(scount[c]):
            r = STRATA * c + s
            if smr[r] < 0:
                sval[r] = 0.0
                continue
            p0 = 0.0
            p1 = 0.0
            p2 = 0.0
            p3 = 0.0
            j = 0
            while j + 3 < n:  # the summation order of engines.ntuple.value.gather
                p0 += tab[idx[r, j]]
                p1 += tab[idx[r, j + 1]]
                p2 += tab[idx[r, j + 2]]
                p3 += tab[idx[r, j + 3]]
                j += 4
            if j < n:
                p0 += tab[idx[r, j]]
            if j + 1 < n:
                p1 += tab[idx[r, j + 1]]
            if j + 2 < n:
                p2 += tab[idx[r, j + 2]]
            sval[r] = bias + ((p0 + p1) + (p2 + p3))
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


@njit(cache=True)
def best_column(work):
    """:func:`_best_column` over a work tuple (after the sample values are in ``sval``)."""
    return _best_column(work[11], work[13], work[14])


@njit(cache=True, inline="always")
def _choose(tab, bias, spec, cols, mr, disc, wi, canon, tmp, base, cb, pat, scratch, out, idx,
            base_idx, sboard, sval, smr, scount, spts, scell, cj, cw, cn):
    """The body of :func:`choose_move` over unpacked work arrays."""
    _play_samples(tab, spec, cols, mr, disc, wi, canon, tmp, base, cb, pat, scratch, out, idx,
                  base_idx, sboard, smr, scount, spts, scell, cj, cw, cn)
    _gather_samples(tab, bias, spec[1], wi, idx, sval, smr, scount)
    return _best_column(sval, scount, spts)


@njit(cache=True)
def choose_move(tab, bias, spec, cols, mr, disc, work):
    """Greedy one-ply choice with n-tuple values; returns ``(column, value in rises)``.

    ``work`` is the tuple of :func:`new_work`; see :func:`play_samples` for
    what it holds afterwards (and ``sval[r]``, each sample's ``U``;
    :func:`samples_of` gives ``[c, s]`` views).
    """
    (wi, canon, tmp, base, cb, pat, scratch, out, idx, base_idx, sboard, sval, smr, scount, spts,
     scell, cj, cw, cn) = work
    return _choose(tab, bias, spec, cols, mr, disc, wi, canon, tmp, base, cb, pat, scratch, out,
                   idx, base_idx, sboard, sval, smr, scount, spts, scell, cj, cw, cn)


@njit(cache=True)
def td_update(vals, acc, bias, idx, n, target, alpha) -> float:
    """One TC-TD(0) update of the ``n`` entries ``idx``; returns the clamped delta.

    ``vals`` holds ``w - 20/N`` (so ``bias = 20``), ``acc[i] = (E, A)``.
    """
    pred = gather(vals, bias, idx, n)
    delta = target - pred
    if delta > DELTA_CLAMP:
        delta = DELTA_CLAMP
    elif delta < -DELTA_CLAMP:
        delta = -DELTA_CLAMP
    step = alpha * delta / n
    ad = abs(delta)
    for j in range(n):
        i = idx[j]
        e = np.float64(acc[i, 0])
        a = np.float64(acc[i, 1])
        beta = abs(e) / a if a > 0.0 else 1.0
        vals[i] = np.float64(vals[i]) + step * beta
        acc[i, 0] = e + delta
        acc[i, 1] = a + ad
    return delta


@njit(cache=True, inline="always")
def _seed_of(seed_start, seed_count, game):
    """Seed of the trainer's ``game``-th game: the range read in order, wrapping."""
    return np.uint64(seed_start) + np.uint64(game % seed_count)


@njit(cache=True, inline="always")
def _find_sample(sboard, smr, scount, c, canon, mr2):
    """Index ``r`` of the chosen column's sample equal to ``(canon, mr2)``, or -1."""
    for s in range(scount[c]):
        r = STRATA * c + s
        if smr[r] != mr2:
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
    this in chunks equals one call.
    """
    n = spec[1]
    (wi, wcanon, tmp, base, cb, wpat, wscratch, wout, idx_all, base_idx, sboard, sval, smr,
     scount, spts, scell, cj, cw, cn) = new_work(spec)
    canon = np.zeros(7, dtype=np.int64)
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(OUT_LEN, dtype=np.int64)
    idx_s = np.zeros(max(n, 1), dtype=np.int64)
    idx_next = np.zeros(max(n, 1), dtype=np.int64)
    acc_flat = acc.reshape(acc.shape[0] * acc.shape[1])
    if carry[C_IN_GAME]:
        canonicalise(cols, canon)
        entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx_s)
    done = 0
    while done < n_moves:
        seed = _seed_of(seed_start, seed_count, carry[C_GAME])
        if not carry[C_IN_GAME]:
            new_game(seed, state, cols)
            canonicalise(cols, canon)
            entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx_s)
            carry[C_IN_GAME] = 1
        c, _ = _choose(vals, bias, spec, cols, state[ST_MOVES_REMAINING], state[ST_NEXT_DISC],
                       wi, wcanon, tmp, base, cb, wpat, wscratch, wout, idx_all, base_idx,
                       sboard, sval, smr, scount, spts, scell, cj, cw, cn)
        advance(seed, c, state, cols, scratch, out)
        target = out[OUT_POINTS] / _RISE
        if state[ST_GAME_OVER] == 0:
            canonicalise(cols, canon)
            mr2 = state[ST_MOVES_REMAINING]
            r = _find_sample(sboard, smr, scount, c, canon, mr2)
            if r >= 0:  # the realised board is a sample board: reuse its U and indices
                target += sval[r]
                for j in range(n):
                    idx_next[j] = idx_all[r, j]
            else:
                entry_indices(canon, mr2, spec, pat, idx_next)
                target += gather(vals, bias, idx_next, n)
                wi[WI_LOOKUPS] += n
                carry[C_EXTRA_GATHERS] += 1
        if learn:
            delta = td_update(vals, acc, bias, idx_s, n, target, alpha)
            wi[WI_LOOKUPS] += n
            fstats[F_ABS_DELTA] += abs(delta)
            fstats[F_STEPS] += 1.0
            if abs(delta) >= DELTA_CLAMP:
                fstats[F_CLAMPED] += 1.0
        for j in range(n):
            idx_s[j] = idx_next[j]
            if learn:  # the next update reads these accumulators: ask for them a move ahead
                prefetch(acc_flat, 2 * idx_next[j])
        done += 1
        carry[C_MOVES] += 1
        if finished(state):
            carry[C_IN_GAME] = 0
            carry[C_GAME] += 1
            carry[C_GAMES_DONE] += 1
            carry[C_SCORE_SUM] += state[ST_SCORE]
    carry[C_LOOKUPS] += wi[WI_LOOKUPS]
    return done


@njit(cache=True)
def play_greedy(tab, bias, spec, seeds, results, trace_u, trace_r, trace_game) -> np.int64:
    """Whole games of greedy one-ply play with frozen tables (no learning).

    ``results[g]`` gets each game's final state (``ST_*``).  For the first
    ``len(trace_u)`` moves overall, ``trace_u[k]`` is ``U(s)`` of the chance
    state the move was chosen from, ``trace_r[k]`` the realised points of the
    move (in rises) and ``trace_game[k]`` the game index.  Returns the moves
    traced.
    """
    work = new_work(spec)
    idx = np.zeros(max(spec[1], 1), dtype=np.int64)
    canon = np.zeros(7, dtype=np.int64)
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(OUT_LEN, dtype=np.int64)
    state = np.zeros(ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    k = 0
    cap = trace_u.shape[0]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        canonicalise(cols, canon)
        m = entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx)
        u = gather(tab, bias, idx, m)
        while not finished(state):
            c, _ = choose_move(tab, bias, spec, cols, state[ST_MOVES_REMAINING],
                               state[ST_NEXT_DISC], work)
            advance(seed, c, state, cols, scratch, out)
            if k < cap:
                trace_u[k] = u
                trace_r[k] = out[OUT_POINTS] / _RISE
                trace_game[k] = g
                k += 1
            if state[ST_GAME_OVER] == 0:
                canonicalise(cols, canon)
                m = entry_indices(canon, state[ST_MOVES_REMAINING], spec, pat, idx)
                u = gather(tab, bias, idx, m)
        results[g, :] = state
    return k


@njit(cache=True)
def collect_boards(tab, bias, spec, seeds, boards, mrs) -> np.int64:
    """Greedy play with frozen tables, recording every afterstate board evaluated.

    ``boards[k]`` (canonical) and ``mrs[k]`` get the chance states whose
    ``U`` the move choices read, in evaluation order, until the buffers are
    full; returns how many were recorded (benchmark input).
    """
    work = new_work(spec)
    sboard, _, smr, scount = work[10:14]
    state = np.zeros(ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(OUT_LEN, dtype=np.int64)
    k = 0
    cap = boards.shape[0]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        new_game(seed, state, cols)
        while not finished(state):
            c, _ = choose_move(tab, bias, spec, cols, state[ST_MOVES_REMAINING],
                               state[ST_NEXT_DISC], work)
            for i in range(7):
                cc = CENTRE[i]
                for s in range(scount[cc]):
                    r = STRATA * cc + s
                    if smr[r] >= 0 and k < cap:
                        boards[k, :] = sboard[r]
                        mrs[k] = smr[r]
                        k += 1
            if k >= cap:
                return k
            advance(seed, c, state, cols, scratch, out)
    return k


@njit(cache=True)
def indices_of(boards, mrs, spec, idx) -> None:
    """``idx[k, :n]`` = entry indices of each canonical board (feature extraction)."""
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    cb = np.zeros(7, dtype=np.int64)
    for k in range(boards.shape[0]):
        for i in range(7):
            cb[i] = boards[k, i]
        _indices_into(cb, mrs[k], spec, pat, idx, k)


@njit(cache=True)
def gather_all(tab, bias, idx, n) -> float:
    """Sum of ``U`` over rows of precomputed indices (table lookups alone)."""
    p0 = 0.0
    p1 = 0.0
    for k in range(idx.shape[0]):
        j = 0
        while j + 1 < n:
            p0 += tab[idx[k, j]]
            p1 += tab[idx[k, j + 1]]
            j += 2
        if j < n:
            p0 += tab[idx[k, j]]
    return p0 + p1 + bias * idx.shape[0]
