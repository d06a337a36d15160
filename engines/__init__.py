"""Game engine, evaluators, training and search (numba where it is hot)."""

from engines import numba_cache, threads

threads.block_while_waiting()
numba_cache.refresh()
