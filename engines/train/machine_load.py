"""Whether the machine has more runnable threads than cores: the lane trainer's signal for
stepping a thread aside and for bringing it back.

Linux counts, in the fourth field of ``/proc/loadavg`` (``running/total``), the
threads that are running or waiting for a core at the moment of the read.  A
lane thread reads it from compiled code (libc ``open``, ``read``, ``close``):
when the count, itself included, is at most the machine's cores, every
runnable thread has a core and a slow task was the host's hiccup, not another
process wanting this core; when it is above, some thread waits for a core,
and one of ours stepping aside gives it one.  The count is the whole machine's,
so on a node whose cores are split among jobs it can call the machine busy
while ours are free: the trainer then falls back on its timed trials
(:mod:`engines.train.lanes`), never on the count alone.  Where there is no
such file (not Linux), :func:`runnable_threads` returns -1 and the trainer
uses the trials only.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: bytes a read of the count file takes (``/proc/loadavg`` is one short line)
BUF_LEN = 128
#: the count's field: after this many spaces
_FIELD = 3
_SPACE, _SLASH, _ZERO, _NINE = 32, 47, 48, 57


def count_file() -> np.ndarray:
    """The NUL-terminated path of the count file as bytes for compiled code: ``/proc/loadavg``
    on Linux, else an empty path (no file: no signal)."""
    path = b"/proc/loadavg" if sys.platform.startswith("linux") else b""
    return np.frombuffer(path + b"\0", dtype=np.uint8).copy()


def path_bytes(path: str) -> np.ndarray:
    """Any file's path as :func:`runnable_threads` reads it (tests give it a file of their own)."""
    return np.frombuffer(path.encode() + b"\0", dtype=np.uint8).copy()


def _data_pointer(context, builder, aryty, ary):
    return builder.bitcast(context.make_array(aryty)(context, builder, ary).data,
                           ir.IntType(8).as_pointer())


@intrinsic
def _open_read(typingctx, path):
    """libc ``open(path, O_RDONLY)`` of a NUL-terminated ``uint8`` array; the descriptor or -1."""
    if not (isinstance(path, types.Array) and path.dtype == types.uint8):
        return None

    def codegen(context, builder, signature, args):
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i8p, i32], var_arg=True), "open")
        fd = builder.call(fn, [_data_pointer(context, builder, signature.args[0], args[0]),
                               i32(0)])
        return builder.sext(fd, ir.IntType(64))

    return types.int64(path), codegen


@intrinsic
def _read(typingctx, fd, buf):
    """libc ``read(fd, buf, len(buf))`` into a ``uint8`` array; the bytes read or -1."""
    if not (isinstance(buf, types.Array) and buf.dtype == types.uint8):
        return None

    def codegen(context, builder, signature, args):
        i8p, i32, i64 = ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i32, i8p, i64]), "read")
        aryty = signature.args[1]
        nitems = cgutils.unpack_tuple(builder, context.make_array(aryty)(context, builder,
                                                                         args[1]).shape, 1)[0]
        return builder.call(fn, [builder.trunc(args[0], i32),
                                 _data_pointer(context, builder, aryty, args[1]), nitems])

    return types.int64(fd, buf), codegen


@intrinsic
def _close(typingctx, fd):
    """libc ``close(fd)``."""

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i32, [i32]),
                                            "close")
        builder.call(fn, [builder.trunc(args[0], i32)])
        return context.get_dummy_value()

    return types.none(fd), codegen


@njit(cache=True)
def runnable_threads(path, buf) -> int:
    """The machine's runnable threads now (the caller included), from the count file ``path``
    (:func:`count_file`) read into ``buf``; -1 when there is no such file or no count in it."""
    fd = _open_read(path)
    if fd < 0:
        return -1
    n = _read(fd, buf)
    _close(fd)
    spaces = 0
    value = 0
    digits = 0
    for k in range(max(n, 0)):
        c = np.int64(buf[k])
        if spaces < _FIELD:
            if c == _SPACE:
                spaces += 1
        elif _ZERO <= c <= _NINE:
            value = value * 10 + c - _ZERO
            digits += 1
        else:
            return value if c == _SLASH and digits > 0 else -1
    return -1


@njit(cache=True)
def crowded(path, buf, cores) -> int:
    """1 when more threads are runnable than the machine has ``cores`` (someone waits for a
    core), 0 when each has one, -1 when the machine does not say."""
    n = runnable_threads(path, buf)
    if n < 0:
        return -1
    return 1 if n > cores else 0
