"""The cycle counter the lane trainer times its phases and waits with (``readcyclecounter``)."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def cycle_counter(typingctx):
    """LLVM ``readcyclecounter`` (the time-stamp counter on x86; 0 where there is none)."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen
