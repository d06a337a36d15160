"""Game engine, evaluators, training and search (numba where it is hot)."""

from engines import numba_cache

numba_cache.refresh()
