"""Work tickets: a parallel loop's tasks, claimed a few at a time from shared counters.

A parallel kernel lists its tasks in *phases* (a phase's tasks may run at
once; a phase needs every task of the phases before it done), and each phase
in one *range* per worker (:func:`share`).  Each worker, phase after phase:
waits until every task of the phases before is done (:func:`wait_done`, on
the workers' counts of tasks done that :func:`finish` raises), then takes tasks from
its own range's counter (:func:`claim_below`, an atomic compare-and-swap
that never passes the range's end), and when that range is empty, from the
other workers' ranges in turn.  On an idle machine each worker runs its own
range, the same lanes round after round (their rows stay in its cache), and
takes a few of another's at the end; a worker that is slow, or not running
at all because another process holds its core, holds up only the task it
is running, and the others take the rest of its range.  A worker waits only
for tasks already claimed, each by a worker that is running it, and no
worker waits for another to *arrive*, so any number of threads, one
included, finishes every task.

Waiting spins for ``SPIN_TICKS`` cycles (a ``pause`` each turn, ``SPIN_TURNS``
turns at most), then naps ``NAP_US`` microseconds at a time: an idle
machine's waits are a task long (microseconds) and never reach the nap, a
busy machine's give the core back.

Which worker runs which task is up to the OS; the kernels that use tickets
keep their results independent of it (each task writes its own arrays; see
:mod:`engines.train.lanes`).  ``sync`` is an ``int64`` array of
:func:`sync_len` zeros: for each range, a cache line holding its counter
and the count of tasks done by its worker (:func:`done_slot`), which only that
worker writes: a single count that every worker raised after each task would
move from core to core at every task.  A range's counter counts every ticket it handed
out, phase after phase: in a phase it hands out ``base .. base + size - 1``,
``base`` being the sizes of its range in the phases before.
"""

from __future__ import annotations

import platform

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from engines.train.cycles import cycle_counter

#: int64 slots of a cache line
LINE = 8
#: a waiter spins at most this many cycles (tens of microseconds at 2-4 GHz) and this many
#: turns (where the counter reads 0) before it naps
SPIN_TICKS = 100_000
SPIN_TURNS = 4_000
#: one nap of a waiter, in microseconds (the kernel's timer slack adds about 50)
NAP_US = 20
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def _element(context, builder, aryty, ary, index):
    return cgutils.get_item_pointer(context, builder, aryty,
                                    context.make_array(aryty)(context, builder, ary), [index])


@intrinsic
def fetch_add(typingctx, ary, index, value):
    """``ary[index] += value`` atomically (sequentially consistent); the value before."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64 and ary.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element(context, builder, signature.args[0], args[0], args[1])
        val = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return types.int64(ary, index, value), codegen


@intrinsic
def compare_swap(typingctx, ary, index, expected, value):
    """``ary[index] = value`` if it holds ``expected`` (atomically, sequentially consistent);
    True when it did."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64 and ary.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element(context, builder, signature.args[0], args[0], args[1])
        old = context.cast(builder, args[2], signature.args[2], types.int64)
        new = context.cast(builder, args[3], signature.args[3], types.int64)
        pair = builder.cmpxchg(ptr, old, new, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(ary, index, expected, value), codegen


@intrinsic
def load_acquire(typingctx, ary, index):
    """``ary[index]`` read atomically with acquire order (a spin loop re-reads it each turn,
    and no later read moves before it)."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64 and ary.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        ptr = _element(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(ary, index), codegen


@intrinsic
def cpu_relax(typingctx):
    """The spin-wait hint (``pause`` on x86; nothing elsewhere)."""

    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen


@intrinsic
def nap(typingctx, microseconds):
    """Sleep about ``microseconds`` (libc ``usleep``): the core goes to whoever wants it."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32)]), "usleep")
        us = context.cast(builder, args[0], signature.args[0], types.uint32)
        builder.call(fn, [us])
        return context.get_dummy_value()

    return types.none(microseconds), codegen


@njit(cache=True, inline="always")
def sync_len(ranges) -> int:
    """The length of ``sync`` for ``ranges`` ranges."""
    return (ranges + 1) * LINE


@njit(cache=True, inline="always")
def counter(r) -> int:
    """The slot of range ``r``'s counter in ``sync``."""
    return (r + 1) * LINE


@njit(cache=True, inline="always")
def done_slot(w) -> int:
    """The slot of worker ``w``'s count of tasks done: on its own range's line, which only
    it writes until the others run out of work (a count every worker raised would bounce
    between the cores at every task)."""
    return (w + 1) * LINE + 1


@njit(cache=True)
def done_count(sync) -> int:
    """Tasks done, summed over the workers' counts (each read with acquire order; the counts
    only grow, so the sum never exceeds the tasks done)."""
    total = 0
    for w in range(len(sync) // LINE - 1):
        total += load_acquire(sync, done_slot(w))
    return total


@njit(cache=True, inline="always")
def share(total, ranges, r):
    """Range ``r``'s share ``lo .. hi - 1`` of a phase's ``total`` tasks (contiguous, the
    ``ranges`` shares as equal as they can be)."""
    return r * total // ranges, (r + 1) * total // ranges


@njit(cache=True)
def claim_below(sync, r, end) -> int:
    """The next ticket of range ``r`` if it is below ``end`` (it is then taken: every ticket
    goes to exactly one caller); -1 when the range has none left below ``end``."""
    slot = counter(r)
    while True:
        t = load_acquire(sync, slot)
        if t >= end:
            return -1
        if compare_swap(sync, slot, t, t + 1):
            return t


@njit(cache=True)
def take(sync, w, workers, sizes, cycle, phase, j):
    """Worker ``w``'s next task of phase ``phase`` of cycle ``cycle`` (the phases of sizes
    ``sizes`` repeat each cycle: a kernel's round), trying its own range and then the others',
    from the ``j``-th after its own (start at 0); returns ``(task, j)``, the task's index in
    its phase and where to go on, or ``(-1, workers)`` when the phase has no task left."""
    while j < workers:
        r = (w + j) % workers
        before = 0
        per_cycle = 0
        for p in range(len(sizes)):
            lo, hi = share(sizes[p], workers, r)
            before += (hi - lo) if p < phase else 0
            per_cycle += hi - lo
        lo, hi = share(sizes[phase], workers, r)
        base = cycle * per_cycle + before  # range r's tickets of the phases before this one
        t = claim_below(sync, r, base + hi - lo)
        if t >= 0:
            return lo + t - base, j
        j += 1
    return -1, j


@njit(cache=True, inline="always")
def finish(sync, w) -> None:
    """Count one task done by worker ``w`` (after its writes: the count publishes them to
    its readers)."""
    fetch_add(sync, done_slot(w), 1)


@njit(cache=True)
def wait_done(sync, tickets, nap_us=NAP_US) -> int:
    """Return once ``tickets`` tasks are done: spin ``SPIN_TICKS`` cycles, then nap ``nap_us``
    microseconds at a time. Returns the cycles waited."""
    if done_count(sync) >= tickets:
        return 0
    t0 = cycle_counter()
    turns = 0
    while done_count(sync) < tickets:
        if turns < SPIN_TURNS and cycle_counter() - t0 < SPIN_TICKS:
            cpu_relax()
            turns += 1
        else:
            nap(nap_us)
    return cycle_counter() - t0
