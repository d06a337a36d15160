"""TC-TD(0) training in L lanes: L games side by side, tables independent of the thread count.

Lane ``l`` of ``L`` plays games ``first_game + l, first_game + l + L, ...``
of the seed range (its own ``carry``, ``state`` and ``cols`` rows).  One
*round* is one move of every lane, in two phases:

1. **Choose** (tables read only), in tasks of ``CHUNK`` lanes.  Each lane
   chooses its move exactly as :mod:`engines.train.kernel` does, plays it,
   computes its target, reads its prediction ``U(s)`` and its clamped
   ``delta``, and lists the entries of ``s`` to update, sorted (stably) by
   the *part* that owns each entry.  Every read sees the tables as they stand
   at the round's start.
2. **Learn**, one task per part.  Table entries are partitioned into
   ``parts`` by a hash of their 64-entry block (256 bytes of values, 512 of
   accumulators: no cache line is written by two parts).  Part ``p`` walks
   lanes ``0 .. L-1`` in order and applies each lane's update to the entries
   it owns, in the lane's own entry order: ``beta = |E| / A`` (1 while
   ``A == 0``), ``w += alpha * beta * delta / (N * c)``, ``E += delta``,
   ``A += |delta|``, where ``c`` is the number of lanes whose update in the
   round writes the entry.  The round's steps to a shared entry thus average
   instead of adding up: added, the steps of L lanes computed against one
   stale value overshoot (docs/training.md, "Lanes", has the measurement).
   One more task adds the round's deltas to ``fstats``, lane by lane.

The threads take the tasks by ticket (:mod:`engines.train.tickets`), each
its own range of a phase first (the same lanes every round, so their rows
stay in its cache), then what is left of the others': a thread that another
process keeps off its core holds up only the task it is running, not a
share of the round.  A choose
task writes only its own lanes' rows (and the scratch of the thread running
it, which no later task reads); a learn task writes only its own part's
entries, in lane order.  Every entry therefore receives the same updates in
the same order (lane order, then entry order) and the same ``c`` whatever
``parts`` is and whichever thread runs which task: the tables depend on L
and the seeds, never on the thread count or the scheduling.  With one lane a
round is one sequential move (the prediction is read after the choice,
before any update, as :func:`engines.train.kernel.td_update` reads it, and
``c = 1``), so ``L = 1`` gives the tables of
:func:`engines.train.kernel.train_moves` bit for bit.  With L lanes a lane's
reads are up to ``L - 1`` updates stale (those of the lanes before it in the
same round).

The threads' time is counted with the cycle counter (``ticks[T_CHOOSE]``,
``ticks[T_LEARN]``, ``ticks[T_WAIT]``) for ``drop7 bench train --lanes``.
"""

from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit, prange

from engines.drop7.chance import canonicalise
from engines.drop7.core import (
    OUT_LEN,
    SCRATCH_LEN,
    ST_MOVES_REMAINING,
    ST_SCORE,
    finished,
)
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import entry_indices, gather, prefetch_write
from engines.train.cycles import cycle_counter
from engines.train.entries import layout_maps
from engines.train.kernel import (
    C_GAME,
    C_GAMES_DONE,
    C_IN_GAME,
    C_LOOKUPS,
    C_MOVES,
    C_SCORE_SUM,
    WI_LOOKUPS,
    _seed_of,
    clamp_delta,
    count_delta,
    move_scratch,
    play_move_target,
    tc_entry,
)
from engines.train.machine_load import BUF_LEN, count_file, crowded, path_bytes
from engines.train.tickets import (
    LINE,
    NAP_US,
    compare_swap,
    done_count,
    fetch_add,
    finish,
    load_acquire,
    nap,
    sync_len,
    take,
    wait_done,
)

