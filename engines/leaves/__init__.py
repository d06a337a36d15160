"""Leaf evaluators for search: the frozen fair leaf ``linear`` (18 terms).

:mod:`engines.leaves.linear` is the fast numba leaf used in search;
:mod:`engines.leaves.linear_ref` is its readable twin; ``drop7 leaf-terms``
(:mod:`engines.leaves.cli`) prints the terms and value of given states;
:mod:`engines.leaves.linear_weights` loads the weights of ``linear-trained:PATH``.
"""
