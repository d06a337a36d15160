"""The root filters a search or direct arm may declare, by name (no numba).

A root filter reads the public state at a decision (board and next disc) and
refuses some legal columns; the search then ranks only the others
(:mod:`engines.filters.root`).  The grammar (``f=NAME``, :mod:`engines.play.policy_grammar`)
and the declarations (``filter: NAME``, :mod:`protocol.arms`) read this table,
so a new filter is one entry here, its rule's module and its kernel in
:data:`engines.filters.root.KERNELS`.
"""

from __future__ import annotations

#: every root filter by name, with what it refuses in one line
ROOT_FILTERS: dict[str, str] = {
    "survival": "a disc of value n >= 3 landing as the (n+1)-th disc of its column or higher "
                "(it can no longer clear vertically) on a row run already longer than n "
                "(nor horizontally): the register's survival instinct, strict form",
}
