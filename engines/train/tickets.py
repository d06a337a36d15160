"""Work tickets: the tasks of a parallel loop, claimed one at a time from a shared counter.

A parallel kernel lists its tasks in a fixed order, grouped in *phases*
(a phase's tasks may run at once; a phase needs every task of the phases
before it done).  Each of its threads loops: take the next ticket
(:func:`claim`, an atomic fetch-and-add on ``sync[NEXT]``), wait until every
ticket of the phases before the ticket's own is done (:func:`wait_done`),
run the task, count it done (:func:`finish`).  A thread that is slow, or
not running at all because another process holds its core, holds up only
the one task it took; the others take the rest, so a round no longer waits
for its slowest thread's share.  No thread waits for another to *arrive*
anywhere (a waiter waits for tasks with smaller tickets, each held by a
thread that is running it or waiting for smaller ones still), so any number
of threads, one included, finishes every task.

Waiting spins for ``SPIN_TICKS`` cycles (a ``pause`` each turn, ``SPIN_TURNS``
turns at most), then naps
``NAP_US`` microseconds at a time: an idle machine's waits are a task long
(microseconds) and never reach the nap, a busy machine's give the core back.

Which thread runs which task is up to the OS; the kernels that use tickets
keep their results independent of it (each task writes its own arrays; see
:mod:`engines.train.lanes`).  ``sync`` is an ``int64`` array of
``SYNC_LEN`` zeros, its two counters on cache lines of their own.
"""

from __future__ import annotations

import platform

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from engines.train.cycles import cycle_counter

#: ``sync[NEXT]``: the next ticket to hand out; ``sync[DONE]``: tickets finished
NEXT, DONE = 0, 8
SYNC_LEN = 16
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
def claim(sync) -> int:
    """The next ticket (every ticket goes to exactly one caller)."""
    return fetch_add(sync, NEXT, 1)


@njit(cache=True, inline="always")
def finish(sync) -> None:
    """Count one task done (after its writes: the count publishes them to its readers)."""
    fetch_add(sync, DONE, 1)


@njit(cache=True)
def wait_done(sync, tickets) -> int:
    """Return once ``tickets`` tasks are done: spin ``SPIN_TICKS`` cycles, then nap. Returns the
    cycles waited."""
    if load_acquire(sync, DONE) >= tickets:
        return 0
    t0 = cycle_counter()
    turns = 0
    while load_acquire(sync, DONE) < tickets:
        if turns < SPIN_TURNS and cycle_counter() - t0 < SPIN_TICKS:
            cpu_relax()
            turns += 1
        else:
            nap(NAP_US)
    return cycle_counter() - t0