#: a worker's scratch is row 0 of ``PAD`` rows, so two workers' rows never share a cache line
PAD = 8
#: entries are owned in blocks of 2^6 = 64 (whole cache lines of values and accumulators)
BLOCK_SHIFT = 6
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def owner(i, parts) -> np.int64:
    """The part (``0 .. parts-1``) that writes entry ``i``: a Fibonacci hash of its block."""
    h = np.uint64(i >> BLOCK_SHIFT) * _GOLDEN
    return np.int64(((h >> np.uint64(32)) * np.uint64(parts)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def group_by_part(idx, n, parts, upd_idx, upd_off) -> None:
    """A stable counting sort of the ``n`` entries ``idx`` by owning part: part ``p``'s are
    ``upd_idx[upd_off[p]:upd_off[p + 1]]``, in their order in ``idx``."""
    for p in range(parts + 1):
        upd_off[p] = 0
    for j in range(n):
        upd_off[owner(idx[j], parts) + 1] += 1
    for p in range(parts):
        upd_off[p + 1] += upd_off[p]
    for j in range(n):
        p = owner(idx[j], parts)
        upd_idx[upd_off[p]] = idx[j]
        upd_off[p] += 1
    for p in range(parts, 0, -1):
        upd_off[p] = upd_off[p - 1]
    upd_off[0] = 0


@njit(cache=True, _nrt=False)
def _lane_move(vals, bias, spec, n, seed_start, seed_count, stride, carry, state, cols, wi,
               wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard, sres, sinfo, sidx, sval,
               spts, scount, soff, jslot, cs, cw, cn, canon, pat, scratch, out, idx_s, idx_next,
               parts, upd_idx, upd_off, upd_delta, lane) -> None:
    """One move of one lane against the tables as they stand (the choose phase).

    ``carry``, ``state``, ``cols`` and ``idx_s`` are the lane's own; every
    other array is the worker's scratch (nothing in it outlives the move).
    Leaves the update in ``upd_idx`` (the entries of ``s``, grouped by owning
    part, each group in entry order; part ``p``'s are ``upd_off[p] ..
    upd_off[p + 1] - 1``) and ``upd_delta[lane]``.
    """
    looked = wi[WI_LOOKUPS]
    target = play_move_target(
        vals, bias, n, spec, pat, _seed_of(seed_start, seed_count, carry[C_GAME]), carry, state,
        cols, canon, idx_s, idx_next, scratch, out, wi, wcanon, tmp, base0, base1, bidx,
        wscratch, wout, sboard, sres, sinfo, sidx, sval, spts, scount, soff, jslot, cs, cw, cn)
    upd_delta[lane] = clamp_delta(target - gather(vals, bias, idx_s, n))
    carry[C_LOOKUPS] += wi[WI_LOOKUPS] - looked + n
    group_by_part(idx_s, n, parts, upd_idx, upd_off)
    for j in range(n):
        idx_s[j] = idx_next[j]
    carry[C_MOVES] += 1
    if finished(state):
        carry[C_IN_GAME] = 0
        carry[C_GAME] += stride
        carry[C_GAMES_DONE] += 1
        carry[C_SCORE_SUM] += state[ST_SCORE]


#: a slot of a part's count table: its entry (-1: empty) and ``lane << LANE_SHIFT | count``
SLOT_KEY, SLOT_TAG = 0, 1
LANE_SHIFT = 32
COUNT_MASK = (1 << LANE_SHIFT) - 1
#: how many updates ahead the learn phase prefetches an entry's value and accumulators
PREFETCH_AHEAD = 16


@njit(cache=True, inline="always")
def _slot(table, i, mask) -> np.int64:
    """The slot of entry ``i`` in a part's open-addressing table (its own, or the first empty)."""
    h = np.int64(((np.uint64(i) * _GOLDEN) >> np.uint64(40)) & np.uint64(mask))
    while table[h, SLOT_KEY] != -1 and table[h, SLOT_KEY] != i:
        h = (h + 1) & mask
    return h


@njit(cache=True, _nrt=False)
def learn_part(vals, acc, acc_flat, upd_idx, upd_off, upd_delta, alpha, n, part, table,
               seq) -> None:
    """The learn phase of one part: every lane's update to the entries it owns, lane by lane.

    First pass: list the part's updates in order (``seq``: entry, slot, lane) and count, for
    each entry, the lanes of the round that update it (``table``, a small open-addressing
    table, empty again on return), prefetching the first ``PREFETCH_AHEAD`` entries as they
    are listed.  Second pass: apply them, prefetching ``PREFETCH_AHEAD`` updates ahead for
    writing, each value step divided by its entry's lane count: the
    round's steps to an entry several lanes share average instead of adding up (one lane:
    divided by 1, the sequential trainer's step).
    """
    lanes = upd_delta.shape[0]
    mask = table.shape[0] - 1
    total = 0
    for lane in range(lanes):
        for k in range(upd_off[lane, part], upd_off[lane, part + 1]):
            i = upd_idx[lane, k]
            h = _slot(table, i, mask)
            if table[h, SLOT_KEY] == -1:
                table[h, SLOT_KEY] = i
                table[h, SLOT_TAG] = (lane << LANE_SHIFT) | 1
            elif table[h, SLOT_TAG] >> LANE_SHIFT != lane:
                table[h, SLOT_TAG] = (lane << LANE_SHIFT) | ((table[h, SLOT_TAG] & COUNT_MASK) + 1)
            seq[total, 0] = i
            seq[total, 1] = h
            seq[total, 2] = lane
            if total < PREFETCH_AHEAD:  # the first updates' fetches overlap the listing
                prefetch_write(vals, i)
                prefetch_write(acc_flat, 2 * i)
            total += 1
    for j in range(total):
        if j + PREFETCH_AHEAD < total:
            prefetch_write(vals, seq[j + PREFETCH_AHEAD, 0])
            prefetch_write(acc_flat, 2 * seq[j + PREFETCH_AHEAD, 0])
        delta = upd_delta[seq[j, 2]]
        count = table[seq[j, 1], SLOT_TAG] & COUNT_MASK
        tc_entry(vals, acc, seq[j, 0], alpha * delta / n / count, delta, abs(delta))
    for j in range(total):
        table[seq[j, 1], SLOT_KEY] = -1


@njit(cache=True, _nrt=False)
def _choose_lanes(vals, bias, spec, n, seed_start, seed_count, carry, state, cols, idx_s, parts,
                  upd_idx, upd_off, upd_delta, wk, soff, jslot, cs, cw, cn, w, first,
                  last) -> None:
    """The choose phase of lanes ``first .. last - 1``, one after the other, with worker
    ``w``'s scratch ``wk[k][w, 0]`` (so the scratch stays in cache however many lanes there
    are, and no cache line of it is written by two workers)."""
    (wi, wcanon, tmp, base0, base1, bidx, wscratch, wout, sboard, sres, sinfo, sidx, sval, spts,
     scount, canon, pat, scratch, out, idx_next) = wk
    lanes = carry.shape[0]
    for lane in range(first, last):
        _lane_move(vals, bias, spec, n, seed_start, seed_count, np.int64(lanes), carry[lane],
                   state[lane], cols[lane], wi[w, 0], wcanon[w, 0], tmp[w, 0], base0[w, 0],
                   base1[w, 0], bidx[w, 0], wscratch[w, 0], wout[w, 0], sboard[w, 0],
                   sres[w, 0], sinfo[w, 0], sidx[w, 0], sval[w, 0], spts[w, 0], scount[w, 0],
                   soff, jslot, cs, cw, cn, canon[w, 0], pat[w, 0], scratch[w, 0], out[w, 0],
                   idx_s[lane], idx_next[w, 0], parts, upd_idx[lane], upd_off[lane], upd_delta,
                   lane)


#: lanes per choose task (small, so the phase ends at most a couple of moves after its
#: last thread could start no more work)
CHUNK = 2
#: learn parts per thread of numba's pool (:func:`learn_parts`): several, so a free thread
#: takes over parts; at most ``MAX_PARTS`` (each lane's entries are sorted by part, each part
#: walks every lane)
PARTS_PER_THREAD = 8
MAX_PARTS = 64
#: a worker's cycle counts (``wticks[w, 0]``): choosing, learning, waiting, sitting out, and
#: the rounds it sat out
T_CHOOSE, T_LEARN, T_WAIT, T_SIT, T_SAT = range(5)
TICKS_LEN = 5
#: a task whose wall time passes both ``SLOW_TICKS`` cycles (a few hundred microseconds) and
#: ``SLOW_FACTOR`` times the worker's usual task of its phase was descheduled while it ran
SLOW_TICKS = 1_000_000
SLOW_FACTOR = 16
#: rounds a descheduled worker sits out; doubled (up to ``MAX_SIT``) when it is descheduled
#: again within ``4 x`` its last sit-out's rounds of rejoining, else back to ``SIT_ROUNDS``
SIT_ROUNDS = 8
MAX_SIT = 4096
#: a sitting worker's nap between looks at the round count, in microseconds: ``SIT_NAP_US``
#: for a sit-out of ``SIT_ROUNDS``, as much longer as the sit-out is, at most ``MAX_NAP_US``
SIT_NAP_US = 2000
MAX_NAP_US = 20_000
#: a worker's sitting-out state between calls (``sitting[w, 0]``, :func:`new_sitting`): the
#: team's last sit-out's length and the rounds since a sitter came back (the same in every
#: row), the rounds it still owes, and its usual task cycles of each phase, so a training cut
#: into calls keeps what it learnt of the machine
S_SIT, S_SINCE, S_OWED, S_USUAL0, S_USUAL1 = range(5)
SCHED_LEN = 5
#: the team's doubling within a call (``ladder``, a cache line of its own): the last sit-out's
#: length, and the round a sitter last came back (negative: in an earlier call)
L_SIT, L_BACK = 0, 1


def new_sitting() -> np.ndarray:
    """A fresh sitting-out state for every thread numba may run (:func:`train_rounds`)."""
    sitting = np.zeros((numba.config.NUMBA_NUM_THREADS, PAD, SCHED_LEN), dtype=np.int64)
    sitting[:, 0, S_SIT] = SIT_ROUNDS
    sitting[:, 0, S_SINCE] = 4 * MAX_SIT
    return sitting


def learn_parts() -> int:
    """The learn phase's parts: from the size of numba's pool, not from the threads a call
    runs, so a round is the same tasks with one thread or two, and a thread that sits out
    leaves the other exactly the work of one thread alone (the tables depend on neither)."""
    return min(PARTS_PER_THREAD * max(int(numba.config.NUMBA_NUM_THREADS), 1), MAX_PARTS)


@njit(cache=True, _nrt=False)
def _worker(vals, acc, acc_flat, bias, spec, alpha, n, seed_start, seed_count, carry, state, cols,
            idx_s, parts, upd_idx, upd_off, upd_delta, wk, soff, jslot, cs, cw, cn, tables, seqs,
            fstats, n_rounds, sync, seats, ladder, wticks, sitting, w, workers, slow_ticks,
            load_path, load_buf, cores) -> None:
    """Worker ``w``'s part of ``n_rounds`` rounds, by ticket (:mod:`engines.train.tickets`).

    A round is two phases: its choose tasks (``CHUNK`` lanes each), then its learn tasks
    (``parts`` parts, then the round's ``fstats``, lane by lane), each phase in ``workers``
    ranges; the worker takes its own range's tasks first, then the others'.  ``w`` names
    this worker's scratch, ``tables[w]`` and ``seqs[w]`` (a learn part's count table and
    update list) included: a task leaves nothing in it that the next task reads.

    A task that took more than ``slow_ticks`` cycles and ``SLOW_FACTOR`` times the worker's
    usual one was descheduled while it ran: unless the machine has a core for every runnable
    thread (:func:`engines.train.machine_load.crowded`: then it was a hiccup of the host), the
    worker sits out the rest of the round and the next ``SIT_ROUNDS`` (doubling while it
    keeps being descheduled), napping, so the others run every task and the OS can give them
    the free cores (:func:`_sit_out`).  ``seats[0]`` counts the workers sitting out; one
    always stays.  The doubling is the team's (``ladder``: the last sit-out's length and the
    round a sitter last came back), not the worker's: which thread shares its core with the
    competitor changes as the OS places the threads at each call, and a thread new to the
    held core must not start the doubling again from ``SIT_ROUNDS``.  The rounds of a sit-out
    the call's end cut short (:func:`train_rounds` runs the next calls without it) and the
    worker's usual task cycles carry over to the next call in ``sitting[w, 0]``.
    """
    lanes = carry.shape[0]
    chunks = (lanes + CHUNK - 1) // CHUNK
    sizes = (chunks, parts + 1)
    per_round = chunks + parts + 1
    ticks = wticks[w, 0]
    own = sitting[w, 0]
    usual0, usual1 = own[S_USUAL0], own[S_USUAL1]  # a moving mean of each phase's task cycles
    i = 0
    while i < n_rounds:
        first = 0  # the phase's first task in the round
        slow = False
        for phase in range(2):
            ticks[T_WAIT] += wait_done(sync, i * per_round + first)
            j = 0
            while not slow:
                k, j = take(sync, w, workers, sizes, i, phase, j)
                if k < 0:
                    break
                t0 = cycle_counter()
                if phase == 0:
                    _choose_lanes(vals, bias, spec, n, seed_start, seed_count, carry, state, cols,
                                  idx_s, parts, upd_idx, upd_off, upd_delta, wk, soff, jslot, cs,
                                  cw, cn, w, k * CHUNK, min((k + 1) * CHUNK, lanes))
                elif k < parts:
                    learn_part(vals, acc, acc_flat, upd_idx, upd_off, upd_delta, alpha, n, k,
                               tables[w], seqs[w])
                else:
                    for lane in range(lanes):
                        count_delta(fstats, upd_delta[lane])
                dt = cycle_counter() - t0
                finish(sync, w)
                ticks[T_CHOOSE if phase == 0 else T_LEARN] += dt
                usual = usual0 if phase == 0 else usual1
                if dt > slow_ticks and dt > SLOW_FACTOR * usual and workers > 1:
                    # a hiccup of the host leaves every runnable thread a core: no sit-out
                    slow = (crowded(load_path, load_buf[w], cores) != 0
                            and _take_seat(seats, workers))
                elif phase == 0:
                    usual0 = dt if usual0 == 0 else (7 * usual0 + dt) // 8
                else:
                    usual1 = dt if usual1 == 0 else (7 * usual1 + dt) // 8
            if slow:
                break
            first += sizes[phase]
        if not slow:
            i += 1
            continue
        sit = load_acquire(ladder, L_SIT)
        sit = min(2 * sit, MAX_SIT) if i - load_acquire(ladder, L_BACK) < 4 * sit else SIT_ROUNDS
        ladder[L_SIT] = sit
        back = i + 1 + sit
        until = min(back, n_rounds)
        i = _sit_out(sync, seats, ticks, i, until, per_round, sit, load_path, load_buf[w], cores)
        own[S_OWED] = max(back - n_rounds, 0) if i == until else 0
        ladder[L_BACK] = i
    own[S_USUAL0], own[S_USUAL1] = usual0, usual1


@njit(cache=True, _nrt=False)
def _sit_out(sync, seats, ticks, i, back, per_round, sit, load_path, load_buf,
             cores) -> np.int64:
    """Sit out from round ``i`` to round ``back``, give the seat back, and return the round
    to go on from: ``back``, or the round under way when the machine, looked at after each
    nap, no longer has a thread waiting for a core (:func:`engines.train.machine_load.crowded`).

    A nap lasts ``SIT_NAP_US``, as much longer as the sit-out ``sit`` is (at most
    ``MAX_NAP_US``), and never more than half the time the rounds still to wait for should
    take at the pace of the naps before (at least ``NAP_US``): the sitter comes back within
    a short nap of ``back``, which matters most when ``back`` ends the call."""
    t0 = cycle_counter()
    target = back * per_round
    longest = min(SIT_NAP_US * max(sit // SIT_ROUNDS, 1), MAX_NAP_US)
    us = longest
    last = done_count(sync)
    resume = back
    while last < target:
        nap(us)
        done = done_count(sync)
        if done >= target:
            break
        if crowded(load_path, load_buf, cores) == 0:
            resume = max(done // per_round, i)
            break
        if done > last:
            us = max(min(longest, us * (target - done) // (2 * (done - last))), NAP_US)
        last = done
    ticks[T_SIT] += cycle_counter() - t0
    ticks[T_SAT] += resume - i
    fetch_add(seats, 0, -1)
    return resume


@njit(cache=True, inline="always")
def _take_seat(seats, workers) -> bool:
    """Whether this worker may sit out: fewer than ``workers - 1`` sit already (then it counts
    itself in ``seats[0]``)."""
    while True:
        s = load_acquire(seats, 0)
        if s >= workers - 1:
            return False
        if compare_swap(seats, 0, s, s + 1):
            return True


def train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                 n_rounds, parts, fstats, ticks, slow_ticks: int = SLOW_TICKS,
                 sitting: np.ndarray | None = None, cores: int | None = None,
                 count_path: str | None = None) -> int:
    """Train ``n_rounds`` rounds of ``L = carry.shape[0]`` lanes; returns the moves played.

    ``carry[l]`` (``C_*``), ``state[l]`` and ``cols[l]`` are lane ``l``'s
    position and game, updated in place (calling this in chunks equals one
    call).  ``parts`` (at least 1) is the number of entry parts of the learn
    phase (:func:`learn_parts`); the tables depend neither on it nor on the
    thread count.  The rounds run on every thread numba has, a descheduled one sitting out
    rounds (:func:`_worker`; ``slow_ticks`` 0 makes every worker but one sit out after each
    task it runs, as tests do to show the bits do not move).  ``sitting`` (:func:`new_sitting`)
    keeps each worker's sitting-out state from one call to the next, so a training cut into
    calls does not learn again, call after call, that a core is taken (None: a fresh state).
    A worker sits out only while the machine has more runnable threads than ``cores`` (None:
    its cores; 0, as tests give, calls it always crowded) or does not say, as the count file
    ``count_path`` tells (None: the machine's; :mod:`engines.train.machine_load`).

    A worker whose sit-out the last call's end cut short *rests*: while the machine stays
    crowded for the whole team (or does not say), the call runs on the other threads only,
    and what it still owes shrinks by the call's rounds.  Its thread is then not even woken,
    so a call with a core held is one thread's call, without the cost of starting and ending
    a parallel region with a sleeping thread in it every half second.
    ``ticks[T_CHOOSE]``, ``ticks[T_LEARN]``, ``ticks[T_WAIT]`` and ``ticks[T_SIT]``
    accumulate the cycles the threads spent choosing, learning, waiting and sitting out
    (summed over the threads), ``ticks[T_SAT]`` the rounds they sat out (resting ones
    included).
    """
    sitting = new_sitting() if sitting is None else sitting
    path = count_file() if count_path is None else path_bytes(count_path)
    cores = (os.cpu_count() or 1) if cores is None else cores
    workers = numba.get_num_threads()
    owed = sitting[:workers, 0, S_OWED]
    resting = np.flatnonzero(owed > 0)
    # the reader is one of the team: the others would add workers - 1 runnable threads
    if (0 < len(resting) < workers
            and crowded(path, np.zeros(BUF_LEN, dtype=np.uint8), cores - (workers - 1)) != 0):
        active = np.flatnonzero(owed == 0)
        team = sitting[active]
        numba.set_num_threads(len(active))
        try:
            moves = _train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry,
                                  state, cols, n_rounds, parts, fstats, ticks, team,
                                  len(active), slow_ticks, path, cores)
        finally:
            numba.set_num_threads(workers)
        sitting[active] = team
        owed[resting] = np.maximum(owed[resting] - n_rounds, 0)
        ticks[T_SAT] += n_rounds * len(resting)
        return int(moves)
    owed[:] = 0
    return int(_train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry,
                             state, cols, n_rounds, parts, fstats, ticks, sitting, workers,
                             slow_ticks, path, cores))


@njit(cache=True, parallel=True)
def _train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                  n_rounds, parts, fstats, ticks, sitting, workers, slow_ticks, load_path,
                  cores) -> np.int64:
    """:func:`train_rounds` on ``workers`` workers (numba's thread count: one each)."""
    lanes = carry.shape[0]
    n = spec[1]
    m = max(n, 1)
    soff, jslot, cs, cw, cn = layout_maps(spec)
    wk = move_scratch((workers, PAD)) + (
          np.zeros((workers, PAD, 7), dtype=np.int64),
          np.zeros((workers, PAD, N_SLOTS), dtype=np.int64),
          np.zeros((workers, PAD, 2 * SCRATCH_LEN), dtype=np.int64),
          np.zeros((workers, PAD, OUT_LEN), dtype=np.int64),
          np.zeros((workers, PAD, m), dtype=np.int64))
    canon0, pat0 = wk[15][0, 0], wk[16][0, 0]
    idx_s = np.zeros((lanes, m), dtype=np.int64)
    upd_idx = np.zeros((lanes, m), dtype=np.int64)
    upd_off = np.zeros((lanes, parts + 1), dtype=np.int64)
    seqs = np.zeros((workers, lanes * m, 3), dtype=np.int64)
    # more slots than a round has updates: a part's table never fills
    size = 1 << max(int(np.ceil(np.log2(lanes * m + 1))), 6)
    tables = np.full((workers, size, 2), -1, dtype=np.int64)
    upd_delta = np.zeros(lanes)
    acc_flat = acc.reshape(acc.shape[0] * acc.shape[1])
    sync = np.zeros(sync_len(workers), dtype=np.int64)
    seats = np.zeros(LINE, dtype=np.int64)
    ladder = np.zeros(LINE, dtype=np.int64)
    ladder[L_SIT] = SIT_ROUNDS
    ladder[L_BACK] = -4 * MAX_SIT
    for w in range(workers):  # a resting row came back at this call's start at the latest
        ladder[L_SIT] = max(ladder[L_SIT], sitting[w, 0, S_SIT])
        ladder[L_BACK] = max(ladder[L_BACK], -sitting[w, 0, S_SINCE])
    wticks = np.zeros((workers, PAD, TICKS_LEN), dtype=np.int64)
    load_buf = np.zeros((workers, BUF_LEN), dtype=np.uint8)
    for lane in range(lanes):
        if carry[lane, C_IN_GAME]:
            canonicalise(cols[lane], canon0)
            entry_indices(canon0, state[lane, ST_MOVES_REMAINING], spec, pat0, idx_s[lane])
    for w in prange(workers):
        _worker(vals, acc, acc_flat, bias, spec, alpha, n, seed_start, seed_count, carry, state,
                cols, idx_s, parts, upd_idx, upd_off, upd_delta, wk, soff, jslot, cs, cw, cn,
                tables, seqs, fstats, n_rounds, sync, seats, ladder, wticks, sitting, w,
                workers, slow_ticks, load_path, load_buf, cores)
    for w in range(workers):
        for k in range(TICKS_LEN):
            ticks[k] += wticks[w, 0, k]
        sitting[w, 0, S_SIT] = ladder[L_SIT]
        sitting[w, 0, S_SINCE] = min(n_rounds - ladder[L_BACK], 4 * MAX_SIT)
    return n_rounds * lanes
