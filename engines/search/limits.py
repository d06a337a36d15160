"""The search's depth, strata and reveals bounds (no numba: the policy grammar reads them)."""

#: deepest search (plies)
MAX_DEPTH = 6
#: most strata a chance node samples
MAX_STRATA = 64
#: most reveal samples per disc stratum: the register's widest arm (N7M12); at S = 7 every
#: (next disc, first reveal) pair of values has a sample from M = 7 on (docs/search.md)
MAX_REVEALS = 12
