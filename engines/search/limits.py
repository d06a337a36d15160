"""The search's depth and strata bounds (no numba: the policy grammar checks against them)."""

#: deepest search (plies)
MAX_DEPTH = 6
#: most strata a chance node samples
MAX_STRATA = 64
